package ugctest_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
)

// rawGet sends one request on a fresh connection and returns the response
// (body unread) or the transport error.
func rawGet(t *testing.T, srv *ugctest.Server, path string) (*http.Response, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+path, nil)
	require.NoError(t, err)
	req.Header.Set("x-api-key", srv.APIKey)
	tr := &http.Transport{DisableKeepAlives: true}
	t.Cleanup(tr.CloseIdleConnections)
	return (&http.Client{Transport: tr}).Do(req)
}

func TestFaultKinds(t *testing.T) {
	t.Parallel()
	t.Run("internal error", func(t *testing.T) {
		t.Parallel()
		srv := ugctest.NewServer(t)
		srv.FailNext(1, ugctest.InternalError())
		a := get(t, srv, "/v1/posts")
		assert.Equal(t, http.StatusInternalServerError, a.status)
		assert.Equal(t, `"Something went wrong"`, a.body)
		assert.Equal(t, "application/json", a.header.Get("Content-Type"))
		assert.Equal(t, http.StatusOK, get(t, srv, "/v1/posts").status, "only the next one")
	})
	t.Run("rate limit", func(t *testing.T) {
		t.Parallel()
		srv := ugctest.NewServer(t)
		srv.FailNext(1, ugctest.RateLimit("7"))
		a := get(t, srv, "/v1/inbox")
		assert.Equal(t, http.StatusTooManyRequests, a.status)
		assert.Equal(t, "7", a.header.Get("Retry-After"))
		assert.Equal(t, `"Too many requests"`, a.body)
	})
	t.Run("dropped connection", func(t *testing.T) {
		t.Parallel()
		srv := ugctest.NewServer(t)
		srv.FailNext(1, ugctest.DropConnection())
		_, err := rawGet(t, srv, "/v1/posts")
		require.Error(t, err)
		assert.ErrorIs(t, err, io.EOF)
		assert.Equal(t, 0, srv.Requests()[0].Status)
	})
	t.Run("truncated body", func(t *testing.T) {
		t.Parallel()
		srv := ugctest.NewServer(t)
		srv.FailNext(1, ugctest.TruncateBody())
		resp, err := rawGet(t, srv, "/v1/posts")
		require.NoError(t, err, "headers arrive")
		defer resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		b, err := io.ReadAll(resp.Body)
		assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
		assert.Greater(t, resp.ContentLength, int64(len(b)))
		assert.InDelta(t, resp.ContentLength/2, len(b), 1)
	})
	t.Run("stall until the context ends", func(t *testing.T) {
		t.Parallel()
		srv := ugctest.NewServer(t)
		srv.FailNext(1, ugctest.Stall(time.Hour))
		// The stall holds the request until the client's deadline, not an
		// hour. (The deadline leaves the request time to reach the server
		// under -race on a loaded machine, or the stall never fires.)
		ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
		defer cancel()
		_, err := srv.Client(ugc.WithRetryMax(0)).Posts(ctx, nil)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
	})
	t.Run("short stall then served normally", func(t *testing.T) {
		t.Parallel()
		srv := ugctest.NewServer(t)
		srv.FailNext(1, ugctest.Stall(time.Millisecond))
		a := get(t, srv, "/v1/posts?limit=1")
		assert.Equal(t, http.StatusOK, a.status)
		r := srv.Requests()
		require.Len(t, r, 1)
		assert.Equal(t, ugctest.FaultStall, r[0].Fault)
		assert.GreaterOrEqual(t, r[0].Duration, time.Millisecond)
	})
	t.Run("bad arguments fail", func(t *testing.T) {
		t.Parallel()
		h, err := ugctest.NewHandler(nil, "k")
		require.NoError(t, err)
		assert.Error(t, h.FailNext(-1, ugctest.InternalError()))
		assert.Error(t, h.FailNext(1, ugctest.Fault{}))
		assert.Error(t, h.FailFraction(1.5, 1, ugctest.InternalError()))
		assert.Error(t, h.FailFraction(0.5, 1))
	})
}

func TestSDKRecoversFromEveryFault(t *testing.T) {
	t.Parallel()
	for _, f := range []ugctest.Fault{ugctest.InternalError(), ugctest.RateLimit("0"), ugctest.DropConnection(), ugctest.TruncateBody(), ugctest.Stall(time.Millisecond)} {
		t.Run(f.Kind.String(), func(t *testing.T) {
			t.Parallel()
			srv := ugctest.NewServer(t)
			srv.FailNext(2, f)
			p, err := srv.Client().Posts(t.Context(), &ugc.PostsParams{Limit: 3})
			require.NoError(t, err)
			assert.Len(t, p.Nodes, 3)
			if f.Kind == ugctest.FaultStall {
				assert.Len(t, srv.Requests(), 1, "a stall still answers")
			} else {
				assert.Len(t, srv.Requests(), 3, "two faults, then a success")
			}
		})
	}
}

func TestFailNextCountIsExact(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t)
	srv.FailNext(3, ugctest.InternalError())
	srv.FailNext(1, ugctest.RateLimit(""))
	var got []int
	for range 6 {
		got = append(got, get(t, srv, "/v1/posts?limit=1").status)
	}
	assert.Equal(t, []int{500, 500, 500, 429, 200, 200}, got)
	srv.FailNext(2, ugctest.InternalError())
	srv.ClearFaults()
	assert.Equal(t, 200, get(t, srv, "/v1/posts?limit=1").status)
}

func TestFailFractionIsDeterministic(t *testing.T) {
	t.Parallel()
	run := func(seed uint64) []int {
		srv := ugctest.NewServer(t)
		srv.FailFraction(0.3, seed, ugctest.InternalError(), ugctest.RateLimit("1"))
		var got []int
		for range 60 {
			got = append(got, get(t, srv, "/v1/posts?limit=1").status)
		}
		return got
	}
	a, b := run(42), run(42)
	assert.Equal(t, a, b, "same seed, same failures")
	fails := 0
	for _, s := range a {
		if s != 200 {
			fails++
		}
	}
	assert.InDelta(t, 18, fails, 12, "about 30%% of 60")
	assert.Contains(t, a, 500)
	assert.Contains(t, a, 429)
	assert.NotEqual(t, a, run(43), "another seed, other failures")

	srv := ugctest.NewServer(t)
	srv.FailFraction(1, 1, ugctest.InternalError())
	assert.Equal(t, 500, get(t, srv, "/v1/posts").status)
	srv.FailFraction(0, 1)
	assert.Equal(t, 200, get(t, srv, "/v1/posts").status)
}

func TestLatency(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t, ugctest.WithLatency(5*time.Millisecond))
	get(t, srv, "/v1/posts?limit=1")
	srv.SetLatency(0)
	get(t, srv, "/v1/posts?limit=1")
	r := srv.Requests()
	require.Len(t, r, 2)
	assert.GreaterOrEqual(t, r[0].Duration, 5*time.Millisecond)
}

func TestDataDrift(t *testing.T) {
	t.Parallel()
	ds := ugctest.DefaultDataset()
	extra := ugctest.Generate(3, 99).Materialize().Posts
	t.Run("insert at a position", func(t *testing.T) {
		t.Parallel()
		srv := ugctest.NewServer(t, ugctest.WithDataset(ds))
		srv.InsertPosts(2, extra[0], extra[1])
		srv.InsertPosts(1000, extra[2])
		e := page(t, srv, "/v1/posts?limit=5")
		assert.Equal(t, len(ds.Posts)+3, e.Count)
		assert.Equal(t, []string{ds.Posts[0].ID, ds.Posts[1].ID, extra[0].ID, extra[1].ID, ds.Posts[2].ID}, ids(t, e))
		last := page(t, srv, "/v1/posts?limit=1&skip="+strconv.Itoa(len(ds.Posts)+2))
		assert.Equal(t, []string{extra[2].ID}, ids(t, last))
		h, err := ugctest.NewHandler(nil, "k")
		require.NoError(t, err)
		assert.Error(t, h.InsertPosts(0, ds.Posts[0]), "already present")
	})
	t.Run("remove by ID, from lists and galleries", func(t *testing.T) {
		t.Parallel()
		srv := ugctest.NewServer(t, ugctest.WithDataset(ds))
		gone := ds.Galleries[0].PostIDs[0]
		srv.RemovePosts(gone, ds.Posts[35].ID)
		all, count := allPages(t, srv, "/v1/posts")
		assert.Equal(t, len(ds.Posts)-2, count)
		assert.NotContains(t, all, gone)
		gal, _ := allPages(t, srv, "/v1/galleries/"+ds.Galleries[0].ShortID+"/posts")
		assert.Equal(t, ds.Galleries[0].PostIDs[1:], gal)
		h, err := ugctest.NewHandler(nil, "k")
		require.NoError(t, err)
		assert.Error(t, h.RemovePosts("nope"))
		require.NoError(t, h.RemovePosts(ds.Posts[0].ID))
		assert.Error(t, h.RemovePosts(ds.Posts[0].ID), "already removed")
		require.NoError(t, h.InsertPosts(0, ds.Posts[0]), "re-insert after removal")
	})
	t.Run("generated posts drift too", func(t *testing.T) {
		t.Parallel()
		gen := ugctest.Generate(50, 5)
		srv := ugctest.NewServer(t, ugctest.WithDataset(gen))
		first := ids(t, page(t, srv, "/v1/posts?limit=2"))
		srv.RemovePosts(first[0])
		srv.InsertPosts(0, extra[0])
		e := page(t, srv, "/v1/posts?limit=2")
		assert.Equal(t, []string{extra[0].ID, first[1]}, ids(t, e))
		assert.Equal(t, 50, e.Count)
	})
	t.Run("concurrent with reads", func(t *testing.T) {
		t.Parallel()
		srv := ugctest.NewServer(t, ugctest.WithDataset(ugctest.Generate(200, 1)))
		more := ugctest.Generate(20, 2).Materialize().Posts
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			for _, p := range more {
				srv.InsertPosts(0, p)
			}
		}()
		go func() {
			defer wg.Done()
			for range 20 {
				_, err := srv.Client().Posts(context.Background(), &ugc.PostsParams{Limit: 25})
				assert.NoError(t, err)
			}
		}()
		wg.Wait()
		assert.Equal(t, 220, page(t, srv, "/v1/posts?limit=1").Count)
	})
}

func TestRequestLog(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t, ugctest.WithBasePath("/api"))
	get(t, srv, "/v1/posts?limit=2&market=de-de")
	fetch(t, http.MethodGet, srv.URL+"/v1/inbox", strptr("wrong"))
	srv.FailNext(1, ugctest.InternalError())
	get(t, srv, "/v1/galleries/summer/posts")
	r := srv.Requests()
	require.Len(t, r, 3)
	assert.Equal(t, ugctest.Request{ID: "ugcfake-1", Method: "GET", Path: "/api/v1/posts", Query: map[string][]string{"limit": {"2"}, "market": {"de-de"}},
		RawQuery: "limit=2&market=de-de", Header: r[0].Header, KeyValid: true, Status: 200, Arrived: r[0].Arrived, Duration: r[0].Duration}, r[0])
	assert.False(t, r[0].Arrived.IsZero(), "arrival time")
	assert.Equal(t, "[redacted]", r[0].Header.Get("X-Api-Key"))
	assert.Equal(t, "/api/v1/inbox", r[1].Path)
	assert.False(t, r[1].KeyValid)
	assert.Equal(t, 401, r[1].Status)
	assert.Equal(t, ugctest.FaultInternalError, r[2].Fault)
	assert.Equal(t, 500, r[2].Status)
	srv.ResetRequests()
	assert.Empty(t, srv.Requests())

	limited := ugctest.NewServer(t, ugctest.WithRequestLogLimit(2))
	for i := range 3 {
		get(t, limited, "/v1/posts?limit="+strconv.Itoa(i+1))
	}
	got := limited.Requests()
	require.Len(t, got, 2)
	assert.Equal(t, "2", got[0].Query.Get("limit"), "oldest dropped first")

	var hooked []ugctest.Request
	var mu sync.Mutex
	hook := ugctest.NewServer(t, ugctest.WithRequestHook(func(r ugctest.Request) { mu.Lock(); hooked = append(hooked, r); mu.Unlock() }))
	get(t, hook, "/v1/inbox")
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, hooked, 1)
	assert.Equal(t, "/v1/inbox", hooked[0].Path)
}

func TestParallelServersAreIndependent(t *testing.T) {
	t.Parallel()
	a := ugctest.NewServer(t)
	b := ugctest.NewServer(t, ugctest.WithDataset(ugctest.Generate(10, 1)))
	assert.NotEqual(t, a.APIKey, b.APIKey)
	a.FailNext(5, ugctest.InternalError())
	a.RemovePosts(ugctest.DefaultDataset().Posts[0].ID)
	assert.Equal(t, 200, get(t, b, "/v1/posts").status, "b has no faults")
	assert.Equal(t, 10, page(t, b, "/v1/posts").Count)
	assert.Equal(t, 401, fetch(t, http.MethodGet, b.URL+"/v1/posts", &a.APIKey).status, "a's key is not b's")
	assert.Len(t, b.Requests(), 3)
	assert.Empty(t, a.Requests())

	var wg sync.WaitGroup
	for _, s := range []*ugctest.Server{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.Client().Posts(context.Background(), nil)
			if s == a {
				var apiErr *ugc.APIError
				assert.True(t, errors.As(err, &apiErr), "a keeps failing: %v", err)
			} else {
				assert.NoError(t, err)
			}
		}()
	}
	wg.Wait()
}

// TestMovePostAndShufflePosts: moving a post puts it where asked, and a
// shuffle keeps every post and changes the order, the same way for a seed.
func TestMovePostAndShufflePosts(t *testing.T) {
	t.Parallel()
	ids := func(srv *ugctest.Server) []string {
		var out []string
		for p, err := range srv.Client().AllPosts(context.Background(), nil) {
			require.NoError(t, err)
			out = append(out, p.ID)
		}
		return out
	}
	srv := ugctest.NewServer(t, ugctest.WithDataset(ugctest.Generate(50, 3)))
	before := ids(srv)
	srv.MovePost(before[40], 2)
	moved := ids(srv)
	assert.Equal(t, before[40], moved[2])
	assert.ElementsMatch(t, before, moved)
	plain, err := ugctest.NewHandler(ugctest.Generate(50, 3), "k") // on a Server, the error would fail this test
	require.NoError(t, err)
	assert.Error(t, plain.MovePost("no-such-post", 0))

	srv.ShufflePosts(9)
	shuffled := ids(srv)
	assert.ElementsMatch(t, before, shuffled)
	assert.NotEqual(t, moved, shuffled)
	other := ugctest.NewServer(t, ugctest.WithDataset(ugctest.Generate(50, 3)))
	other.MovePost(before[40], 2)
	other.ShufflePosts(9)
	assert.Equal(t, shuffled, ids(other), "the same seed, the same order")
}

// TestRequestLogKeepsHeadersNotTheKey: the log holds the request headers
// and the raw query, and the key's value never.
func TestRequestLogKeepsHeadersNotTheKey(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t)
	c := srv.Client(ugc.WithUserAgent("moderation-service/2"))
	_, err := c.Posts(context.Background(), &ugc.PostsParams{Limit: 3}, ugc.WithHeader("X-Request-Id", "req-42"))
	require.NoError(t, err)
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "req-42", reqs[0].Header.Get("X-Request-Id"))
	assert.Contains(t, reqs[0].Header.Get("User-Agent"), "moderation-service/2")
	assert.Equal(t, "[redacted]", reqs[0].Header.Get("X-Api-Key"))
	assert.Equal(t, "limit=3", reqs[0].RawQuery)
	for _, vs := range reqs[0].Header {
		for _, v := range vs {
			assert.NotContains(t, v, srv.APIKey)
		}
	}
}
