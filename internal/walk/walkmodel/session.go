package walkmodel

import (
	"math/rand/v2"
	"slices"
)

// Session is one walk's server: its own copy of the list, changed as its
// requests arrive. It is not safe for concurrent use: a server that answers
// on many goroutines holds a lock around Answer.
type Session struct {
	c    *Case
	rng  *rand.Rand
	list []string
	// Keep, when set, is the caller's query: the list a request sees is
	// the nodes that are not posts and the posts it keeps.
	Keep     func(id string) bool
	requests int
	furthest int // the furthest position served so far, in the list
	ignored  bool
	inserted int
	// Touched are the posts inserted, removed, moved or passed by a move:
	// a walk does not owe them.
	Touched map[string]bool
	// Lost are the posts the server never sent (DupAt).
	Lost map[string]bool
}

// NewSession returns a session of c, its randomness drawn from stream.
func NewSession(c *Case, stream uint64) *Session {
	s := &Session{c: c, rng: rand.New(rand.NewPCG(c.Seed, stream)), list: slices.Clone(c.Entries)}
	if c.DupAt > 0 && IsPost(s.list[c.DupAt]) && IsPost(s.list[c.DupAt-1]) {
		s.Lost = map[string]bool{s.list[c.DupAt]: true}
		s.list[c.DupAt] = s.list[c.DupAt-1]
	}
	return s
}

// Answer is a page as the server serves it.
type Answer struct {
	// Number is the request's number in the session, from 1.
	Number int
	// From is where the page begins in the list the request saw, and
	// Nodes its entries (a copy).
	From  int
	Nodes []string
	Count int
	// Next is set when the page has a next link, whose skip is NextSkip.
	Next     bool
	NextSkip int
	// Seen is the length of the list the request saw.
	Seen int
}

// Answer serves a request for limit nodes from skip.
func (s *Session) Answer(skip, limit int) Answer {
	c := s.c
	s.requests++
	for _, m := range c.Mutations {
		if m.AtRequest == s.requests {
			s.mutate(m)
		}
	}
	served := min(limit, MaxLimit)
	if limit < 1 {
		served = MaxLimit
	}
	served = min(served, c.PageCapOr(MaxLimit))
	from, nextFrom := s.from(skip)
	view, pos := s.view()
	from = min(from, len(view))
	nodes := view[from:min(from+served, len(view))]
	end := from + len(nodes)
	if nextFrom < 0 {
		nextFrom = end
	} else {
		nextFrom += len(nodes)
	}
	if end > 0 {
		last := end - 1
		if pos != nil {
			last = pos[last]
		}
		s.furthest = max(s.furthest, last+1)
	}
	a := Answer{Number: s.requests, From: from, Nodes: slices.Clone(nodes), NextSkip: nextFrom, Seen: len(view)}
	a.Next = len(nodes) > 0 && end < len(view)
	early := false
	if a.Next && c.EarlyNull && end+served >= len(view) {
		a.Next, early = false, true
	}
	a.Count = s.count(len(view), len(nodes))
	if early {
		a.Count = max(a.Count, len(view)) // a null next the count contradicts: the walk can tell
	}
	return a
}

// from is where the server serves a request for skip from, and where its
// next link goes on from, less the page's length (-1: from where its
// posts end): skip ignored once, or rounded down.
func (s *Session) from(skip int) (from, nextFrom int) {
	switch c := s.c; c.Skip {
	case SkipIgnoredOnce:
		if !s.ignored && s.requests >= c.IgnoreAt && skip > 0 {
			s.ignored = true
			return 0, skip
		}
	case SkipRounded:
		return skip - skip%c.RoundTo, -1
	}
	return skip, -1
}

// view is the list as the session's query sees it, and where in the list
// each of its nodes stands (nil: the list itself).
func (s *Session) view() (view []string, pos []int) {
	if s.Keep == nil {
		return s.list, nil
	}
	for i, e := range s.list {
		if !IsPost(e) || s.Keep(e) {
			view = append(view, e)
			pos = append(pos, i)
		}
	}
	return view, pos
}

// count writes a page's count as the case says.
func (s *Session) count(listLen, pageLen int) int {
	c := s.c
	mode := c.Count
	if mode == CountChanging {
		mode = CountMode(s.rng.IntN(int(CountChanging)))
	}
	switch mode {
	case CountZero:
		return 0
	case CountMinusOne:
		return -1
	case CountStaleLower:
		return max(listLen-c.StaleBy, 0)
	case CountPageLength:
		return pageLen
	case CountHigher:
		return listLen + c.HighBy
	}
	return listLen
}

// Append adds a post at the end of the list, as between two runs of a job.
func (s *Session) Append(id string) { s.list = append(s.list, id) }

// mutate applies one change to the list.
func (s *Session) mutate(m Mutation) {
	if s.Touched == nil {
		s.Touched = map[string]bool{}
	}
	switch m.Kind {
	case Insert:
		lo, hi := s.span(m.Where)
		id := Inserted[s.inserted%len(Inserted)]
		s.inserted++
		s.list = slices.Insert(s.list, lo+s.rng.IntN(hi-lo+1), id)
		s.Touched[id] = true
	case Remove:
		if i := s.pick(m.Where); i >= 0 {
			s.Touched[s.list[i]] = true
			s.list = slices.Delete(s.list, i, i+1)
		}
	case Move:
		s.move(m.Where)
	}
}

// span is where a change that falls where falls: [lo, hi) of the list.
func (s *Session) span(where Where) (lo, hi int) {
	cut := min(s.furthest, len(s.list))
	switch where {
	case Ahead:
		return cut, len(s.list)
	case Behind:
		return 0, cut
	}
	return 0, len(s.list)
}

// pick draws a post no change has touched yet, where; -1 when none.
func (s *Session) pick(where Where) int {
	lo, hi := s.span(where)
	var at []int
	for i := lo; i < hi; i++ {
		if IsPost(s.list[i]) && !s.Touched[s.list[i]] {
			at = append(at, i)
		}
	}
	if len(at) == 0 {
		return -1
	}
	return at[s.rng.IntN(len(at))]
}

// move moves a post from where to the other side of the furthest position
// served (anywhere, from anywhere). The posts it passes change their order
// with it: they do not keep their place in the order either.
func (s *Session) move(where Where) {
	i := s.pick(where)
	if i < 0 {
		return
	}
	id := s.list[i]
	s.Touched[id] = true
	s.list = slices.Delete(s.list, i, i+1)
	to := where
	switch where {
	case Ahead:
		to = Behind
	case Behind:
		to = Ahead
	}
	lo, hi := s.span(to)
	hi = min(hi, len(s.list))
	lo = min(lo, hi)
	j := lo + s.rng.IntN(hi-lo+1)
	for _, p := range s.list[min(i, j):max(i, j)] {
		if IsPost(p) {
			s.Touched[p] = true
		}
	}
	s.list = slices.Insert(s.list, j, id)
}
