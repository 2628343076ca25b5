package ugc

import (
	"errors"
	"fmt"
	"hash/maphash"
)

// ErrDrift matches a [*DriftError].
var ErrDrift = errors.New("ugc: the list changed during iteration")

// DriftError reports that a walk could not go on without risking a post
// missed or repeated: the order of the list changed, or the walk could not
// find again where it stood after the list changed. Under [DriftFail] it is
// also any sign of change: a count that changed, or a page whose posts were
// not where they were asked for.
type DriftError struct {
	Endpoint    string
	CountBefore int    // count of the earlier pages
	CountAfter  int    // count of the page that showed the change
	RepeatedID  string // set when a post came back out of order
	Reason      string // what was seen, in words
}

// Error says what changed.
func (e *DriftError) Error() string {
	msg := fmt.Sprintf("ugc: %s changed during iteration", e.Endpoint)
	switch {
	case e.Reason != "":
		msg += ": " + e.Reason
	case e.RepeatedID != "":
		msg += fmt.Sprintf(": post %s came back on a later page", e.RepeatedID)
	}
	return msg + fmt.Sprintf(" (count %d, then %d)", e.CountBefore, e.CountAfter)
}

// Is reports whether target is [ErrDrift].
func (e *DriftError) Is(target error) bool { return target == ErrDrift }

// DriftPolicy says what an iterator does when the list changes under it.
type DriftPolicy int

const (
	// DriftRepair, the default, keeps the walk exactly-once while posts
	// are added and removed: each page is placed by the last post already
	// yielded, and when that post is not where it was, the walk finds it
	// again (reading back if needed) and goes on after it. Every post that
	// is in the list for the whole walk is yielded exactly once; a post
	// added or removed meanwhile may or may not be. This holds as long as
	// the list keeps a stable order (posts do not move); when the order
	// changes, the walk ends with a [*DriftError].
	DriftRepair DriftPolicy = iota
	// DriftFail ends the iteration with a [*DriftError] at the first sign
	// of change: a count that differs from the first page's, or a page whose
	// posts are not where they were asked for.
	DriftFail
)

// DriftDropRepeats is the former name of [DriftRepair].
//
// Deprecated: use DriftRepair, which does more than drop repeats.
const DriftDropRepeats = DriftRepair

// cursor knows where a walk stands in the list: which posts it has yielded,
// in which order, and the last of them, the anchor by which the next page
// is placed. Its memory grows by one map entry (16 bytes) per post yielded.
type cursor struct {
	policy   DriftPolicy
	endpoint string
	seed     maphash.Seed
	seq      map[uint64]int // hash of each yielded post's ID: the order it was yielded in, from 1
	anchor   string         // ID of the last post yielded; "" before the first
	yielded  int
	pos      int // where the post after the anchor stands in the list, as the last page showed
	count    int // count of the first page; -1 before it
	last     int // count of the last page
	placed   int // count of the last page placed
	// behind is how many posts were added behind the walk, as pages showed
	// it: a post yielded found further on than asked, by no more than the
	// count rose since the last page placed (on a resumed walk's first
	// page, by as much as it moved). Those posts are not owed to the walk;
	// no other shortfall is excused.
	behind int
	// unanchored is set when requests no longer start at the anchor (a
	// server whose pages hold one post): pages are then taken as they come.
	unanchored bool
}

func newCursor(policy DriftPolicy, endpoint string, skip int) *cursor {
	return &cursor{policy: policy, endpoint: endpoint, seed: maphash.MakeSeed(), seq: make(map[uint64]int, 256), pos: skip, count: -1}
}

// resumeAfter takes id, a post yielded by an earlier run just before the
// cursor's position, as the anchor.
func (c *cursor) resumeAfter(id string) {
	c.yielded = 1
	c.seq[c.key(id)] = 1
	c.anchor = id
}

func (c *cursor) key(id string) uint64 { return maphash.String(c.seed, id) }

// placement says which posts of a page are new.
type placement struct {
	placed bool // false: the page does not show where the walk stands
	from   int  // nodes[from:] come after the anchor
	moved  bool // the anchor was not where it was asked for
	// suspect: moved, while the count says the list did not change. Such
	// a page is more likely not the one asked for (a server that ignored
	// skip, a lagging replica) than a list that gained and lost as many
	// posts between two requests: it is read again before it is believed.
	suspect bool
}

// place finds where a page answered for the given skip stands relative to
// the posts already yielded. The anchor is expected at index pos-1-skip. A
// page that holds the anchor is placed after it. One that holds only older
// posts is placed after the latest of them (the posts after it were
// removed) if posts follow it or the page ends the list. A page that holds
// none cannot be placed: the caller reads again. Yielded posts that come in
// another order than they were yielded mean the order changed: a
// *DriftError.
func (c *cursor) place(skip int, page *Page) (placement, error) {
	// sameCount: the list kept its count since the last page; not known
	// on a resumed walk's first page (the list may have changed between
	// the runs).
	known := c.count >= 0
	sameCount := known && page.Count == c.last
	if !known {
		c.count, c.last = page.Count, page.Count
	}
	shrank := page.Count < c.last
	c.last = page.Count
	if c.policy == DriftFail && page.Count != c.count {
		return placement{}, c.driftError("the count changed", "")
	}
	if c.anchor == "" || len(page.Nodes) == 0 && !shrank && page.Count <= c.pos {
		// The first page, or an empty page where the count agrees that
		// nothing follows the anchor: the end of the list. An empty page
		// that the count contradicts, or after posts were removed (those
		// after the anchor may have moved back), is read again.
		return placement{placed: true}, nil
	}
	latest, gap, anchorAt, err := c.scan(page)
	if err != nil {
		return placement{}, err
	}
	var p placement
	switch expected := c.pos - 1 - skip; {
	case c.unanchored && expected < 0 && latest < 0:
		// A request that starts after the anchor, on a server whose pages
		// hold one post: nothing on the page to check it by.
		p = placement{placed: true}
	case anchorAt >= 0:
		p = placement{placed: true, from: anchorAt + 1, moved: anchorAt != expected}
		p.suspect = p.moved && sameCount
		c.addedBehind(anchorAt-expected, page.Count, known)
	case latest >= 0 && (latest+gap < len(page.Nodes) || page.Next == ""):
		// The page reaches past where the anchor would be, after the
		// latest post it holds: the anchor and the posts yielded after
		// that one were removed.
		p = placement{placed: true, from: latest + 1, moved: true, suspect: sameCount}
		c.addedBehind(latest-(expected-gap), page.Count, known)
	default:
		p = placement{moved: true}
	}
	// Under DriftFail a page not where it was asked for fails the walk.
	// Otherwise it is no sign of change by itself (a misbehaving server
	// sends such pages too): only posts added behind the walk excuse a
	// walk that ends short of the count (see behind).
	if p.moved && c.policy == DriftFail {
		return placement{}, c.driftError(fmt.Sprintf("post %s is not where it was (page at skip %d)", c.anchor, skip), "")
	}
	return p, nil
}

// addedBehind notes a yielded post found moved places further on than
// asked: posts added behind the walk, as many as the count rose since the
// last page placed, at most. A page from the wrong place moves posts as
// well, but not the count. On a resumed walk's first page (known false)
// there is no count to compare with: the list changed between the runs.
func (c *cursor) addedBehind(moved, count int, known bool) {
	if moved <= 0 {
		return
	}
	if known {
		moved = min(moved, max(0, count-c.placed))
	}
	c.behind += moved
}

// scan finds the posts of a page that were yielded: the index of the latest
// of them (-1 when none), how many posts were yielded after it (gap, 0 when
// it is the anchor), and the index of the anchor (-1 when absent). Yielded
// posts in another order than they were yielded mean the order changed: a
// *DriftError.
func (c *cursor) scan(page *Page) (latest, gap, anchorAt int, err error) {
	latest, anchorAt = -1, -1
	latestSeq := 0
	for i := range page.Nodes {
		s, ok := c.seq[c.key(page.Nodes[i].ID)]
		if !ok {
			continue
		}
		if s <= latestSeq {
			return 0, 0, 0, c.driftError(fmt.Sprintf("post %s now comes after post %s, the order changed", page.Nodes[i].ID, page.Nodes[latest].ID), page.Nodes[i].ID)
		}
		latest, latestSeq = i, s
	}
	if latest >= 0 && page.Nodes[latest].ID == c.anchor {
		anchorAt = latest
	}
	return latest, c.yielded - latestSeq, anchorAt, nil
}

// seek returns the skip of the read that should find the anchor again,
// after a page answered for skip could not be placed (the reads-th such
// page in a row). It centres the read on where the posts the page holds say
// the anchor is. A page that holds none of them says only that the anchor
// is elsewhere: the first time, the read goes where the change of count
// since the last page placed would have moved it (posts added before it
// push it on); after that, or with no change of count, reads search around
// where it was: there, a page back, a page on, two back, two on, and so on. It returns -1 when that search
// has passed both ends of the list.
func (c *cursor) seek(skip, limit, reads int, page *Page) int {
	latest, gap, _, err := c.scan(page)
	last := max(page.Count-1, 0) // no read starts past the list's end
	// A server whose pages are shorter than the limit shows only that
	// many posts a read: search by what it shows.
	if n := len(page.Nodes); n > 0 && n < limit {
		limit = n
	}
	half := (limit - 1) / 2
	if err == nil && latest >= 0 {
		return min(max(skip+latest+gap-half, 0), last)
	}
	if delta := page.Count - c.placed; reads == 1 && delta != 0 {
		return min(max(c.pos-1+delta-half, 0), last)
	}
	// Where it was, then a page back, a page on, two back, two on, ...
	step := reads / 2 * max(limit-1, 1)
	if reads%2 == 1 {
		step = -step
	}
	target := c.pos - 1 + step
	if c.pos-1-step < 0 && c.pos-1+step > last || c.pos-1+step < -limit && c.pos-1-step > last+limit {
		return -1
	}
	return min(max(target-half, 0), last)
}

// commit records the posts of a placed page from p.from on as yielded and
// returns them, without any that already was (a server that lists a post
// twice): the repeats dropped are counted.
func (c *cursor) commit(skip int, page *Page, p placement) (kept []Post, repeats int) {
	kept = page.Nodes[p.from:]
	out := kept[:0]
	for _, post := range kept {
		k := c.key(post.ID)
		if _, dup := c.seq[k]; dup {
			repeats++
			continue
		}
		c.yielded++
		c.seq[k] = c.yielded
		c.anchor = post.ID
		out = append(out, post)
	}
	clear(kept[len(out):])
	if len(out) > 0 || p.from > 0 {
		c.pos = skip + sentNodes(page)
	}
	c.placed = page.Count
	return out, repeats
}

func (c *cursor) driftError(reason, id string) *DriftError {
	return &DriftError{Endpoint: c.endpoint, CountBefore: c.count, CountAfter: c.last, RepeatedID: id, Reason: reason}
}
