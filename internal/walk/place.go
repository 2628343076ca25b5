package walk

import (
	"fmt"
	"slices"
)

// maxReads bounds the reads one page's placement may take, each aimed at
// where the posts already seen say the anchor is.
const maxReads = 12

// placement says which posts of a page are new.
type placement struct {
	placed bool // false: the page does not show where the walk stands
	from   int  // nodes from this index as sent on come after the anchor
	moved  bool // the anchor was not where it was asked for
	// by is what placed the page: the anchor, an older post the walk
	// yielded (the posts after it taken for removed), or neither; jump is
	// how far from where it was expected that post stood.
	by   placedBy
	jump int
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
	// (see [position.behind]).
	behind int
	// presumed: placed after an older post than the anchor, which (with
	// any yielded after that post) is taken for removed.
	presumed bool
	// What the defenses make of the page (see [Machine.vet]): suspect, it
	// is read again before it is believed; edge, the node before its
	// anchor is asked; earlier, it is taken to begin at start, before
	// where it was asked, and ends the list.
	suspect, edge, earlier bool
}

// placedBy is what placed a page.
type placedBy uint8

const (
	byNothing placedBy = iota // as it came, or passed over by the posts it holds
	byAnchor                  // the anchor stood on it
	byOlder                   // an older post the walk yielded stood on it
)

// place places an answer, or asks for another read: a page placed by the
// contract's rules (below) goes to the defenses' review, which lets a
// page from a server that keeps the contract through to commit; a page
// that cannot be placed is searched for ([Machine.search]), maxReads
// reads at most.
func (m *Machine) place(a *answer) {
	p, err := m.locate(a)
	switch {
	case err != nil:
		m.end(*err)
	case p.placed:
		m.review(a, p, reading, pending{})
	case a.reads > maxReads:
		m.end(m.lost(a.page, a.reads))
	default:
		m.search(a)
	}
}

// search asks for the read that should find the anchor again, after a
// page that could not be placed (see [Machine.seek]).
func (m *Machine) search(a *answer) {
	m.event(Event{Kind: EventReanchor})
	m.denyEnd(a.req, a.page)
	skip := m.seek(a.req.Skip, m.plan.anchoredLimit(), a.reads, a.page)
	if skip < 0 {
		m.end(m.lost(a.page, a.reads))
		return
	}
	search := m.plan.at(skip, m.plan.anchoredLimit())
	search.Purpose = Search
	m.await(searching, pending{req: search, reads: a.reads, nothingPlaced: a.nothingPlaced})
}

// lost is the end of a walk whose page could not be placed after reads
// reads.
func (m *Machine) lost(page *Page, reads int) End {
	switch {
	case len(page.IDs) == 0 && page.Count == m.ev.firstCount:
		// Nothing at all where the unchanged count says posts are: the
		// server ends the list early.
		return End{Kind: EndIncomplete, Reason: "the server sent no post where its count says posts are"}
	case m.pos.seeking:
		return m.drift(fmt.Sprintf("post %s of the checkpoint is no longer in the list", m.pos.anchor), "")
	}
	e := m.drift(fmt.Sprintf("post %s could not be found again after %d reads", m.pos.anchor, reads), "")
	e.CountAtEnd = page.Count
	return e
}

// locate finds where a page stands relative to the posts already yielded
// (see [Machine.placeBy]), after what its count shows (see
// [Machine.noteCount]): a page that ends the list where the walk stands,
// or that comes before any post was yielded, is placed as it comes. Under
// FailOnChange a page not where it was asked for ends the walk; otherwise
// it is no sign of change by itself (a misbehaving server sends such pages
// too): only posts added behind the walk excuse a walk that ends short of
// the count (see [position.behind]).
func (m *Machine) locate(a *answer) (placement, *End) {
	known := !a.nothingPlaced // until a page is placed (a resumed walk may search for its first)
	fell := m.ev.countFell(a.page)
	m.ev.fell = m.ev.fell || known && fell
	shrank := fell && !m.ev.countLied()
	ends, err := m.noteCount(a.req, a.page)
	if err != nil || ends {
		return m.asItComes(a), err
	}
	latest, gap, anchorAt, err := m.scan(a.page)
	if err != nil {
		return placement{}, err
	}
	p := m.placeBy(a, latest, gap, anchorAt, shrank)
	p.start = -1
	if anchorAt >= 0 {
		p.start = m.pos.anchorAt - anchorAt
	}
	if p.moved && m.cfg.FailOnChange {
		e := m.drift(fmt.Sprintf("post %s is not where it was (page at skip %d)", m.pos.anchor, a.req.Skip), "")
		return placement{}, &e
	}
	return p, nil
}

// asItComes places a page with nothing to place it by: the first, or one
// after it with no post yielded before it, which has nothing to be
// checked by (unverified); nor has the first from a skip (a server that
// answered it from elsewhere, and wrote next as if it had not, shows
// nothing), which the walk names but vouches for.
func (m *Machine) asItComes(a *answer) placement {
	posts := m.pos.anchor == "" && len(a.page.IDs) > 0
	if a.nothingPlaced && a.req.Skip > 0 && posts {
		m.ev.outcomes |= FirstPageUnchecked
	}
	return placement{placed: true, unverified: !a.nothingPlaced && posts, start: -1}
}

// noteCount takes a page's count, and reports whether the page ends the
// list where the walk stands without a look at its posts: the first page,
// or an empty page that ends the list (see [Machine.emptyEnd]); or the
// end of a count that changed where that is not allowed.
func (m *Machine) noteCount(req Request, page *Page) (ends bool, err *End) {
	known := m.ev.counted
	if !known {
		m.ev.firstCount, m.ev.lastCount, m.ev.counted = page.Count, page.Count, true
	}
	shrank := page.Count < m.ev.lastCount
	m.ev.lastCount = page.Count
	switch {
	case m.cfg.FailOnChange && page.Count != m.ev.firstCount:
		e := m.drift("the count changed", "")
		return false, &e
	case m.plan.follows && known && page.Count != m.ev.placedCount && !m.ev.countLied():
		e := m.drift("the list changed while the server did not answer skip where asked: which posts moved cannot be told", "")
		return false, &e
	}
	return m.pos.anchor == "" || m.emptyEnd(req, page, shrank), nil
}

// emptyEnd reports whether an empty page ends the list where the walk
// stands: not a search's read, asked for no further than where the list
// goes on and after the anchor, where the count agrees that nothing
// follows the anchor. An empty page that the count contradicts, or after
// posts were removed (shrank), whose posts after the anchor may have moved
// back, is read again.
func (m *Machine) emptyEnd(req Request, page *Page, shrank bool) bool {
	asked := m.pos.anchorAt < req.Skip && req.Skip <= m.pos.reached
	return len(page.IDs) == 0 && !shrank && req.Purpose != Search && page.Count <= m.pos.reached && asked
}

// placeBy places a page by the posts it holds that the walk remembers
// yielding: the latest of them at index latest (gap posts yielded after
// it), the anchor at index anchorAt (-1 when absent). A walk that follows
// next links, or seeks its checkpoint's post, passes over what it yielded
// (see [position.passOver]); a blind request (one that starts after the
// anchor) is placed as it comes, unless it holds posts already yielded. A
// page that holds the anchor is placed after it ([Machine.placeByAnchor]);
// one that holds only older posts after the latest of them
// ([Machine.placeByOlder]).
func (m *Machine) placeBy(a *answer, latest, gap, anchorAt int, shrank bool) placement {
	known := !a.nothingPlaced
	switch {
	case m.plan.follows || m.pos.seeking:
		p := m.pos.passOver(a.page, latest, anchorAt)
		// A read on from an end, at the walk's own position, that holds no
		// post it yielded: where it began is not the server's word, and
		// nothing on it shows it.
		p.unverified = m.plan.follows && m.j.readsOn > 0 && latest < 0 && len(a.page.IDs) > 0
		return p
	case a.req.Blind && latest < 0:
		// Nothing on it to check it by; an empty one neither, unless posts
		// were removed (those after the anchor may have moved back past
		// where the walk asked).
		return placement{placed: true, unverified: len(a.page.IDs) > 0 || shrank && known}
	case anchorAt >= 0:
		return m.placeByAnchor(a, anchorAt)
	}
	return m.placeByOlder(a, latest, gap)
}

// passOver places a page by the posts it holds, not by where it was asked
// for: after the latest yielded (those before it are repeats), or, on a
// walk seeking its checkpoint's post, after that post, all passed over
// until it shows.
func (pos *position) passOver(page *Page, latest, anchorAt int) placement {
	switch {
	case pos.seeking && anchorAt >= 0:
		pos.seeking = false
		return placement{placed: true, from: anchorAt + 1}
	case pos.seeking:
		return placement{placed: true, from: len(page.IDs), passed: true}
	}
	return placement{placed: true, from: latest + 1}
}

// placeByAnchor places a page that holds the anchor at index i: after it,
// moved when it is not where it was asked for, crediting the posts added
// behind that the count shows moved it. An anchor that moved by itself is
// no guide: the page is not placed, and searched for.
func (m *Machine) placeByAnchor(a *answer, i int) placement {
	jump := i - (m.pos.anchorAt - a.req.Skip)
	if m.movedAlone(a.page, i, jump) {
		return placement{moved: true}
	}
	return placement{placed: true, from: i + 1, moved: jump != 0, by: byAnchor, jump: jump,
		behind: m.ev.addedBehind(jump, a.page.Count, !a.nothingPlaced)}
}

// placeByOlder places a page that does not hold the anchor after the
// latest yielded post it holds (at index latest, gap posts yielded after
// it), when the page reaches past where the anchor would be (posts follow
// it, or the page ends the list): the anchor and the posts yielded after
// that one were removed. A page that holds none cannot be placed.
func (m *Machine) placeByOlder(a *answer, latest, gap int) placement {
	if latest < 0 || postsAfter(a.page, latest) < gap && a.page.Next.Present {
		return placement{moved: true}
	}
	jump := latest - (m.pos.anchorAt - a.req.Skip - gap)
	return placement{placed: true, from: latest + 1, moved: true, by: byOlder, jump: jump,
		behind: m.ev.addedBehind(jump, a.page.Count, !a.nothingPlaced), presumed: gap > 0}
}

// holdsNew reports whether a page holds a post the walk does not remember
// yielding after the last it does: one that may stand ahead of the walk.
func (m *Machine) holdsNew(page *Page) bool {
	for _, id := range slices.Backward(page.IDs) {
		switch {
		case id == "":
		case m.mem.holds(id):
			return false
		default:
			return true
		}
	}
	return false
}

// explained reports whether a jump of the anchor from where it was asked
// is no more than the change of count since the last page placed, in its
// direction, give or take movedAloneSlack: posts added before it push it
// on by as many as the count rose; removed, back by as many as it fell
// (while others change elsewhere). A server that rounds skip to its own
// pages moves a page further than that.
func (e *evidence) explained(jump, count int) bool {
	change := count - e.placedCount
	return jump > 0 && jump <= max(change, 0)+movedAloneSlack || jump < 0 && -jump <= max(-change, 0)+movedAloneSlack
}

// movedAloneSlack is how much further than the count rose an anchor may be
// found before it is taken for one that moved by itself: a post added just
// before it while another is removed elsewhere moves it on by one with the
// count unchanged.
const movedAloneSlack = 2

// movedAlone reports whether the yielded post at index i (the anchor, or
// the latest yielded the page holds), jump places further on than
// expected, moved by itself (a post edited and moved up the list): further
// on than the count rose (by more than movedAloneSlack), and with a post
// before it on the page that is not the one yielded before it. A page that
// moved as a whole (posts added before it, or a server that rounds skip)
// keeps the post's predecessor in front of it.
func (m *Machine) movedAlone(page *Page, i, jump int) bool {
	prev := previousPost(page, i)
	if jump <= max(0, page.Count-m.ev.placedCount)+movedAloneSlack || prev < 0 {
		return false
	}
	at, _ := m.mem.order(page.IDs[i])
	want := at - 1
	if want == 0 {
		return false // the first post yielded: which stood before it is not known
	}
	before, ok := m.mem.order(page.IDs[prev])
	return !ok || before != want
}

// addedBehind is how many posts were added behind the walk, as a yielded
// post found moved places further on than asked shows: as many as the
// count rose since the last page placed, at most. A page from the wrong
// place moves posts as well, but not the count. On a resumed walk's first
// page (known false) there is no count to compare with: the list changed
// between the runs. A count seen to lie tells nothing.
func (e *evidence) addedBehind(moved, count int, known bool) int {
	switch {
	case moved <= 0 || known && e.countLied():
		return 0
	case known:
		return min(moved, max(0, count-e.placedCount))
	}
	return moved
}

// scan finds the posts of a page that the walk remembers yielding: the
// index of the latest of them (-1 when none), how many posts were yielded
// after it (gap, 0 when it is the anchor), and the index of the anchor
// (-1 when absent). Yielded posts in another order than they were yielded
// mean the order changed: the walk ends.
func (m *Machine) scan(page *Page) (latest, gap, anchorAt int, err *End) {
	latest, anchorAt = -1, -1
	latestSeq := 0
	for i, id := range page.IDs {
		if id == "" {
			continue
		}
		s, ok := m.mem.order(id)
		if !ok {
			continue
		}
		if s <= latestSeq {
			e := m.drift(fmt.Sprintf("post %s now comes after post %s, the order changed", id, page.IDs[latest]), id)
			return 0, 0, 0, &e
		}
		latest, latestSeq = i, s
	}
	if latest >= 0 && page.IDs[latest] == m.pos.anchor {
		anchorAt = latest
	}
	return latest, m.mem.added - latestSeq, anchorAt, nil
}

// seek returns the skip of the read that should find the anchor again,
// after a page answered for skip could not be placed (the reads-th such
// page in a row). It centres the read on where the posts the page holds say
// the anchor is, or, when the page reached that place and the anchor was
// not there, reads on from the page's end; a first such page whose posts
// stand past where the anchor stood, under the same count, was not
// answered where asked: it is asked again. A page that holds none of them
// says only that the anchor is elsewhere: the first time, the read goes
// where the change of count since the last page placed would have moved it
// (posts added before it push it on); after that, or with no change of
// count, reads search around where it was: there, a page back, a page on,
// two back, two on, and so on. It returns -1 when that search has passed
// both ends of the list.
func (m *Machine) seek(skip, limit, reads int, page *Page) int {
	latest, gap, _, err := m.scan(page)
	last := m.lastStart(page, limit)
	// A server whose pages are shorter than the limit shows only that
	// many posts a read: search by what it shows.
	if n := len(page.IDs); n > 0 && n < limit {
		limit = n
	}
	half := (limit - 1) / 2
	if err == nil && latest >= 0 {
		at, end := skip+latest, skip+len(page.IDs)
		switch {
		case reads == 1 && at > m.pos.anchorAt && page.Count == m.ev.placedCount:
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
	delta := page.Count - m.ev.placedCount
	if !m.ev.counted || m.ev.placedCount == 0 && m.mem.added <= 1 {
		delta = 0 // no page placed yet (a resumed walk): no change of count to go by
	}
	if reads == 1 && delta != 0 {
		return min(max(m.pos.anchorAt+delta-half, 0), last)
	}
	// Counted from the read after the one the count's change aimed.
	k := reads - 1
	if delta != 0 {
		k--
	}
	return m.pos.spiral(k, limit, last)
}

// lastStart is where the last read of a search may start: the list's end
// as the count says, or, when the count tells nothing, two pages past
// where the walk stands.
func (m *Machine) lastStart(page *Page, limit int) int {
	if m.ev.countLied() || page.Count <= m.pos.anchorAt {
		return max(m.pos.anchorAt, m.pos.reached) + 2*limit
	}
	return max(page.Count-1, 0)
}

// spiral returns the start of the k-th read of a search around where the
// anchor was: there, a page back, a page on, two back, two on, and so on;
// -1 when the search has passed both ends of the list.
func (pos *position) spiral(k, limit, last int) int {
	step := (k + 1) / 2 * max(limit-1, 1)
	if k%2 == 1 {
		step = -step
	}
	if pos.anchorAt-step < 0 && pos.anchorAt+step > last || pos.anchorAt+step < -limit && pos.anchorAt-step > last+limit {
		return -1
	}
	return min(max(pos.anchorAt+step-(limit-1)/2, 0), last)
}
