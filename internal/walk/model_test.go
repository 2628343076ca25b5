package walk

// The machine's property drives it straight against the generated servers
// of package walkmodel (the model the SDK's HTTP property serves too): no
// HTTP, no JSON, so that a million walks take a minute or two. A
// modelCase is a server drawn from a seed, with the memory the walk is
// given; a modelSession serves one walk its pages as the machine reads
// them.

import (
	"fmt"

	"github.com/ugcposts/ugc-go/internal/walk/walkmodel"
)

// modelCase is one generated server, and the walk's memory: small ones
// too, so that long lists outgrow it.
type modelCase struct {
	*walkmodel.Case
	memory int
}

func newModelCase(seed uint64) *modelCase {
	c, rng := walkmodel.NewCase(seed)
	mc := &modelCase{Case: c, memory: DefaultMemory}
	if rng.IntN(3) == 0 {
		mc.memory = 2 * (MaxLimit + 1) // the smallest the machine takes
	}
	return mc
}

func (c *modelCase) String() string {
	if c.memory != DefaultMemory {
		return fmt.Sprintf("%s memory=%d", c.Case, c.memory)
	}
	return c.Case.String()
}

// modelSession is one walk's server.
type modelSession struct {
	*walkmodel.Session
	trace func(string)
}

func newModelSession(c *modelCase, stream uint64) *modelSession {
	return &modelSession{Session: walkmodel.NewSession(c.Case, stream)}
}

// answer serves one request, as the machine reads a page.
func (s *modelSession) answer(req Request) *Page {
	a := s.Answer(req.Skip, req.Limit)
	page := &Page{Count: a.Count, IDs: a.Nodes, Answered: uint64(a.Number)}
	for i, id := range page.IDs {
		if !walkmodel.IsPost(id) {
			page.IDs[i] = ""
		}
	}
	if a.Next {
		page.Next = Next{Present: true, Skip: a.NextSkip, Limit: req.Limit}
	}
	if s.trace != nil {
		s.trace(fmt.Sprintf("#%d %+v -> from=%d %v count=%d next=%+v list=%d", a.Number, req, a.From, a.Nodes, a.Count, page.Next, a.Seen))
	}
	return page
}
