// Package walkmodel is a generated model of the servers a walk meets, for
// tests only: the property of package walk drives the machine straight
// against it, and the SDK's HTTP property serves it over HTTP. A Case is a
// server drawn from a seed: a list of posts and nodes that are not posts,
// a count that may lie, a next link that may end the list a page early,
// skip honoured, ignored once or rounded, pages capped lower than asked, a
// post sent twice in place of another, and posts inserted, removed and
// moved at any point of a walk. A Session serves one walk.
package walkmodel

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// MaxLimit is the most posts a page holds (the contract's limit maximum).
const MaxLimit = 25

// NonPost is an entry of the list that is not a post (null, a number, an
// object without an id): it holds a place, the reader drops it. A user of
// the model may mark its non-posts apart (see [IsPost]).
const NonPost = ""

// IsPost reports whether an entry is a post: not "", and not a non-post a
// user marked with a leading NUL byte.
func IsPost(e string) bool { return e != "" && e[0] != 0 }

// IDs are the IDs of the model's posts, p0000…, and Inserted those of the
// posts inserted during a walk, n0000…: made once, so that a case
// allocates no string.
var IDs, Inserted = MakeIDs("p", 4096), MakeIDs("n", 1024)

// MakeIDs returns n IDs: prefix and a number of four digits, from 0.
func MakeIDs(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%04d", prefix, i)
	}
	return out
}

// CountMode is how a page's count is written.
type CountMode uint8

const (
	CountTrue       CountMode = iota // the length of the list served
	CountZero                        // 0: "not computed"
	CountMinusOne                    // -1
	CountStaleLower                  // a cached total, lower than the list
	CountPageLength                  // the page's own length
	CountHigher                      // more than the list holds
	CountChanging                    // one of the above, drawn per page
)

var countNames = [...]string{"true", "zero", "-1", "stale-lower", "page-length", "higher", "changing"}

// String names the mode.
func (m CountMode) String() string { return countNames[m] }

// SkipMode is how the server reads skip.
type SkipMode uint8

const (
	SkipHonoured    SkipMode = iota
	SkipIgnoredOnce          // one request (IgnoreAt) is served from 0, its next written from the skip asked
	SkipRounded              // served from skip rounded down to a multiple of RoundTo
)

// MutationKind is a change of the list during a walk.
type MutationKind uint8

const (
	Insert MutationKind = iota
	Remove
	Move
)

// Where is where a mutation falls: among all of the list, or ahead of or
// behind the furthest position served so far (a move takes a post from
// one side to the other).
type Where uint8

const (
	Anywhere Where = iota
	Ahead
	Behind
)

// Mutation changes the list before the server answers its AtRequest-th
// request.
type Mutation struct {
	AtRequest int
	Kind      MutationKind
	Where     Where
}

// String is the mutation as a case prints it.
func (m Mutation) String() string {
	return fmt.Sprintf("%s-%s@%d", [...]string{"insert", "remove", "move"}[m.Kind], [...]string{"anywhere", "ahead", "behind"}[m.Where], m.AtRequest)
}

// Case is one generated server, and the walk's page size and skip.
type Case struct {
	Seed      uint64
	Limit     int
	Entries   []string // the list: post IDs, and NonPost
	Count     CountMode
	StaleBy   int
	HighBy    int
	EarlyNull bool // next is null one page before the last (the count then tells the truth)
	StartSkip int  // the caller's skip, on an unchanging list
	Skip      SkipMode
	IgnoreAt  int
	RoundTo   int
	PageCap   int // 0: pages of the limit asked
	// DupAt, when at least 1, is a position whose post the server sends as
	// a second copy of the post before it: that post is lost.
	DupAt     int
	Mutations []Mutation
}

// NewCase draws a case from seed, and returns the source it drew from, for
// a user to draw what is its own (the machine's memory, say) after it.
func NewCase(seed uint64) (*Case, *rand.Rand) {
	rng := rand.New(rand.NewPCG(seed, 0x24))
	c := &Case{Seed: seed}
	switch r := rng.IntN(10); {
	case r < 2:
		c.Limit = 1 + rng.IntN(9)
	default:
		c.Limit = 10 + rng.IntN(16)
	}
	c.drawEntries(rng)
	c.Count = CountMode(rng.IntN(int(CountChanging) + 1))
	c.StaleBy, c.HighBy = 1+rng.IntN(max(len(c.Entries), 1)), 1+rng.IntN(30)
	c.EarlyNull = rng.IntN(8) == 0
	c.drawSkip(rng)
	if c.posts() >= 2 && rng.IntN(12) == 0 {
		c.DupAt = 1 + rng.IntN(len(c.Entries)-1)
	}
	c.drawMutations(rng)
	if c.Benign() && rng.IntN(4) == 0 {
		c.StartSkip = 1 + rng.IntN(len(c.Entries)+2)
	}
	return c, rng
}

// drawEntries draws the list: up to 130 posts (a tenth of the cases up to
// 3, a tenth 130 to 729, longer than a walk's memory), runs of nodes that
// are not posts, and single ones.
func (c *Case) drawEntries(rng *rand.Rand) {
	n := rng.IntN(131)
	switch rng.IntN(10) {
	case 0:
		n = rng.IntN(4)
	case 1:
		n = 130 + rng.IntN(600)
	}
	c.Entries = make([]string, 0, n+8)
	c.Entries = append(c.Entries, IDs[:n]...)
	if n > 0 && rng.IntN(10) < 3 {
		for range 1 + rng.IntN(2) {
			at, run := rng.IntN(len(c.Entries)+1), 1+rng.IntN(35)
			c.Entries = slices.Insert(c.Entries, at, slices.Repeat([]string{NonPost}, run)...)
		}
	}
	if n > 0 && rng.IntN(10) < 2 {
		for range 1 + rng.IntN(2) {
			c.Entries = slices.Insert(c.Entries, rng.IntN(len(c.Entries)+1), NonPost)
		}
	}
}

// drawSkip draws how the server reads skip, and how it caps pages.
func (c *Case) drawSkip(rng *rand.Rand) {
	switch rng.IntN(6) {
	case 0:
		c.Skip, c.IgnoreAt = SkipIgnoredOnce, 2+rng.IntN(4)
	case 1:
		c.Skip, c.RoundTo = SkipRounded, c.Limit
	case 2:
		c.Skip, c.RoundTo = SkipRounded, 10
	}
	if rng.IntN(5) == 0 {
		c.PageCap = 10
		if rng.IntN(2) == 0 {
			c.PageCap = 3 + rng.IntN(12)
		}
	}
	if c.Skip == SkipRounded {
		// A server that rounds skip to a boundary longer than its pages
		// could not be walked even by following next as sent.
		c.RoundTo = min(c.RoundTo, c.Limit, c.PageCapOr(MaxLimit))
	}
}

// drawMutations draws the changes of the list: in a twentieth of the
// cases, moderators at work, changing it at every request, at a rate of
// 0.3 to 2 a request; in three tenths, one to four changes.
func (c *Case) drawMutations(rng *rand.Rand) {
	switch r := rng.IntN(20); {
	case r == 0:
		rate := []float64{0.3, 1, 2}[rng.IntN(3)]
		for at := 2; at < 80; at++ {
			for k := rate; k > 0; k-- {
				if k >= 1 || rng.Float64() < k {
					c.Mutations = append(c.Mutations, Mutation{AtRequest: at, Kind: MutationKind(rng.IntN(2)), Where: Where(rng.IntN(3))})
				}
			}
		}
	case r < 7:
		for range 1 + rng.IntN(4) {
			c.Mutations = append(c.Mutations, Mutation{
				AtRequest: 2 + rng.IntN(12), Kind: MutationKind(rng.IntN(3)), Where: Where(rng.IntN(3)),
			})
		}
	}
}

// posts counts the posts the list was drawn with, before any is moved
// apart by a non-post: the length of the list less its non-posts.
func (c *Case) posts() int {
	n := 0
	for _, e := range c.Entries {
		if IsPost(e) {
			n++
		}
	}
	return n
}

// PageCapOr is the case's cap on a page, or d when it has none.
func (c *Case) PageCapOr(d int) int {
	if c.PageCap > 0 {
		return c.PageCap
	}
	return d
}

// Benign reports whether the list does not change and every next link is
// there until the end: a walk of it owes every post from the caller's skip.
func (c *Case) Benign() bool { return len(c.Mutations) == 0 && !c.EarlyNull }

// WellBehaved reports whether the server follows the contract (skip
// honoured, a true count, every post once) on a list that does not change:
// any error or outcome of a walk of it is needless.
func (c *Case) WellBehaved() bool {
	return c.Benign() && c.Skip == SkipHonoured && c.Count == CountTrue && c.DupAt == 0
}

// HonestUnderChange reports whether the server follows the contract while
// posts are added and removed (none moved): no error of a walk of it is
// needed, though a change may end one in drift.
func (c *Case) HonestUnderChange() bool {
	if len(c.Mutations) == 0 || c.EarlyNull || c.Skip != SkipHonoured || c.Count != CountTrue || c.DupAt != 0 || c.PageCap != 0 {
		return false
	}
	return !slices.ContainsFunc(c.Mutations, func(m Mutation) bool { return m.Kind == Move })
}

// String is the case in one line: the dimensions drawn.
func (c *Case) String() string {
	var b strings.Builder
	posts := c.posts()
	fmt.Fprintf(&b, "seed=%d limit=%d nodes=%d(posts=%d not-posts=%d) count=%s", c.Seed, c.Limit, len(c.Entries), posts, len(c.Entries)-posts, c.Count)
	switch c.Count {
	case CountStaleLower:
		fmt.Fprintf(&b, "(-%d)", c.StaleBy)
	case CountHigher:
		fmt.Fprintf(&b, "(+%d)", c.HighBy)
	}
	switch c.Skip {
	case SkipIgnoredOnce:
		fmt.Fprintf(&b, " skip=ignored-once@%d", c.IgnoreAt)
	case SkipRounded:
		fmt.Fprintf(&b, " skip=rounded-to-%d", c.RoundTo)
	}
	if c.EarlyNull {
		b.WriteString(" earlyNull")
	}
	if c.PageCap > 0 {
		fmt.Fprintf(&b, " pageCap=%d", c.PageCap)
	}
	if c.StartSkip > 0 {
		fmt.Fprintf(&b, " startSkip=%d", c.StartSkip)
	}
	if c.DupAt > 0 {
		fmt.Fprintf(&b, " dupAt=%d", c.DupAt)
	}
	for _, m := range c.Mutations {
		b.WriteString(" " + m.String())
	}
	return b.String()
}
