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
	// earlier: the page is taken to begin at start, before where it was
	// asked, and ends the list (a resumed walk's first page, or a page
	// settled from where its anchor showed it began).
	earlier bool
	// behind is how many posts the page shows were added behind the walk
	// (see [cursor.behind]).
	behind int
	// presumed: placed after an older post than the anchor, which (with
	// any yielded after that post) is taken for removed.
	presumed bool
	// edge: the anchor stood first on the page, or at its start where it
	// was asked for, on a list that lost posts since the last page placed
	// (see [Machine.checkEdge]).
	edge bool
}

// place places the reads-th answer to a page's request, or asks for
// another read: a page that cannot be placed is read again where the posts
// it holds say the anchor is (see [Machine.seek]); a suspect one, or one
// that began elsewhere than asked with a next link that agrees, is read
// once more before it is believed (see [Machine.reread]).
func (m *Machine) place(req Request, page *Page, reads int, first bool) {
	p, err := m.locate(req, page, first)
	switch {
	case err != nil:
		m.fail(*err)
	case p.placed && !doubtful(page, p) && p.edge:
		m.checkEdge(req, page, p, reads, first)
	case p.placed && !doubtful(page, p):
		if p.moved {
			m.event(pageEvent(EventReanchor, req, page, "ugc: page re-anchored: the list changed or the page was not the one asked for"))
		}
		m.located(req, page, p, first)
	case reads > maxReads:
		m.fail(m.lost(page, reads))
	case p.placed:
		m.event(Event{Kind: EventReanchor})
		m.denyEnd(req, page)
		again := req
		again.Purpose = Reread
		m.await(rereading, pending{req: again, reads: reads, first: first, doubted: p})
	default:
		m.event(Event{Kind: EventReanchor})
		m.denyEnd(req, page)
		skip := m.seek(req.Skip, m.plan.anchoredLimit(), reads, page)
		if skip < 0 {
			m.fail(m.lost(page, reads))
			return
		}
		search := m.plan.at(skip, m.plan.anchoredLimit())
		search.Purpose = Search
		m.await(searching, pending{req: search, reads: reads, first: first})
	}
}

// denyEnd notes a read or search past an end the walk read on from that
// brought posts the walk does not remember, on a page it could not yet
// place or believe: they may stand beyond that end (a search reaches no
// further back than the walk remembers), which stays contradicted until a
// page read on from the anchor, where asked, shows where the list ends
// (see [Machine.judge]).
func (m *Machine) denyEnd(req Request, page *Page) {
	if m.j.readsOn > 0 && (req.Purpose == Read || req.Purpose == Search) && m.holdsNew(page) {
		m.j.endDenied = true
	}
}

// checkEdge asks, before it goes on with a page whose anchor stood at its
// start (first, or after the node before it: see [plan.overlap]), where
// it was asked for, on a list that lost posts since the last page placed,
// for the node before the page's first and that node. A post removed
// before the anchor would have moved it back by one, and a post the server
// sent twice in place of the one after it would then stand just where the
// anchor was expected (a request from the anchor); or a server that
// rounds skip down by one would have answered from just where the removal
// put the page's first node: the page would look right, with a post
// missing. The two nodes show it: a post twice (in [Machine.Take]), or
// the page's first node one place earlier, when the page is taken from
// where the check shows it began (see [Machine.settle]).
func (m *Machine) checkEdge(req Request, page *Page, p placement, reads int, first bool) {
	pr := &probe{req: req, page: Page{Count: page.Count, IDs: append([]string(nil), page.IDs...), Next: page.Next, Answered: page.Answered},
		p: p, first: first}
	check := m.plan.at(req.Skip-1, 2)
	check.Purpose = Probe
	m.await(checkingEdge, pending{req: check, reads: reads, probe: pr})
}

// edgeChecked goes on with the page an edge check was sent for. A check
// answered from a list whose count is not the page's shows nothing of the
// page's list: the page is read again (and checked again, if it still
// needs it), maxReads times at most, before it is taken as it came.
func (m *Machine) edgeChecked(check *Page, w pending) {
	pr := w.probe
	if check.Count != pr.page.Count && w.reads < maxReads {
		again := pr.req
		again.Purpose = Reread
		m.await(searching, pending{req: again, reads: w.reads, first: pr.first})
		return
	}
	if start, ok := checkedStart(check, &pr.page, w.req.Skip); ok && start < pr.req.Skip {
		// The check shows the page's first nodes where the page began
		// earlier than asked (a server that rounds skip down, with a
		// removal behind the walk to hide it): taken from there.
		p := pr.p
		p.start, p.moved = start, true
		m.step.Earlier = true
		m.settle(pr.req, &pr.page, p, pr.first)
		return
	}
	m.step.Earlier = true
	m.located(pr.req, &pr.page, pr.p, pr.first)
}

// checkedStart returns where an edge check, asked at skip, shows its page
// began: by the first post the two hold in common.
func checkedStart(check, page *Page, skip int) (int, bool) {
	for k, id := range check.IDs {
		if id == "" {
			continue
		}
		if i := slices.Index(page.IDs, id); i >= 0 {
			return skip + k - i, true
		}
	}
	return 0, false
}

// reread takes a doubtful page's second answer. A page twice away from
// where it was asked, in the same way, and doubtful by itself, is settled
// (see [Machine.settle]); any other answer is placed anew: one doubted only
// for the order its first answer came in is placed where asked when its
// anchor moved with the count.
func (m *Machine) reread(req Request, again *Page, w pending) {
	p, err := m.locate(req, again, w.first)
	if err != nil {
		m.fail(*err)
		return
	}
	if p.placed && p.moved && p.start == w.doubted.start && w.doubted.start >= 0 && doubtful(again, p) {
		m.settle(req, again, p, w.first)
		return
	}
	m.place(req, again, w.reads+1, w.first)
}

// settle takes a page that was twice away from where it was asked, in the
// same way. A server whose next link goes on from where such a page really
// began does not answer skip where asked (it rounds skip to its own pages,
// or ignores it): from then on the walk follows its next links as sent.
// Otherwise the page is taken as the answer to a request where it began
// (as its anchor shows); the anchor of the page after it checks it, but
// the walk can no longer vouch for its own completeness. Where it began is
// where it was asked when the list moved under the walk, or where the
// anchor shows when the server answered from elsewhere: the page is taken
// to begin at the earlier of the two, so that the walk reads on from no
// further than where it ended, unless from there it would only ask for
// the same page again. Taken from before where it was asked, the page shows
// the walk's positions ran ahead of the server's: as many posts as they
// did are no longer credited as added behind.
func (m *Machine) settle(req Request, page *Page, p placement, first bool) {
	if keepsItsOwnCount(page, p) {
		m.plan.follows, m.ev.placedCount = true, page.Count // changes of count are judged from here on
		m.ev.outcomes |= FollowedNext
		m.event(pageEvent(EventFollowNext, req, page, "ugc: the server does not answer skip where asked; following its next links as sent"))
		p, err := m.locate(req, page, first)
		if err != nil {
			m.fail(*err)
			return
		}
		m.located(req, page, p, first)
		return
	}
	m.ev.outcomes |= UnverifiedPages
	m.event(pageEvent(EventUnverified, req, page, "ugc: a page away from where it was asked: taken from where it began"))
	asked := req.Skip
	if back := asked - p.start; back > 0 {
		// The walk's positions ran that far ahead of the server's: posts
		// it took for added behind it may have been that, not additions.
		m.pos.behind = max(m.pos.behind-back, 0)
	}
	req.Skip = min(asked, p.start) // the list moved, or the server answered elsewhere: never past either
	if endsAtAnchor(page, p) && req.Skip+len(page.IDs) <= m.pos.reached {
		req.Skip = max(asked, p.start) // from the earlier, the walk would ask for this page again
	}
	// Taken from before where it was asked, a page that ends the list is
	// read on from once even where the count is met: posts removed behind
	// the anchor, as many as were added, moved it back unseen, and the page
	// may have begun earlier still.
	p.earlier = req.Skip < asked && !page.Next.Present
	m.located(req, page, p, first)
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

// doubtful reports whether a placed page is read again before it is
// believed: a suspect one, or one that began elsewhere than asked with a
// next link that agrees (a server that does not answer skip where asked).
func doubtful(page *Page, p placement) bool {
	return p.suspect || p.moved && keepsItsOwnCount(page, p)
}

// keepsItsOwnCount reports whether a page's next link goes on from where
// the page really began, as its anchor showed, plus the nodes it holds.
func keepsItsOwnCount(page *Page, p placement) bool {
	if p.start < 0 || !page.Next.Present || p.start+len(page.IDs) == 0 {
		return false
	}
	return page.Next.Skip == p.start+len(page.IDs)
}

// endsAtAnchor reports whether a placed page's last node as sent is the
// anchor: nothing after it is new.
func endsAtAnchor(page *Page, p placement) bool {
	return p.from > 0 && p.from == len(page.IDs) && page.IDs[p.from-1] != ""
}

// locate finds where a page answered for req stands relative to the posts
// already yielded. A blind request (one that starts after the anchor) is
// placed as it comes, unless it holds posts already yielded. The anchor is
// expected at index anchorAt-skip of the nodes. A page that holds the
// anchor is placed after it. One that holds only older posts is placed
// after the latest of them (the posts after it were removed) if posts
// follow it or the page ends the list. A page that holds none cannot be
// placed: the walk reads again. Yielded posts that come in another order
// than they were yielded mean the order changed: the walk ends.
// first is set until the walk has placed a page.
func (m *Machine) locate(req Request, page *Page, first bool) (placement, *End) {
	known := !first                                      // until a page is placed (a resumed walk may search for its first)
	sameCount := known && page.Count == m.ev.placedCount // since the last page placed
	shrank := page.Count < m.ev.lastCount && measures(page) && !m.ev.countLied()
	if known && page.Count < m.ev.lastCount && measures(page) {
		m.ev.fell = true
	}
	ends, err := m.noteCount(req, page)
	if err != nil || ends {
		// A page after the first with no post yielded before it has
		// nothing to be checked by; nor has the first from a skip (a
		// server that answered it from elsewhere, and wrote next as if it
		// had not, shows nothing), which the walk names but vouches for.
		if !known && req.Skip > 0 && m.pos.anchor == "" && len(page.IDs) > 0 {
			m.ev.outcomes |= FirstPageUnchecked
		}
		return placement{placed: true, unverified: known && m.pos.anchor == "" && len(page.IDs) > 0, start: -1}, err
	}
	latest, gap, anchorAt, err := m.scan(page)
	if err != nil {
		return placement{}, err
	}
	var p placement
	byAnchor := false
	switch {
	case m.plan.follows || m.pos.seeking:
		p = m.pos.passOver(page, latest, anchorAt)
		// A read on from an end, at the walk's own position, that holds no
		// post it yielded: where it began is not the server's word, and
		// nothing on it shows it.
		p.unverified = m.plan.follows && m.j.readsOn > 0 && latest < 0 && len(page.IDs) > 0
	case req.Blind && latest < 0:
		// Nothing on it to check it by; an empty one neither, unless posts
		// were removed (those after the anchor may have moved back past
		// where the walk asked).
		p = placement{placed: true, unverified: len(page.IDs) > 0 || shrank && known}
	case anchorAt >= 0:
		p, byAnchor = m.byAnchor(req, page, anchorAt, known, sameCount), true
		// A page answered before the page it follows, from a list whose
		// count was another: the list changed between the two answers,
		// so the anchor found where it was expected may be a post the
		// server sent twice standing in for a shift. Read it again.
		p.suspect = p.suspect || known && !sameCount && page.Answered > 0 && page.Answered < m.ev.placedAnswered
		p.edge = (anchorAt == 0 || anchorAt < m.plan.overlap() && !p.moved) && known && page.Count < m.ev.placedCount && !m.ev.countLied() && req.Skip > 0
	default:
		p = m.byLatest(req, page, latest, gap, known, sameCount)
	}
	p.start = -1
	if anchorAt >= 0 {
		p.start = m.pos.anchorAt - anchorAt
		// A resumed walk's first page whose anchor stands further on than
		// asked: posts added before it between the runs, or a server that
		// answered from elsewhere. When it says it ends the list, the walk
		// takes the earlier of the two starts, and reads on from no
		// further than where the page ends (and once, even from an end
		// the count meets: posts removed between the runs moved the
		// anchor too).
		p.earlier = byAnchor && !known && !page.Next.Present && p.start < req.Skip && p.start >= 0
		if p.earlier {
			p.behind = 0
		}
	}
	// Under FailOnChange a page not where it was asked for fails the
	// walk. Otherwise it is no sign of change by itself (a misbehaving
	// server sends such pages too): only posts added behind the walk
	// excuse a walk that ends short of the count (see behind).
	if p.moved && m.cfg.FailOnChange {
		e := m.drift(fmt.Sprintf("post %s is not where it was (page at skip %d)", m.pos.anchor, req.Skip), "")
		return placement{}, &e
	}
	return p, nil
}

// noteCount takes a page's count, and reports whether the page ends the
// list where the walk stands without a look at its posts (the first page,
// or an empty page that is not a search's read, asked for no further than
// where the list goes on, where the count agrees that nothing follows the
// anchor; an empty page that the count contradicts, or after posts were
// removed, whose posts after the anchor may have moved back, is read
// again), or the end of a count that changed where that is not allowed.
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
	return m.pos.anchor == "" || len(page.IDs) == 0 && !shrank && req.Purpose != Search && page.Count <= m.pos.reached && m.pos.anchorAt < req.Skip && req.Skip <= m.pos.reached, nil
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

// byAnchor places a page that holds the anchor at index i: after it,
// moved when it is not where it was asked for. An anchor that moved by
// itself is no guide (read again); one that moved further than the count
// explains makes the page suspect.
func (m *Machine) byAnchor(req Request, page *Page, i int, known, sameCount bool) placement {
	jump := i - (m.pos.anchorAt - req.Skip)
	if m.movedAlone(page, i, jump) {
		return placement{moved: true}
	}
	p := placement{placed: true, from: i + 1, moved: jump != 0}
	p.suspect = p.moved && known && (sameCount || m.ev.countLied() || !m.ev.explained(jump, page.Count))
	p.behind = m.ev.addedBehind(jump, page.Count, known)
	return p
}

// byLatest places a page that does not hold the anchor after the latest
// yielded post it holds (at index latest, gap posts yielded before the
// anchor), when the page reaches past where the anchor would be (posts
// follow it, or the page ends the list): the anchor and the posts yielded
// after that one were removed. A page that holds none cannot be placed.
func (m *Machine) byLatest(req Request, page *Page, latest, gap int, known, sameCount bool) placement {
	if latest < 0 || postsAfter(page, latest) < gap && page.Next.Present {
		return placement{moved: true}
	}
	jump := latest - (m.pos.anchorAt - req.Skip - gap)
	behind := m.ev.addedBehind(jump, page.Count, known)
	// The anchor and the posts yielded after this one were removed: the
	// count fell, unless posts were added as well. A page from elsewhere
	// (a server that ignored skip) looks the same with a count that did
	// not fall, or with the post further from where it was than the
	// count changed: it is read again first.
	suspect := sameCount || known && (m.ev.countLied() || page.Count > m.ev.placedCount || jump != 0 && !m.ev.explained(jump, page.Count))
	return placement{placed: true, from: latest + 1, moved: true, suspect: suspect, behind: behind, presumed: gap > 0}
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

// postsAfter counts the posts of a page after index i.
func postsAfter(page *Page, i int) int {
	n := 0
	for _, id := range page.IDs[i+1:] {
		if id != "" {
			n++
		}
	}
	return n
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
	return latest, m.mem.latest - latestSeq, anchorAt, nil
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
	if !m.ev.counted || m.ev.placedCount == 0 && m.mem.latest <= 1 {
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

// measures reports whether a page's count could be the size of the list:
// not 0 or less, nor the page's own length under a next link.
func measures(page *Page) bool {
	return page.Count > 0 && !(page.Next.Present && page.Count == len(page.IDs))
}
