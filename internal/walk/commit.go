package walk

import "strings"

// commit takes a placed page that begins at skip in the list: it yields
// its new posts and judges whether the list goes on, lag being how far the
// walk's positions may run ahead of the server's (see [Machine.lag]).
func (m *Machine) commit(a *answer, p placement, skip, lag int) {
	m.step.Placed, m.step.From = true, p.from
	m.step.Fresh = m.pos.reached - skip
	if p.start >= 0 {
		m.step.Fresh = m.pos.reached - p.start
	}
	m.pos.dropped += nonPostsFrom(a.page, m.step.Fresh)
	repeats := m.yield(a.page, p, skip)
	if p.presumed && len(m.step.Yield) > 0 || p.start >= 0 {
		m.ev.presumed = p.presumed
	}
	m.plan.learn(a.req, a.page)
	if repeats > 0 {
		m.event(Event{Kind: EventRepeats, N: repeats})
	}
	if p.unverified {
		m.unverified(a)
	}
	m.judge(a, m.progressed(a, p, skip), lag)
	m.emit(a.page, a.nothingPlaced)
}

// yield records the posts of a placed page from p.from on as yielded and
// lists them in the step, without any the walk remembers yielding (a
// server that lists a post twice), and returns how many repeats it left
// out. The anchor becomes the last post yielded, or, when the page brought
// none, the yielded post it showed last, where it showed it. The list goes
// on after the page's last node.
func (m *Machine) yield(page *Page, p placement, skip int) (repeats int) {
	for i := p.from; i < len(page.IDs); i++ {
		id := page.IDs[i]
		if id == "" {
			continue
		}
		if m.mem.holds(id) {
			repeats++
			continue
		}
		m.mem.add(id)
		if len(m.step.Yield) == 0 {
			m.pos.handed = m.pos.handed[:0]
		}
		m.pos.yielded++
		m.pos.anchor, m.pos.anchorAt = m.mem.lastID(), skip+i
		m.pos.handed = append(m.pos.handed, handedPost{at: skip + i, id: m.pos.anchor})
		m.step.Yield = append(m.step.Yield, i)
	}
	if len(m.step.Yield) == 0 && !m.plan.follows && !p.passed {
		if prev := previousPost(page, p.from); prev >= 0 && m.mem.holds(page.IDs[prev]) {
			m.pos.anchor, m.pos.anchorAt = strings.Clone(page.IDs[prev]), skip+prev
		}
	}
	m.pos.behind += p.behind
	if len(page.IDs) > 0 {
		m.pos.reached = skip + len(page.IDs)
	}
	m.ev.gradeCount(m.pos.reached, page)
	if m.ev.countLied() {
		m.ev.outcomes |= CountUnreliable
	}
	m.ev.placedCount, m.ev.placedAnswered = page.Count, page.Answered
	return repeats
}

// unverified names a page whose place nothing on it could check.
func (m *Machine) unverified(a *answer) {
	m.ev.outcomes |= UnverifiedPages
	if hasNonPost(a.page) {
		m.ev.outcomes |= UnverifiedNodes
	}
	m.event(pageEvent(EventUnverified, a.req, a.page, ""))
}

// progressed reports whether a committed page moved the walk on: new
// posts, or nodes that could not be posts, or posts before a checkpoint's,
// passed over, past the furthest the walk had read. A page of repeats
// alone does not. An anchor that moved back (p.start past skip) moves what
// the walk read back by as much; a page read on from the anchor, where
// asked, says where the list ends, whatever posts seen beyond an end said
// (see [judgement.endDenied]).
func (m *Machine) progressed(a *answer, p placement, skip int) bool {
	if p.start > skip {
		m.pos.furthest -= p.start - skip
	}
	progress := len(m.step.Yield) > 0 || m.pos.reached > m.pos.furthest && (hasNonPost(a.page) || p.passed)
	if progress {
		m.j.idle = 0
	}
	if a.req.Purpose == Read && p.start >= 0 && !p.moved {
		m.j.endDenied = false
	}
	m.pos.furthest = max(m.pos.furthest, m.pos.reached)
	return progress
}

// emit hands the page out when it brought new posts (where each stands,
// the checkpoint of a loop that breaks in its middle, was kept as they
// were yielded), and the first page always.
func (m *Machine) emit(page *Page, first bool) {
	m.step.Emit = len(m.step.Yield) > 0 || first // the first page placed
	if !m.step.Emit {
		return
	}
	m.ev.twiceOnLast = m.ev.twice != "" && sentTwice(page) != ""
	if len(m.step.Yield) == 0 {
		m.pos.handed = m.pos.handed[:0] // the first page, empty: nothing handed out
	}
}
