package walk

// A generated model of real servers, answering the machine directly: no
// HTTP, no JSON, so that a million walks take a minute or two. A
// modelCase is a server drawn from a seed: a list of posts and nodes that
// are not posts, a count that may lie, a next link that may end the list a
// page early, skip honoured, ignored once or rounded, pages capped lower
// than asked, a post sent twice in place of another, and posts inserted,
// removed and moved at any point of the walk. A modelSession serves one
// walk.

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// modelIDs are the IDs of the model's posts: p0000…, and n0000… for posts
// inserted during a walk. Made once, so that a case allocates no string.
var modelIDs, insertedIDs = makeIDs("p", 4096), makeIDs("n", 1024)

func makeIDs(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%04d", prefix, i)
	}
	return out
}

// nonPost is an entry of the list that is not a post (null, a number, an
// object without an id): it holds a place, the reader drops it.
const nonPost = ""

type countMode uint8

const (
	countTrue       countMode = iota // the length of the list served
	countZero                        // 0: "not computed"
	countMinusOne                    // -1
	countStaleLower                  // a cached total, lower than the list
	countPageLength                  // the page's own length
	countHigher                      // more than the list holds
	countChanging                    // one of the above, drawn per page
)

var countNames = [...]string{"true", "zero", "-1", "stale-lower", "page-length", "higher", "changing"}

type skipMode uint8

const (
	skipHonoured    skipMode = iota
	skipIgnoredOnce          // one request (ignoreAt) is served from 0, its next written from the skip asked
	skipRounded              // served from skip rounded down to a multiple of roundTo
)

type mutationKind uint8

const (
	mutInsert mutationKind = iota
	mutRemove
	mutMove
)

// mutation changes the list before the server answers its atRequest-th
// request: at a place drawn among all of the list (anywhere), or ahead of
// or behind the furthest position served so far.
type mutation struct {
	atRequest int
	kind      mutationKind
	where     uint8 // 0 anywhere, 1 ahead, 2 behind
}

// modelCase is one generated server.
type modelCase struct {
	seed      uint64
	limit     int
	entries   []string
	count     countMode
	staleBy   int
	highBy    int
	earlyNull bool // next is null one page before the last (the count then tells the truth)
	startSkip int  // the caller's skip, on an unchanging list
	skip      skipMode
	ignoreAt  int
	roundTo   int
	pageCap   int // 0: pages of the limit asked
	// dupAt, when at least 1, is a position whose post the server sends as
	// a second copy of the post before it: that post is lost.
	dupAt     int
	mutations []mutation
	// memory is the machine's memory for the case: small ones too, so
	// that long lists outgrow it.
	memory int
}

func newModelCase(seed uint64) *modelCase {
	rng := rand.New(rand.NewPCG(seed, 0x24))
	c := &modelCase{seed: seed}
	switch r := rng.IntN(10); {
	case r < 2:
		c.limit = 1 + rng.IntN(9)
	default:
		c.limit = 10 + rng.IntN(16)
	}
	n := rng.IntN(131)
	switch rng.IntN(10) {
	case 0:
		n = rng.IntN(4)
	case 1:
		n = 130 + rng.IntN(600) // longer than the memory
	}
	c.entries = make([]string, 0, n+8)
	for i := range n {
		c.entries = append(c.entries, modelIDs[i])
	}
	if n > 0 && rng.IntN(10) < 3 {
		for range 1 + rng.IntN(2) {
			at, run := rng.IntN(len(c.entries)+1), 1+rng.IntN(35)
			c.entries = slices.Insert(c.entries, at, slices.Repeat([]string{nonPost}, run)...)
		}
	}
	if n > 0 && rng.IntN(10) < 2 {
		for range 1 + rng.IntN(2) {
			c.entries = slices.Insert(c.entries, rng.IntN(len(c.entries)+1), nonPost)
		}
	}
	c.count = countMode(rng.IntN(int(countChanging) + 1))
	c.staleBy, c.highBy = 1+rng.IntN(max(len(c.entries), 1)), 1+rng.IntN(30)
	c.earlyNull = rng.IntN(8) == 0
	switch rng.IntN(6) {
	case 0:
		c.skip, c.ignoreAt = skipIgnoredOnce, 2+rng.IntN(4)
	case 1:
		c.skip, c.roundTo = skipRounded, c.limit
	case 2:
		c.skip, c.roundTo = skipRounded, 10
	}
	if rng.IntN(5) == 0 {
		c.pageCap = 10
		if rng.IntN(2) == 0 {
			c.pageCap = 3 + rng.IntN(12)
		}
	}
	if c.skip == skipRounded {
		// A server that rounds skip to a boundary longer than its pages
		// could not be walked even by following next as sent.
		c.roundTo = min(c.roundTo, c.limit, c.pageCapOr(MaxLimit))
	}
	if n >= 2 && rng.IntN(12) == 0 {
		c.dupAt = 1 + rng.IntN(len(c.entries)-1)
	}
	switch r := rng.IntN(20); {
	case r == 0:
		// Moderators at work: changes at every request, at a rate of
		// 0.3 to 2 a request.
		rate := []float64{0.3, 1, 2}[rng.IntN(3)]
		for at := 2; at < 80; at++ {
			for k := rate; k > 0; k-- {
				if k >= 1 || rng.Float64() < k {
					c.mutations = append(c.mutations, mutation{atRequest: at, kind: mutationKind(rng.IntN(2)), where: uint8(rng.IntN(3))})
				}
			}
		}
	case r < 7:
		for range 1 + rng.IntN(4) {
			c.mutations = append(c.mutations, mutation{
				atRequest: 2 + rng.IntN(12), kind: mutationKind(rng.IntN(3)), where: uint8(rng.IntN(3)),
			})
		}
	}
	if c.benign() && rng.IntN(4) == 0 {
		c.startSkip = 1 + rng.IntN(len(c.entries)+2)
	}
	c.memory = DefaultMemory
	if rng.IntN(3) == 0 {
		c.memory = 2 * (MaxLimit + 1) // the smallest the machine takes
	}
	return c
}

func (c *modelCase) pageCapOr(d int) int {
	if c.pageCap > 0 {
		return c.pageCap
	}
	return d
}

// benign reports whether the list does not change and every next link is
// there until the end: a walk of it owes every post from the caller's skip.
func (c *modelCase) benign() bool { return len(c.mutations) == 0 && !c.earlyNull }

// wellBehaved reports whether the server follows the contract (skip
// honoured, a true count, every post once) on a list that does not change:
// any error or outcome of a walk of it is needless.
func (c *modelCase) wellBehaved() bool {
	return c.benign() && c.skip == skipHonoured && c.count == countTrue && c.dupAt == 0
}

// honestUnderChange reports whether the server follows the contract while
// posts are added and removed (none moved): no error of a walk of it is
// needed, though a change may end one in EndDrift.
func (c *modelCase) honestUnderChange() bool {
	if len(c.mutations) == 0 || c.earlyNull || c.skip != skipHonoured || c.count != countTrue || c.dupAt != 0 || c.pageCap != 0 {
		return false
	}
	return !slices.ContainsFunc(c.mutations, func(m mutation) bool { return m.kind == mutMove })
}

func (c *modelCase) String() string {
	var b strings.Builder
	posts, odd := 0, 0
	for _, e := range c.entries {
		if e == nonPost {
			odd++
		} else {
			posts++
		}
	}
	fmt.Fprintf(&b, "seed=%d limit=%d nodes=%d(posts=%d not-posts=%d) count=%s", c.seed, c.limit, len(c.entries), posts, odd, countNames[c.count])
	switch c.count {
	case countStaleLower:
		fmt.Fprintf(&b, "(-%d)", c.staleBy)
	case countHigher:
		fmt.Fprintf(&b, "(+%d)", c.highBy)
	}
	switch c.skip {
	case skipIgnoredOnce:
		fmt.Fprintf(&b, " skip=ignored-once@%d", c.ignoreAt)
	case skipRounded:
		fmt.Fprintf(&b, " skip=rounded-to-%d", c.roundTo)
	}
	if c.earlyNull {
		b.WriteString(" earlyNull")
	}
	if c.pageCap > 0 {
		fmt.Fprintf(&b, " pageCap=%d", c.pageCap)
	}
	if c.startSkip > 0 {
		fmt.Fprintf(&b, " startSkip=%d", c.startSkip)
	}
	if c.dupAt > 0 {
		fmt.Fprintf(&b, " dupAt=%d", c.dupAt)
	}
	if c.memory != DefaultMemory {
		fmt.Fprintf(&b, " memory=%d", c.memory)
	}
	for _, m := range c.mutations {
		fmt.Fprintf(&b, " %s-%s@%d", [...]string{"insert", "remove", "move"}[m.kind], [...]string{"anywhere", "ahead", "behind"}[m.where], m.atRequest)
	}
	return b.String()
}

// modelSession is one walk's server: its own copy of the list, changed as
// its requests arrive.
type modelSession struct {
	c        *modelCase
	rng      *rand.Rand
	list     []string
	requests int
	furthest int
	ignored  bool
	inserted int
	touched  map[string]bool // posts inserted, removed, moved or passed by a move: not owed
	lost     map[string]bool // posts the server never sent (dupAt)
	trace    func(string)
}

func newModelSession(c *modelCase, stream uint64) *modelSession {
	s := &modelSession{c: c, rng: rand.New(rand.NewPCG(c.seed, stream)), list: slices.Clone(c.entries)}
	if c.dupAt > 0 && s.list[c.dupAt] != nonPost && s.list[c.dupAt-1] != nonPost {
		s.lost = map[string]bool{s.list[c.dupAt]: true}
		s.list[c.dupAt] = s.list[c.dupAt-1]
	}
	return s
}

// answer serves one request.
func (s *modelSession) answer(req Request) *Page {
	c := s.c
	s.requests++
	for _, m := range c.mutations {
		if m.atRequest == s.requests {
			s.mutate(m)
		}
	}
	served := min(req.Limit, MaxLimit)
	if req.Limit < 1 {
		served = MaxLimit
	}
	served = min(served, c.pageCapOr(MaxLimit))
	from, nextFrom := req.Skip, -1
	switch c.skip {
	case skipIgnoredOnce:
		if !s.ignored && s.requests >= c.ignoreAt && req.Skip > 0 {
			s.ignored, from, nextFrom = true, 0, req.Skip
		}
	case skipRounded:
		from = req.Skip - req.Skip%c.roundTo
	}
	from = min(from, len(s.list))
	nodes := s.list[from:min(from+served, len(s.list))]
	end := from + len(nodes)
	if nextFrom < 0 {
		nextFrom = end
	} else {
		nextFrom += len(nodes)
	}
	s.furthest = max(s.furthest, end)
	hasNext := len(nodes) > 0 && end < len(s.list)
	early := false
	if hasNext && c.earlyNull && end+served >= len(s.list) {
		hasNext, early = false, true
	}
	count := s.count(len(s.list), len(nodes))
	if early {
		count = max(count, len(s.list)) // a null next the count contradicts: the walk can tell
	}
	page := &Page{Count: count, IDs: slices.Clone(nodes), Answered: uint64(s.requests)}
	if hasNext {
		page.Next = Next{Present: true, Skip: nextFrom, Limit: req.Limit}
	}
	if s.trace != nil {
		s.trace(fmt.Sprintf("#%d %+v -> from=%d %v count=%d next=%+v list=%d", s.requests, req, from, nodes, count, page.Next, len(s.list)))
	}
	return page
}

func (s *modelSession) count(listLen, pageLen int) int {
	c := s.c
	mode := c.count
	if mode == countChanging {
		mode = countMode(s.rng.IntN(int(countChanging)))
	}
	switch mode {
	case countZero:
		return 0
	case countMinusOne:
		return -1
	case countStaleLower:
		return max(listLen-c.staleBy, 0)
	case countPageLength:
		return pageLen
	case countHigher:
		return listLen + c.highBy
	}
	return listLen
}

// mutate applies one change to the list.
func (s *modelSession) mutate(m mutation) {
	if s.touched == nil {
		s.touched = map[string]bool{}
	}
	cut := min(s.furthest, len(s.list))
	span := func(where uint8) (lo, hi int) {
		switch where {
		case 1:
			return cut, len(s.list)
		case 2:
			return 0, cut
		}
		return 0, len(s.list)
	}
	pick := func(where uint8) int {
		lo, hi := span(where)
		var at []int
		for i := lo; i < hi; i++ {
			if s.list[i] != nonPost && !s.touched[s.list[i]] {
				at = append(at, i)
			}
		}
		if len(at) == 0 {
			return -1
		}
		return at[s.rng.IntN(len(at))]
	}
	switch m.kind {
	case mutInsert:
		lo, hi := span(m.where)
		id := insertedIDs[s.inserted%len(insertedIDs)]
		s.inserted++
		s.list = slices.Insert(s.list, lo+s.rng.IntN(hi-lo+1), id)
		s.touched[id] = true
	case mutRemove:
		if i := pick(m.where); i >= 0 {
			s.touched[s.list[i]] = true
			s.list = slices.Delete(s.list, i, i+1)
		}
	case mutMove:
		if i := pick(m.where); i >= 0 {
			id := s.list[i]
			s.touched[id] = true
			s.list = slices.Delete(s.list, i, i+1)
			to := m.where
			switch m.where {
			case 1:
				to = 2
			case 2:
				to = 1
			}
			lo, hi := span(to)
			hi = min(hi, len(s.list))
			lo = min(lo, hi)
			j := lo + s.rng.IntN(hi-lo+1)
			// The posts it passes change their order with it: they do not
			// keep their place in the order either.
			for _, p := range s.list[min(i, j):max(i, j)] {
				if p != nonPost {
					s.touched[p] = true
				}
			}
			s.list = slices.Insert(s.list, j, id)
		}
	}
}
