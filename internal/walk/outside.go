package walk

import (
	"fmt"
	"slices"
)

// The defenses against servers outside the contract. A server that keeps
// the contract answers each skip where it was asked and writes its next
// link from where its posts end: a page it sends holds the anchor where
// the walk expected it (or moved by the posts added and removed, with the
// count), begins where it was asked, and ends the list at a null next or
// an empty page. Others round skip down to their own pages, ignore it
// once, answer from a stale replica, write next from elsewhere: their
// pages come from elsewhere than asked, and only the anchor, the count and
// the next link can show it. The defenses read those three:
//
//   - doubt ([Machine.vet], [Machine.reread], [Machine.settle]): a page
//     found away from where it was asked in a way the count does not
//     explain is read again before it is believed; twice away in the same
//     way, it is taken from where it began (unverified), or, when its next
//     link agrees with where it began, the walk follows the server's next
//     links as sent from then on (followed-next);
//   - the edge check ([Machine.checkEdge]): a page whose anchor stands at
//     its start, on a list that lost posts, has the node before it asked;
//   - the probe ([pageProbe]): a first page that is also the last, whose
//     count does not confirm where it began, has where it began asked;
//   - where a page begins ([Machine.pageStart]) and how far the walk's
//     positions may run ahead of the server's ([Machine.lag]: nextLag,
//     runAhead), against which the end judgement reads the count.
//
// review is their one entry point: the contract's path hands it every page
// it placed, and the answers to the requests the defenses ask for come back
// to it. A page from a server that keeps the contract goes through it to
// commit as it came, begun where it was asked. The one mode the defenses
// switch the contract's path into is following next links ([plan.follows],
// set by settle): pages are then placed by the posts they hold
// ([position.passOver]), and a count that changes ends the walk.

// outside is what the defenses keep of a server outside the contract.
type outside struct {
	// nextLag is how far before where the walk has the last page's posts
	// end its next link went on: a server that answers from before where
	// asked (it rounds skip down) while the walk's positions run ahead of
	// its own. An end is judged against the count from the server's
	// position (this, or where the page's anchor shows it began), the
	// lower.
	nextLag int
	// runAhead is how far a resumed walk's positions were seen to run
	// ahead of the server's, by its first page.
	runAhead int
}

// review is the defenses' one entry point. In phase reading it takes a
// page the contract's rules placed (p): one that is doubtful is read
// again, one whose edge needs a check has it asked, and any other goes on
// to where it begins and to commit ([Machine.located]). In the defenses'
// own phases it takes the answer to what they asked (w, what the phase
// waits for).
func (m *Machine) review(a *answer, p placement, ph phase, w pending) {
	switch ph {
	case rereading:
		m.reread(a, w)
	case checkingEdge:
		m.edgeChecked(a.page, w)
	case probing:
		m.probed(a.page, w)
	default:
		m.vetted(a, p)
	}
}

// vetted goes on with a page the contract's rules placed, once the
// defenses have looked at it ([Machine.vet]).
func (m *Machine) vetted(a *answer, p placement) {
	m.vet(a, &p)
	switch doubt := doubtful(a.page, p); {
	case doubt && a.reads > maxReads:
		m.end(m.lost(a.page, a.reads))
	case doubt:
		m.event(Event{Kind: EventReanchor})
		m.denyEnd(a.req, a.page)
		again := a.req
		again.Purpose = Reread
		m.await(rereading, pending{req: again, reads: a.reads, nothingPlaced: a.nothingPlaced, doubted: p})
	case p.edge:
		m.checkEdge(a, p)
	default:
		if p.moved {
			m.event(pageEvent(EventReanchor, a.req, a.page, "ugc: page re-anchored: the list changed or the page was not the one asked for"))
		}
		m.located(a, p)
	}
}

// vet marks what the defenses make of a placed page: whether it is
// suspect (see [Machine.suspect]), whether its edge needs a check (see
// [Machine.needsEdgeCheck]), and whether it is taken to begin earlier
// than asked: a resumed walk's first page whose anchor stands further on
// than asked (posts added before it between the runs, or a server that
// answered from elsewhere) and that says it ends the list is taken from
// the earlier of the two starts, and read on from no further than where
// it ends (and once, even from an end the count meets: posts removed
// between the runs moved the anchor too); the posts its anchor's move
// seemed to add behind the walk are not credited.
func (m *Machine) vet(a *answer, p *placement) {
	p.suspect = m.suspect(a, *p)
	if p.by != byAnchor {
		return
	}
	p.edge = m.needsEdgeCheck(a, *p)
	p.earlier = a.nothingPlaced && !a.page.Next.Present && p.start < a.req.Skip && p.start >= 0
	if p.earlier {
		p.behind = 0
	}
}

// suspect reports whether a placed page is more likely not the one asked
// for (a server that ignored skip, a lagging replica) than a list that
// gained and lost posts between two requests: it is read again before it
// is believed. Placed by its anchor: the anchor moved while the count
// stood, or on a server whose count was seen to lie, or further than the
// count changed since the last page placed (posts added before the anchor
// push it on by as many as the count rose; removed, back by as many as it
// fell); or the page was answered before the page it follows, from a list
// of another count (the list changed between the two answers, so the
// anchor found where it was expected may be a post the server sent twice
// standing in for a shift). Placed by an older post, the anchor and the
// posts yielded after it taken for removed: the count fell, unless posts
// were added as well, and a page from elsewhere looks the same with a
// count that did not fall, or with the post further from where it was
// than the count changed.
func (m *Machine) suspect(a *answer, p placement) bool {
	switch p.by {
	case byAnchor:
		return m.anchorSuspect(a, p)
	case byOlder:
		return m.olderSuspect(a, p)
	}
	return false
}

// anchorSuspect reports whether a page placed by its anchor is suspect
// (see [Machine.suspect]).
func (m *Machine) anchorSuspect(a *answer, p placement) bool {
	if a.nothingPlaced {
		return false
	}
	sameCount := a.page.Count == m.ev.placedCount
	answeredBefore := a.page.Answered > 0 && a.page.Answered < m.ev.placedAnswered
	return p.moved && (sameCount || m.unexplained(a, p)) || !sameCount && answeredBefore
}

// olderSuspect reports whether a page placed by an older post than the
// anchor is suspect (see [Machine.suspect]).
func (m *Machine) olderSuspect(a *answer, p placement) bool {
	if a.nothingPlaced {
		return false
	}
	return a.page.Count == m.ev.placedCount || m.unexplained(a, p) || a.page.Count > m.ev.placedCount
}

// unexplained reports whether the move of the post that placed a page is
// more than the count explains: the count was seen to lie, or the post
// stood further from where it was expected than the count changed.
func (m *Machine) unexplained(a *answer, p placement) bool {
	return m.ev.countLied() || p.jump != 0 && !m.ev.explained(p.jump, a.page.Count)
}

// needsEdgeCheck reports whether a page placed by its anchor has the node
// before it asked first (see [Machine.checkEdge]): the anchor stood first
// on the page, or at its start where it was asked for (see
// [plan.overlap]), on a list that lost posts since the last page placed,
// by a count that could be believed, past the list's start.
func (m *Machine) needsEdgeCheck(a *answer, p placement) bool {
	i := p.from - 1 // the anchor's index
	atStart := i == 0 || i < m.plan.overlap() && !p.moved
	lost := a.page.Count < m.ev.placedCount && !m.ev.countLied()
	return atStart && !a.nothingPlaced && lost && a.req.Skip > 0
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

// locateAgain places a page anew, as the contract's rules and the
// defenses' look at it do.
func (m *Machine) locateAgain(a *answer) (placement, *End) {
	p, err := m.locate(a)
	if err == nil {
		m.vet(a, &p)
	}
	return p, err
}

// reread takes a doubtful page's second answer. A page twice away from
// where it was asked, in the same way, and doubtful by itself, is settled
// (see [Machine.settle]); any other answer is placed anew: one doubted only
// for the order its first answer came in is placed where asked when its
// anchor moved with the count.
func (m *Machine) reread(a *answer, w pending) {
	a.nothingPlaced = w.nothingPlaced
	p, err := m.locateAgain(a)
	if err != nil {
		m.end(*err)
		return
	}
	if p.placed && p.moved && p.start == w.doubted.start && w.doubted.start >= 0 && doubtful(a.page, p) {
		m.settle(a, p)
		return
	}
	a.reads = w.reads + 1
	m.place(a)
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
func (m *Machine) settle(a *answer, p placement) {
	page := a.page
	if keepsItsOwnCount(page, p) {
		m.plan.follows, m.ev.placedCount = true, page.Count // changes of count are judged from here on
		m.ev.outcomes |= FollowedNext
		m.event(pageEvent(EventFollowNext, a.req, page, "ugc: the server does not answer skip where asked; following its next links as sent"))
		p, err := m.locateAgain(a)
		if err != nil {
			m.end(*err)
			return
		}
		m.located(a, p)
		return
	}
	m.ev.outcomes |= UnverifiedPages
	m.event(pageEvent(EventUnverified, a.req, page, "ugc: a page away from where it was asked: taken from where it began"))
	asked := a.req.Skip
	if back := asked - p.start; back > 0 {
		// The walk's positions ran that far ahead of the server's: posts
		// it took for added behind it may have been that, not additions.
		m.pos.behind = max(m.pos.behind-back, 0)
	}
	settled := *a
	settled.req.Skip = min(asked, p.start) // the list moved, or the server answered elsewhere: never past either
	if endsAtAnchor(page, p) && settled.req.Skip+len(page.IDs) <= m.pos.reached {
		settled.req.Skip = max(asked, p.start) // from the earlier, the walk would ask for this page again
	}
	// Taken from before where it was asked, a page that ends the list is
	// read on from once even where the count is met: posts removed behind
	// the anchor, as many as were added, moved it back unseen, and the page
	// may have begun earlier still.
	p.earlier = settled.req.Skip < asked && !page.Next.Present
	m.located(&settled, p)
}

// endsAtAnchor reports whether a placed page's last node as sent is the
// anchor: nothing after it is new.
func endsAtAnchor(page *Page, p placement) bool {
	return p.from > 0 && p.from == len(page.IDs) && page.IDs[p.from-1] != ""
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
func (m *Machine) checkEdge(a *answer, p placement) {
	pr := &pageProbe{page: Page{Count: a.page.Count, IDs: slices.Clone(a.page.IDs), Next: a.page.Next, Answered: a.page.Answered}, p: p}
	pr.a = answer{req: a.req, page: &pr.page, nothingPlaced: a.nothingPlaced}
	check := m.plan.at(a.req.Skip-1, 2)
	check.Purpose = Probe
	m.await(checkingEdge, pending{req: check, reads: a.reads, probe: pr})
}

// edgeChecked goes on with the page an edge check was sent for. A check
// answered from a list whose count is not the page's shows nothing of the
// page's list: the page is read again (and checked again, if it still
// needs it), maxReads times at most, before it is taken as it came.
func (m *Machine) edgeChecked(check *Page, w pending) {
	pr := w.probe
	if check.Count != pr.page.Count && w.reads < maxReads {
		again := pr.a.req
		again.Purpose = Reread
		m.await(searching, pending{req: again, reads: w.reads, nothingPlaced: pr.a.nothingPlaced})
		return
	}
	m.step.Earlier = true
	if start, ok := checkedStart(check, &pr.page, w.req.Skip); ok && start < pr.a.req.Skip {
		// The check shows the page's first nodes where the page began
		// earlier than asked (a server that rounds skip down, with a
		// removal behind the walk to hide it): taken from there.
		p := pr.p
		p.start, p.moved = start, true
		m.settle(&pr.a, p)
		return
	}
	m.located(&pr.a, pr.p)
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

// located goes on with a page placed and believed: its next link is
// taken ([Machine.checkNext]), and where it begins ([Machine.pageStart]);
// a first page that is also the last, whose count does not confirm where
// it began, has that asked ([pageProbe]).
func (m *Machine) located(a *answer, p placement) {
	m.checkNext(a)
	skip, ok := m.pageStart(a, p)
	if !ok {
		m.probe(a, p)
		return
	}
	m.begin(a, p, skip)
}

// checkNext reads the next link of a placed page: what it forgave (a short
// page, a skip that does not match the posts) is an event, and a link the
// shell refused ends the walk after the page.
func (m *Machine) checkNext(a *answer) {
	req, page := a.req, a.page
	if page.Next.Refused {
		a.next, a.refused = Next{}, true
		return
	}
	a.next, a.refused = page.Next, false
	if !a.next.Present {
		return
	}
	if len(page.IDs) < req.Limit {
		m.event(pageEvent(EventShortPage, req, page, ""))
	}
	end := req.Skip + len(page.IDs)
	if a.next.Skip != end && !m.plan.follows {
		m.event(pageEvent(EventNextCorrected, req, page,
			fmt.Sprintf("ugc: next link skips to %d, but the posts received end at %d; reading from there", a.next.Skip, end)))
	}
	m.out.nextLag = max(end-a.next.Skip, 0)
}

// pageStart is where a placed page begins in the list, and false when
// that must be asked (see [pageProbe]): where it was asked, unless the walk
// follows next links as sent (the link after it, or on the last page its
// anchor, says where it began: a server that rounds skip serves from
// elsewhere than asked), or the page was read blind and its next link says
// it began before (a server that rounds skip down to its own pages), never
// at or before the anchor it does not hold. A next link further on than
// the page's end says nothing of where it began (a server that writes next
// as skip plus limit under a short page): the walk never skips what it was
// not sent.
func (m *Machine) pageStart(a *answer, p placement) (int, bool) {
	n, next, asked := len(a.page.IDs), a.next, a.req.Skip
	switch {
	case m.plan.follows && next.Present:
		return next.Skip - n, true
	case m.plan.follows && p.start >= 0 || p.earlier:
		return p.start, true // where its anchor shows
	case m.pos.anchor == "" && next.Present: // no post to place it by
		return min(asked, max(next.Skip-n, 0)), true
	case p.unverified && next.Present:
		return min(asked, max(next.Skip-n, m.pos.anchorAt+1)), true
	case m.unconfirmedStart(a):
		return 0, false
	}
	return asked, true
}

// unconfirmedStart reports whether a page with no post yielded before it,
// asked past the list's start, with posts and no next link, has a count
// that does not confirm it began where asked: it may have come from
// before the skip (see [pageProbe]).
func (m *Machine) unconfirmedStart(a *answer) bool {
	asked := a.req.Skip
	return m.pos.anchor == "" && asked > 0 && a.page.Count != asked+len(a.page.IDs) && postsAfter(a.page, -1) > 0
}

// begin goes on with a placed page that begins at skip: what the defenses
// take of it, then commit. Begun earlier than asked with no post yielded
// to place it by, what stands before where the walk was asked to go on is
// left out, and nothing on it vouches for where it began. A walk that
// follows next links asks for the page's next link as sent. A resumed
// walk's first page taken from before where it was asked shows how far
// the walk's positions run ahead of the server's.
func (m *Machine) begin(a *answer, p placement, skip int) {
	if skip < a.req.Skip && m.pos.anchor == "" {
		p.from, p.unverified = min(a.req.Skip-skip, len(a.page.IDs)), true
	}
	if m.plan.follows && a.next.Present {
		m.plan.followNext(a.next)
	}
	if p.earlier && skip < a.req.Skip {
		// Taken where a server that rounds skip had answered from before
		// where asked, or before posts were removed: every end from here
		// on is judged from that far back, as the pages after it may agree
		// with the positions by the same rounding.
		m.out.runAhead = max(m.out.runAhead, a.req.Skip-skip)
	}
	m.commit(a, p, skip, m.lag(a, p, skip))
}

// lag is how far the walk's positions may run ahead of the server's, once
// the page beginning at skip is committed: the end a page shows is judged
// against the count from that far back (see [Machine.judge]). The server's
// next link went on from before where its posts end (nextLag); the page's
// anchor shows it began before where the walk has it begin, by more than
// the posts the count shows added behind; posts taken for added behind the
// walk moved its positions on by as many (a server that answered from
// before where asked, with a count that rose by as much, looks the same);
// a resumed walk's positions ran ahead (runAhead). Where the page began is
// not vouched for (taken from earlier, placed elsewhere than asked, a
// resumed walk's first): at least 1, so that it is read on from once even
// where the count is met. Posts removed between the runs moved a resumed
// walk's anchor too, by as many as they were, and a checkpoint's position
// may run ahead of the server's (one that rounds skip); a page placed
// elsewhere than asked may have come from elsewhere still, its move
// matched by a count that lied.
func (m *Machine) lag(a *answer, p placement, skip int) int {
	lag := max(m.out.nextLag, m.pos.behind+p.behind, m.out.runAhead)
	if p.start >= 0 {
		lag = max(lag, skip-p.start-p.behind)
	}
	if p.earlier || p.moved || a.nothingPlaced && m.cfg.After != "" {
		lag = max(lag, 1)
	}
	return lag
}

// pageProbe is the search for where a page with no post yielded before it
// and no next link after it began, when its count does not confirm that
// it began where asked: a server that rounds skip down to its own pages,
// or ignores it once, serves posts before the skip too, and no link says
// so. The page is asked again a skip earlier. Where that answer holds one
// of the page's posts at another index, the two answers place the page
// (for a server that honours skip: where asked). Where it holds it at the
// same index, the server answered both skips from one place: it does not
// honour skip there, and the page began at the smallest skip answered
// from that place, found by halving (a server rounds skip down, so every
// skip from there to the one asked is). With no post in common, the page
// stands before the skip when the earlier answer ends the list (it is left
// out; unless the server was seen to end the list early), and began where
// asked otherwise. The same holds the page an edge check is for.
type pageProbe struct {
	a    answer // the page's answer: a points to page
	page Page   // a copy: the shell's page is its own again
	p    placement
	// halving: lo and hi bound where the page began; hi was answered from
	// there.
	halving bool
	lo, hi  int
}

// probe asks where a placed page began.
func (m *Machine) probe(a *answer, p placement) {
	pr := &pageProbe{page: Page{Count: a.page.Count, IDs: slices.Clone(a.page.IDs), Next: a.page.Next}, p: p}
	pr.a = *a
	pr.a.page = &pr.page
	m.ask(pr, a.req.Skip-1)
}

// ask sends the probe's read at skip.
func (m *Machine) ask(pr *pageProbe, skip int) {
	m.event(Event{Kind: EventReanchor})
	r := m.plan.at(skip, pr.a.req.Limit)
	r.Purpose = Probe
	m.await(probing, pending{req: r, probe: pr})
}

// probed takes the answer to a probe's read.
func (m *Machine) probed(got *Page, w pending) {
	pr, asked := w.probe, w.req.Skip
	i, j, ok := postInCommon(&pr.page, got)
	if !pr.halving {
		if skip, found := m.probedOnce(pr, got, i, j, ok); found {
			m.begun(pr, skip)
			return
		}
		pr.halving, pr.lo, pr.hi = true, 0, pr.a.req.Skip-1
	} else if ok && i == j {
		pr.hi = asked
	} else {
		pr.lo = asked + 1
	}
	if pr.lo < pr.hi {
		m.ask(pr, pr.lo+(pr.hi-pr.lo)/2)
		return
	}
	m.begun(pr, pr.lo)
}

// probedOnce reads the first answer of a probe, a skip before the page's
// (its post in common with the page at index j, the page's at i, when
// ok), and returns where the page began, unless it must be found by
// halving: the list ends before the skip (all of the page stands before
// it), nothing in common (where asked), or the two answers place it.
func (m *Machine) probedOnce(pr *pageProbe, got *Page, i, j int, ok bool) (skip int, found bool) {
	asked := pr.a.req.Skip
	endsBefore := !got.Next.Present && !got.Next.Refused && len(got.IDs) < pr.a.req.Limit && !m.j.readPastAnEnd()
	switch {
	case !ok && endsBefore:
		return max(asked-len(pr.page.IDs), 0), true
	case !ok:
		return asked, true
	case i != j:
		return min(max(asked-1+j-i, 0), asked), true // placed by the earlier answer
	}
	return 0, false
}

// begun goes on with a probed page, found to begin at skip.
func (m *Machine) begun(pr *pageProbe, skip int) {
	m.step.Earlier = true
	m.begin(&pr.a, pr.p, skip)
}

// postInCommon returns where the first of page's posts that other holds
// stands in each.
func postInCommon(page, other *Page) (i, j int, ok bool) {
	for i, id := range page.IDs {
		if id == "" {
			continue
		}
		for j, o := range other.IDs {
			if o == id {
				return i, j, true
			}
		}
	}
	return 0, 0, false
}
