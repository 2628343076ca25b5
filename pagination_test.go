package ugc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
)

// iterModes are the iteration modes every walk test runs in.
var iterModes = []struct {
	name string
	opts []ugc.Option
}{
	{"sequential", []ugc.Option{ugc.WithReadAhead(0)}},
	{"prefetch", nil},
	{"parallel-3", []ugc.Option{ugc.WithReadAhead(3)}},
	{"parallel-8", []ugc.Option{ugc.WithReadAhead(8)}},
}

// storedIDs returns the IDs of every approved post of a server, in order,
// fetched by hand one page at a time.
func storedIDs(t *testing.T, c *ugc.Client) []string {
	t.Helper()
	var ids []string
	for skip := 0; ; skip += ugc.MaxLimit {
		page, err := c.Posts(context.Background(), &ugc.PostsParams{Skip: skip})
		require.NoError(t, err)
		for _, p := range page.Nodes {
			ids = append(ids, p.ID)
		}
		if page.Next == "" {
			return ids
		}
	}
}

func collect(t *testing.T, seq func(func(ugc.Post, error) bool)) []string {
	t.Helper()
	var ids []string
	for p, err := range seq {
		require.NoError(t, err)
		ids = append(ids, p.ID)
	}
	return ids
}

func TestAllPostsYieldsEveryPostOnceInOrder(t *testing.T) {
	t.Parallel()
	for _, size := range []int{0, 1, 24, 25, 26, 101} {
		srv := ugctest.NewServer(t, ugctest.WithDataset(ugctest.Generate(size, 7)))
		c := srv.Client()
		want := storedIDs(t, c)
		require.Len(t, want, size)
		for _, mode := range iterModes {
			for _, limit := range []int{1, 7, 25} {
				t.Run(fmt.Sprintf("posts=%d/%s/limit=%d", size, mode.name, limit), func(t *testing.T) {
					params := &ugc.PostsParams{Limit: limit}
					got := collect(t, c.AllPosts(context.Background(), params, mode.opts...))
					if size == 0 {
						assert.Empty(t, got)
					} else {
						assert.Equal(t, want, got)
					}
					assert.Equal(t, &ugc.PostsParams{Limit: limit}, params, "params unchanged")
				})
			}
		}
	}
}

func TestAllGalleryPostsAndAllInboxWalkTheirLists(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t)
	c := srv.Client()
	ctx := context.Background()
	ds := ugctest.DefaultDataset()
	require.NotEmpty(t, ds.Galleries)
	require.NotEmpty(t, ds.Inbox)

	for _, mode := range iterModes {
		t.Run(mode.name, func(t *testing.T) {
			first, err := c.GalleryPosts(ctx, ds.Galleries[0].ShortID, nil)
			require.NoError(t, err)
			got := collect(t, c.AllGalleryPosts(ctx, ds.Galleries[0].ShortID, &ugc.GalleryPostsParams{Limit: 2}, mode.opts...))
			assert.Len(t, got, first.Count)

			inbox := collect(t, c.AllInbox(ctx, &ugc.InboxParams{Limit: 3}, mode.opts...))
			want := make([]string, len(ds.Inbox))
			for i, p := range ds.Inbox {
				want[i] = p.ID
			}
			assert.Equal(t, want, inbox)
		})
	}
}

func TestIteratorYieldsBadParamsOnceWithoutARequest(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t)
	c := srv.Client()
	cases := map[string]struct {
		seq  func(func(ugc.Post, error) bool)
		want error
	}{
		"limit":   {c.AllPosts(context.Background(), &ugc.PostsParams{Limit: -1}), ugc.ErrMisuse},
		"filter":  {c.AllPosts(context.Background(), &ugc.PostsParams{Filter: ugc.Filter{ugc.AnyLabel("nope")}}), ugc.ErrInvalidParams},
		"gallery": {c.AllGalleryPosts(context.Background(), "", nil), ugc.ErrInvalidParams},
		"skip":    {c.AllInbox(context.Background(), &ugc.InboxParams{Skip: -1}), ugc.ErrMisuse},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			n := 0
			for _, err := range tc.seq {
				n++
				assert.ErrorIs(t, err, tc.want)
			}
			assert.Equal(t, 1, n, "one error, then stop")
		})
	}
	assert.Empty(t, srv.Requests())
}

// TestBreakEndsAllWork breaks out of a walk in every mode and checks that
// no goroutine is left: none of the iterator's, and no connection but the
// idle ones, which are closed first.
func TestBreakEndsAllWork(t *testing.T) {
	srv := ugctest.NewServer(t, ugctest.WithDataset(ugctest.Generate(500, 3)))
	tr := &http.Transport{}
	c := srv.Client(ugc.WithHTTPClient(&http.Client{Transport: tr}))
	ignore := goleak.IgnoreCurrent()
	for _, mode := range iterModes {
		t.Run(mode.name, func(t *testing.T) {
			defer func() {
				tr.CloseIdleConnections()
				goleak.VerifyNone(t, ignore)
			}()
			n := 0
			for _, err := range c.AllPosts(context.Background(), &ugc.PostsParams{Limit: 10}, mode.opts...) {
				require.NoError(t, err)
				n++
				if n == 15 {
					break
				}
			}
			assert.Equal(t, 15, n)
		})
	}
}

func TestCancelBetweenPagesEndsTheWalkWithCtxErr(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t, ugctest.WithDataset(ugctest.Generate(200, 3)))
	c := srv.Client()
	for _, mode := range iterModes {
		t.Run(mode.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var errs []error
			n := 0
			for _, err := range c.AllPosts(ctx, &ugc.PostsParams{Limit: 10}, mode.opts...) {
				if err != nil {
					errs = append(errs, err)
					continue
				}
				n++
				if n == 10 {
					cancel()
				}
			}
			require.Len(t, errs, 1)
			assert.Same(t, context.Canceled, errs[0])
			assert.Equal(t, 10, n, "no page after the cancel")
		})
	}
}

func TestPagesResumeFromACheckpoint(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t, ugctest.WithDataset(ugctest.Generate(60, 5)))
	c := srv.Client()
	ctx := context.Background()
	want := storedIDs(t, c)

	var checkpoint ugc.Checkpoint
	var next string
	var before []string
	for page, err := range c.PostsPages(ctx, &ugc.PostsParams{Limit: 10}) {
		require.NoError(t, err)
		assert.Equal(t, 60, page.Count)
		for _, p := range page.Nodes {
			before = append(before, p.ID)
		}
		checkpoint, next = page.Checkpoint, page.Next
		if len(before) == 30 {
			break // the job "crashes" after saving the third page's next
		}
	}
	require.NotEmpty(t, checkpoint.URL)
	for _, mode := range iterModes {
		t.Run(mode.name, func(t *testing.T) {
			opts := append([]ugc.Option{ugc.ResumeFrom(checkpoint)}, mode.opts...)
			after := collect(t, c.AllPosts(ctx, nil, opts...))
			assert.Equal(t, want, append(append([]string{}, before...), after...))
		})
	}

	page, err := c.NextPage(ctx, next)
	require.NoError(t, err)
	assert.Equal(t, want[30:40], idsOf(page.Nodes))

	for _, seq := range []func(func(ugc.Post, error) bool){
		c.AllInbox(ctx, nil, ugc.ResumeFrom(checkpoint)),
		c.AllPosts(ctx, nil, ugc.ResumeFrom(ugc.Checkpoint{URL: "https://elsewhere.example/v1/posts?skip=10"})),
	} {
		for _, err := range seq {
			assert.ErrorIs(t, err, ugc.ErrBadNext)
		}
	}
}

// TestResumeSurvivesChangesBetweenRuns checkpoints a walk after 30
// posts, then adds posts before the checkpoint and removes some on both
// sides of it, and resumes with the last post's ID: every post present in
// both runs comes exactly once over the two, where resuming by position
// alone would repeat the posts the insertions pushed past the checkpoint.
func TestResumeSurvivesChangesBetweenRuns(t *testing.T) {
	t.Parallel()
	for _, mode := range iterModes {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			srv := ugctest.NewServer(t, ugctest.WithDataset(ugctest.Generate(80, 5)))
			c := srv.Client()
			ctx := context.Background()
			want := storedIDs(t, c)

			var before []string
			var checkpoint ugc.Checkpoint
			for page, err := range c.PostsPages(ctx, &ugc.PostsParams{Limit: 10}, mode.opts...) {
				require.NoError(t, err)
				before = append(before, idsOf(page.Nodes)...)
				checkpoint = page.Checkpoint
				if len(before) >= 30 {
					break
				}
			}
			extra := ugctest.Generate(83, 6).Materialize().Posts[80:]
			srv.InsertPosts(3, extra...)
			srv.RemovePosts(want[5], want[60])

			after := collect(t, c.AllPosts(ctx, nil, append([]ugc.Option{ugc.ResumeFrom(checkpoint)}, mode.opts...)...))
			all := append(append([]string{}, before...), after...)
			assert.Equal(t, uniq(all), all, "no post twice over the two runs")
			for _, id := range want {
				if id != want[60] {
					assert.Contains(t, all, id)
				}
			}
		})
	}
}

func idsOf(posts []ugc.Post) []string {
	ids := make([]string, len(posts))
	for i, p := range posts {
		ids[i] = p.ID
	}
	return ids
}

// TestDriftIsDetected inserts posts before the cursor while a walk is under
// way: the posts already seen shift forward and come back on the next page.
func TestDriftIsDetected(t *testing.T) {
	t.Parallel()
	for _, mode := range iterModes {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			srv := ugctest.NewServer(t, ugctest.WithDataset(ugctest.Generate(100, 9)))
			c := srv.Client()
			ctx := context.Background()
			want := storedIDs(t, c)
			extra := ugctest.Generate(103, 10).Materialize().Posts[100:]

			var got []string
			for p, err := range c.AllPosts(ctx, &ugc.PostsParams{Limit: 10}, mode.opts...) {
				require.NoError(t, err)
				got = append(got, p.ID)
				if len(got) == 15 {
					srv.InsertPosts(0, extra...)
				}
			}
			assert.Equal(t, uniq(got), got, "no post yielded twice")
			for _, id := range want {
				assert.Contains(t, got, id, "no stored post lost to an insertion")
			}

			srv2 := ugctest.NewServer(t, ugctest.WithDataset(ugctest.Generate(100, 9)))
			var driftErr *ugc.DriftError
			n := 0
			for _, err := range srv2.Client().AllPosts(ctx, &ugc.PostsParams{Limit: 10}, append(mode.opts, ugc.WithDrift(ugc.DriftFail))...) {
				if err != nil {
					require.ErrorAs(t, err, &driftErr)
					assert.ErrorIs(t, err, ugc.ErrDrift)
					break
				}
				n++
				if n == 15 {
					srv2.InsertPosts(0, extra...)
				}
			}
			require.NotNil(t, driftErr, "DriftFail reports the change")
			assert.Equal(t, 100, driftErr.CountBefore)
			assert.Equal(t, 103, driftErr.CountAfter)
		})
	}
}

func uniq(ids []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// TestNextURLGuards serves pages whose next URL the client must refuse: the
// page that carries it is yielded first, then the refusal.
func TestNextURLGuards(t *testing.T) {
	t.Parallel()
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the other origin was called, with key %q", r.Header.Get("x-api-key"))
	}))
	t.Cleanup(other.Close)
	otherURL := strings.Replace(other.URL, "127.0.0.1", "localhost", 1)

	cases := map[string]func(base string) string{
		"other origin": func(string) string { return otherURL + "/v1/posts?limit=2&skip=2" },
		"other port": func(base string) string {
			return otherURL[:strings.LastIndex(otherURL, ":")] + base[strings.LastIndex(base, ":"):] + "/v1/posts?skip=2"
		},
		"other endpoint":  func(base string) string { return base + "/v1/inbox?limit=2&skip=2" },
		"same skip":       func(base string) string { return base + "/v1/posts?limit=2&skip=0" },
		"skip goes back":  func(base string) string { return base + "/v1/posts?limit=2" },
		"not a list path": func(base string) string { return base + "/v1/posts/x?limit=2&skip=2" },
	}
	for name, next := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var calls atomic.Int32
			var srv *httptest.Server
			srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				w.Header().Set("Content-Type", "application/json")
				page := ugc.Page{Count: 4, Next: next(srv.URL), Nodes: []ugc.Post{testPost("a"), testPost("b")}}
				require.NoError(t, json.NewEncoder(w).Encode(page))
			}))
			t.Cleanup(srv.Close)
			c, err := ugc.NewClient(srv.URL, "key-for-guards")
			require.NoError(t, err)
			var errs []error
			n := 0
			for _, err := range c.AllPosts(context.Background(), &ugc.PostsParams{Limit: 2}) {
				if err != nil {
					errs = append(errs, err)
				} else {
					n++
				}
			}
			require.Len(t, errs, 1)
			assert.ErrorIs(t, errs[0], ugc.ErrBadNext)
			assert.NotContains(t, errs[0].Error(), "key-for-guards")
			assert.Equal(t, 2, n, "the page with the bad next is yielded before the error")
			assert.Equal(t, int32(1), calls.Load())
		})
	}
}

func testPost(id string) ugc.Post {
	return ugc.Post{ID: id, CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Media: ugc.Media{Location: "https://cdn.example/" + id + ".jpg"}, TaggedProducts: []ugc.TaggedProduct{}}
}

// TestSequentialWalkReusesItsConnection walks 200 pages and counts the TCP
// connections the client dials. Bodies are read to the end and closed, so
// keep-alive carries every request: one connection. net/http itself dials
// a second one when the previous request's write has not been confirmed
// within 50 ms (maxWriteWaitBeforeConnReuse), which a loaded machine under
// -race can cause, so the test allows two; a body left unread would make
// it one per page. BenchmarkIterate reports the exact figure (conns/walk)
// for 800 pages.
func TestSequentialWalkReusesItsConnection(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t, ugctest.WithDataset(ugctest.Generate(5_000, 1)))
	for _, mode := range iterModes[:2] {
		t.Run(mode.name, func(t *testing.T) {
			tr, dials := countingTransport()
			t.Cleanup(tr.CloseIdleConnections)
			c := srv.Client(ugc.WithHTTPClient(&http.Client{Transport: tr}))
			pages := 0
			var sum ugc.WalkSummary
			for _, err := range c.PostsPages(context.Background(), nil, append(mode.opts, ugc.WithSummary(&sum))...) {
				require.NoError(t, err)
				pages++
			}
			assert.Equal(t, 209, pages, "the first page, then 24 new posts a page")
			assert.Equal(t, pages, sum.Requests)
			assert.LessOrEqual(t, float64(sum.Requests), 1.05*200, "requests, against 200 by following next")
			assert.LessOrEqual(t, dials.Load(), int32(2), "TCP connections opened")
		})
	}
}

// countingTransport returns a transport that counts the connections it
// dials.
func countingTransport() (*http.Transport, *atomic.Int32) {
	var dials atomic.Int32
	dialer := &net.Dialer{}
	return &http.Transport{
		MaxIdleConnsPerHost: 32, // as the client's default transport: parallel walks keep theirs
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			dials.Add(1)
			return dialer.DialContext(ctx, network, addr)
		},
	}, &dials
}

func TestNextPageRefusesForeignURLs(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t)
	c := srv.Client()
	for _, next := range []string{
		"https://evil.example/v1/posts?skip=25",
		"http://localhost:1/v1/posts",
		"::not a url",
		srv.URL + "/v2/posts",
		srv.URL + "/v1/galleries//posts",
		srv.URL + "/v1/x/posts",
		srv.URL + "/v1/galleries/a/b/posts",
		srv.URL + "/v1/galleries/a/inbox",
	} {
		_, err := c.NextPage(context.Background(), next)
		assert.ErrorIs(t, err, ugc.ErrBadNext, next)
	}
	assert.Empty(t, srv.Requests())
}

// TestACancelAnywhereResumesExactlyOnce: a walk of 60 posts (six pages)
// whose context ends after any of its posts, or before the first, in
// every mode, says in its summary how many posts the caller was given and
// a checkpoint from which a second walk gives the rest: each post exactly
// once over the two. So does a page walk whose context ends after any of
// its pages. The cancel comes while the next page may already have been
// read ahead: the checkpoint stands after what the caller got, not after
// what the walk read.
func TestACancelAnywhereResumesExactlyOnce(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t, ugctest.WithDataset(ugctest.Generate(60, 7)))
	c := srv.Client()
	want := storedIDs(t, c)
	params := &ugc.PostsParams{Limit: 10}
	resume := func(t *testing.T, got []string, sum ugc.WalkSummary, opts []ugc.Option) {
		t.Helper()
		assert.Equal(t, len(got), sum.Posts, "the summary counts the posts given")
		rest := collect(t, c.AllPosts(context.Background(), nil, append([]ugc.Option{ugc.ResumeFrom(sum.Checkpoint)}, opts...)...))
		assert.Equal(t, want, append(got, rest...), "every post once over the two walks")
	}
	for _, mode := range iterModes {
		for stop := 0; stop <= len(want); stop++ {
			t.Run(fmt.Sprintf("%s/posts=%d", mode.name, stop), func(t *testing.T) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				if stop == 0 {
					cancel()
				}
				var sum ugc.WalkSummary
				var got []string
				for p, err := range c.AllPosts(ctx, params, append([]ugc.Option{ugc.WithSummary(&sum)}, mode.opts...)...) {
					if err != nil {
						require.ErrorIs(t, err, context.Canceled)
						continue
					}
					if got = append(got, p.ID); len(got) == stop {
						cancel()
					}
				}
				resume(t, got, sum, mode.opts)
			})
		}
		for stop := 1; stop <= 6; stop++ {
			t.Run(fmt.Sprintf("%s/pages=%d", mode.name, stop), func(t *testing.T) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				var sum ugc.WalkSummary
				var got []string
				pages := 0
				for page, err := range c.PostsPages(ctx, params, append([]ugc.Option{ugc.WithSummary(&sum)}, mode.opts...)...) {
					if err != nil {
						require.ErrorIs(t, err, context.Canceled)
						continue
					}
					got = append(got, idsOf(page.Nodes)...)
					if pages++; pages == stop {
						cancel()
					}
				}
				resume(t, got, sum, mode.opts)
			})
		}
	}
}
