package walk

// The walk's promise, as a property over generated servers: every walk,
// in every mode, yields every post that stayed in the list and in its
// place for the whole walk exactly once, and nothing else but posts of the
// list, or ends with an error; or ends with a named outcome that says
// what it could not vouch for (Outcomes), which lifts only what its
// documentation says. The test holds no list of exempt cases: what it
// forgives, the machine said by name.
//
// Run more: UGC_WALK_CASES=200000 go test -run TestWalkPromise ./internal/walk
// walks a million (five modes a case; UGC_TEST_HEAVY=1, as in CI, runs
// 100,000); UGC_WALK_SEED sets the first seed, UGC_WALK_SEEDS=1 prints
// every failing seed (and each walk that ends in an error on a server that
// keeps the contract while posts change), UGC_WALK_TRACE=1 prints each
// answer of a one-case run.

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ugcposts/ugc-go/internal/walk/walkmodel"
)

// walkMode is one way a shell drives the machine.
type walkMode struct {
	name   string
	ahead  int
	resume bool
}

var walkModes = []walkMode{
	{name: "sequential", ahead: 0},
	{name: "prefetch", ahead: 1},
	{name: "parallel-3", ahead: 2},
	{name: "parallel-8", ahead: 7},
	{name: "resumed", resume: true},
}

// walkRun is what one walk yielded.
type walkRun struct {
	posts []string
	end   *End
	// before is what the first part of a resumed walk could not vouch
	// for.
	before   Outcomes
	requests int
	note     string
	panicked any
	// looped is set when the walk sent idleRequests requests with no
	// post coming: a machine that loops would send requests forever.
	looped bool
	// idleMost is the most answers in a row that did not move the walk
	// on (see maxIdle).
	idleMost int
}

// driver drives a machine as a shell does, against a session: requests in
// flight are answered when sent or when taken (drawn per request), so that
// a list's changes fall between them in every order; requests no longer
// wanted are dropped, answered or not.
type driver struct {
	s      *modelSession
	rng    *rand.Rand
	budget int
	// lastYield is the request count when a post last came.
	lastYield int
	flight    []inFlight
	wants     []Request
	trace     func(string)
}

type inFlight struct {
	req  Request
	page *Page
}

// storeMax stores v in a if it is more than a holds.
func storeMax(a *atomic.Int64, v int64) {
	for cur := a.Load(); v > cur; cur = a.Load() {
		if a.CompareAndSwap(cur, v) {
			return
		}
	}
}

// idleRequests is how many requests a walk may send without a post
// coming before the model takes it for a walk that loops: far more than
// the reads and searches of a page (maxReads), the probes of a first page
// and the reads past an end, in any mode.
const idleRequests = 300

// sameRequest reports whether an answer in flight serves a wanted request:
// rereads, searches and probes are always sent afresh.
func sameRequest(a, b Request) bool {
	return a.Purpose == Read && b.Purpose == Read && a.Skip == b.Skip && a.Limit == b.Limit && a.Blind == b.Blind && a.First == b.First
}

// run walks m until it ends, or until it has emitted stopAfter pages (0:
// no stop), and returns the posts yielded and, on a stop, how many of the
// last page's posts were handed out (n).
func (d *driver) run(m *Machine, stopAfter int, out *walkRun) (n int) {
	var held *Page
	pages := 0
	for {
		wants, hold := m.Wants(d.wants)
		d.wants = wants
		if len(wants) == 0 {
			panic("walk: a walk that did not end wants nothing")
		}
		if !hold {
			d.flight = slices.DeleteFunc(d.flight, func(f inFlight) bool {
				return !slices.ContainsFunc(wants, func(w Request) bool { return sameRequest(f.req, w) })
			})
		}
		send := wants
		if hold {
			send = wants[:1]
		}
		for _, w := range send {
			if !slices.ContainsFunc(d.flight, func(f inFlight) bool { return sameRequest(f.req, w) }) || w.Purpose != Read {
				f := inFlight{req: w}
				if d.rng.IntN(2) == 0 {
					f.page = d.s.answer(w)
				}
				out.requests++
				d.flight = append(d.flight, f)
			}
		}
		i := slices.IndexFunc(d.flight, func(f inFlight) bool {
			return f.req == wants[0] || sameRequest(f.req, wants[0])
		})
		if i < 0 {
			panic("walk: the request wanted first is not in flight")
		}
		f := d.flight[i]
		d.flight = slices.Delete(d.flight, i, i+1)
		if f.page == nil {
			f.page = d.s.answer(f.req)
		}
		if out.requests > d.budget || out.requests-d.lastYield > idleRequests {
			out.end = &End{Kind: EndStalled, Reason: "model: request budget spent (the walk loops)"}
			out.looped = out.requests-d.lastYield > idleRequests
			return 0
		}
		if f.req.Purpose != Probe {
			held = f.page
		}
		if d.trace != nil {
			d.trace(fmt.Sprintf("  take %+v", wants[0]))
		}
		step := m.Take(wants[0], f.page)
		out.idleMost = max(out.idleMost, m.j.idle)
		if d.trace != nil {
			d.trace(fmt.Sprintf("  step placed=%v emit=%v yield=%v events=%v end=%+v", step.Placed, step.Emit, step.Yield, step.Events, step.End))
		}
		if step.Placed && step.Emit {
			src := f.page
			if step.Earlier {
				src = held
			}
			pages++
			n = len(step.Yield)
			if stopAfter > 0 && pages == stopAfter {
				n = 1 + d.rng.IntN(max(n, 1))
				n = min(n, len(step.Yield))
			}
			for _, i := range step.Yield[:n] {
				out.posts = append(out.posts, src.IDs[i])
			}
			if n > 0 {
				d.lastYield = out.requests
			}
			if stopAfter > 0 && pages == stopAfter {
				return n
			}
		}
		if step.End != nil {
			out.end = step.End
			return n
		}
	}
}

// runWalk walks the case's list in mode, on a session of its own.
func runWalk(c *modelCase, mode walkMode, trace func(string)) (w walkRun, s *modelSession) {
	s = newModelSession(c, uint64(len(mode.name))<<8|uint64(mode.ahead))
	s.trace = trace
	defer func() {
		if p := recover(); p != nil {
			w.panicked = p
		}
	}()
	rng := rand.New(rand.NewPCG(c.Seed, 0xd1))
	pages := len(c.Entries)/max(min(c.Limit, c.PageCapOr(MaxLimit)), 1) + 1
	d := &driver{s: s, rng: rng, budget: 40*pages + 400, trace: trace}
	cfg := Config{Skip: c.StartSkip, Limit: c.Limit, Ahead: mode.ahead, Memory: c.memory}
	if !mode.resume {
		d.run(New(cfg), 0, &w)
		return w, s
	}
	// Pages to a checkpoint (after a random page, in its middle, or after
	// the last page), then a walk resumed from it, as a job does.
	first, second := walkModes[rng.IntN(4)], walkModes[rng.IntN(4)]
	stopAfter := 1 + rng.IntN(pages+1)
	if rng.IntN(3) == 0 {
		stopAfter = 1 << 30
	}
	cfg.Ahead = first.ahead
	m := New(cfg)
	n := d.run(m, stopAfter, &w)
	if w.end != nil && w.end.Kind != EndDone {
		return w, s
	}
	skip, after := m.Checkpoint(n)
	w.before = m.Outcomes()
	w.note = fmt.Sprintf("walked %s to page %d, %d posts of it, checkpoint (%d, %q), resumed %s", first.name, min(stopAfter, pages+1), n, skip, after, second.name)
	w.end = nil
	d.flight = d.flight[:0]
	d.run(New(Config{Skip: skip, After: after, Limit: c.Limit, Ahead: second.ahead, Memory: c.memory}), 0, &w)
	return w, s
}

// failure is one walk that broke the promise.
type failure struct {
	class, msg string
	c          *modelCase
	mode       string
}

// checkWalk returns the walk's failures: what it broke of the promise,
// given what it said of itself.
func checkWalk(c *modelCase, mode walkMode, w walkRun, s *modelSession) []failure {
	var out []failure
	fail := func(class, format string, args ...any) {
		out = append(out, failure{class: class, msg: fmt.Sprintf(format, args...), c: c, mode: mode.name})
	}
	if w.panicked != nil {
		fail("panic", "the walk panicked: %v", w.panicked)
		return out
	}
	if w.end == nil {
		fail("no-end", "the walk neither ended nor stopped")
		return out
	}
	if w.looped {
		fail("loops", "the walk sent %d requests without ending", w.requests)
		return out
	}
	if w.idleMost >= maxIdle && (c.WellBehaved() || c.HonestUnderChange()) {
		fail("idle-bound", "a walk on a server that keeps the contract took %d answers in a row that did not move it on", w.idleMost)
	}
	if w.end.Outcomes&ResumeMayRepeat != 0 {
		fail("resume-may-repeat-at-end", "a walk that reached its end said resume-may-repeat: %s", describe(w.end))
	}
	excused := w.end.Outcomes | w.before
	unverified := excused&(UnverifiedPages|FollowedNext|FirstPageUnchecked) != 0

	// Sized up front: growing these maps was a fifth of the property's CPU.
	ever := make(map[string]bool, len(c.Entries)+len(s.Touched))
	for _, id := range c.Entries {
		ever[id] = true
	}
	for id := range s.Touched {
		ever[id] = true
	}
	owed := make(map[string]bool, len(c.Entries))
	before := make(map[string]bool, c.StartSkip)
	for i, id := range c.Entries {
		switch {
		case id == walkmodel.NonPost:
		case i < c.StartSkip:
			before[id] = true
		case !s.Touched[id] && !s.Lost[id]:
			owed[id] = true
		}
	}
	seen := make(map[string]int, len(w.posts))
	var doubles, foreign, unasked []string
	for _, id := range w.posts {
		seen[id]++
		switch {
		case !ever[id]:
			foreign = append(foreign, id)
		case seen[id] == 2 && owed[id]:
			doubles = append(doubles, id)
		case before[id] && seen[id] == 1:
			unasked = append(unasked, id)
		}
	}
	if len(foreign) > 0 {
		fail("foreign", "%d posts never in the list: %s", len(foreign), few(foreign))
	}
	if len(doubles) > 0 && !unverified && w.before&ResumeMayRepeat == 0 {
		fail("repeat", "%d posts that stayed in place came twice: %s (end %s)", len(doubles), few(doubles), describe(w.end))
	}
	if len(unasked) > 0 && excused&(UnverifiedPages|FirstPageUnchecked) == 0 {
		fail("unasked", "%d posts the caller's skip passes over: %s", len(unasked), few(unasked))
	}
	if w.end.Kind != EndDone {
		return out
	}
	// Posts missing from a walk that ended complete: at its end (the
	// list ended early), or in its middle, with a post owed after them.
	var missing []string
	middle := false
	last := -1
	for i, id := range c.Entries {
		if owed[id] && seen[id] > 0 {
			last = i
		}
	}
	for i, id := range c.Entries {
		if owed[id] && seen[id] == 0 {
			missing = append(missing, id)
			middle = middle || i < last
		}
	}
	switch {
	case len(missing) == 0:
	case middle && (!unverified || excused&(FollowedNext|CountUnreliable|UnverifiedNodes|CountFell|FirstPageUnchecked) == 0):
		fail("silent-gap", "the walk ended complete, %d posts that stayed in place missing, some before posts it yielded: %s", len(missing), few(missing))
	case !middle && excused&(CountUnreliable|CountFell|FirstPageUnchecked|UnverifiedNodes) == 0:
		fail("silent-short", "the walk ended complete, its last %d posts that stayed in place missing: %s", len(missing), few(missing))
	}
	if len(s.Lost) > 0 && excused&(CountUnreliable|PostSentTwice|UnverifiedPages|FollowedNext|FirstPageUnchecked) == 0 && c.DupAt >= c.StartSkip {
		for id := range s.Lost {
			if seen[id] == 0 && !s.Touched[id] && !s.Touched[c.Entries[c.DupAt-1]] {
				fail("silent-dup", "the server sent a post twice in place of %s, and the walk ended complete", id)
			}
		}
	}
	return out
}

func describe(e *End) string {
	if e == nil {
		return "none"
	}
	return fmt.Sprintf("%s %q outcomes=%s", [...]string{"done", "refused", "stalled", "incomplete", "drift"}[e.Kind], e.Reason, e.Outcomes)
}

func few(ids []string) string {
	if len(ids) > 6 {
		return strings.Join(ids[:6], " ") + fmt.Sprintf(" … (%d more)", len(ids)-6)
	}
	return strings.Join(ids, " ")
}

// tally counts failures and needless ends by class, with the smallest case
// of each.
type tally struct {
	mu      sync.Mutex
	classes map[string]*classCount
}

type classCount struct {
	walks int
	least *modelCase
	mode  string
	msg   string
}

func (t *tally) add(class string, c *modelCase, mode, msg string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.classes == nil {
		t.classes = map[string]*classCount{}
	}
	cc := t.classes[class]
	if cc == nil {
		cc = &classCount{}
		t.classes[class] = cc
	}
	cc.walks++
	if cc.least == nil || len(c.Entries) < len(cc.least.Entries) {
		cc.least, cc.mode, cc.msg = c, mode, msg
	}
}

func (t *tally) String() string {
	names := make([]string, 0, len(t.classes))
	for n := range t.classes {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(t.classes[b].walks, t.classes[a].walks), cmp.Compare(a, b))
	})
	var b strings.Builder
	for _, n := range names {
		cc := t.classes[n]
		fmt.Fprintf(&b, "%-34s walks=%-7d smallest: mode=%s %s\n\t%s\n", n, cc.walks, cc.mode, cc.least, cc.msg)
	}
	return b.String()
}

func envInt(name string, def uint64) uint64 {
	if v, err := strconv.ParseUint(os.Getenv(name), 10, 64); err == nil {
		return v
	}
	return def
}

// TestWalkPromise checks the promise over generated servers, five modes
// each. Failures fail the test; needless errors (a walk of a list that did
// not change, with every next link, that ends in an error) and needless
// outcomes are counted and logged, by class.
func TestWalkPromise(t *testing.T) {
	t.Parallel()
	// Its walks make short-lived garbage at a great rate and keep little:
	// collecting a quarter as often costs a few MiB of heap, not a fifth
	// of the CPU.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	cases := envInt("UGC_WALK_CASES", 4000)
	if os.Getenv("UGC_TEST_HEAVY") != "" && os.Getenv("UGC_WALK_CASES") == "" {
		cases = 20_000 // × 5 modes: 100,000 walks in CI; a million is UGC_WALK_CASES=200000
	}
	first := envInt("UGC_WALK_SEED", 1)
	var trace func(string)
	listSeeds := os.Getenv("UGC_WALK_SEEDS") != ""
	if os.Getenv("UGC_WALK_TRACE") != "" {
		trace = func(s string) { fmt.Println(s) }
	}
	var failures, needless, changed tally
	var walks, failed, honest, idleMost atomic.Int64
	var next atomic.Uint64
	next.Store(first)
	start := time.Now()
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				seed := next.Add(1) - 1
				if seed >= first+cases {
					return
				}
				c := newModelCase(seed)
				for _, mode := range walkModes {
					w, s := runWalk(c, mode, trace)
					walks.Add(1)
					fs := checkWalk(c, mode, w, s)
					for _, f := range fs {
						failed.Add(1)
						failures.add(f.class, c, mode.name, f.msg+"; "+w.note)
						if listSeeds {
							fmt.Printf("failing seed %d %s %s\n", seed, mode.name, f.class)
						}
					}
					if c.HonestUnderChange() {
						honest.Add(1)
					}
					if c.WellBehaved() || c.HonestUnderChange() {
						storeMax(&idleMost, int64(w.idleMost))
					}
					if len(fs) == 0 && w.end != nil && w.end.Kind != EndDone && c.HonestUnderChange() {
						if listSeeds {
							fmt.Printf("erring seed %d %s %s\n", seed, mode.name, describe(w.end))
						}
						changed.add("error/"+describe(w.end)[:strings.IndexByte(describe(w.end), ' ')], c, mode.name, describe(w.end))
					}
					if len(fs) > 0 || !c.Benign() || w.end == nil {
						continue
					}
					server := "misbehaving server"
					if c.WellBehaved() {
						server = "well-behaved server"
					}
					if w.end.Kind != EndDone {
						needless.add(server+": error/"+describe(w.end)[:strings.IndexByte(describe(w.end), ' ')], c, mode.name, describe(w.end))
					}
					if o := w.end.Outcomes | w.before; o != 0 {
						needless.add(server+": outcome/"+o.String(), c, mode.name, describe(w.end))
					}
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	t.Logf("%d walks (%d cases from seed %d, %d modes) in %v: %.0f walks a minute; %d broke the promise",
		walks.Load(), cases, first, len(walkModes), elapsed.Round(time.Millisecond), float64(walks.Load())/elapsed.Minutes(), failed.Load())
	if len(needless.classes) > 0 {
		t.Logf("errors and outcomes on lists that did not change (needless where the server is well-behaved):\n%s", needless.String())
	}
	t.Logf("the most answers in a row that did not move a walk on, on a server that keeps the contract: %d (a walk ends as stalled at %d)", idleMost.Load(), maxIdle)
	if len(changed.classes) > 0 {
		t.Logf("errors of the %d walks on a server that keeps the contract while posts are added and removed (a change may end a walk in drift):\n%s", honest.Load(), changed.String())
	}
	if failed.Load() > 0 {
		t.Errorf("failures by class (reproduce: UGC_WALK_SEED=<seed> UGC_WALK_CASES=1 UGC_WALK_TRACE=1 go test -run TestWalkPromise ./internal/walk):\n%s", failures.String())
	}
}

// TestServersThePropertyFound replays the generated servers on which the
// property once broke the promise, each now kept by a rule of the machine:
// one subtest a seed, named by it (the rule table in doc.go cites them).
func TestServersThePropertyFound(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		seed uint64
		rule string
	}{
		// Post p0093 is sent twice, in place of p0094, and a post is
		// inserted before it while a parallel walk has the page after it
		// in hand, answered before the insert: that page's first post
		// stands where the walk expected its anchor by the duplicate.
		{143680, "a page answered before the page it follows, from a list of another count, is read again"},
		// A server that rounds skip, caps pages and ends the list early:
		// the read past the early end brought the last five posts, which
		// could not be placed, and the search came back to the same end.
		{136564, "an end that a read past it contradicts with posts it could not place is not believed"},
		// The same on a server that rounds skip: the search found the
		// anchor and settled the page, which ended the list again, with
		// the posts the read past the first end brought still unplaced.
		{65452, "only a page read on from the anchor, where asked, confirms an end that posts contradicted"},
		// Pages of one post on a server that ends the list early: the read
		// past the end was sent blind (a page of one node seemed to be all
		// the server sends), and a removal behind it passed over a post.
		{1145665, "a page as long as asked says nothing of how many posts the server sends a page"},
		// A server that rounds skip down answered every page from two
		// places before where asked, its next links saying so; the last
		// page ended early just where the walk's count was met.
		{1192325, "an end is judged against the count from where the server's next links put the walk"},
		// A server that rounds skip down answered the read on from the
		// list's start; its anchor moved by two, within the slack, and the
		// page ended the list where the count was met from where asked.
		{336852, "an end is judged against the count from where the page's anchor shows it began"},
		// A resumed walk's first page, answered from the list's start by
		// a server that rounds skip, ended the list where the count was
		// met from where its anchor put it: a post removed between the
		// runs had moved the anchor back by one.
		{382673, "a resumed walk's first page taken from where its anchor began reads on from an end the count meets"},
		// A walk resumed from a checkpoint with no post, on a server that
		// ignored skip once: its first page, all nodes that are not posts,
		// came from the list's start, and the posts where it was asked
		// were passed over.
		{861298, "a first page from a skip names first-page-unchecked when it holds only nodes that are not posts"},
		// A server that ignored skip once answered a blind read from the
		// list's start: its post stood 16 places from where expected, with
		// the count down by one.
		{145165, "a page placed by an older post further than the count moved is read again"},
		// A post removed before the anchor moved it back by one, and the
		// server sent the anchor twice, in place of the post after it:
		// the page looked right, with that post missing.
		{58489, "an anchor first on a page from a list that lost posts: the post before it is asked"},
		// A post pushed just past a page that the server ended early was
		// taken for removed; the walk stopped there, and the walk resumed
		// from its checkpoint (the post after it) yielded it again.
		{24771, "a walk stopped just after it took its last post for removed says resume-may-repeat"},
		// A server whose count is stale, below the list, rounds skip and
		// ends the list early: pages settled from before where they were
		// asked had run the walk's positions ahead of the server's, and
		// the posts that seemed added behind were that.
		{346144, "a page settled from before where it was asked takes back the credit for posts added behind"},
		// Posts added and removed at every request, and p0039 sent again
		// in place of p0040: the check of an anchor first on a page came
		// from a list of another count, where the anchor stood one place
		// on, and showed nothing of the page's list.
		{179223, "an edge check answered from a list of another count reads the page again"},
		// A server that rounds skip and ends the list early, under churn:
		// a page twice away from where it was asked was settled from where
		// its anchor showed it began, three removals behind it (offset by
		// additions) having moved the anchor back, and its null next met
		// the count from there; it had begun three places earlier still.
		{314377, "a page settled from before where it was asked, that ends the list, is read on from once"},
		// A resumed walk's first answer on a server that rounds skip did
		// not hold the anchor; the search that found it was taken for a
		// page after one placed, with a count change of the whole list to
		// explain the anchor's move, which it credited as posts added.
		{382813, "a resumed walk's pages are its first until one is placed"},
		// A walk stopped on a page that held p0109 twice, between the two
		// copies: the walk resumed from its checkpoint yielded the second.
		{879733, "a walk stopped on a page that held a post twice says resume-may-repeat"},
		// A count that changes at every answer: the edge check's answer,
		// read again and again, had the count of its own page length under
		// a next link, and the page it checked met the count at the end.
		{905807, "a count that measures nothing, on any answer, grades the count"},
		// A server that ignored skip once: the search that found the
		// anchor again found it first, where expected, on a list that had
		// lost a post before it, and p0029 stood in for p0030 after it.
		{694716, "a search's page is checked at its edge like any other"},
		// A server that ignored skip once and ended the list early, under
		// a move: the read past the first end held posts the walk did not
		// remember, read again for doubt, and the page that came in its
		// place met a count that an insert behind explained.
		{1696694, "a read past an end, read again for doubt, contradicts the end with posts it brought"},
		// A server that rounds skip to pages it caps, and ends the list
		// early: the read past the end came back as the same first page,
		// and the searches around it brought the posts after the end.
		{1285500, "a search past an end contradicts the end with posts the walk does not remember"},
		// A server that rounds skip under a stale count: a search found
		// the anchor twelve places from where asked, with a count that
		// rose by twelve as the early end told the truth, and the page
		// ended the list where the count was met.
		{554769, "a page placed elsewhere than asked that ends the list is read on from once"},
		// A walk resumed on a server that rounds skip: the checkpoint's
		// position ran three ahead of the server's, and the first page,
		// found where asked, ended the list where the count was met.
		{465160, "a resumed walk's first page that ends the list is read on from once"},
		// A walk that follows next links, on a server that ends the list
		// one page early: the count said two posts more.
		{1946923, "a walk that follows next links reads on from an end the count contradicts"},
		// A server that rounds skip, under a stale count: the anchor one
		// place on with the count one higher was taken for a post added
		// behind, and the last page met the count from there.
		{1606561, "posts taken for added behind the walk do not confirm an end the count meets"},
		// p0048 sent twice, in place of p0049, while a removal behind and
		// an addition ahead moved the anchor back by one, the count
		// unchanged: the copy stood first, where the anchor was expected.
		{1256546, "a request starts before the anchor: a post sent twice after it shows on one page"},
		// A walk that follows next links read on from an end, at its own
		// position, on a server that rounds skip: the page it got held no
		// post it had yielded, began eight places earlier than the walk
		// took it to, and met the count from there.
		{628812, "a read on from an end, by a walk that follows next links, that holds no post it yielded is unverified"},
		// A server that rounds skip down by one, just as a removal behind
		// the walk moved the page's first post back by one: the anchor
		// stood where expected, and the page ended the list a post early.
		{1229904, "an edge check that shows the page's first node one place earlier takes the page from there"},
		// p0056 sent twice, in place of p0057, while two removals behind
		// moved the anchor back by two: its copy stood first on the page.
		{707500, "an anchor first on a page, moved back, on a list that lost posts is checked at its edge"},
		// A removal behind the walk, with an addition to keep the count,
		// while the walk read blind past a run of nodes that are not posts:
		// the run's first post after it moved back to where the run was.
		{775958, "a blind read past a run of nodes that are not posts starts within the run"},
		// A walk resumed on a server that rounds skip: its first page's
		// anchor showed the checkpoint two places ahead of the server, and
		// a later page, rounded by two, agreed with the walk's positions.
		{1390396, "a resumed walk's positions that ran ahead judge every end from that far back"},
		// A server that rounds skip under a count far above the list: each
		// read past the end came back empty, the search settled the page
		// further back, and the end, short of the one read before, was
		// read on from again without counting, for ever.
		{166180, "an end short of one read before is read on from twice at most until the walk moves on"},
	} {
		t.Run(fmt.Sprint(tc.seed), func(t *testing.T) {
			t.Parallel()
			c := newModelCase(tc.seed)
			for _, mode := range walkModes {
				w, s := runWalk(c, mode, nil)
				assert.Empty(t, checkWalk(c, mode, w, s), "seed %d, %s (%s): %v", tc.seed, mode.name, tc.rule, c)
			}
		})
	}
}

// TestChangesTheWalkOnceStalledOn replays generated servers that keep the
// contract while posts are added and removed, on which walks once ended as
// stalled, needlessly.
func TestChangesTheWalkOnceStalledOn(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		seed uint64
		rule string
	}{
		// A post removed behind a run of nodes that are not posts: the
		// search found the anchor one place back, and the read after it
		// ended a node short of where the walk had read, in the old
		// places.
		{112109, "a search's page behind where the walk read is not counted, and what it read moves back with the anchor"},
	} {
		c := newModelCase(tc.seed)
		for _, mode := range walkModes {
			w, _ := runWalk(c, mode, nil)
			require.NotNil(t, w.end, "seed %d, %s", tc.seed, mode.name)
			assert.NotEqual(t, EndStalled, w.end.Kind, "seed %d, %s (%s): %s", tc.seed, mode.name, tc.rule, describe(w.end))
		}
	}
}
