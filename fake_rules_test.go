package ugc_test

// Complete walks driven through the fault rules of ugctest: the same
// properties as walk_complete_test.go and misbehaving_server_test.go (every
// post exactly once, in order, or an error that says why; never a silent
// gap), but with the misbehaviour injected by ugctest.Rule into a fake that
// otherwise follows the contract to the letter.

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
)

// ruleFault is a fault the property test may inject, with what a correct
// SDK owes when it fires.
type ruleFault struct {
	name string
	make func(rng *rand.Rand, limit int) ugctest.Fault
	// retryable faults fail an attempt that a retry recovers: a walk whose
	// retryable rules fire at most the retry budget in all completes.
	retryable bool
	// benign page shapes are survived whatever their firing pattern.
	benign func(f ugctest.Fault) bool
	// reorders may yield the posts of a page out of the list's order.
	reorders bool
	// displacesOnce: fired once, past the first page, it is survived (a
	// page from the wrong place, an early end).
	displacesOnce bool
}

func never(ugctest.Fault) bool  { return false }
func always(ugctest.Fault) bool { return true }

var ruleFaults = []ruleFault{
	{name: "internal-error", make: func(*rand.Rand, int) ugctest.Fault { return ugctest.InternalError() }, retryable: true, benign: never},
	{name: "rate-limit", make: func(*rand.Rand, int) ugctest.Fault { return ugctest.RateLimit("0") }, retryable: true, benign: never},
	{name: "drop-connection", make: func(*rand.Rand, int) ugctest.Fault { return ugctest.DropConnection() }, retryable: true, benign: never},
	{name: "truncate-body", make: func(*rand.Rand, int) ugctest.Fault { return ugctest.TruncateBody() }, retryable: true, benign: never},
	{name: "cut-json", make: func(*rand.Rand, int) ugctest.Fault { return ugctest.CutJSON() }, retryable: true, benign: never},
	{name: "503", make: func(*rand.Rand, int) ugctest.Fault { return ugctest.ErrorResponse(503, "Service unavailable") }, retryable: true, benign: never},
	{name: "proxy-502", make: func(*rand.Rand, int) ugctest.Fault { return ugctest.ProxyPage(502) }, retryable: true, benign: never},
	{name: "short-page", make: func(rng *rand.Rand, limit int) ugctest.Fault { return ugctest.ShortPage(rng.IntN(limit + 1)) },
		benign: func(f ugctest.Fault) bool { return f.Keep >= 1 }},
	{name: "short-page-skipping", make: func(rng *rand.Rand, limit int) ugctest.Fault {
		return ugctest.ShortPageSkipping(rng.IntN(limit + 1))
	}, benign: func(f ugctest.Fault) bool { return f.Keep >= 1 }},
	{name: "relative-next", make: func(*rand.Rand, int) ugctest.Fault { return ugctest.RelativeNext() }, benign: always},
	{name: "escaped-next", make: func(*rand.Rand, int) ugctest.Fault { return ugctest.EscapedNext() }, benign: always},
	{name: "shuffled-page", make: func(rng *rand.Rand, _ int) ugctest.Fault { return ugctest.ShuffledPage(rng.Uint64()) },
		benign: never, reorders: true},
	{name: "stale-page", make: func(rng *rand.Rand, limit int) ugctest.Fault {
		k := 1 + rng.IntN(limit)
		if rng.IntN(2) == 0 {
			k = -k
		}
		return ugctest.StalePage(k)
	}, benign: never, displacesOnce: true},
	{name: "ignore-skip", make: func(*rand.Rand, int) ugctest.Fault { return ugctest.IgnoreSkip() }, benign: never, displacesOnce: true},
	{name: "end-early", make: func(rng *rand.Rand, limit int) ugctest.Fault { return ugctest.EndEarly(rng.IntN(limit + 1)) },
		benign: never, displacesOnce: true},
}

var (
	fakeRuleCases = flag.Int("fake-rule-cases", 60, "cases of TestFakeRulesWalkIsCompleteOrSaysWhy")
	fakeRuleSeed  = flag.Uint64("fake-rule-seed", 1000, "seed of the first case of TestFakeRulesWalkIsCompleteOrSaysWhy")
)

// walkEndpoint is one list of a fake server, walked by the property test.
type walkEndpoint struct {
	name     ugctest.Endpoint
	gallery  string
	walk     func(c *ugc.Client, limit int, opts ...ugc.Option) walked
	pathGlob string
}

// walkTimeout bounds each walk of the property test: a walk that never
// ends is a failure, not a hung test binary.
const walkTimeout = 3 * time.Second

func endpointOf(name ugctest.Endpoint, gallery string) walkEndpoint {
	switch name {
	case ugctest.EndpointGallery:
		return walkEndpoint{name: name, gallery: gallery, pathGlob: "/v1/galleries/*/posts",
			walk: func(c *ugc.Client, limit int, opts ...ugc.Option) walked {
				ctx, cancel := context.WithTimeout(context.Background(), walkTimeout)
				defer cancel()
				return walkAll(c.AllGalleryPosts(ctx, gallery, &ugc.GalleryPostsParams{Limit: limit}, opts...))
			}}
	case ugctest.EndpointInbox:
		return walkEndpoint{name: name, pathGlob: "/v1/inbox",
			walk: func(c *ugc.Client, limit int, opts ...ugc.Option) walked {
				ctx, cancel := context.WithTimeout(context.Background(), walkTimeout)
				defer cancel()
				return walkAll(c.AllInbox(ctx, &ugc.InboxParams{Limit: limit}, opts...))
			}}
	}
	return walkEndpoint{name: ugctest.EndpointPosts, pathGlob: "/v1/posts",
		walk: func(c *ugc.Client, limit int, opts ...ugc.Option) walked {
			ctx, cancel := context.WithTimeout(context.Background(), walkTimeout)
			defer cancel()
			return walkAll(c.AllPosts(ctx, &ugc.PostsParams{Limit: limit}, opts...))
		}}
}

// ruleCase is one generated case of TestFakeRulesWalkIsCompleteOrSaysWhy.
type ruleCase struct {
	seed     uint64
	posts    int
	endpoint walkEndpoint
	mode     string
	opts     []ugc.Option
	limit    int
	rules    []ugctest.Rule
	kinds    []ruleFault
	// mustComplete: only faults a correct SDK fully recovers from.
	mustComplete  bool
	reorders      bool
	displacedOnce bool // a displacesOnce rule made the case no less complete
}

func (c ruleCase) String() string {
	rules, _ := json.Marshal(c.rules)
	ep := string(c.endpoint.name)
	if c.gallery() != "" {
		ep += ":" + c.gallery()
	}
	return fmt.Sprintf("seed=%d posts=%d endpoint=%s mode=%s limit=%d mustComplete=%v rules=%s",
		c.seed, c.posts, ep, c.mode, c.limit, c.mustComplete, rules)
}

func (c ruleCase) gallery() string { return c.endpoint.gallery }

func newRuleCase(seed uint64) ruleCase {
	rng := rand.New(rand.NewPCG(seed, 0x12))
	c := ruleCase{seed: seed, posts: rng.IntN(301), limit: 1 + rng.IntN(ugc.MaxLimit)}
	switch m := rng.IntN(4); m {
	case 0:
		c.mode, c.opts = "sequential", []ugc.Option{ugc.WithReadAhead(0)}
	case 1:
		c.mode, c.opts = "prefetch", []ugc.Option{ugc.WithReadAhead(1)}
	default:
		n := 2 + rng.IntN(7)
		c.mode, c.opts = fmt.Sprintf("parallel-%d", n), []ugc.Option{ugc.WithReadAhead(n)}
	}
	switch rng.IntN(3) {
	case 0:
		c.endpoint = endpointOf(ugctest.EndpointPosts, "")
	case 1:
		c.endpoint = endpointOf(ugctest.EndpointGallery, []string{"summer", "videos"}[rng.IntN(2)])
	default:
		c.endpoint = endpointOf(ugctest.EndpointInbox, "")
	}
	c.mustComplete = true
	retryBudget := ugc.DefaultRetryMax
	displacerAfter := -1 // After of the displacesOnce rule, if any
	for i := range 1 + rng.IntN(3) {
		k := ruleFaults[rng.IntN(len(ruleFaults))]
		f := k.make(rng, c.limit)
		r := ugctest.Rule{Name: fmt.Sprintf("r%d-%s", i, k.name), Fault: f, Optional: true}
		switch rng.IntN(4) {
		case 0: // any request
		case 1:
			r.Path = c.endpoint.pathGlob
		default:
			r.Endpoint = c.endpoint.name
		}
		if rng.IntN(2) == 0 {
			r.After = rng.IntN(5)
		}
		switch rng.IntN(4) {
		case 0:
			r.Every = 2 + rng.IntN(3)
		case 1:
			r.Fraction, r.Seed = 0.2+0.6*rng.Float64(), rng.Uint64()
		}
		if k.retryable {
			// Mostly few enough to be recovered, sometimes unbounded.
			if rng.IntN(5) > 0 {
				r.Times = 1 + rng.IntN(3)
			}
		} else if rng.IntN(2) == 0 {
			r.Times = 1 + rng.IntN(4)
		}
		switch {
		case k.retryable && r.Times > 0 && r.Times <= retryBudget:
			retryBudget -= r.Times
		case k.benign(r.Fault):
		case k.displacesOnce && r.Times == 1 && !c.displacedOnce:
			// One page from the wrong place, or one early end, past the
			// first page (nothing can tell a first page from elsewhere):
			// the walk reads that page again, or reads on, and completes.
			// Two such rules could answer the page and its second
			// reading alike. Whether it is past the first page is
			// checked once all rules are known: retries of the first
			// request count among the requests After lets through.
			displacerAfter = r.After
			c.displacedOnce = true
		default:
			c.mustComplete = false
		}
		c.reorders = c.reorders || k.reorders
		c.rules = append(c.rules, r)
		c.kinds = append(c.kinds, k)
	}
	if retries := ugc.DefaultRetryMax - retryBudget; displacerAfter >= 0 && displacerAfter <= retries {
		c.mustComplete = false // it may meet the first page, or a retry of it
	}
	return c
}

// TestFakeRulesWalkIsCompleteOrSaysWhy drives walks through random fault
// rules of the fake: each walk yields every post of its list exactly once,
// in order, or ends with an error, having yielded a gapless prefix of the
// list with no repeat. A walk whose faults a correct SDK fully recovers
// from (retryable faults within the retry budget, short pages, relative or
// oddly escaped next links) completes without error.
func TestFakeRulesWalkIsCompleteOrSaysWhy(t *testing.T) {
	t.Parallel()
	for i := range *fakeRuleCases {
		seed := *fakeRuleSeed + uint64(i)
		c := newRuleCase(seed)
		t.Run(fmt.Sprintf("%d/%s/%s/%d-rules", seed, c.endpoint.name, c.mode, len(c.rules)), func(t *testing.T) {
			t.Parallel()
			t.Logf("reproduce with: %s", c)
			srv := ugctest.NewServer(t, ugctest.WithDataset(ugctest.Generate(c.posts, seed)))
			want := c.endpoint.walk(srv.Client(), c.limit, ugc.WithReadAhead(0))
			require.NoError(t, want.err, "clean walk")
			require.Equal(t, len(want.ids), len(uniq(want.ids)), "clean walk repeats a post")
			srv.ResetRequests()

			for _, r := range c.rules {
				srv.AddRule(r)
			}
			client, err := ugc.NewClient(srv.URL, srv.APIKey, ugc.WithStrictDecoding(), ugc.WithRetryWait(0, 0))
			require.NoError(t, err)
			var sum ugc.WalkSummary
			got := c.endpoint.walk(client, c.limit, append(slices.Clone(c.opts), ugc.WithSummary(&sum))...)
			t.Logf("walk: %d posts of %d, err=%v, summary=%+v", len(got.ids), len(want.ids), got.err, sum)

			assert.Zero(t, got.afterErr, "nothing after the error")
			assert.Equal(t, len(got.ids), len(uniq(got.ids)), "no post yielded twice")
			assert.NotErrorIs(t, got.err, context.DeadlineExceeded, "the walk ends by itself")
			switch {
			case got.err == nil && c.reorders:
				// A page shuffled before any post of it was yielded cannot be
				// told from the list's order: the posts may come out of
				// order, but every one of them exactly once.
				assert.ElementsMatch(t, want.ids, got.ids, "every post exactly once")
			case got.err == nil:
				assertIDs(t, want.ids, got.ids, "every post once, in order")
			default:
				// The error says the walk is incomplete. What came came
				// once (checked above) and is of the list, though not
				// always from its start nor in its order: a first page
				// served from elsewhere (StalePage) has nothing to tell it
				// by, nor has any page once the server showed it sends one
				// post a page (the walk reads those without overlap); the
				// end of the walk then finds the posts short of the count.
				assert.Subset(t, want.ids, got.ids, "before the error: only posts of the list")
			}
			if c.mustComplete {
				assert.NoError(t, got.err, "faults a correct client recovers from")
			}
			if got.err != nil {
				assert.NotContains(t, got.err.Error(), srv.APIKey, "the error carries no key")
			}
			assertRulesFired(t, srv, c)
		})
	}
}

// assertRulesFired checks the fake's account of the rules against its
// request log, and that a rule that could not miss did fire.
func assertRulesFired(t *testing.T, srv *ugctest.Server, c ruleCase) {
	t.Helper()
	// A rule counts a request when it decides on it, the log when the
	// answer is written: a parallel walk that ended may leave answers
	// being written. Wait for the two to agree.
	var (
		reqs     []ugctest.Request
		statuses []ugctest.RuleStatus
	)
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		statuses, reqs = srv.Rules(), srv.Requests()
		fired := 0
		for _, st := range statuses {
			fired += st.Fired
		}
		logged := 0
		for _, r := range reqs {
			if r.Rule != "" {
				logged++
			}
		}
		if fired == logged || time.Now().After(deadline) {
			break
		}
	}
	require.Len(t, statuses, len(c.rules))
	for i, st := range statuses {
		r := c.rules[i]
		logged := 0
		for _, req := range reqs {
			if req.Rule == st.String() {
				logged++
				assert.Equal(t, r.Fault.Kind, req.Fault, "request fired on by %s", st)
			}
		}
		assert.Equal(t, st.Fired, logged, "%s: fired as often as the log says", st)
		if r.Times > 0 {
			assert.LessOrEqual(t, st.Fired, r.Times, "%s fires at most Times", st)
		}
		// The first rule sees every request; one that fires on the first
		// it matches cannot miss a walk (the list's first request always
		// matches it).
		if i == 0 && r.After == 0 && r.Every <= 1 && r.Fraction == 0 {
			assert.Positive(t, st.Fired, "%s never fired", st)
		}
	}
	if len(c.rules) > 0 && c.rules[0].After == 0 && c.rules[0].Every <= 1 && c.rules[0].Fraction == 0 {
		require.NotEmpty(t, reqs)
		assert.Equal(t, c.rules[0].Fault.Kind, reqs[0].Fault, "the first request met the first rule")
	}
}

// TestFakeRulesForeignNextIsRefused: a next link on another host ends the
// walk with an error that names the refused link, after the posts of the
// pages before it, and the API key is never sent to that host, in every
// iteration mode.
func TestFakeRulesForeignNextIsRefused(t *testing.T) {
	t.Parallel()
	var (
		mu      sync.Mutex
		foreign []*http.Request
	)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		foreign = append(foreign, r.Clone(context.Background()))
		mu.Unlock()
		w.WriteHeader(http.StatusTeapot)
	}))
	t.Cleanup(other.Close)
	otherHost := strings.TrimPrefix(other.URL, "http://")

	for _, host := range []string{"", otherHost} {
		for _, mode := range iterModes {
			t.Run(fmt.Sprintf("host=%q/%s", host, mode.name), func(t *testing.T) {
				t.Parallel()
				srv := ugctest.NewServer(t, ugctest.WithDataset(ugctest.Generate(60, 7)))
				want := walkAll(srv.Client().AllPosts(context.Background(), &ugc.PostsParams{Limit: 10}))
				require.NoError(t, want.err)
				srv.ResetRequests()
				// Every page but the first: in a parallel walk the pages
				// arrive in any order, and the last one has no next at all.
				srv.AddRule(ugctest.Rule{Name: "foreign", Endpoint: ugctest.EndpointPosts, After: 1,
					Fault: ugctest.ForeignNext(host)})

				got := walkAll(srv.Client().AllPosts(context.Background(), &ugc.PostsParams{Limit: 10}, mode.opts...))
				require.Error(t, got.err)
				assert.ErrorIs(t, got.err, ugc.ErrBadNext)
				wantHost := host
				if wantHost == "" {
					wantHost = "ugcfake.invalid"
				}
				assert.Contains(t, got.err.Error(), wantHost, "the error names where the link pointed")
				assert.NotContains(t, got.err.Error(), srv.APIKey, "the error carries no key")
				assert.Zero(t, got.afterErr)
				assert.NotEmpty(t, got.ids, "the posts of the pages before the link")
				assertIDs(t, want.ids[:min(len(got.ids), len(want.ids))], got.ids, "a gapless prefix before the error")

				fired := 0
				for _, r := range srv.Requests() {
					assert.True(t, r.KeyValid, "every request to the fake's own host carries its key")
					if r.Fault == ugctest.FaultForeignNext {
						fired++
					}
				}
				assert.Positive(t, fired, "the foreign next was served")
				mu.Lock()
				defer mu.Unlock()
				for _, r := range foreign {
					assert.NotContains(t, fmt.Sprint(r.Header), srv.APIKey, "key sent to the foreign host")
					assert.NotContains(t, r.URL.String(), srv.APIKey, "key sent to the foreign host")
				}
			})
		}
	}
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		assert.Empty(t, foreign, "no request reached the foreign host at all")
	})
}

// TestFakeRulesOddPostIsKeptAndReported: a post with createdAt as a number
// is kept by a default (tolerant) client, and the walk's summary and pages
// report the deviation; a strict client refuses it.
func TestFakeRulesOddPostIsKeptAndReported(t *testing.T) {
	t.Parallel()
	for _, mode := range iterModes {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			srv := ugctest.NewServer(t, ugctest.WithDataset(ugctest.Generate(47, 3)))
			want := walkAll(srv.Client().AllPosts(context.Background(), &ugc.PostsParams{Limit: 10}))
			require.NoError(t, want.err)
			require.Len(t, want.ids, 47)
			// The last post of every page: never the anchor a request
			// starts at, always a new post.
			srv.AddRule(ugctest.Rule{Name: "odd", Endpoint: ugctest.EndpointPosts, Fault: ugctest.OddPost(-1)})

			tolerant, err := ugc.NewClient(srv.URL, srv.APIKey, ugc.WithRetryWait(0, 0))
			require.NoError(t, err)
			var sum ugc.WalkSummary
			got := walkAll(tolerant.AllPosts(context.Background(), &ugc.PostsParams{Limit: 10},
				append(slices.Clone(mode.opts), ugc.WithSummary(&sum))...))
			require.NoError(t, got.err)
			assertIDs(t, want.ids, got.ids, "odd posts are kept")
			require.Positive(t, sum.DeviationCount, "the summary reports the odd posts")
			assert.Len(t, sum.Deviations, sum.DeviationCount)
			for _, d := range sum.Deviations {
				assert.Contains(t, d.Path, "createdAt", "%+v", d)
				assert.Contains(t, want.ids, d.PostID, "%+v", d)
				assert.False(t, d.Dropped, "%+v", d)
			}

			// Page by page: each page that holds an odd post says so.
			var pageDevs int
			for page, err := range tolerant.PostsPages(context.Background(), &ugc.PostsParams{Limit: 10}, mode.opts...) {
				require.NoError(t, err)
				for _, d := range page.Deviations {
					pageDevs++
					assert.True(t, slices.ContainsFunc(page.Nodes, func(p ugc.Post) bool { return p.ID == d.PostID }),
						"a page's deviation names one of its posts: %+v", d)
				}
			}
			assert.Positive(t, pageDevs)

			strict := walkAll(srv.Client().AllPosts(context.Background(), &ugc.PostsParams{Limit: 10}, mode.opts...))
			var de *ugc.DecodeError
			assert.ErrorAs(t, strict.err, &de, "a strict client refuses the odd post")
		})
	}
}

// TestFakeRulesBrokenBodiesOnOneEndpoint: JSON cut short behind complete
// framing, or a body cut short on the wire, on every request of the
// gallery endpoint ends a gallery walk with a decoding error after the
// retries, while the posts walk on the same server is untouched.
func TestFakeRulesBrokenBodiesOnOneEndpoint(t *testing.T) {
	t.Parallel()
	for _, f := range []ugctest.Fault{ugctest.CutJSON(), ugctest.TruncateBody()} {
		for _, mode := range iterModes {
			t.Run(fmt.Sprintf("%v/%s", f.Kind, mode.name), func(t *testing.T) {
				t.Parallel()
				srv := ugctest.NewServer(t, ugctest.WithDataset(ugctest.Generate(80, 11)))
				wantPosts := walkAll(srv.Client().AllPosts(context.Background(), &ugc.PostsParams{Limit: 20}))
				require.NoError(t, wantPosts.err)
				srv.ResetRequests()
				srv.AddRule(ugctest.Rule{Name: "broken-gallery", Endpoint: ugctest.EndpointGallery, Fault: f})

				gallery := walkAll(srv.Client().AllGalleryPosts(context.Background(), "summer", nil, mode.opts...))
				require.Error(t, gallery.err)
				assert.Empty(t, gallery.ids)
				var de *ugc.DecodeError
				if assert.ErrorAs(t, gallery.err, &de) {
					assert.Equal(t, ugc.DefaultRetryMax+1, de.Attempts, "retried, then given up")
					assert.Contains(t, de.Endpoint, "/v1/galleries/summer/posts")
				}
				assert.Contains(t, gallery.err.Error(), "/v1/galleries/summer/posts", "the error names the endpoint")
				assert.NotContains(t, gallery.err.Error(), srv.APIKey)

				posts := walkAll(srv.Client().AllPosts(context.Background(), &ugc.PostsParams{Limit: 20}, mode.opts...))
				require.NoError(t, posts.err)
				assertIDs(t, wantPosts.ids, posts.ids, "the posts walk is untouched")

				galleryReqs := 0
				for _, r := range srv.Requests() {
					if strings.HasPrefix(r.Path, "/v1/galleries/") {
						galleryReqs++
						assert.Equal(t, f.Kind, r.Fault, "%s", r.Path)
					} else {
						assert.Zero(t, r.Fault, "%s?%s", r.Path, r.RawQuery)
					}
				}
				assert.GreaterOrEqual(t, galleryReqs, ugc.DefaultRetryMax+1)
				assert.Equal(t, galleryReqs, srv.Rules()[0].Fired)
			})
		}
	}
}

// TestFakeRulesMatchByQuery: a rule matched by Query fires only on the
// requests that carry that parameter value (or, listed with no values, the
// parameter at all).
func TestFakeRulesMatchByQuery(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		query url.Values
	}{
		{"value", url.Values{"include": {"labels"}}},
		{"present", url.Values{"include": nil}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := ugctest.NewServer(t, ugctest.WithDataset(ugctest.Generate(70, 5)))
			srv.AddRule(ugctest.Rule{Name: "labels-only", Query: tc.query, Times: 3, Fault: ugctest.InternalError()})
			c := srv.Client()

			plain := walkAll(c.AllPosts(context.Background(), &ugc.PostsParams{Limit: 25}))
			require.NoError(t, plain.err)
			require.Len(t, plain.ids, 70)
			for _, r := range srv.Requests() {
				assert.Zero(t, r.Fault, "no include: the rule stays out (%s)", r.RawQuery)
			}
			require.Zero(t, srv.Rules()[0].Matched)

			var sum ugc.WalkSummary
			labels := walkAll(c.AllPosts(context.Background(),
				&ugc.PostsParams{Limit: 25, Include: []ugc.Include{ugc.IncludeLabels}}, ugc.WithSummary(&sum)))
			require.NoError(t, labels.err)
			assertIDs(t, plain.ids, labels.ids, "recovered after the retries")
			assert.Equal(t, 3, sum.Retries)

			faulted := 0
			for _, r := range srv.Requests() {
				if r.Fault != 0 {
					faulted++
					assert.Equal(t, "labels", r.Query.Get("include"), "fired on %s", r.RawQuery)
					assert.Equal(t, "labels-only", r.Rule)
					assert.Equal(t, http.StatusInternalServerError, r.Status)
				}
			}
			assert.Equal(t, 3, faulted)
			st := srv.Rules()[0]
			assert.Equal(t, 3, st.Fired)
			assert.True(t, st.Done)
		})
	}
}

// TestFakeRulesDisplacedPageIsReadAgain: a server that ignores skip once,
// on the request for the last page, answers the first page with the last
// page's count and a null next. The walk finds its anchor away from where
// it asked while the count is unchanged, reads the page again, and gets
// every post (it used to end without an error after 6 of the 10).
func TestFakeRulesDisplacedPageIsReadAgain(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t) // the default dataset: 10 inbox posts
	srv.AddRule(ugctest.Rule{Endpoint: ugctest.EndpointInbox, After: 1, Times: 1, Fault: ugctest.IgnoreSkip()})
	var sum ugc.WalkSummary
	got := walkAll(srv.Client().AllInbox(context.Background(), &ugc.InboxParams{Limit: 5},
		ugc.WithReadAhead(0), ugc.WithSummary(&sum)))
	require.NoError(t, got.err)
	assert.Len(t, got.ids, 10, "every post")
	assert.Equal(t, 3, sum.Requests, "the first page, the displaced one, and its second reading (the last page)")
}

// TestFakeRulesCutJSONInsideALiteralIsRetried: a 2xx body cut short inside
// a literal ("fals") is JSON cut short, retried as a cut body is (it used
// to be read as a syntax error).
func TestFakeRulesCutJSONInsideALiteralIsRetried(t *testing.T) {
	t.Parallel()
	// The first half of this page ends in `"fromSocial":fals`.
	srv := ugctest.NewServer(t, ugctest.WithDataset(ugctest.Generate(225, 1014)))
	srv.AddRule(ugctest.Rule{Endpoint: ugctest.EndpointGallery, Times: 1, Fault: ugctest.CutJSON()})
	_, err := srv.Client().GalleryPosts(context.Background(), "videos", &ugc.GalleryPostsParams{Limit: 7, Skip: 8})
	assert.NoError(t, err, "retried like any body cut short")
}

// TestFakeRulesShuffledPagesEndTheWalk: with pages of one post (limit 1,
// so each request after the first asks for 2 to hold the anchor) shuffled
// on every request after the first, the walk ends with an error that says
// why within a few requests (it used to re-anchor forever): stalled,
// short of its count, or lost in a list that does not keep its order.
func TestFakeRulesShuffledPagesEndTheWalk(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t) // the default dataset: 10 inbox posts
	srv.AddRule(ugctest.Rule{Endpoint: ugctest.EndpointInbox, After: 1, Fault: ugctest.ShuffledPage(2099157559447372438)})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var sum ugc.WalkSummary
	got := walkAll(srv.Client().AllInbox(ctx, &ugc.InboxParams{Limit: 1}, ugc.WithReadAhead(0), ugc.WithSummary(&sum)))
	t.Logf("%d posts, err %v, %d requests, %d re-anchors", len(got.ids), got.err, sum.Requests, sum.Reanchors)
	require.Error(t, got.err, "the walk ends by itself, and says why")
	assert.True(t, errors.Is(got.err, ugc.ErrStalled) || errors.Is(got.err, ugc.ErrIncomplete) || errors.Is(got.err, ugc.ErrDrift), "stalled, incomplete or drift: %v", got.err)
	assert.Len(t, got.ids, len(uniq(got.ids)), "no post twice")
	assert.Less(t, sum.Requests, 40)
}

// TestFakeRulesEarlyEndIsNeverASilentGap: an empty last page
// (EndEarly(0)) that the walk reads again, then a page holding only the
// anchor with a null next (EndEarly(1)): the walk either gets every post
// or ends with ErrIncomplete. It used to end without an error after 5 of
// the 10 posts of a list whose count never changed (the empty page read
// again had marked the list as changed, which excused the shortfall).
func TestFakeRulesEarlyEndIsNeverASilentGap(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t) // the default dataset: 10 inbox posts
	srv.AddRule(ugctest.Rule{Endpoint: ugctest.EndpointInbox, After: 1, Times: 1, Fault: ugctest.EndEarly(0)})
	srv.AddRule(ugctest.Rule{Endpoint: ugctest.EndpointInbox, After: 2, Times: 1, Fault: ugctest.EndEarly(1)})
	var sum ugc.WalkSummary
	got := walkAll(srv.Client().AllInbox(context.Background(), &ugc.InboxParams{Limit: 3},
		ugc.WithReadAhead(0), ugc.WithSummary(&sum)))
	t.Logf("%d posts, err %v, summary %+v", len(got.ids), got.err, sum)
	if got.err == nil {
		assert.Len(t, got.ids, 10, "a walk without error yields every post")
	} else {
		assert.ErrorIs(t, got.err, ugc.ErrIncomplete)
	}
}
