package ugctest

import (
	"math/bits"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
)

// A label index answers a filtered posts list without scanning the posts:
// for each available label, a bitset over the positions of the stored order
// holding the posts that carry it. A filter is then a few word-wise ANDs and
// ORs of those bitsets, and a page of it is found through per-block prefix
// popcounts, so paging through a filter costs about what paging through the
// whole list does.
//
// The index is built lazily, by the first filtered request after the stored
// order changed, while requests hold the store's read lock; it is immutable
// once published. Every change of the order bumps the store's version, which
// drops the index. Each index keeps the last few filters it evaluated, keyed
// by the filter in canonical form; being the index's, the cache is keyed by
// its version too, and a change of the order starts an empty one.

const (
	// blockWords is the number of bitset words a prefix count covers.
	blockWords = 8
	// filterCacheSize bounds the evaluated filters an index keeps.
	filterCacheSize = 16
)

// labelIndexHolder is the store's current label index, built on demand.
type labelIndexHolder struct {
	mu  sync.Mutex // serializes building
	cur atomic.Pointer[labelIndex]

	// genLabels holds, by generated post, a bit for each of its available
	// labels: they never change, so a rebuild after the order changed does
	// not draw them again. Built with the first index, under mu; nil if the
	// dataset has no generated posts.
	genLabels []uint16
}

// labelIndex is the label bitsets of one version of the stored order, and
// the filters recently evaluated against them.
type labelIndex struct {
	version uint64
	words   int        // bitset length: ceil(len(order) / 64)
	sets    [][]uint64 // by label index; nil for a label no post carries

	mu    sync.Mutex
	cache []*matchSet // most recently used first; at most filterCacheSize
}

// matchSet is the positions in the stored order of the posts that match one
// filter. It is immutable.
type matchSet struct {
	key    string
	words  []uint64 // nil when nothing matches
	blocks []int    // blocks[b]: matches in words[:b*blockWords]
	count  int
}

// bumpVersion records a change of the stored order; the caller holds mu for
// writing.
func (s *store) bumpVersion() {
	s.version++
	s.index.cur.Store(nil) // free it now; it is stale anyway
}

// labelIndex returns the index of the current stored order, building it if
// needed. The caller holds mu (for reading suffices).
func (s *store) labelIndex() *labelIndex {
	if x := s.index.cur.Load(); x != nil && x.version == s.version {
		return x
	}
	s.index.mu.Lock()
	defer s.index.mu.Unlock()
	if x := s.index.cur.Load(); x != nil && x.version == s.version {
		return x
	}
	x := s.buildLabelIndex()
	s.index.cur.Store(x)
	return x
}

// buildLabelIndex sets, for each post of the stored order, its position in
// the bitsets of its available labels.
// The caller holds index.mu.
func (s *store) buildLabelIndex() *labelIndex {
	x := &labelIndex{version: s.version, words: (len(s.order) + 63) / 64, sets: make([][]uint64, len(s.labels))}
	set := func(k int32, pos int) {
		if x.sets[k] == nil {
			x.sets[k] = make([]uint64, x.words)
		}
		x.sets[k][pos>>6] |= 1 << (pos & 63)
	}
	gen := s.generatedLabels()
	var buf [8]int32
	for pos, r := range s.order {
		if r >= 0 && gen != nil {
			for m := gen[r]; m != 0; m &= m - 1 {
				set(int32(bits.TrailingZeros16(m)), pos)
			}
			continue
		}
		for _, k := range s.availableLabels(r, buf[:0]) {
			set(k, pos)
		}
	}
	return x
}

// generatedLabels returns index.genLabels, building it the first time; nil
// if there are no generated posts or their labels do not fit 16 bits. The
// caller holds index.mu.
func (s *store) generatedLabels() []uint16 {
	if s.gen == nil || len(labelNames) > 16 {
		return nil
	}
	if s.index.genLabels == nil {
		m := make([]uint16, s.gen.n)
		var buf [8]int32
		for i := range m {
			for _, k := range s.availableLabels(ref(i), buf[:0]) {
				m[i] |= 1 << k
			}
		}
		s.index.genLabels = m
	}
	return s.index.genLabels
}

// filtered returns the posts at positions skip..skip+limit among those of
// the stored order that match f, and how many match in all. The caller holds
// mu (for reading suffices).
func (s *store) filtered(f compiledFilter, skip, limit int) (page []ref, count int) {
	m := s.labelIndex().match(f)
	if skip >= m.count {
		return nil, m.count
	}
	page = make([]ref, 0, min(limit, m.count-skip))
	pos := m.position(skip)
	w := pos >> 6
	word := m.words[w] &^ (1<<(pos&63) - 1)
	for len(page) < cap(page) {
		for word == 0 {
			w++
			word = m.words[w]
		}
		page = append(page, s.order[w<<6+bits.TrailingZeros64(word)])
		word &= word - 1
	}
	return page, m.count
}

// position returns the position in the stored order of match k (from 0;
// k < m.count).
func (m *matchSet) position(k int) int {
	b := sort.Search(len(m.blocks), func(b int) bool { return m.blocks[b] > k }) - 1
	k -= m.blocks[b]
	for w := b * blockWords; ; w++ {
		word := m.words[w]
		if c := bits.OnesCount64(word); k >= c {
			k -= c
			continue
		}
		for ; k > 0; k-- {
			word &= word - 1
		}
		return w<<6 + bits.TrailingZeros64(word)
	}
}

// canonElem is a filter element reduced to what decides a match: the
// distinct labels it needs, sorted; and is false when one label suffices.
type canonElem struct {
	and    bool
	labels []int32
}

// canonical reduces f against x: unknown and unavailable IDs and labels no
// post carries are dropped from OR elements and make AND elements match
// nothing; duplicates go, and OR and AND of one label are the same. It
// returns nil elements for a filter that matches nothing, and a key equal for
// filters that match the same posts by these rules.
func (x *labelIndex) canonical(f compiledFilter) ([]canonElem, string) {
	elems := make([]canonElem, 0, len(f))
	for _, el := range f {
		c := canonElem{and: el.and}
		for _, k := range el.want {
			switch {
			case k >= 0 && x.sets[k] != nil:
				c.labels = append(c.labels, k)
			case el.and:
				return nil, ""
			}
		}
		if len(c.labels) == 0 {
			return nil, "" // empty values, or no value any post carries
		}
		slices.Sort(c.labels)
		c.labels = slices.Compact(c.labels)
		c.and = c.and && len(c.labels) > 1
		elems = append(elems, c)
	}
	slices.SortFunc(elems, func(a, b canonElem) int {
		if a.and != b.and {
			if a.and {
				return 1
			}
			return -1
		}
		return slices.Compare(a.labels, b.labels)
	})
	elems = slices.CompactFunc(elems, func(a, b canonElem) bool {
		return a.and == b.and && slices.Equal(a.labels, b.labels)
	})
	var key []byte
	for _, el := range elems {
		if el.and {
			key = append(key, 'A')
		} else {
			key = append(key, 'O')
		}
		for i, k := range el.labels {
			if i > 0 {
				key = append(key, ',')
			}
			key = strconv.AppendInt(key, int64(k), 10)
		}
		key = append(key, ';')
	}
	return elems, string(key)
}

// match returns the posts matching f, from the cache when f, or a filter
// equivalent to it, was evaluated recently against this index.
func (x *labelIndex) match(f compiledFilter) *matchSet {
	elems, key := x.canonical(f)
	if elems == nil {
		return &matchSet{}
	}
	x.mu.Lock()
	for i, m := range x.cache {
		if m.key == key {
			copy(x.cache[1:i+1], x.cache[:i])
			x.cache[0] = m
			x.mu.Unlock()
			return m
		}
	}
	x.mu.Unlock()
	m := x.eval(elems)
	m.key = key
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, c := range x.cache {
		if c.key == key { // evaluated meanwhile by another request
			return c
		}
	}
	if len(x.cache) < filterCacheSize {
		x.cache = append(x.cache, nil)
	}
	copy(x.cache[1:], x.cache)
	x.cache[0] = m
	return m
}

// eval computes the match set of a canonical, non-empty filter.
func (x *labelIndex) eval(elems []canonElem) *matchSet {
	var words []uint64
	if len(elems) == 1 && len(elems[0].labels) == 1 {
		words = x.sets[elems[0].labels[0]] // immutable: shared, not copied
	} else {
		words = x.elemWords(nil, elems[0])
		var tmp []uint64
		for _, el := range elems[1:] {
			if el.and { // straight into words: AND is associative
				for _, k := range el.labels {
					andWords(words, x.sets[k])
				}
				continue
			}
			tmp = x.elemWords(tmp, el)
			andWords(words, tmp)
		}
	}
	m := &matchSet{words: words, blocks: make([]int, (len(words)+blockWords-1)/blockWords)}
	for w, word := range words {
		if w%blockWords == 0 {
			m.blocks[w/blockWords] = m.count
		}
		m.count += bits.OnesCount64(word)
	}
	if m.count == 0 {
		m.words, m.blocks = nil, nil
	}
	return m
}

// elemWords returns the posts matching one element, in dst if it is not
// nil, else in a new bitset.
func (x *labelIndex) elemWords(dst []uint64, el canonElem) []uint64 {
	if dst == nil {
		dst = slices.Clone(x.sets[el.labels[0]])
	} else {
		copy(dst, x.sets[el.labels[0]])
	}
	for _, k := range el.labels[1:] {
		if el.and {
			andWords(dst, x.sets[k])
		} else {
			orWords(dst, x.sets[k])
		}
	}
	return dst
}

// andWords sets dst to dst AND src, word by word.
func andWords(dst, src []uint64) {
	src = src[:len(dst)]
	for i := range dst {
		dst[i] &= src[i]
	}
}

// orWords sets dst to dst OR src, word by word.
func orWords(dst, src []uint64) {
	src = src[:len(dst)]
	for i := range dst {
		dst[i] |= src[i]
	}
}
