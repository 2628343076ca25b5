package walk

// pageStart is where a placed page begins in the list, and false when
// that must be asked (see [Machine.probe]): where it was asked, unless the
// walk follows next links as sent (the link after it, or on the last page
// its anchor, says where it began: a server that rounds skip serves from
// elsewhere than asked), or the page was read blind and its next link says
// it began before (a server that rounds skip down to its own pages), never
// at or before the anchor it does not hold. A next link further on than
// the page's end says nothing of where it began (a server that writes next
// as skip plus limit under a short page): the walk never skips what it was
// not sent.
func (m *Machine) pageStart(req Request, page *Page, p placement, next Next) (int, bool) {
	n := len(page.IDs)
	switch {
	case m.plan.follows && next.Present:
		return next.Skip - n, true
	case m.plan.follows && p.start >= 0 || p.earlier:
		return p.start, true // where its anchor shows
	case m.pos.anchor == "" && next.Present: // no post to place it by
		return min(req.Skip, max(next.Skip-n, 0)), true
	case p.unverified && next.Present:
		return min(req.Skip, max(next.Skip-n, m.pos.anchorAt+1)), true
	case m.pos.anchor == "" && req.Skip > 0 && page.Count != req.Skip+n && postsAfter(page, -1) > 0:
		return 0, false
	}
	return req.Skip, true
}

// probe is the search for where a page with no post yielded before it
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
// asked otherwise.
type probe struct {
	req     Request
	page    Page // a copy: the shell's page is its own again
	p       placement
	first   bool
	next    Next
	refused bool
	// halving: lo and hi bound where the page began; hi was answered from
	// there.
	halving bool
	lo, hi  int
}

// probe asks where a placed page began.
func (m *Machine) probe(req Request, page *Page, p placement, first bool, next Next, refused bool) {
	pr := &probe{req: req, page: Page{Count: page.Count, IDs: append([]string(nil), page.IDs...), Next: page.Next},
		p: p, first: first, next: next, refused: refused}
	m.ask(pr, req.Skip-1)
}

// ask sends the probe's read at skip.
func (m *Machine) ask(pr *probe, skip int) {
	m.event(Event{Kind: EventReanchor})
	r := m.plan.at(skip, pr.req.Limit)
	r.Purpose = Probe
	m.await(probing, pending{req: r, probe: pr})
}

// probed takes the answer to a probe's read.
func (m *Machine) probed(answer *Page, w pending) {
	pr := w.probe
	asked := w.req.Skip
	i, j, ok := postInCommon(&pr.page, answer)
	if !pr.halving {
		switch {
		case !ok && !answer.Next.Present && !answer.Next.Refused && len(answer.IDs) < pr.req.Limit && !m.j.readPastEnd:
			m.begun(pr, max(pr.req.Skip-len(pr.page.IDs), 0)) // the list ends before the skip: all of it stands before
			return
		case !ok:
			m.begun(pr, pr.req.Skip)
			return
		case i != j:
			m.begun(pr, min(max(pr.req.Skip-1+j-i, 0), pr.req.Skip)) // placed by the earlier answer
			return
		}
		pr.halving, pr.lo, pr.hi = true, 0, pr.req.Skip-1
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

// begun goes on with a probed page, found to begin at skip.
func (m *Machine) begun(pr *probe, skip int) {
	m.step.Earlier = true
	m.commit(pr.req, &pr.page, pr.p, pr.first, skip, pr.next, pr.refused)
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
