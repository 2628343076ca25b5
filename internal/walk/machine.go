package walk

import "fmt"

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
	m.ev.noteAnswer(page)
	m.j.idle++
	ph, w := m.phase, m.pending
	m.phase, m.pending = reading, pending{}
	a := answer{req: req, page: page, reads: 1, nothingPlaced: !m.ev.counted}
	switch ph {
	case rereading, checkingEdge, probing:
		m.review(&a, placement{}, ph, w) // an answer the defenses asked for
	case searching:
		a.reads, a.nothingPlaced = w.reads+1, w.nothingPlaced
		m.place(&a)
	default:
		m.place(&a)
	}
	switch {
	case m.phase != ended && m.j.idle >= m.j.idleBound:
		m.end(End{Kind: EndStalled, Reason: fmt.Sprintf("%d answers in a row did not move the walk on; the server's pages do not stand where they say", m.j.idle)})
	case m.phase == reading && m.j.readsOn > 0:
		m.phase = readingOn
	}
	return m.step
}

// answer is a page being taken: the request it answers, the page as read,
// the answers its placement took so far (this one included), whether no
// page was placed before it (nothingPlaced: a resumed walk may search for
// its first), and its next link as the walk takes it (see
// [Machine.checkNext]).
type answer struct {
	req           Request
	page          *Page
	reads         int
	nothingPlaced bool
	next          Next
	refused       bool
}

// end ends the walk.
func (m *Machine) end(e End) {
	e.Outcomes = m.Outcomes() &^ ResumeMayRepeat // said only of a walk stopped before its end
	e.CountAtStart, e.CountAtEnd = m.ev.firstCount, m.ev.lastCount
	e.Skip, e.Posts = m.cfg.Skip, m.pos.yielded
	m.step.End = &e
	m.phase = ended
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
