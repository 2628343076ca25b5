package ugc

import (
	"fmt"
	"hash/maphash"
	"slices"
)

// cursor knows where a walk stands in the list: which posts it has yielded,
// in which order, the last of them (the anchor, by which the next page is
// placed) and where that post and the end of the last page stand. Its
// memory grows by one map entry (16 bytes) per post yielded.
//
// Positions count nodes as the server sent them, nodes that could not be
// posts included: a run of them moves the walk on like posts do.
type cursor struct {
	policy   DriftPolicy
	endpoint string
	seed     maphash.Seed
	seq      map[uint64]int // hash of each yielded post's ID: the order it was yielded in, from 1
	yielded  int
	anchor   string // ID of the last post yielded; "" before the first
	anchorAt int    // where the anchor stands in the list, as the last page showed
	pos      int    // where the list goes on after the last page placed
	count    int    // count of the first page
	counted  bool   // a page was placed: count is known
	last     int    // count of the last page
	placed   int    // count of the last page placed
	// behind is how many posts were added behind the walk, as pages showed
	// it: a post yielded found further on than asked, by no more than the
	// count rose since the last page placed (on a resumed walk's first
	// page, by as much as it moved). Those posts are not owed to the walk;
	// no other shortfall is excused.
	behind int
	// seeking is set on a walk resumed after a post whose place is not
	// known: pages are passed over until it shows.
	seeking bool
	// byID is set once the server has shown it does not answer skip where
	// asked: pages are then placed by the posts they hold, not by where
	// they were asked for. A count that changes then is a change of the
	// list that cannot be placed, unless the count was seen to lie, when
	// it tells nothing.
	byID bool
	// trust is what the pages' counts have shown themselves to be.
	trust countTrust
}

// countTrust grades what a walk has learned of the pages' count.
type countTrust int

const (
	// countHolds: every count so far could be the list's size.
	countHolds countTrust = iota
	// countShort: the walk read past a page's count. The count is stale
	// or cached, or the walk was misplaced by a server that ignores skip:
	// it no longer places pages or credits posts added behind, but a walk
	// that ends short of it is still incomplete.
	countShort
	// countNone: a count measured nothing (0 or less under posts, or the
	// page's own length under a next link), whatever the walk's positions.
	// Only such a count excuses a walk that ends short of it.
	countNone
)

// countLied reports whether a page showed its count is not the list's size.
func (c *cursor) countLied() bool { return c.trust != countHolds }

func newCursor(policy DriftPolicy, endpoint string, skip int) *cursor {
	return &cursor{policy: policy, endpoint: endpoint, seed: maphash.MakeSeed(), seq: make(map[uint64]int, 256), pos: skip, anchorAt: skip - 1}
}

// resumeAfter takes id, a post yielded by an earlier run, as the anchor:
// just before the cursor's position when that is known (skip > 0), or
// anywhere in the list, to be found by reading from the start.
func (c *cursor) resumeAfter(id string) {
	c.yielded = 1
	c.seq[c.key(id)] = 1
	c.anchor = id
	c.seeking = c.pos == 0
}

// wasYielded reports whether the post with id was yielded (or is the
// checkpoint's a resumed walk goes on after).
func (c *cursor) wasYielded(id string) bool {
	_, ok := c.seq[c.key(id)]
	return ok
}

// key is the hash of a post ID by its bytes: IDs that differ in any byte,
// valid UTF-8 or not, are two posts.
func (c *cursor) key(id string) uint64 { return maphash.String(c.seed, id) }

// placement says which posts of a page are new.
type placement struct {
	placed bool // false: the page does not show where the walk stands
	from   int  // nodes[from:] come after the anchor
	moved  bool // the anchor was not where it was asked for
	// suspect: moved while the count stood, or, on a server whose count
	// was seen to lie, further than the count changed since the last page
	// placed (posts added before the anchor push it on by as many as the
	// count rose; removed, back by as many as it fell). Such a page is more
	// likely not the one asked for (a server that ignored skip, a lagging
	// replica) than a list that gained and lost posts between two
	// requests: it is read again before it is believed.
	suspect bool
	// unverified: the request started after the anchor (nodes that are not
	// posts, or pages of one post, stood between), so nothing on the page
	// could show it came from where it was asked.
	unverified bool
	// start is where the page began in the list, as the anchor on it
	// showed (-1 when the anchor was not on it).
	start int
	// passed: a walk seeking its checkpoint's post passed over the page.
	passed bool
	// behind is how many posts the page shows were added behind the walk
	// (see [cursor.behind]).
	behind int
}

// place finds where a page answered for req stands relative to the posts
// already yielded. A blind request (one that starts after the anchor) is
// placed as it comes, unless it holds posts already yielded. The anchor is
// expected at index anchorAt-skip of the nodes as sent. A page that holds
// the anchor is placed after it. One that holds only older posts is placed
// after the latest of them (the posts after it were removed) if posts
// follow it or the page ends the list. A page that holds none cannot be
// placed: the caller reads again. Yielded posts that come in another order
// than they were yielded mean the order changed: a *DriftError.
func (c *cursor) place(req pageRequest, page *Page) (placement, error) {
	known := c.counted                           // false on a resumed walk's first page, or the first page
	sameCount := known && page.Count == c.placed // since the last page placed
	ends, err := c.noteCount(req, page)
	if err != nil || ends {
		// A page after the first with no post yielded before it has
		// nothing to be checked by.
		return placement{placed: true, unverified: known && c.anchor == "" && sentNodes(page) > 0, start: -1}, err
	}
	latest, gap, anchorAt, err := c.scan(page)
	if err != nil {
		return placement{}, err
	}
	var p placement
	switch {
	case c.byID || c.seeking:
		p = c.passOver(page, latest, anchorAt)
	case req.blind && latest < 0:
		p = placement{placed: true, unverified: sentNodes(page) > 0} // an empty page has nothing to be checked
	case anchorAt >= 0:
		p = c.byAnchor(req, page, anchorAt, known, sameCount)
	default:
		p = c.byLatest(req, page, latest, gap, known, sameCount)
	}
	p.start = -1
	if anchorAt >= 0 {
		p.start = c.anchorAt - sentIndexes(page)(anchorAt)
	}
	// Under DriftFail a page not where it was asked for fails the walk.
	// Otherwise it is no sign of change by itself (a misbehaving server
	// sends such pages too): only posts added behind the walk excuse a
	// walk that ends short of the count (see behind).
	if p.moved && c.policy == DriftFail {
		return placement{}, c.driftError(fmt.Sprintf("post %s is not where it was (page at skip %d)", c.anchor, req.skip), "")
	}
	return p, nil
}

// byLatest places a page that does not hold the anchor after the latest
// yielded post it holds, when the page reaches past where the anchor would
// be (posts follow it, or the page ends the list): the anchor and the posts
// yielded after that one were removed. A page that holds none cannot be
// placed.
func (c *cursor) byLatest(req pageRequest, page *Page, latest, gap int, known, sameCount bool) placement {
	if latest < 0 || latest+gap >= len(page.Nodes) && page.Next != "" {
		return placement{moved: true}
	}
	behind := c.addedBehind(sentIndexes(page)(latest)-(c.anchorAt-req.skip-gap), page.Count, known)
	return placement{placed: true, from: latest + 1, moved: true, suspect: sameCount || known && c.countLied(), behind: behind}
}

// noteCount takes a page's count, and reports whether the page ends the
// list where the walk stands without a look at its posts (the first page,
// or an empty page that is not a search's read, asked for no further than
// where the list goes on, where the count agrees that nothing follows the
// anchor;
// an empty page that the count contradicts, or after posts were removed,
// whose posts after the anchor may have moved back, is read again), or the
// error of a count that changed where that is not allowed.
func (c *cursor) noteCount(req pageRequest, page *Page) (ends bool, err error) {
	known := c.counted
	if !known {
		c.count, c.last, c.counted = page.Count, page.Count, true
	}
	shrank := page.Count < c.last
	c.last = page.Count
	switch {
	case c.policy == DriftFail && page.Count != c.count:
		return false, c.driftError("the count changed", "")
	case c.byID && known && page.Count != c.placed && !c.countLied():
		return false, c.driftError("the list changed while the server did not answer skip where asked: which posts moved cannot be told", "")
	}
	return c.anchor == "" || sentNodes(page) == 0 && !shrank && !req.seek && page.Count <= c.pos && c.anchorAt < req.skip && req.skip <= c.pos, nil
}

// passOver places a page by the posts it holds, not by where it was asked
// for: after the latest yielded (those before it are repeats), or, on a
// walk seeking its checkpoint's post, after that post, all passed over
// until it shows.
func (c *cursor) passOver(page *Page, latest, anchorAt int) placement {
	switch {
	case c.seeking && anchorAt >= 0:
		c.seeking = false
		return placement{placed: true, from: anchorAt + 1}
	case c.seeking:
		return placement{placed: true, from: len(page.Nodes), passed: true}
	}
	return placement{placed: true, from: latest + 1}
}

// byAnchor places a page that holds the anchor, at index i of its posts:
// after it, moved when it is not where it was asked for. An anchor that
// moved by itself is no guide (read again); one that moved further than the
// count explains makes the page suspect.
func (c *cursor) byAnchor(req pageRequest, page *Page, i int, known, sameCount bool) placement {
	at := sentIndexes(page)(i)
	jump := at - (c.anchorAt - req.skip)
	if c.movedAlone(page, i, jump) {
		return placement{moved: true}
	}
	p := placement{placed: true, from: i + 1, moved: jump != 0}
	p.suspect = p.moved && known && (sameCount || c.countLied() || !c.explained(jump, page.Count))
	p.behind = c.addedBehind(jump, page.Count, known)
	return p
}

// explained reports whether a jump of the anchor from where it was asked
// is no more than the change of count since the last page placed, in its
// direction, give or take movedAloneSlack: posts added before it push it
// on by as many as the count rose; removed, back by as many as it fell
// (while others change elsewhere). A server that rounds skip to its own
// pages moves a page further than that.
func (c *cursor) explained(jump, count int) bool {
	change := count - c.placed
	return jump > 0 && jump <= max(change, 0)+movedAloneSlack || jump < 0 && -jump <= max(-change, 0)+movedAloneSlack
}

// movedAloneSlack is how much further than the count rose an anchor may be
// found before it is taken for one that moved by itself: a post added just
// before it while another is removed elsewhere moves it on by one with the
// count unchanged.
const movedAloneSlack = 2

// movedAlone reports whether the anchor, found on page at index i, jump
// places further on than asked, moved by itself (a post edited and moved
// up the list): further on than the count rose (by more than
// movedAloneSlack), and with a post before it
// on the page that is not the one yielded before it. A page that moved as a
// whole (posts added before it, or a server that rounds skip) keeps the
// anchor's predecessor in front of it.
func (c *cursor) movedAlone(page *Page, i, jump int) bool {
	if jump <= max(0, page.Count-c.placed)+movedAloneSlack || i == 0 {
		return false
	}
	want := c.seq[c.key(c.anchor)] - 1
	if want == 0 {
		return false // the first post yielded: which stood before it is not known
	}
	before, ok := c.seq[c.key(page.Nodes[i-1].ID)]
	return !ok || before != want
}

// addedBehind is how many posts were added behind the walk, as a yielded
// post found moved places further on than asked shows: as many as the
// count rose since the last page placed, at most. A page from the wrong
// place moves posts as well, but not the count. On a resumed walk's first
// page (known false) there is no count to compare with: the list changed
// between the runs. A count seen to lie tells nothing.
func (c *cursor) addedBehind(moved, count int, known bool) int {
	switch {
	case moved <= 0 || known && c.countLied():
		return 0
	case known:
		return min(moved, max(0, count-c.placed))
	}
	return moved
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
// the anchor is, or, when the page reached that place and the anchor was
// not there, reads on from the page's end; a first such page whose posts
// stand past where the anchor stood, under the same count, was not
// answered where asked: it is asked again. A page that holds none of them
// says only that the anchor
// is elsewhere: the first time, the read goes where the change of count
// since the last page placed would have moved it (posts added before it
// push it on); after that, or with no change of count, reads search around
// where it was: there, a page back, a page on, two back, two on, and so on.
// It returns -1 when that search has passed both ends of the list.
func (c *cursor) seek(skip, limit, reads int, page *Page) int {
	latest, gap, _, err := c.scan(page)
	last := c.lastStart(page, limit)
	// A server whose pages are shorter than the limit shows only that
	// many posts a read: search by what it shows.
	if n := sentNodes(page); n > 0 && n < limit {
		limit = n
	}
	half := (limit - 1) / 2
	if err == nil && latest >= 0 {
		at, end := skip+sentIndexes(page)(latest), skip+sentNodes(page)
		switch {
		case reads == 1 && at > c.anchorAt && page.Count == c.placed:
			// A post yielded before the anchor stands past where the
			// anchor stood, and the count stood: the page is not from
			// where it was asked (a server that ignored skip). Ask
			// there again.
			return skip
		case at+gap < end:
			// The page reached where the posts say the anchor is, and
			// it was not there: nodes that are not posts (or posts
			// added) stand between. It is further on than the page.
			return min(end, last)
		}
		return min(max(at+gap-half, 0), last)
	}
	delta := page.Count - c.placed
	if !c.counted || c.placed == 0 && c.yielded <= 1 {
		delta = 0 // no page placed yet (a resumed walk): no change of count to go by
	}
	if reads == 1 && delta != 0 {
		return min(max(c.anchorAt+delta-half, 0), last)
	}
	// Counted from the read after the one the count's change aimed.
	k := reads - 1
	if delta != 0 {
		k--
	}
	return c.spiral(k, limit, last)
}

// lastStart is where the last read of a search may start: the list's end
// as the count says, or, when the count tells nothing, two pages past
// where the walk stands.
func (c *cursor) lastStart(page *Page, limit int) int {
	if c.countLied() || page.Count <= c.anchorAt {
		return max(c.anchorAt, c.pos) + 2*limit
	}
	return max(page.Count-1, 0)
}

// spiral returns the start of the k-th read of a search around where the
// anchor was: there, a page back, a page on, two back, two on, and so on;
// -1 when the search has passed both ends of the list.
func (c *cursor) spiral(k, limit, last int) int {
	step := (k + 1) / 2 * max(limit-1, 1)
	if k%2 == 1 {
		step = -step
	}
	if c.anchorAt-step < 0 && c.anchorAt+step > last || c.anchorAt+step < -limit && c.anchorAt-step > last+limit {
		return -1
	}
	return min(max(c.anchorAt+step-(limit-1)/2, 0), last)
}

// commit records the posts of a placed page from p.from on as yielded and
// returns them, without any that already was (a server that lists a post
// twice), and how many repeats it dropped. The page was answered for skip;
// the list goes on at end. The anchor becomes the last post yielded, or,
// when the page brought none, the yielded post it showed last, where it
// showed it.
func (c *cursor) commit(page *Page, p placement, skip, end int) (kept []Post, repeats int) {
	at := sentIndexes(page)
	kept = page.Nodes[p.from:] // a copy is made only when a repeat is left out
	for i := p.from; i < len(page.Nodes); i++ {
		post := page.Nodes[i]
		k := c.key(post.ID)
		if _, dup := c.seq[k]; dup {
			if repeats++; repeats == 1 {
				kept = slices.Clone(page.Nodes[p.from:i])
			}
			continue
		}
		c.yielded++
		c.seq[k] = c.yielded
		c.anchor, c.anchorAt = post.ID, skip+at(i)
		if repeats > 0 {
			kept = append(kept, post)
		}
	}
	if len(kept) == 0 && p.from > 0 && !c.byID && !p.passed && c.wasYielded(page.Nodes[p.from-1].ID) {
		c.anchor, c.anchorAt = page.Nodes[p.from-1].ID, skip+at(p.from-1)
	}
	c.behind += p.behind
	if sentNodes(page) > 0 {
		c.pos = end
	}
	c.gradeCount(page)
	c.placed = page.Count
	return kept, repeats
}

// gradeCount lowers the trust in the count by what a committed page showed
// of it (see [countTrust]).
func (c *cursor) gradeCount(page *Page) {
	switch {
	case page.Count <= 0 && sentNodes(page) > 0 || page.Next != "" && page.Count == sentNodes(page):
		c.trust = countNone
	case c.pos > page.Count:
		c.trust = max(c.trust, countShort)
	}
}

// believedCount is the last page's count, or -1 once a page showed the
// count is not the size of the list.
func (c *cursor) believedCount() int {
	if c.countLied() {
		return -1
	}
	return c.last
}

func (c *cursor) driftError(reason, id string) *DriftError {
	return &DriftError{Endpoint: c.endpoint, CountBefore: c.count, CountAfter: c.last, RepeatedID: id, Reason: reason}
}

// sentIndexes returns the function that gives, for the index of a post in
// page.Nodes, its index among the nodes as sent: nodes dropped because they
// could not be posts are not in Nodes, but they held a place in the list.
func sentIndexes(page *Page) func(i int) int {
	var dropped []int
	for _, d := range page.Deviations {
		if d.Dropped {
			dropped = append(dropped, d.Index)
		}
	}
	if len(dropped) == 0 {
		return func(i int) int { return i }
	}
	return func(i int) int {
		at := i
		for _, d := range dropped { // in the order sent
			if d <= at {
				at++
			}
		}
		return at
	}
}
