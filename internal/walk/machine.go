package walk

import (
	"fmt"
	"slices"
)

// MaxLimit is the most posts a page holds (the contract's limit maximum).
const MaxLimit = 25

// memoryPages is how many pages of posts, beyond those in flight, a walk
// remembers (see [Config.Memory]): more than every read a search for the
// anchor makes reaches back (see maxReads).
const memoryPages = 10

// DefaultMemory is how many posts a sequential walk remembers.
const DefaultMemory = memoryPages * (MaxLimit + 1)

// Config is what a walk is asked to do.
type Config struct {
	// Skip is where the walk starts: the caller's skip, or a checkpoint's
	// position (just after its post).
	Skip int
	// Limit is the caller's page size, 1 to MaxLimit.
	Limit int
	// Ahead is how many requests the walk keeps in flight beyond the one
	// it waits for: 0 sequential, 1 prefetch, n parallel.
	Ahead int
	// After is the ID of a checkpoint's post: the walk goes on after it.
	After string
	// FailOnChange ends the walk at the first sign that the list changed.
	FailOnChange bool
	// Memory is how many posts the walk remembers: when 0, the posts of
	// ten pages beyond those in flight (see the package documentation).
	Memory int
}

// Purpose says why a request is sent.
type Purpose uint8

const (
	// Read goes on from where the walk stands, or is foreseen after it.
	Read Purpose = iota
	// Reread asks a page that could not be believed once more.
	Reread
	// Search reads where the posts already seen say the anchor is.
	Search
	// Probe asks where a first page that is also the last began, or for
	// the post before an anchor (see [Machine.checkEdge]); its answer is
	// not the page the walk's steps index.
	Probe
)

// Request is one page the walk asks for.
type Request struct {
	Skip, Limit int
	// First marks the walk's first request: the caller's own, as built.
	First bool
	// Blind is set on a request that starts after the anchor: nothing on
	// its page can show it came from where it was asked.
	Blind   bool
	Purpose Purpose
}

// Page is an answer as read.
type Page struct {
	Count int
	// IDs are the nodes as sent: each post's ID, "" for a node that could
	// not be a post (it holds a place in the list all the same).
	IDs  []string
	Next Next
	// Answered orders the walk's answers as they came: one numbered lower
	// came before one numbered higher; 0 when not known.
	Answered uint64
}

// Next is a page's next link, as the shell read it.
type Next struct {
	// Present is false for a null next.
	Present bool
	// Skip and Limit are the link's position.
	Skip, Limit int
	// Refused is set on a link the shell refused (another origin,
	// endpoint or query): the walk ends after the page, with the shell's
	// error.
	Refused bool
}

// Step is what the machine says of an answer.
type Step struct {
	// Placed is false while the page could not yet be placed: the walk
	// asked for another read (see [Machine.Wants]) and says nothing else.
	Placed bool
	// Yield lists the page's new posts by their index among the nodes as
	// sent, in order; Emit says the shell hands the page out (one with new
	// posts, and the first page always).
	Yield []int
	Emit  bool
	// Earlier says Yield indexes the last page taken before the probes the
	// walk sent to find where it began (see [Purpose]), not the last page.
	Earlier bool
	// From is the index as sent of the first node after the anchor, and
	// Fresh of the first node the walk had not read: what was forgiven in
	// reading the page concerns the walk from there.
	From, Fresh int
	// Events are what happened, in order, for the summary and the log.
	Events []Event
	// End is set when the walk is over.
	End *End
}

// Machine is one walk's decisions. It is told each answer ([Machine.Take])
// and says what to ask next ([Machine.Wants]). It sends nothing, waits for
// nothing and holds nothing but its state: the shell around it does the
// I/O.
type Machine struct {
	cfg  Config
	mem  memory
	plan plan
	pos  position
	ev   evidence
	j    judgement
	out  outside
	// phase is what the walk is doing; pending the request it waits for
	// in a phase other than reading.
	phase   phase
	pending pending
	step    Step
}

// maxIdle is how many answers in a row may leave a walk where it stood
// before it ends as stalled, whatever its rules asked them for: far more
// than the reads again, searches, checks and probes of any one page (in
// ten million walks of the property on servers that keep the contract,
// churn at every request included, 35 at most), so that a server no rule
// foresaw ends a walk with an error that says so, not with requests sent
// until the caller's context ends.
const maxIdle = 256

// New returns a walk ready to send its first request.
func New(cfg Config) *Machine {
	if cfg.Memory <= 0 {
		cfg.Memory = (cfg.Ahead + memoryPages) * (MaxLimit + 1)
	}
	cfg.Memory = max(cfg.Memory, 2*(MaxLimit+1))
	m := &Machine{cfg: cfg, mem: newMemory(cfg.Memory), plan: newPlan(cfg.Limit, cfg.Ahead), j: judgement{idleBound: maxIdle}}
	m.pos = position{reached: cfg.Skip, anchorAt: cfg.Skip - 1}
	if cfg.After != "" {
		m.pos.anchor = cfg.After
		m.mem.add(cfg.After)
		m.pos.seeking = cfg.Skip == 0
	}
	return m
}

// Wants returns the requests the walk needs in flight, in the order their
// answers are taken: the first is the one [Machine.Take] expects next. A
// request in flight that is not among them is no longer wanted. hold is
// set while the walk reads a page again or searches for its place: the
// requests already in flight are kept, as they may serve once it is
// placed, and none is added.
func (m *Machine) Wants(buf []Request) (wants []Request, hold bool) {
	switch m.phase {
	case ended:
		return buf[:0], false
	case rereading, searching, checkingEdge, probing:
		return append(buf[:0], m.pending.req), true
	}
	wants = append(buf[:0], m.plan.following(&m.pos, !m.ev.counted))
	if m.j.stale > 0 || m.phase == readingOn {
		return wants, false // nothing foreseen while the walk is unsure of the next page
	}
	for len(wants) <= m.plan.ahead {
		next, ok := m.plan.foreseen(wants[len(wants)-1], m.ev.believedCount())
		if !ok {
			break
		}
		wants = append(wants, next)
	}
	return wants, false
}

// Take takes the answer to req, the first request [Machine.Wants] gave.
// The Step it returns is valid until the next call.
func (m *Machine) Take(req Request, page *Page) Step {
	m.step = Step{Yield: m.step.Yield[:0], Events: m.step.Events[:0]}
	if m.phase == ended {
		panic("walk: Take after the walk ended")
	}
	if measuresNothing(page) {
		m.ev.trust = countNone // whatever the answer is for: the server's counts say nothing
	}
	if id := sentTwice(page); id != "" && m.ev.twice == "" {
		// One post in two places of one answer: the post that belongs in
		// one of them is missing.
		m.ev.twice = id
		m.ev.outcomes |= PostSentTwice
	}
	m.j.idle++
	ph, w := m.phase, m.pending
	m.phase, m.pending = reading, pending{}
	switch ph {
	case rereading:
		m.reread(req, page, w)
	case probing:
		m.probed(page, w)
	case checkingEdge:
		m.edgeChecked(page, w)
	case searching:
		m.place(req, page, w.reads+1, w.first)
	default:
		m.place(req, page, 1, !m.ev.counted)
	}
	switch {
	case m.phase != ended && m.j.idle >= m.j.idleBound:
		m.end(End{Kind: EndStalled, Reason: fmt.Sprintf("%d answers in a row did not move the walk on; the server's pages do not stand where they say", m.j.idle)})
	case m.phase == reading && m.j.readsOn > 0:
		m.phase = readingOn
	}
	return m.step
}

// located goes on with a page placed by the cursor: where it begins,
// which of its posts are new, and whether the list goes on.
func (m *Machine) located(req Request, page *Page, p placement, first bool) {
	next, refused := m.checkNext(req, page)
	skip, ok := m.pageStart(req, page, p, next)
	if !ok {
		// A first page that is also the last, whose count does not
		// confirm where it began: where it began is asked.
		m.probe(req, page, p, first, next, refused)
		return
	}
	m.commit(req, page, p, first, skip, next, refused)
}

// checkNext reads the next link of a placed page: what it forgave (a short
// page, a skip that does not match the posts) is an event, and a link the
// shell refused ends the walk after the page.
func (m *Machine) checkNext(req Request, page *Page) (next Next, refused bool) {
	if page.Next.Refused {
		return Next{}, true
	}
	next = page.Next
	if !next.Present {
		return next, false
	}
	if len(page.IDs) < req.Limit {
		m.event(pageEvent(EventShortPage, req, page, ""))
	}
	end := req.Skip + len(page.IDs)
	if next.Skip != end && !m.plan.follows {
		m.event(pageEvent(EventNextCorrected, req, page,
			fmt.Sprintf("ugc: next link skips to %d, but the posts received end at %d; reading from there", next.Skip, end)))
	}
	m.out.nextLag = max(end-next.Skip, 0)
	return next, false
}

// commit takes a placed page that begins at skip in the list: it yields
// its new posts and judges whether the list goes on.
func (m *Machine) commit(req Request, page *Page, p placement, first bool, skip int, next Next, refused bool) {
	if skip < req.Skip && m.pos.anchor == "" {
		// Begun earlier than asked, with no post yielded to place it by:
		// what stands before where the walk was asked to go on is left
		// out, and nothing on it vouches for where it began.
		p.from, p.unverified = min(req.Skip-skip, len(page.IDs)), true
	}
	before := m.pos.reached
	m.step.Placed = true
	m.step.From = p.from
	m.step.Fresh = before - skip
	if p.start >= 0 {
		m.step.Fresh = before - p.start
	}
	for i := max(m.step.Fresh, 0); i < len(page.IDs); i++ {
		if page.IDs[i] == "" {
			m.pos.dropped++
		}
	}
	repeats := m.commitPosts(page, p, skip)
	if p.presumed && len(m.step.Yield) > 0 || p.start >= 0 {
		m.ev.presumed = p.presumed
	}
	m.plan.learn(req, page)
	if m.plan.follows && next.Present {
		m.plan.followNext(next)
	}
	if repeats > 0 {
		m.event(Event{Kind: EventRepeats, N: repeats})
	}
	if p.unverified {
		m.ev.outcomes |= UnverifiedPages
		if hasNonPost(page) {
			m.ev.outcomes |= UnverifiedNodes
		}
		m.event(pageEvent(EventUnverified, req, page, ""))
	}
	if p.start > skip {
		m.pos.furthest -= p.start - skip // the anchor moved back: what the walk read stands that much earlier
	}
	// Progress is new posts, or nodes that could not be posts, or posts
	// before a checkpoint's, passed over, past the furthest the walk had
	// read: a page of repeats alone does not move the walk on.
	progress := len(m.step.Yield) > 0 || m.pos.reached > m.pos.furthest && (hasNonPost(page) || p.passed)
	if progress {
		m.j.idle = 0
	}
	if req.Purpose == Read && p.start >= 0 && !p.moved {
		m.j.endDenied = false // a page read on from the anchor, where asked: it says where the list ends
	}
	m.pos.furthest = max(m.pos.furthest, m.pos.reached)
	// lag is how far the walk's positions may run ahead of the server's:
	// the end a page shows is judged against the count from that far back.
	lag := m.out.nextLag // the server's next link went on from before where its posts end
	if p.start >= 0 {
		// its anchor shows it began before where the walk has it begin,
		// by more than the posts the count shows added behind
		lag = max(lag, skip-p.start-p.behind)
	}
	// Posts taken for added behind the walk moved its positions on by as
	// many: a server that answered from before where asked, with a count
	// that rose by as much, looks the same.
	lag = max(lag, m.pos.behind)
	if p.earlier && skip < req.Skip {
		// A resumed walk's first page whose anchor showed the checkpoint's
		// position ran ahead of the server's (taken where a server that
		// rounds skip had answered from before where asked, or before
		// posts were removed): every end from here on is judged from that
		// far back, as the pages after it may agree with the positions by
		// the same rounding.
		m.out.runAhead = max(m.out.runAhead, req.Skip-skip)
	}
	lag = max(lag, m.out.runAhead)
	if p.earlier || p.moved || first && m.cfg.After != "" {
		// Where the page began is not vouched for: it is read on from
		// once even where the count is met. Posts removed between the
		// runs moved a resumed walk's anchor too, by as many as they were,
		// and a checkpoint's position may run ahead of the server's (one
		// that rounds skip); a page placed elsewhere than asked may have
		// come from elsewhere still, its move matched by a count that lied.
		lag = max(lag, 1)
	}
	m.judge(req, page, next, refused, progress, lag)
	m.step.Emit = len(m.step.Yield) > 0 || first
	if m.step.Emit {
		m.ev.twiceOnLast = m.ev.twice != "" && sentTwice(page) != ""
		m.pos.handed = m.pos.handed[:0]
		for _, i := range m.step.Yield {
			m.pos.handed = append(m.pos.handed, handedPost{at: skip + i, id: page.IDs[i]})
		}
	}
}

// commitPosts records the posts of a placed page from p.from on as
// yielded and lists them in the step, without any the walk remembers
// yielding (a server that lists a post twice), and returns how many
// repeats it left out. The anchor becomes the last post yielded, or, when
// the page brought none, the yielded post it showed last, where it showed
// it.
func (m *Machine) commitPosts(page *Page, p placement, skip int) (repeats int) {
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
		m.pos.yielded++
		m.pos.anchor, m.pos.anchorAt = id, skip+i
		m.step.Yield = append(m.step.Yield, i)
	}
	if len(m.step.Yield) == 0 && !m.plan.follows && !p.passed {
		if prev := previousPost(page, p.from); prev >= 0 && m.mem.holds(page.IDs[prev]) {
			m.pos.anchor, m.pos.anchorAt = page.IDs[prev], skip+prev
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

// judge decides, after a page is committed, whether the list goes on: the
// one end judgement of every walk. An empty page or a null next ends it; a
// next link goes on. An end that the count contradicts (from the walk's
// position less lag, how far it may run ahead of the server's), or that a read
// past it contradicted with posts it could not place (endDenied), is read
// on from where the posts ended, twice at most, before it is believed (a
// server that ends the list early, or sends one page short, loses no
// post; a walk that follows next links reads on from where the server's
// own positions put the end); a count that disagrees with where the list
// ends is recorded, never a reason to stop. Two pages in a row that do not
// move the walk on end it as stalled, not counting the first search's page
// among them.
func (m *Machine) judge(req Request, page *Page, next Next, refused, progress bool, lag int) {
	if page.Count < 0 || next.Present && m.pos.reached >= page.Count || !next.Present && m.pos.reached != page.Count {
		m.event(pageEvent(EventCountMismatch, req, page, ""))
	}
	if refused {
		m.end(End{Kind: EndRefused})
		return
	}
	if progress {
		m.j.stale, m.j.readsOn, m.j.endsAgain, m.j.searchedBack = 0, 0, 0, false
	}
	ends := len(page.IDs) == 0 || !next.Present
	// An end short of one read before (a page read again further back)
	// is no new end: it is read on from without counting, twice at most
	// until the walk moves on (a server whose pages come back further back
	// each time would keep the walk reading forever).
	again := m.pos.reached < m.j.endAt && m.j.endsAgain < 2
	switch {
	case ends && len(page.IDs) > 0 && (m.pos.reached-lag < page.Count || m.j.endDenied) && (m.j.readsOn < 2 || again):
		if again {
			m.j.endsAgain++
		} else {
			m.j.readsOn++
			m.j.endAt = m.pos.reached
		}
		m.j.readPastEnd = true
		m.plan.readOn(req, page)
		if m.plan.follows {
			m.plan.followNext(Next{Skip: m.pos.reached, Limit: req.Limit}) // where the server's own positions put the page's end
		}
		m.event(pageEvent(EventNextCorrected, req, page, "ugc: a page ended the list before its count; reading on"))
	case ends:
		m.finish()
	case !progress && req.Purpose == Search && !m.j.searchedBack:
		// It stands where the anchor was found, behind where the walk
		// read (posts removed behind it moved it back): the next page
		// tells whether the walk moves on.
		m.j.searchedBack = true
	case !progress:
		if m.j.stale++; m.j.stale >= 2 {
			m.end(End{Kind: EndStalled, Reason: fmt.Sprintf("2 pages in a row did not move the walk on (skip %d); the server may ignore skip", req.Skip)})
		}
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

// end ends the walk.
func (m *Machine) end(e End) {
	e.Outcomes = m.Outcomes() &^ ResumeMayRepeat // said only of a walk stopped before its end
	e.CountAtStart, e.CountAtEnd = m.ev.firstCount, m.ev.lastCount
	e.Skip, e.Posts = m.cfg.Skip, m.pos.yielded
	m.step.End = &e
	m.phase = ended
}

// fail ends the walk with e before the page is placed.
func (m *Machine) fail(e End) {
	m.end(e)
}

// drift is the end of a walk that found the list changed.
func (m *Machine) drift(reason, id string) End {
	return End{Kind: EndDrift, Reason: reason, RepeatedID: id}
}

// Outcomes is what the walk could not vouch for so far: that of a walk
// stopped before its end.
func (m *Machine) Outcomes() Outcomes {
	o := m.ev.outcomes
	if m.ev.fell && m.ev.outcomes&UnverifiedPages != 0 {
		o |= CountFell
	}
	if (m.ev.presumed || m.ev.twiceOnLast) && m.phase != ended {
		o |= ResumeMayRepeat
	}
	return o
}

// Counts returns the counts of the first and of the last page.
func (m *Machine) Counts() (first, last int) { return m.ev.firstCount, m.ev.lastCount }

// Checkpoint is where the walk stands once the first n posts of the last
// page yielded were handed out: the position just after the last of them,
// and its ID ("" before the first post).
func (m *Machine) Checkpoint(n int) (skip int, after string) {
	if n == 0 || n > len(m.pos.handed) {
		if m.pos.anchor != "" {
			return m.pos.anchorAt + 1, m.pos.anchor
		}
		return m.pos.reached, ""
	}
	return m.pos.handed[n-1].at + 1, m.pos.handed[n-1].id
}

// Resume is where the walk goes on, as a page's next: the server's next
// link it follows when it follows them, else its own request where the
// list goes on.
func (m *Machine) Resume() Request {
	if m.plan.follows {
		return m.plan.following(&m.pos, !m.ev.counted)
	}
	return m.plan.at(m.pos.reached, m.plan.limit)
}

func (m *Machine) event(e Event) { m.step.Events = append(m.step.Events, e) }

// sentTwice returns the ID of a post a page holds twice, or "".
func sentTwice(page *Page) string {
	for i, id := range page.IDs {
		if id != "" && slices.Contains(page.IDs[i+1:], id) {
			return id
		}
	}
	return ""
}

// hasNonPost reports whether a page holds a node that could not be a post.
func hasNonPost(page *Page) bool {
	for _, id := range page.IDs {
		if id == "" {
			return true
		}
	}
	return false
}

// previousPost returns the index of the last post before index i, or -1.
func previousPost(page *Page, i int) int {
	for i--; i >= 0; i-- {
		if page.IDs[i] != "" {
			return i
		}
	}
	return -1
}
