package ugc_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/ugcposts/ugc-go/ugctest"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/internal/walk/walkmodel"
)

// The smallest cases of issue 16, written out: each is a point of the
// space TestWalkIsExactlyOnceAgainstRealServerModels draws from, kept here
// so that a regression names the example it breaks.

// plainModelCase is a case that follows the contract: n posts, true count,
// absolute next with the request's own query, skip honoured.
func plainModelCase(endpoint string, n, limit int) *modelCase {
	return &modelCase{Case: &walkmodel.Case{Limit: limit, Count: walkmodel.CountTrue, Entries: walkmodel.MakeIDs("p", n)},
		endpoint: endpoint, nextForms: []nextForm{nextFormAbsolute}, nextEscapes: []nextEscape{nextEscapeAsSent}}
}

// TestRealServerExamplesOfIssue16 walks the issue's examples in every
// mode: each must yield exactly the posts of the list that match the query,
// in order, without error, and say in the summary what it forgave.
func TestRealServerExamplesOfIssue16(t *testing.T) {
	t.Parallel()
	withCount := func(m walkmodel.CountMode, staleBy int) func() *modelCase {
		return func() *modelCase {
			c := plainModelCase("posts", 75, 25)
			c.Count, c.StaleBy = m, staleBy
			return c
		}
	}
	examples := []struct {
		name  string
		build func() *modelCase
	}{
		// Item 1: a count lower than the list (25 of 75 today in parallel).
		{"count 0 over 75 posts", withCount(walkmodel.CountZero, 0)},
		{"count the page's length over 75 posts", withCount(walkmodel.CountPageLength, 0)},
		{"stale count 50 over 75 posts", withCount(walkmodel.CountStaleLower, 25)},
		{"count -1 over 75 posts", withCount(walkmodel.CountMinusOne, 0)},
		// Item 2: next with only skip and limit.
		{"next with only skip and limit on a label-filtered walk", func() *modelCase {
			c := plainModelCase("posts", 75, 10)
			c.query.filter = ugc.Filter{ugc.AnyLabel(modelLabelIDs[0])}
			c.skipLimitOnly = 1
			return c
		}},
		{"next with only skip and limit on a market walk", func() *modelCase {
			c := plainModelCase("posts", 75, 10)
			c.query.market = "de-DE"
			c.skipLimitOnly = 1
			return c
		}},
		{"next with only skip and limit on a gallery's market walk", func() *modelCase {
			c := plainModelCase("gallery", 75, 10)
			c.gallery, c.query.market = "summer:2024", "fr"
			c.skipLimitOnly = 1
			return c
		}},
		// Item 4: 30 nodes in a row that cannot be posts.
		{"30 null nodes in a row", func() *modelCase {
			c := plainModelCase("posts", 75, 25)
			c.Entries = slices.Insert(c.Entries, 30, slices.Repeat([]string{walkmodel.NonPost}, 30)...)
			return c
		}},
		// Item 5: skip rounded down to a page boundary (asked 24, served 0).
		{"skip rounded down to a page boundary", func() *modelCase {
			c := plainModelCase("posts", 75, 25)
			c.Skip, c.RoundTo = walkmodel.SkipRounded, 25
			return c
		}},
	}
	tally := newFailureTally()
	for _, ex := range examples {
		t.Run(ex.name, func(t *testing.T) {
			t.Parallel()
			c := ex.build()
			srv := newModelServer(t, c)
			for _, mode := range walkModes()[:5] {
				t.Run(mode.name, func(t *testing.T) {
					sess, baseURL := srv.session(mode.name)
					w := runModelWalk(c, baseURL, mode)
					require.True(t, c.benign(), "an example of the issue is a benign case")
					checkModelWalk(t, c, sess, mode, w, tally, fmt.Sprintf("go test -run 'TestRealServerExamplesOfIssue16/%s/%s$' .",
						strings.ReplaceAll(ex.name, " ", "_"), mode.name))
					assertIDs(t, sess.required(c), idsOf(w.posts), "the posts of the list matching the query, in order")
				})
			}
		})
	}
}

// TestResumeAfterTheLastPageIsExactlyOnce: a job that saves the page's
// checkpoint after every page saves one after the last page too (where
// Next is ""); resuming from it yields only what was added since, or
// nothing (item 3).
func TestResumeAfterTheLastPageIsExactlyOnce(t *testing.T) {
	t.Parallel()
	c := plainModelCase("posts", 75, 25)
	srv := newModelServer(t, c)
	for _, mode := range walkModes()[:5] {
		t.Run(mode.name, func(t *testing.T) {
			sess, baseURL := srv.session(mode.name)
			cl, err := ugc.NewClient(baseURL, modelAPIKey, ugc.WithRetryWait(0, 0))
			require.NoError(t, err)
			ctx, cancel := context.WithTimeout(context.Background(), modelWalkTimeout)
			defer cancel()

			var next, lastID string
			var cp ugc.Checkpoint
			n := 0
			for page, err := range c.modelPages(ctx, cl, sequentialWalk()) {
				require.NoError(t, err)
				n += len(page.Nodes)
				if len(page.Nodes) > 0 {
					lastID = page.Nodes[len(page.Nodes)-1].ID
				}
				next, cp = page.Next, page.Checkpoint
			}
			require.Equal(t, 75, n, "the first run walks the whole list")
			require.Equal(t, "p0074", lastID)
			require.Empty(t, next, "after the last page Next is empty")
			require.Equal(t, lastID, cp.After, "the checkpoint stands after the last post")

			var again modelWalk
			again.collect(c.modelPosts(ctx, cl, append(mode.opts, resumeWalk(cp))))
			assert.NoError(t, again.err)
			assertIDs(t, nil, idsOf(again.posts), "resumed after the last page of an unchanged list: nothing")

			sess.appendPost("p0075")
			var added modelWalk
			added.collect(c.modelPosts(ctx, cl, append(mode.opts, resumeWalk(cp))))
			assert.NoError(t, added.err)
			assertIDs(t, []string{"p0075"}, idsOf(added.posts), "resumed after the last page: only the post added since")
		})
	}
}

// TestIDsDifferingOnlyInInvalidUTF8AreTwoPosts: IDs are compared by their
// bytes; two that differ only in invalid UTF-8 are two posts, without a
// false ErrIncomplete, and an ID the reader replaced is recorded as a
// deviation (item 6).
func TestIDsDifferingOnlyInInvalidUTF8AreTwoPosts(t *testing.T) {
	t.Parallel()
	ids := []string{"p\xff1", "p\xfe1"}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("x-api-key") != modelAPIKey {
			modelError(w, http.StatusUnauthorized, "No valid API key provided")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		var b strings.Builder
		b.WriteString(`{"count":2,"next":null,"nodes":[`)
		for i, id := range ids {
			if i > 0 {
				b.WriteByte(',')
			}
			// Raw bytes, as a server that does not check its strings sends them.
			fmt.Fprintf(&b, `{"id":"%s","createdAt":"2024-01-02T03:04:05Z","media":{"location":"https://cdn.example/x.jpg"},"taggedProducts":[]}`, id)
		}
		b.WriteString("]}")
		_, _ = w.Write([]byte(b.String()))
	}))
	t.Cleanup(hs.Close)
	for _, mode := range walkModes()[:5] {
		t.Run(mode.name, func(t *testing.T) {
			cl, err := ugc.NewClient(hs.URL, modelAPIKey, ugc.WithRetryWait(0, 0))
			require.NoError(t, err)
			var sum ugc.WalkSummary
			var w modelWalk
			w.collect(cl.AllPosts(context.Background(), &ugc.PostsParams{Limit: 25}, append(mode.opts, summaryOf(&sum))...))
			assert.NoError(t, w.err)
			got := idsOf(w.posts)
			assert.Len(t, got, 2, "two posts, told apart by their bytes")
			// An ID kept as sent needs no note; one replaced as
			// encoding/json does must be recorded, once per post.
			changed := 0
			for i, id := range got {
				if i >= len(ids) || id != ids[i] {
					changed++
				}
			}
			assert.GreaterOrEqual(t, sum.DeviationCount, changed, "IDs changed in reading (%q) are recorded as deviations", got)
		})
	}
}

// concurrencyChildEnv names the environment variable under which the test
// binary, run again by TestHugeConcurrencyIsAnErrorNotACrash, walks with
// the concurrency it holds and reports how the walk ended.
const concurrencyChildEnv = "UGC_TEST_HUGE_CONCURRENCY_CHILD"

// TestHugeConcurrencyIsAnErrorNotACrash: WithReadAhead(math.MaxInt) and
// WithReadAhead(1e9) give an error before any request (or, capped, walk
// the list as any walk), not a panic or a process out of memory (item 8). Each runs in a child process (this test
// binary, run again) with a memory guard that ends it past 1 GiB, so that a
// walk that allocates per n up front costs neither this run nor the
// machine's other users.
func TestHugeConcurrencyIsAnErrorNotACrash(t *testing.T) {
	if n := os.Getenv(concurrencyChildEnv); n != "" {
		hugeConcurrencyChild(n)
		return
	}
	t.Parallel()
	for _, n := range []int{math.MaxInt, 1e9} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHugeConcurrencyIsAnErrorNotACrash$", "-test.count=1")
			cmd.Env = append(os.Environ(), concurrencyChildEnv+"="+strconv.Itoa(n))
			out, err := cmd.CombinedOutput()
			result := string(out)
			if i := strings.Index(result, "child result: "); i >= 0 {
				result = strings.TrimSpace(strings.SplitN(result[i+len("child result: "):], "\n", 2)[0])
			} else {
				result = fmt.Sprintf("the child died (%v): %s", err, firstLines(string(out), 6))
			}
			// Refusing the option and capping it are both fixes (issue 16
			// item 8); a panic or a process out of memory is not.
			assert.Contains(t, []string{"an error before any request", "the walk ended without error after 1 requests"}, result, "WithReadAhead(%d)", n)
		})
	}
}

// hugeConcurrencyChild walks with WithReadAhead(n) and prints how the
// walk ended; a watchdog ends the process past 1 GiB.
func hugeConcurrencyChild(arg string) {
	n, _ := strconv.Atoi(arg)
	go func() {
		sample := []metrics.Sample{{Name: "/memory/classes/total:bytes"}}
		tick := time.NewTicker(2 * time.Millisecond) // a watchdog's poll
		for range tick.C {
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 && sample[0].Value.Uint64() > 1<<30 {
				fmt.Println("child result: over 1 GiB of memory before the walk ended")
				os.Exit(3)
			}
		}
	}()
	var requests atomic.Int64
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"count":0,"next":null,"nodes":[]}`))
	}))
	defer hs.Close()
	result := func() (result string) {
		defer func() {
			if p := recover(); p != nil {
				result = fmt.Sprintf("panic: %v", p)
			}
		}()
		cl, err := ugc.NewClient(hs.URL, modelAPIKey)
		if err != nil {
			return "NewClient: " + err.Error()
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		for _, err := range cl.AllPosts(ctx, nil, parallelWalk(n)...) {
			if err != nil && requests.Load() == 0 {
				return "an error before any request"
			}
			return fmt.Sprintf("the walk went on after %d requests (err %v)", requests.Load(), err)
		}
		return fmt.Sprintf("the walk ended without error after %d requests", requests.Load())
	}()
	fmt.Println("child result: " + result)
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], " | ")
}

// TestResumeAfterAPostAloneSeeksIt: a checkpoint that holds only the ID
// of the last post handled (no URL) reads from the first page and passes
// over the posts up to that one, in every mode; one whose post is gone
// ends with a DriftError that says so, having yielded nothing.
func TestResumeAfterAPostAloneSeeksIt(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t, ugctest.WithDataset(ugctest.Generate(90, 4)))
	c := srv.Client()
	ctx := context.Background()
	var all []string
	for p, err := range c.AllPosts(ctx, &ugc.PostsParams{Limit: 10}) {
		require.NoError(t, err)
		all = append(all, p.ID)
	}
	require.Len(t, all, 90)
	for _, mode := range walkModes()[:5] {
		for _, at := range []int{0, 9, 10, 47, 89} {
			t.Run(fmt.Sprintf("%s/after=%d", mode.name, at), func(t *testing.T) {
				var got []string
				for p, err := range c.AllPosts(ctx, &ugc.PostsParams{Limit: 10}, append(slices.Clone(mode.opts), ugc.ResumeFrom(ugc.Checkpoint{After: all[at]}))...) {
					require.NoError(t, err)
					got = append(got, p.ID)
				}
				assert.Equal(t, append([]string(nil), all[at+1:]...), got, "the posts after the checkpoint's, once")
			})
		}
		t.Run(mode.name+"/gone", func(t *testing.T) {
			n := 0
			var last error
			for _, err := range c.AllPosts(ctx, &ugc.PostsParams{Limit: 10}, append(slices.Clone(mode.opts), ugc.ResumeFrom(ugc.Checkpoint{After: "no-such-post"}))...) {
				if err != nil {
					last = err
					continue
				}
				n++
			}
			assert.Zero(t, n, "nothing yielded")
			assert.ErrorIs(t, last, ugc.ErrDrift)
		})
	}
}

// TestEveryCheckpointResumesExactlyOnce: a walk resumed from the
// checkpoint of any page it handed out yields exactly the posts after that
// page's last, without error, and on a server that honours skip the
// checkpoint names the place just after that post. Generated layouts
// (runs of nodes that are not posts, servers that round skip to a page),
// in every mode.
func TestEveryCheckpointResumesExactlyOnce(t *testing.T) {
	t.Parallel()
	for seed := range heavyOr[uint64](120, 12) {
		rng := rand.New(rand.NewPCG(seed, 16))
		c := &modelCase{Case: &walkmodel.Case{Seed: seed, Limit: 2 + rng.IntN(24), Count: walkmodel.CountTrue},
			endpoint: "posts", nextForms: []nextForm{nextFormAbsolute}, nextEscapes: []nextEscape{nextEscapeAsSent}}
		if rng.IntN(3) > 0 {
			c.Skip, c.RoundTo = walkmodel.SkipRounded, min([]int{c.Limit, 10}[rng.IntN(2)], c.Limit)
		}
		var ids []string
		at := map[string]int{}    // where each post stands
		nulls := rng.IntN(2) == 0 // runs of them before a quarter of the posts
		for i := range 5 + rng.IntN(40) {
			if nulls && rng.IntN(4) == 0 {
				for range 1 + rng.IntN(2*c.Limit) {
					c.Entries = append(c.Entries, walkmodel.NonPost)
				}
			}
			id := fmt.Sprintf("p%03d", i)
			at[id] = len(c.Entries)
			ids = append(ids, id)
			c.Entries = append(c.Entries, id)
		}
		srv := newModelServer(t, c)
		for _, mode := range walkModes()[:5] {
			t.Run(fmt.Sprintf("seed=%d/%s", seed, mode.name), func(t *testing.T) {
				hc := sharedHTTPClient(t)
				_, baseURL := srv.session(mode.name)
				cl, err := ugc.NewClient(baseURL, modelAPIKey, ugc.WithRetryWait(0, 0), ugc.WithHTTPClient(hc))
				require.NoError(t, err)
				ctx, cancel := context.WithTimeout(context.Background(), modelWalkTimeout)
				defer cancel()
				var cps []ugc.Checkpoint
				for page, err := range c.modelPages(ctx, cl, mode.opts) {
					require.NoError(t, err, "%s", c)
					cps = append(cps, page.Checkpoint)
				}
				for i, cp := range cps {
					// Each resumed walk has a session (a request budget)
					// of its own, at a path of its own.
					name := fmt.Sprintf("%s-%d", mode.name, i)
					_, base := srv.session(name)
					rcl, err := ugc.NewClient(base, modelAPIKey, ugc.WithRetryWait(0, 0), ugc.WithHTTPClient(hc))
					require.NoError(t, err)
					if c.Skip == walkmodel.SkipHonoured && cp.After != "" {
						u, err := url.Parse(cp.URL)
						require.NoError(t, err)
						assert.Equal(t, strconv.Itoa(at[cp.After]+1), u.Query().Get("skip"), "the checkpoint after %s (%s)", cp.After, c)
					}
					var again modelWalk
					cp.URL = strings.Replace(cp.URL, "/"+mode.name+"/", "/"+name+"/", 1)
					again.collect(c.modelPosts(ctx, rcl, append(slices.Clone(mode.opts), resumeWalk(cp))))
					if assert.NoError(t, again.err, "resumed after %s, %s (%s)", cp.After, cp.URL, c) {
						assertIDs(t, ids[slices.Index(ids, cp.After)+1:], idsOf(again.posts), "resumed after %s (%s)", cp.After, c)
					}
				}
			})
		}
	}
}

// TestSkipOnAServerThatRoundsIt: a walk asked to skip some posts yields
// exactly the posts after them, also from a server that rounds skip down
// to its own pages: the first page, begun earlier than asked, is taken
// from where its next link says, and what stands before the skip is left
// out. A first page that is also the last has no next link to say where
// it began: the walk finds it by asking skips before the one asked (see
// [walk.lastPageStart]), and records the posts it left out as unverified.
// Every skip of a 30-post list, limits 2 to 8, skip honoured or rounded to
// every page size up to the limit, in every mode.
func TestSkipOnAServerThatRoundsIt(t *testing.T) {
	t.Parallel()
	const n = 30
	for limit := 2; limit <= heavyOr(8, 3); limit++ {
		for roundTo := 1; roundTo <= limit; roundTo++ {
			c := plainModelCase("posts", n, limit)
			if roundTo > 1 {
				c.Skip, c.RoundTo = walkmodel.SkipRounded, roundTo
			}
			srv := newModelServer(t, c)
			for _, mode := range walkModes()[:5] {
				t.Run(fmt.Sprintf("limit=%d/round=%d/%s", limit, roundTo, mode.name), func(t *testing.T) {
					ctx, cancel := context.WithTimeout(context.Background(), modelWalkTimeout)
					defer cancel()
					hc := sharedHTTPClient(t)
					for skip := range n + 2 {
						_, baseURL := srv.session(fmt.Sprintf("%s-%d", mode.name, skip))
						cl, err := ugc.NewClient(baseURL, modelAPIKey, ugc.WithRetryWait(0, 0), ugc.WithHTTPClient(hc))
						require.NoError(t, err)
						var w modelWalk
						w.collect(cl.AllPosts(ctx, &ugc.PostsParams{Limit: limit, Skip: skip}, append(slices.Clone(mode.opts), summaryOf(&w.sum))...))
						require.NoError(t, w.err, "skip %d", skip)
						var want []string
						for i := skip; i < n; i++ {
							want = append(want, fmt.Sprintf("p%04d", i))
						}
						assertIDs(t, want, idsOf(w.posts), "skip %d: the posts after the first %d, once", skip, skip)
						if served := skip - skip%roundTo; served < skip && served < n {
							assert.Positive(t, w.sum.Unverified, "skip %d: the posts before the skip, served and left out, are recorded", skip)
						}
					}
				})
			}
		}
	}
}

// sharedHTTPClient is one transport for the many clients of a test, its
// connections closed when the test ends: a client of its own per walk
// would keep a pool of connections each, and run out of descriptors.
func sharedHTTPClient(t *testing.T) *http.Client {
	tr := &http.Transport{MaxIdleConnsPerHost: 32}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}
