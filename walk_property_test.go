package ugc_test

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"iter"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/internal/walk/walkmodel"
)

var (
	modelCases = flag.Int("model-cases", heavyOr(2000, 64), "cases of TestWalkIsExactlyOnceAgainstRealServerModels")
	modelSeed  = flag.Uint64("model-seed", 1, "seed of the first case of TestWalkIsExactlyOnceAgainstRealServerModels")
	modelTrace = flag.Bool("model-trace", false, "print each request the model server answers (run one case)")
)

// modelWalkTimeout bounds one walk: a walk that never ends is a failure,
// not a hung test binary.
const modelWalkTimeout = 20 * time.Second

// walkMode is one way the property walks a list. The options live here and
// in the few functions below, so that a rename of the SDK's options touches
// one place.
type walkMode struct {
	name   string
	opts   []ugc.Option
	resume bool // walk pages to a random checkpoint, then resume from it
}

func sequentialWalk() []ugc.Option    { return []ugc.Option{ugc.WithReadAhead(0)} }
func prefetchWalk() []ugc.Option      { return nil } // the default
func parallelWalk(n int) []ugc.Option { return []ugc.Option{ugc.WithReadAhead(n)} }

// resumeWalk resumes from a checkpoint saved from a page walk.
func resumeWalk(cp ugc.Checkpoint) ugc.Option { return ugc.ResumeFrom(cp) }

// summaryOf makes the walk write its summary into s.
func summaryOf(s *ugc.WalkSummary) ugc.Option { return ugc.WithSummary(s) }

// walkModes are the modes of issue 16: sequential, prefetch, parallel 2, 3
// and 8, and resumed from a random checkpoint (the last page's included).
func walkModes() []walkMode {
	return []walkMode{
		{name: "sequential", opts: sequentialWalk()},
		{name: "prefetch", opts: prefetchWalk()},
		{name: "parallel-2", opts: parallelWalk(2)},
		{name: "parallel-3", opts: parallelWalk(3)},
		{name: "parallel-8", opts: parallelWalk(8)},
		{name: "resumed", resume: true},
	}
}

// modelPosts walks the case's list, post by post.
func (c *modelCase) modelPosts(ctx context.Context, cl *ugc.Client, opts []ugc.Option) iter.Seq2[ugc.Post, error] {
	switch c.endpoint {
	case "gallery":
		return cl.AllGalleryPosts(ctx, c.gallery, &ugc.GalleryPostsParams{Limit: c.Limit, Skip: c.StartSkip, Market: c.query.market}, opts...)
	case "inbox":
		return cl.AllInbox(ctx, &ugc.InboxParams{Limit: c.Limit, Skip: c.StartSkip}, opts...)
	}
	return cl.AllPosts(ctx, c.postsParams(), opts...)
}

// modelPages walks the case's list, page by page.
func (c *modelCase) modelPages(ctx context.Context, cl *ugc.Client, opts []ugc.Option) iter.Seq2[*ugc.Page, error] {
	switch c.endpoint {
	case "gallery":
		return cl.GalleryPostsPages(ctx, c.gallery, &ugc.GalleryPostsParams{Limit: c.Limit, Skip: c.StartSkip, Market: c.query.market}, opts...)
	case "inbox":
		return cl.InboxPages(ctx, &ugc.InboxParams{Limit: c.Limit, Skip: c.StartSkip}, opts...)
	}
	return cl.PostsPages(ctx, c.postsParams(), opts...)
}

func (c *modelCase) postsParams() *ugc.PostsParams {
	p := &ugc.PostsParams{Limit: c.Limit, Skip: c.StartSkip, Market: c.query.market, Filter: c.query.filter}
	if c.query.include {
		p.Include = []ugc.Include{ugc.IncludeLabels}
	}
	return p
}

// modelWalk is what one walk yielded.
type modelWalk struct {
	posts    []ugc.Post
	err      error
	afterErr int // things yielded after the error (the iterator must stop)
	sum      ugc.WalkSummary
	hasSum   bool
	panicked any
	note     string   // how a resumed walk was resumed
	after    string   // the post a resumed walk's checkpoint is after
	before   []string // the outcomes of a resumed walk's first part
}

// runModelWalk walks the session's list in mode.
func runModelWalk(c *modelCase, baseURL string, mode walkMode) (w modelWalk) {
	defer func() {
		if p := recover(); p != nil {
			w.panicked = p
		}
	}()
	cl, err := ugc.NewClient(baseURL, modelAPIKey, ugc.WithRetryWait(0, 0))
	if err != nil {
		w.err = err
		return w
	}
	ctx, cancel := context.WithTimeout(context.Background(), modelWalkTimeout)
	defer cancel()
	if mode.resume {
		return resumeModelWalk(ctx, c, cl)
	}
	w.hasSum = true
	opts := append(slices.Clone(mode.opts), summaryOf(&w.sum))
	w.collect(c.modelPosts(ctx, cl, opts))
	return w
}

func (w *modelWalk) collect(seq iter.Seq2[ugc.Post, error]) {
	for p, err := range seq {
		switch {
		case w.err != nil:
			w.afterErr++
		case err != nil:
			w.err = err
		default:
			w.posts = append(w.posts, p)
		}
	}
}

// resumeModelWalk walks pages in a random mode up to a random checkpoint
// (after a random page, or after the last one, where Next is ""), saves
// (Next, last ID) as a job would, and resumes from it in a random mode.
func resumeModelWalk(ctx context.Context, c *modelCase, cl *ugc.Client) (w modelWalk) {
	rng := rand.New(rand.NewPCG(c.Seed, 0x5e5))
	modes := walkModes()[:5]
	first, second := modes[rng.IntN(len(modes))], modes[rng.IntN(len(modes))]
	pagesAbout := len(c.Entries)/max(min(c.Limit, c.PageCapOr(ugc.MaxLimit)), 1) + 1
	stopAfter := 1 + rng.IntN(pagesAbout+1)
	if rng.IntN(3) == 0 {
		stopAfter = 1 << 30 // after the last page
	}
	var cp ugc.Checkpoint
	pages := 0
	var firstSum ugc.WalkSummary
	for page, err := range c.modelPages(ctx, cl, append(slices.Clone(first.opts), summaryOf(&firstSum))) {
		if err != nil {
			w.err = err
			break
		}
		pages++
		w.posts = append(w.posts, page.Nodes...)
		cp = page.Checkpoint
		if pages == stopAfter {
			break
		}
	}
	where := fmt.Sprintf("after page %d", pages)
	if pages < stopAfter {
		where = fmt.Sprintf("after the last page (%d)", pages)
	}
	w.note = fmt.Sprintf("pages walked %s %s, checkpoint %+v, resumed %s", first.name, where, cp, second.name)
	w.after = cp.After
	w.before = firstSum.Outcomes
	if w.err != nil {
		return w
	}
	w.hasSum = true
	opts := append(slices.Clone(second.opts), resumeWalk(cp), summaryOf(&w.sum))
	w.collect(c.modelPosts(ctx, cl, opts))
	return w
}

// TestWalkIsExactlyOnceAgainstRealServerModels is issue 16's property:
// against a generated model of a real server (count that lies, next links
// of every shape, skip honoured or not, runs of null nodes, a list that
// changes during the walk), every walk in every mode yields only posts of
// the list that match the caller's query, none twice, and every post that
// stayed in place for the whole walk, or ends with an error; a benign case
// (an unchanging list) ends without one, and the summary says what the
// walk forgave.
//
// Every failure names its class in brackets and how to run its case alone;
// the test logs a table of the classes it met, the most frequent first.
// Run thousands: go test -run TestWalkIsExactlyOnceAgainstRealServerModels -model-cases 2000 -model-seed 1
func TestWalkIsExactlyOnceAgainstRealServerModels(t *testing.T) {
	tally := newFailureTally()
	t.Cleanup(func() { tally.log(t) })
	for seed := *modelSeed; seed < *modelSeed+uint64(*modelCases); seed++ {
		c := newModelCase(seed)
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			t.Parallel()
			srv := newModelServer(t, c)
			for _, mode := range walkModes() {
				t.Run(mode.name, func(t *testing.T) {
					sess, baseURL := srv.session(mode.name)
					w := runModelWalk(c, baseURL, mode)
					checkModelWalk(t, c, sess, mode, w, tally, fmt.Sprintf(
						"go test -run 'TestWalkIsExactlyOnceAgainstRealServerModels/seed=%d$/%s$' -model-seed %d -model-cases 1 .", seed, mode.name, seed))
				})
			}
		})
	}
}

// checkModelWalk asserts the property on one walk, and counts each failure
// by its class.
func checkModelWalk(t *testing.T, c *modelCase, sess *modelSession, mode walkMode, w modelWalk, tally *failureTally, reproduce string) {
	t.Helper()
	facts := sess.snapshot()
	required := sess.required(c)
	fail := func(class, format string, args ...any) {
		t.Helper()
		tally.add(class, c, mode.name)
		note := ""
		if w.note != "" {
			note = "\n\t" + w.note
		}
		t.Errorf("[%s] %s\n\tcase: %s%s\n\treproduce: %s", class, fmt.Sprintf(format, args...), c, note, reproduce)
	}
	if w.panicked != nil {
		fail("panic", "the walk panicked: %v", w.panicked)
		return
	}
	if w.afterErr > 0 {
		fail("yield-after-error", "the iterator yielded %d times after its error %v", w.afterErr, w.err)
	}

	// Only posts of the list, matching the query, none twice. A post is
	// known by its ID's bytes; an ID with invalid UTF-8 the reader replaced
	// (as encoding/json does) stands for any post whose ID it could be, as
	// many times as there are such posts.
	yielded := make(map[string]int, len(w.posts)) // by canonical ID
	replaced := 0
	var doubles, foreign, badFilter, badMarket, badInclude []string
	for _, p := range w.posts {
		key := canonicalID(p.ID)
		yielded[key]++
		if yielded[key] > facts.everCanonical[key] && facts.everCanonical[key] > 0 && !facts.touched[p.ID] {
			doubles = append(doubles, p.ID) // a post that moved, or that a move passed, is not promised
		}
		labels := labelsOf(p.ID)
		if !facts.ever[p.ID] {
			if facts.everCanonical[key] == 0 {
				foreign = append(foreign, p.ID)
				continue
			}
			replaced++
			labels = labelsInComment(p.Comment)
		}
		if !filterMatches(c.query.filter, labels) {
			badFilter = append(badFilter, p.ID)
		}
		if !strings.HasSuffix(p.Comment, ";market="+c.query.market) {
			if len(badMarket) == 0 {
				badMarket = append(badMarket, fmt.Sprintf("%s (comment %q)", p.ID, p.Comment))
			} else {
				badMarket = append(badMarket, p.ID)
			}
		}
		if c.query.include && !slices.Equal(labelIDsOf(p), labels) && !(len(labels) == 0 && p.Labels != nil) {
			badInclude = append(badInclude, p.ID)
		}
	}
	// What the walk could not vouch for, by name: the one thing that lifts
	// any part of the promise (internal/walk's documentation).
	said := map[string]bool{}
	for _, o := range append(slices.Clone(w.sum.Outcomes), w.before...) {
		said[o] = true
	}
	unverified := said["unverified-pages"] || said["followed-next"] || said["first-page-unchecked"]
	if len(doubles) > 0 && !unverified && !slices.Contains(w.before, "resume-may-repeat") {
		fail("double", "%d posts yielded twice: %s (err %v, outcomes %v)", len(doubles), firstFew(doubles), w.err, w.sum.Outcomes)
	}
	if len(foreign) > 0 {
		fail("foreign", "%d posts never in the list: %s", len(foreign), firstFew(foreign))
	}
	if unasked := c.passedOver(idsOf(w.posts)); len(unasked) > 0 && !said["unverified-pages"] && !said["first-page-unchecked"] {
		fail("unasked", "%d posts of the %d the caller's skip passes over: %s", len(unasked), c.StartSkip, firstFew(unasked))
	}
	if len(badFilter) > 0 {
		fail("wrong-query/filter", "%d posts do not match the filter %s: %s", len(badFilter), c.query.filter, firstFew(badFilter))
	}
	if len(badMarket) > 0 {
		fail("wrong-query/market", "%d posts not localized for market %q: %s", len(badMarket), c.query.market, firstFew(badMarket))
	}
	if len(badInclude) > 0 {
		fail("wrong-query/include", "%d posts without their labels though include=labels: %s", len(badInclude), firstFew(badInclude))
	}
	if facts.wrongQueryRequests > 0 {
		fail("request-without-query", "%d requests did not carry the caller's query (%s); the last: %q",
			facts.wrongQueryRequests, c.query, facts.lastWrongQuery)
	}

	// Every post that stayed in place, or an error, or an outcome that
	// says why not: posts missing before posts the walk yielded only after
	// pages it could not check under a count that could not tell; at the
	// end, when the count could not tell where the list ends.
	var missing []string
	need := map[string]int{}
	for _, id := range required {
		key := canonicalID(id)
		if need[key]++; yielded[key] < need[key] {
			missing = append(missing, id)
		}
	}
	lastYielded := -1
	for i, id := range required {
		if yielded[canonicalID(id)] > 0 {
			lastYielded = i
		}
	}
	middle := false
	for i, id := range required {
		middle = middle || yielded[canonicalID(id)] == 0 && i < lastYielded
	}
	countCannotTell := said["count-unreliable"] || said["count-fell"] || said["unverified-nodes"] || said["first-page-unchecked"]
	if w.err == nil && len(missing) > 0 {
		switch {
		case middle && !(unverified && (countCannotTell || said["followed-next"])):
			fail("silent-gap", "the walk ended without error, %d of %d posts that stayed in place missing, some before posts it yielded: %s (outcomes %v)",
				len(missing), len(required), firstFew(missing), w.sum.Outcomes)
		case !middle && !countCannotTell:
			fail("silent-short", "the walk ended without error, its last %d of %d posts that stayed in place missing: %s (outcomes %v)",
				len(missing), len(required), firstFew(missing), w.sum.Outcomes)
		}
	}
	// A post the server sent another in place of cannot come: a walk
	// that ends without error names it, or what lifts the promise, unless
	// the copy or the post moved (on an unfiltered list: the copy of a
	// post the filter drops leaves no trace).
	lifts := said["count-unreliable"] || said["post-sent-twice"] || unverified
	if w.err == nil && len(facts.lost) > 0 && len(c.query.filter) == 0 && !lifts && c.DupAt >= c.StartSkip {
		for id := range facts.lost {
			if yielded[canonicalID(id)] == 0 && !facts.touched[id] && !facts.touched[c.Entries[c.DupAt-1]] {
				fail("silent-dup", "the server sent a post twice in place of %s, and the walk ended without error (outcomes %v)", id, w.sum.Outcomes)
			}
		}
	}
	if c.benign() && w.err != nil {
		// Not a failure: an error is never a silent loss. Counted, to
		// keep needless errors in view.
		tally.addNeedless("needless-error/"+errorKind(w.err), c, mode.name)
	}

	// The summary says what was forgiven (walks that ended complete, on an
	// unchanging list; a resumed walk's summary covers only its second part).
	if w.err != nil || len(missing) > 0 || !w.hasSum || mode.resume || !c.benign() {
		return
	}
	if facts.countLiedOnAll && facts.pagesServed > 0 && !facts.earlyLastPage && len(w.sum.Outcomes) == 0 {
		// needs: CountMismatches — pages whose count disagreed with where
		// next ended the list (issue 16 item 1: "recorded (summary, log)").
		// A last page that began before where it was asked, with nothing
		// to show it, may put the list's end where the count says.
		if n, ok := summaryCount(w.sum, "CountMismatches"); !ok || n == 0 {
			fail("summary/count", "every page's count disagreed with the list (count=%s), the summary does not say so (%s)", c.Count, fieldState(ok, n))
		}
	}
	if facts.firstNextDropped {
		// needs: QueryRepairs — next links that dropped the caller's
		// filter/market/include and were repaired (issue 16 item 2).
		if n, ok := summaryCount(w.sum, "QueryRestored"); !ok || n == 0 {
			fail("summary/query", "the first next dropped the caller's query (%s), the summary does not say so (%s)", c.query, fieldState(ok, n))
		}
	}
	if replaced > 0 && w.sum.DeviationCount < replaced {
		fail("summary/replaced-id", "%d post IDs were changed in reading (invalid UTF-8 replaced), %d deviations recorded", replaced, w.sum.DeviationCount)
	}
	if odd := c.oddBeforeLastPost(); odd > 0 && !slices.ContainsFunc(w.sum.Deviations, func(d ugc.Deviation) bool { return d.Dropped }) {
		fail("summary/dropped", "the walk passed %d nodes that are not posts, the summary has no dropped deviation (DeviationCount %d)", odd, w.sum.DeviationCount)
	}
}

// canonicalID is an ID with invalid UTF-8 replaced as encoding/json does:
// what a reader that replaces it would hand out.
func canonicalID(id string) string { return strings.ToValidUTF8(id, "\uFFFD") }

// labelsInComment reads the labels the model server wrote into a post's
// comment ("labels=a,b;market=m").
func labelsInComment(comment string) []string {
	list, _, _ := strings.Cut(strings.TrimPrefix(comment, "labels="), ";")
	if list == "" {
		return nil
	}
	return strings.Split(list, ",")
}

func labelIDsOf(p ugc.Post) []string {
	var out []string
	for _, l := range p.Labels {
		out = append(out, l.ID)
	}
	return out
}

func firstFew(ids []string) string {
	if len(ids) > 6 {
		return strings.Join(ids[:6], " ") + fmt.Sprintf(" … (%d more)", len(ids)-6)
	}
	return strings.Join(ids, " ")
}

// summaryCount reads an int field of the summary by name: ok is false while
// the SDK has no such field (see the "needs:" comments).
func summaryCount(s ugc.WalkSummary, field string) (n int, ok bool) {
	f := reflect.ValueOf(s).FieldByName(field)
	if !f.IsValid() || !f.CanInt() {
		return 0, false
	}
	return int(f.Int()), true
}

func fieldState(ok bool, n int) string {
	if !ok {
		return "the field does not exist yet"
	}
	return fmt.Sprintf("it is %d", n)
}

// errorKind names the kind of error that ended a walk, for the tally.
func errorKind(err error) string {
	var api *ugc.APIError
	var drift *ugc.DriftError
	switch {
	case errors.Is(err, ugc.ErrStalled):
		return "stalled"
	case errors.Is(err, ugc.ErrIncomplete):
		return "incomplete"
	case errors.Is(err, ugc.ErrBadNext):
		return "bad-next"
	case errors.As(err, &drift):
		return "drift"
	case errors.As(err, &api):
		if strings.Contains(api.Error(), "budget") {
			return "request-loop"
		}
		return fmt.Sprintf("api-%d", api.StatusCode)
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	}
	return "other"
}

// failureTally counts the failures of the property by class, with the
// smallest case that shows each.
type failureTally struct {
	mu      sync.Mutex
	classes map[string]*classTally
	// needless counts walks of unchanging lists that ended in an error:
	// never a failure (an error is not a silent loss), but kept in view.
	needless map[string]int
}

func (f *failureTally) addNeedless(class string, _ *modelCase, _ string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.needless == nil {
		f.needless = map[string]int{}
	}
	f.needless[class]++
}

type classTally struct {
	walks int
	seeds map[uint64]bool
	modes map[string]int
	least *modelCase // the case with the fewest nodes
	mode  string
}

func newFailureTally() *failureTally { return &failureTally{classes: map[string]*classTally{}} }

func (f *failureTally) add(class string, c *modelCase, mode string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ct := f.classes[class]
	if ct == nil {
		ct = &classTally{seeds: map[uint64]bool{}, modes: map[string]int{}}
		f.classes[class] = ct
	}
	ct.walks++
	ct.seeds[c.Seed] = true
	ct.modes[mode]++
	if ct.least == nil || len(c.Entries) < len(ct.least.Entries) ||
		len(c.Entries) == len(ct.least.Entries) && len(c.Mutations) < len(ct.least.Mutations) {
		ct.least, ct.mode = c, mode
	}
}

// log writes the table of classes, the most frequent first.
func (f *failureTally) log(t *testing.T) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.needless) > 0 {
		t.Logf("needless errors on unchanging lists (walks by class): %v", f.needless)
	}
	if len(f.classes) == 0 {
		t.Logf("model cases: %d from seed %d, no failure", *modelCases, *modelSeed)
		return
	}
	names := make([]string, 0, len(f.classes))
	for n := range f.classes {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(f.classes[b].walks, f.classes[a].walks), cmp.Compare(a, b))
	})
	var b strings.Builder
	fmt.Fprintf(&b, "failure classes over %d cases from seed %d (walks, cases, modes; smallest case):\n", *modelCases, *modelSeed)
	for _, n := range names {
		ct := f.classes[n]
		modes := make([]string, 0, len(ct.modes))
		for m, k := range ct.modes {
			modes = append(modes, fmt.Sprintf("%s:%d", m, k))
		}
		slices.Sort(modes)
		fmt.Fprintf(&b, "%-28s walks=%-5d cases=%-5d %s\n\tsmallest: mode=%s %s\n", n, ct.walks, len(ct.seeds), strings.Join(modes, " "), ct.mode, ct.least)
	}
	t.Log(b.String())
}

// passedOver returns the posts of ids that stand in the view before the
// caller's skip.
func (c *modelCase) passedOver(ids []string) []string {
	before := map[string]bool{}
	for _, e := range c.view()[:min(c.StartSkip, len(c.view()))] {
		before[e] = walkmodel.IsPost(e)
	}
	var out []string
	for _, id := range ids {
		if before[id] {
			out = append(out, id)
		}
	}
	return out
}
