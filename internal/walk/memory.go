package walk

import "strings"

// memory holds the posts a walk yielded last, in the order it yielded them:
// the anchor, the posts before it, and enough of them to recognise the
// pages a search for the anchor reads. A post is known by its ID, byte for
// byte: no hash stands for it, so no post is ever taken for another.
//
// It holds at most size posts: a walk's memory grows with the posts it
// has yielded, up to size, and no further with the list. A post older than
// that is forgotten; a page that holds only such posts is one the walk
// cannot place, and it reads again. Which repeats this lets through is the
// package documentation's "What the memory holds".
type memory struct {
	size  int
	seq   map[string]int // ID → the order it was yielded in, from 1
	ring  []string       // the last size IDs yielded, oldest at head
	head  int
	added int // posts added, the order of the last; 0 before the first
}

// newMemory returns an empty memory of at most size posts: nothing is
// allocated for posts not yet yielded.
func newMemory(size int) memory {
	return memory{size: size, seq: map[string]int{}}
}

// add records id as the next post yielded and returns its order. The
// oldest post is forgotten once the memory is full. The memory keeps a
// copy of id: the page's own strings, which may share one allocation
// with all the page's text, are not kept alive by it.
func (m *memory) add(id string) int {
	id = strings.Clone(id)
	m.added++
	if len(m.ring) < m.size {
		m.ring = append(m.ring, id)
	} else {
		old := m.ring[m.head]
		if m.seq[old] == m.added-m.size {
			delete(m.seq, old)
		}
		m.ring[m.head] = id
		m.head = (m.head + 1) % m.size
	}
	m.seq[id] = m.added
	return m.added
}

// lastID returns the ID of the last post yielded, as the memory keeps it.
func (m *memory) lastID() string {
	if len(m.ring) < m.size {
		return m.ring[len(m.ring)-1]
	}
	return m.ring[(m.head+m.size-1)%m.size]
}

// order returns the order id was yielded in, if the memory still holds it.
func (m *memory) order(id string) (int, bool) {
	s, ok := m.seq[id]
	return s, ok
}

// holds reports whether the memory still holds id.
func (m *memory) holds(id string) bool {
	_, ok := m.seq[id]
	return ok
}
