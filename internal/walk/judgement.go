package walk

import "fmt"

// judgement is what the end judgement remembers between pages: pages in a
// row that did not move the walk on, answers in a row that did not, and
// the reads past an end that the count contradicts.
type judgement struct {
	// stale counts pages in a row that did not move the walk on, but the
	// first search's page among them (searchedBack).
	stale        int
	searchedBack bool
	// readsOn counts the reads in a row past an end that the count
	// contradicts.
	readsOn int
	// endDenied is set when a read past such an end brought posts, after
	// any the walk remembers, on a page it could not place or believe (see
	// [Machine.denyEnd]): an end is then contradicted by posts seen beyond
	// it, whatever the count says, until a page read on from the anchor,
	// where asked, shows where the list ends.
	endDenied bool
	// endAt is where the last end read on from stood (0 before the
	// first: an end read on from has posts); endsAgain counts the ends
	// short of it read on from since the walk last moved on.
	endAt, endsAgain int
	// idle counts the answers taken since the walk last moved on; at
	// idleBound (maxIdle) the walk ends as stalled.
	idle, idleBound int
}

// judge decides, after a page is committed, whether the list goes on: the
// one end judgement of every walk. An empty page or a null next ends it; a
// next link goes on, a short page's too. A count that disagrees with where
// the list ends is recorded ([countDisagrees]), never a reason to stop. An
// end that the count or posts seen beyond it contradict
// ([Machine.endContradicted]) is read on from, twice at most
// ([Machine.readOn]); any other end finishes the walk ([Machine.finish]).
// Two pages in a row that do not move the walk on end it as stalled, not
// counting the first search's page among them: it stands where the anchor
// was found, behind where the walk read (posts removed behind it moved it
// back), and the next page tells whether the walk moves on.
func (m *Machine) judge(a *answer, progress bool, lag int) {
	if countDisagrees(a.page, a.next, m.pos.reached) {
		m.event(pageEvent(EventCountMismatch, a.req, a.page, ""))
	}
	if a.refused {
		m.end(End{Kind: EndRefused})
		return
	}
	if progress {
		m.j.stale, m.j.readsOn, m.j.endsAgain, m.j.searchedBack = 0, 0, 0, false
	}
	ends := len(a.page.IDs) == 0 || !a.next.Present
	again := m.endAgain()
	switch {
	case ends && m.endContradicted(a.page, lag) && (m.j.readsOn < 2 || again):
		m.readOn(a, again)
	case ends:
		m.finish()
	case !progress && a.req.Purpose == Search && !m.j.searchedBack:
		m.j.searchedBack = true
	case !progress:
		if m.j.stale++; m.j.stale >= 2 {
			m.end(End{Kind: EndStalled, Reason: fmt.Sprintf("2 pages in a row did not move the walk on (skip %d); the server may ignore skip", a.req.Skip)})
		}
	}
}

// countDisagrees reports whether a page's count disagrees with where the
// list ends, the list going on at reached after it: negative, at or below
// where a page with a next link ends, or not where a page without one
// ends.
func countDisagrees(page *Page, next Next, reached int) bool {
	return page.Count < 0 || next.Present && reached >= page.Count || !next.Present && reached != page.Count
}

// endContradicted reports whether an end that a page with posts shows is
// contradicted: by its count, read from lag before where the walk has the
// page end (how far its positions may run ahead of the server's: see
// [Machine.lag]), or by posts a read past an earlier end brought that the
// walk could not place (endDenied). A server that ends the list early, or
// sends one page short, then loses no post.
func (m *Machine) endContradicted(page *Page, lag int) bool {
	return len(page.IDs) > 0 && (m.pos.reached-lag < page.Count || m.j.endDenied)
}

// endAgain reports whether the end the walk stands at is short of one it
// read on from before (a page read again further back): no new end, it is
// read on from without counting, twice at most until the walk moves on (a
// server whose pages come back further back each time would keep the walk
// reading forever).
func (m *Machine) endAgain() bool {
	return m.pos.reached < m.j.endAt && m.j.endsAgain < 2
}

// readOn reads past an end the count contradicts: from where the posts
// ended (see [plan.readOn]; a walk that follows next links, from where the
// server's own positions put the end).
func (m *Machine) readOn(a *answer, again bool) {
	if again {
		m.j.endsAgain++
	} else {
		m.j.readsOn++
		m.j.endAt = m.pos.reached
	}
	m.plan.readOn(a.req, a.page, m.pos.reached)
	m.event(pageEvent(EventNextCorrected, a.req, a.page, "ugc: a page ended the list before its count; reading on"))
}

// readPastAnEnd reports whether the walk has read past an end the count
// contradicted: the server's null next is then no proof that the list
// ends.
func (j *judgement) readPastAnEnd() bool { return j.endAt > 0 }

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

// finish ends a walk that reached the end of the list: complete, or with
// the error that says why not. A walk resumed after a post it never found
// lost its place; one that read a page twice over another post may have
// lost that post; one whose end a read past it still contradicts may have
// lost the posts it could not place; and one that ends short of its count
// is incomplete unless it can vouch for its own reading (see
// [Machine.shortfall]).
func (m *Machine) finish() {
	shortfall := m.ev.lastCount - m.cfg.Skip - m.pos.dropped - m.pos.yielded
	m.event(Event{Kind: EventShortfall, N: max(shortfall, 0)})
	switch {
	case m.pos.seeking:
		m.end(m.drift(fmt.Sprintf("post %s of the checkpoint is no longer in the list", m.pos.anchor), ""))
	case m.ev.twice != "":
		m.end(End{Kind: EndIncomplete, Reason: fmt.Sprintf("post %s came twice on one page, in place of another", m.ev.twice)})
	case m.j.endDenied:
		m.end(End{Kind: EndIncomplete, Reason: "a read past where the list ended brought posts that could not be placed"})
	case m.shortfall(shortfall):
		m.end(End{Kind: EndIncomplete})
	default:
		m.end(End{Kind: EndDone})
	}
}

// shortfall reports whether a walk that ends shortfall posts short of the
// last count is incomplete. A walk whose every page was placed by its
// anchor has read the list without a gap from its start to an end it read
// twice: a count above what it found is the count's error, not the
// walk's. A walk that read pages blind or followed next links as sent
// cannot vouch for itself: a shortfall beyond the posts added behind it
// (not owed) is incomplete, unless the count was seen to measure nothing.
func (m *Machine) shortfall(shortfall int) bool {
	vouched := m.ev.outcomes&(UnverifiedPages|FollowedNext) == 0
	return shortfall > m.pos.behind && !vouched && m.ev.trust != countNone
}
