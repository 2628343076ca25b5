package walk

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEveryWalkEndsWhateverTheAnswers drives machines against a list that
// gains and loses posts as they walk it, answered as the contract says or,
// in up to half the answers, at random: pages of any length (more nodes
// than asked included) of posts from anywhere in the list, nodes that
// cannot be posts, counts that say anything and next links that go
// anywhere or nowhere. Whatever comes, a walk never panics, never yields a
// post twice, and ends: never more than maxIdle answers in a row that do
// not move it on (a server no rule foresaw ends a walk with an error, not
// with requests sent until the caller gives up). 2,000 walks; 20,000 with
// UGC_TEST_HEAVY=1.
func TestEveryWalkEndsWhateverTheAnswers(t *testing.T) {
	t.Parallel()
	cases := 2000
	if os.Getenv("UGC_TEST_HEAVY") != "" {
		cases = 20000
	}
	ends := map[EndKind]int{}
	most, idlest := 0, 0
	for seed := range uint64(cases) {
		rng := rand.New(rand.NewPCG(seed, 0xe4d5))
		// A memory that holds every post the list ever has (at most 320): a
		// post forgotten may come again (see Config.Memory).
		cfg := Config{Limit: 1 + rng.IntN(MaxLimit), Ahead: rng.IntN(9), Memory: 512}
		a := newRandomAnswers(rng)
		m := New(cfg)
		yielded := map[string]bool{}
		var buf []Request
		answers := 0
		var end *End
		var held *Page
		require.NotPanics(t, func() {
			for end == nil {
				var wants []Request
				wants, _ = m.Wants(buf)
				buf = wants
				require.NotEmpty(t, wants, "seed %d: a walk that did not end wants nothing", seed)
				page := a.answer(wants[0], uint64(answers+1))
				answers++
				step := m.Take(wants[0], page)
				src := page
				if step.Earlier {
					src = held // the posts are those of the page the walk sent to find where it began
				}
				if wants[0].Purpose != Probe {
					held = page
				}
				for _, i := range step.Yield {
					id := src.IDs[i]
					require.False(t, yielded[id], "seed %d: post %s yielded twice", seed, id)
					yielded[id] = true
				}
				require.LessOrEqual(t, m.j.idle, maxIdle, "seed %d: the walk went on past the bound", seed)
				idlest = max(idlest, m.j.idle)
				end = step.End
			}
		}, "seed %d", seed)
		ends[end.Kind]++
		most = max(most, answers)
		assert.LessOrEqual(t, answers, (len(yielded)+a.made+1)*maxIdle, "seed %d: %d answers for %d posts", seed, answers, len(yielded))
	}
	t.Logf("%d walks; ends %v; the longest took %d answers, and at most %d in a row did not move a walk on", cases, ends, most, idlest)
}

// randomAnswers answers a walk's requests from a list that changes, the
// contract kept or not (see TestEveryWalkEndsWhateverTheAnswers).
type randomAnswers struct {
	rng  *rand.Rand
	list []string
	// fresh is how many posts may still be added to the list, each answer
	// adding one with pAdd and removing one with pRemove; pNoise is the
	// share of answers drawn at random, and pOdd of their nodes that cannot
	// be posts.
	fresh, made                 int
	pAdd, pRemove, pNoise, pOdd float64
}

func newRandomAnswers(rng *rand.Rand) *randomAnswers {
	a := &randomAnswers{rng: rng, fresh: rng.IntN(200), pAdd: rng.Float64() / 4, pRemove: rng.Float64() / 4,
		pNoise: rng.Float64() / 2, pOdd: rng.Float64() / 5}
	for range rng.IntN(120) {
		a.add()
	}
	return a
}

func (a *randomAnswers) add() {
	a.made++
	i := a.rng.IntN(len(a.list) + 1)
	a.list = append(a.list[:i], append([]string{fmt.Sprintf("post-%d", a.made)}, a.list[i:]...)...)
}

func (a *randomAnswers) answer(r Request, answered uint64) *Page {
	rng := a.rng
	if rng.Float64() < a.pAdd && a.made < a.fresh+120 {
		a.add()
	}
	if rng.Float64() < a.pRemove && len(a.list) > 0 {
		i := rng.IntN(len(a.list))
		a.list = append(a.list[:i], a.list[i+1:]...)
	}
	p := &Page{Count: len(a.list), Answered: answered}
	if rng.Float64() >= a.pNoise {
		from, to := min(r.Skip, len(a.list)), min(r.Skip+r.Limit, len(a.list))
		p.IDs = append([]string(nil), a.list[from:to]...)
		if to < len(a.list) {
			p.Next = Next{Present: true, Skip: to, Limit: r.Limit}
		}
		return p
	}
	// Anything at all: any length, nodes from anywhere in the list or that
	// cannot be posts, any count, a next link anywhere or none.
	p.IDs = make([]string, rng.IntN(r.Limit+3))
	for i := range p.IDs {
		if rng.Float64() < a.pOdd || len(a.list) == 0 {
			continue
		}
		p.IDs[i] = a.list[rng.IntN(len(a.list))]
	}
	if rng.IntN(2) == 0 {
		p.Count = rng.IntN(2*len(a.list)+2) - 1
	}
	if rng.IntN(4) > 0 {
		p.Next = Next{Present: true, Skip: max(r.Skip+len(p.IDs)+rng.IntN(7)-3, 0), Limit: r.Limit}
	}
	return p
}

// TestAWalkThatDoesNotMoveOnEndsAtTheBound: a walk that takes idleBound
// answers in a row that do not move it on ends as stalled, and says how
// many; an answer that moves it on starts the count again. (The bound is
// maxIdle; one here, so that one page of repeats reaches it.)
func TestAWalkThatDoesNotMoveOnEndsAtTheBound(t *testing.T) {
	t.Parallel()
	list := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	answer := func(r Request) *Page {
		from, to := min(r.Skip, len(list)), min(r.Skip+r.Limit, len(list))
		p := &Page{Count: len(list), IDs: list[from:to]}
		if to < len(list) {
			p.Next = Next{Present: true, Skip: to, Limit: r.Limit}
		}
		return p
	}
	m := New(Config{Limit: 2})
	var wants []Request
	var first *Page
	for range 2 {
		wants, _ = m.Wants(wants)
		p := answer(wants[0])
		if first == nil {
			first = p
		}
		step := m.Take(wants[0], p)
		require.Nil(t, step.End)
		require.NotEmpty(t, step.Yield, "an answer that moves the walk on")
		require.Zero(t, m.j.idle)
	}
	m.j.idleBound = 1
	wants, _ = m.Wants(wants)
	step := m.Take(wants[0], &Page{Count: len(list), IDs: first.IDs, Next: first.Next}) // repeats only
	require.NotNil(t, step.End)
	assert.Equal(t, EndStalled, step.End.Kind)
	assert.Contains(t, step.End.Reason, "1 answers in a row did not move the walk on")
}
