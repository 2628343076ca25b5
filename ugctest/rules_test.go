package ugctest_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ugcposts/ugc-go/ugctest"
)

func TestRuleMatchesOneEndpoint(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t)
	srv.AddRule(ugctest.Rule{Name: "gallery outage", Endpoint: ugctest.EndpointGallery,
		Fault: ugctest.ErrorResponse(http.StatusServiceUnavailable, "Service unavailable")})

	assert.Equal(t, http.StatusOK, get(t, srv, "/v1/posts?limit=2").status)
	assert.Equal(t, http.StatusOK, get(t, srv, "/v1/inbox?limit=2").status)
	a := get(t, srv, "/v1/galleries/summer/posts")
	assert.Equal(t, http.StatusServiceUnavailable, a.status)
	assert.Equal(t, `"Service unavailable"`, a.body)
	assert.Equal(t, http.StatusServiceUnavailable, get(t, srv, "/v1/galleries/videos/posts").status)
	assert.Equal(t, http.StatusOK, get(t, srv, "/v1/posts").status, "posts still work")

	reqs := srv.Requests()
	require.Len(t, reqs, 5)
	for i, want := range []string{"", "", "gallery outage", "gallery outage", ""} {
		assert.Equal(t, want, reqs[i].Rule, "request %d", i)
	}
	assert.Equal(t, ugctest.FaultRespond, reqs[2].Fault)
	st := srv.Rules()
	require.Len(t, st, 1)
	assert.Equal(t, 2, st[0].Matched)
	assert.Equal(t, 2, st[0].Fired)
}

func TestRuleMatchesPathAndQuery(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t)
	srv.AddRule(ugctest.Rule{Path: "/v1/galleries/su*/posts", Fault: ugctest.ErrorResponse(http.StatusNotFound, ugctest.MsgGalleryNotFound)})
	srv.AddRule(ugctest.Rule{Endpoint: ugctest.EndpointPosts, Query: url.Values{"include": {"labels"}}, Fault: ugctest.InternalError()})
	srv.AddRule(ugctest.Rule{Query: url.Values{"market": nil}, Fault: ugctest.RateLimit("3")})

	assert.Equal(t, http.StatusNotFound, get(t, srv, "/v1/galleries/summer/posts").status)
	assert.Equal(t, http.StatusOK, get(t, srv, "/v1/galleries/videos/posts").status)
	assert.Equal(t, http.StatusBadRequest, get(t, srv, "/v1/posts?include=").status, "include= is not include=labels")
	assert.Equal(t, http.StatusInternalServerError, get(t, srv, "/v1/posts?include=labels").status)
	assert.Equal(t, http.StatusInternalServerError, get(t, srv, "/v1/posts?include=labels&include=x").status, "the first value counts")
	assert.Equal(t, http.StatusBadRequest, get(t, srv, "/v1/posts?include=x&include=labels").status, "not matched: the API's 400")
	assert.Equal(t, http.StatusOK, get(t, srv, "/v1/posts?limit=3").status)
	a := get(t, srv, "/v1/posts?market=de-de")
	assert.Equal(t, http.StatusTooManyRequests, a.status)
	assert.Equal(t, "3", a.header.Get("Retry-After"))
	assert.Equal(t, http.StatusTooManyRequests, get(t, srv, "/v1/inbox?market=").status, "present, any value")
}

// firedModel is which of the first n matching requests a rule fires on.
func firedModel(r ugctest.Rule, n int) []bool {
	out := make([]bool, n)
	fired := 0
	for i := range n {
		k := i + 1 - r.After
		if k <= 0 || r.Every > 1 && k%r.Every != 0 || r.Times > 0 && fired >= r.Times {
			continue
		}
		out[i] = true
		fired++
	}
	return out
}

func TestRuleCountsAfterEveryTimes(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 7))
	srv := ugctest.NewServer(t)
	for c := range 40 {
		r := ugctest.Rule{Name: "case " + strconv.Itoa(c), After: rng.IntN(4), Every: rng.IntN(4), Times: rng.IntN(5),
			Fault: ugctest.ErrorResponse(http.StatusBadGateway, "bad gateway"), Optional: true}
		// A rule per case, on its own market value, so cases do not meet.
		r.Query = url.Values{"case": {strconv.Itoa(c)}}
		srv.AddRule(r)
		n := 12
		var got []bool
		for range n {
			got = append(got, get(t, srv, "/v1/posts?limit=1&case="+strconv.Itoa(c)).status == http.StatusBadGateway)
		}
		assert.Equal(t, firedModel(r, n), got, "%+v", r)
	}
	for _, st := range srv.Rules() {
		assert.Equal(t, 12, st.Matched, st.String())
		assert.Equal(t, st.Rule.Times > 0 && st.Fired == st.Rule.Times, st.Done, st.String())
	}
}

func TestRuleFractionIsSeeded(t *testing.T) {
	t.Parallel()
	pattern := func(seed uint64) []bool {
		srv := ugctest.NewServer(t)
		srv.AddRule(ugctest.Rule{Fraction: 0.3, Seed: seed, Fault: ugctest.InternalError()})
		var out []bool
		for range 200 {
			out = append(out, get(t, srv, "/v1/inbox?limit=1").status == http.StatusInternalServerError)
		}
		return out
	}
	a, b, c := pattern(1), pattern(1), pattern(2)
	assert.Equal(t, a, b, "the same seed fails the same requests")
	assert.NotEqual(t, a, c)
	fired := 0
	for _, f := range a {
		if f {
			fired++
		}
	}
	assert.InDelta(t, 60, fired, 20, "about 30 %% of 200")
}

func TestFirstRuleThatFiresDecides(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t)
	first, err := srv.AddRule(ugctest.Rule{Name: "first", Times: 1, Fault: ugctest.InternalError()})
	require.NoError(t, err)
	srv.AddRule(ugctest.Rule{Name: "second", Times: 1, Fault: ugctest.RateLimit("")})
	assert.Equal(t, http.StatusInternalServerError, get(t, srv, "/v1/posts").status)
	assert.Equal(t, http.StatusTooManyRequests, get(t, srv, "/v1/posts").status)
	assert.Equal(t, http.StatusOK, get(t, srv, "/v1/posts").status)
	st := srv.Rules()
	require.Len(t, st, 2)
	assert.Equal(t, first, st[0].ID)
	assert.Equal(t, 2, st[1].Matched, "the second saw the second and third requests, not the first")
	assert.True(t, srv.RemoveRule(first))
	assert.False(t, srv.RemoveRule(first))
	assert.Len(t, srv.Rules(), 1)
}

func TestRulesFireExactlyTimesWhileServing(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t, ugctest.WithRequestLogLimit(-1))
	const workers, each = 8, 40
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if w == 0 && i%10 == 0 {
					// Rules are added while the others are served.
					srv.AddRule(ugctest.Rule{Times: 7, Fault: ugctest.InternalError()})
				}
				req, _ := http.NewRequest(http.MethodGet, srv.URL+"/v1/posts?limit=1", nil)
				req.Header.Set("x-api-key", srv.APIKey)
				if resp, err := http.DefaultClient.Do(req); err == nil {
					resp.Body.Close()
				}
			}
		}()
	}
	wg.Wait()
	failed := 0
	for _, r := range srv.Requests() {
		if r.Fault == ugctest.FaultInternalError {
			failed++
			assert.Equal(t, http.StatusInternalServerError, r.Status)
		}
	}
	assert.Equal(t, 4*7, failed, "four rules of seven each, among 320 requests")
	for _, st := range srv.Rules() {
		assert.Equal(t, 7, st.Fired)
		assert.True(t, st.Done)
	}
}

// fakeTB records what a Server reports, and runs its cleanups on demand.
type fakeTB struct {
	testing.TB
	mu       sync.Mutex
	errors   []string
	cleanups []func()
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}
func (f *fakeTB) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }
func (f *fakeTB) end() {
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		f.cleanups[i]()
	}
}

func TestRuleThatNeverFiredFailsTheTest(t *testing.T) {
	t.Parallel()
	tb := &fakeTB{TB: t}
	srv := ugctest.NewServer(tb)
	srv.AddRule(ugctest.Rule{Name: "inbox down", Endpoint: ugctest.EndpointInbox, Fault: ugctest.InternalError()})
	srv.AddRule(ugctest.Rule{Name: "maybe", Endpoint: ugctest.EndpointInbox, Fault: ugctest.InternalError(), Optional: true})
	srv.AddRule(ugctest.Rule{Name: "fired", Endpoint: ugctest.EndpointPosts, Times: 1, Fault: ugctest.InternalError()})
	srv.FailNext(1, ugctest.DropConnection()) // tried after the others: never reached
	removed, err := srv.AddRule(ugctest.Rule{Endpoint: ugctest.EndpointInbox, Fault: ugctest.InternalError()})
	require.NoError(t, err)
	srv.RemoveRule(removed)
	srv.FailFraction(0.001, 1, ugctest.InternalError())
	assert.Equal(t, http.StatusInternalServerError, get(t, srv, "/v1/posts").status)
	tb.end()
	require.Len(t, tb.errors, 2, "%q", tb.errors)
	assert.Contains(t, tb.errors[0], "inbox down (internal-error) never fired")
	assert.Contains(t, tb.errors[0], "it matched 0 requests")
	assert.Contains(t, tb.errors[1], "FailNext (drop-connection) never fired")
}

// TestServerSetupErrorFailsTheTest: on a Server, each Handler method that
// returns an error also fails the test with it, and changes nothing; a bad
// rule sent to the control API is answered 400 and fails nothing.
func TestServerSetupErrorFailsTheTest(t *testing.T) {
	t.Parallel()
	tb := &fakeTB{TB: t}
	srv := ugctest.NewServer(tb, ugctest.WithControlAPI())
	calls := []struct {
		method string
		call   func() error
	}{
		{"AddRule", func() error {
			_, err := srv.AddRule(ugctest.Rule{Endpoint: "nowhere", Fault: ugctest.InternalError()})
			return err
		}},
		{"FailNext", func() error { return srv.FailNext(-1, ugctest.InternalError()) }},
		{"FailFraction", func() error { return srv.FailFraction(2, 1, ugctest.InternalError()) }},
		{"InsertPosts", func() error { return srv.InsertPosts(0, ugctest.Post{}) }},
		{"RemovePosts", func() error { return srv.RemovePosts("absent") }},
		{"MovePost", func() error { return srv.MovePost("absent", 0) }},
	}
	for i, c := range calls {
		err := c.call()
		require.Error(t, err, c.method)
		require.Len(t, tb.errors, i+1, "%s fails the test once", c.method)
		assert.Equal(t, err.Error(), tb.errors[i], "the test learns what the caller learns")
		assert.Contains(t, err.Error(), "ugctest: "+c.method+": ")
	}
	assert.Empty(t, srv.Rules(), "nothing installed")

	req, err := http.NewRequest(http.MethodPost, srv.URL+ugctest.ControlPath+"/rules", strings.NewReader(`{"endpoint":"nowhere"}`))
	require.NoError(t, err)
	req.Header.Set("x-api-key", srv.APIKey)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	tb.end()
	assert.Len(t, tb.errors, len(calls), "the control API's caller learns of its bad rule from the answer alone: %q", tb.errors)
}

func TestBadRulesAreRefused(t *testing.T) {
	t.Parallel()
	h, err := ugctest.NewHandler(nil, "k")
	require.NoError(t, err)
	for name, r := range map[string]ugctest.Rule{
		"endpoint":     {Endpoint: "galleries", Fault: ugctest.InternalError()},
		"no fault":     {},
		"kind":         {Fault: ugctest.Fault{Kind: 99}},
		"path":         {Path: "/v1/[", Fault: ugctest.InternalError()},
		"after":        {After: -1, Fault: ugctest.InternalError()},
		"times":        {Times: -1, Fault: ugctest.InternalError()},
		"fraction":     {Fraction: 1.5, Fault: ugctest.InternalError()},
		"status":       {Fault: ugctest.Respond(99, "")},
		"keep":         {Fault: ugctest.ShortPage(-1)},
		"stall":        {Fault: ugctest.Stall(-1)},
		"host":         {Fault: ugctest.ForeignNext("evil.example/path")},
		"header break": {Fault: ugctest.InternalError().WithHeader("X-A", "a\r\nSet-Cookie: b")},
	} {
		_, err := h.AddRule(r)
		assert.Error(t, err, name)
	}
	assert.Empty(t, h.Rules())
	assert.Error(t, h.FailNext(-1, ugctest.InternalError()))
	assert.Error(t, h.FailFraction(0.5, 1))
}

func TestRuleJSONRoundTrip(t *testing.T) {
	t.Parallel()
	in := ugctest.Rule{Name: "n", Endpoint: ugctest.EndpointGallery, Path: "/v1/galleries/*/posts",
		Query: url.Values{"limit": {"5"}}, After: 1, Every: 2, Fraction: 0.5, Seed: 9, Times: 3, Optional: true,
		Fault: ugctest.Stall(1500*time.Millisecond).WithHeader("x-trace", "t1")}
	b, err := json.Marshal(in)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"fault":{"kind":"stall","stall":"1.5s","header":{"X-Trace":["t1"]}}`)
	var out ugctest.Rule
	require.NoError(t, json.Unmarshal(b, &out))
	assert.Equal(t, in, out)

	var f ugctest.Fault
	err = json.Unmarshal([]byte(`{"kind":"explode"}`), &f)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "internal-error, rate-limit")
}

func TestRequestLogKeepsTheQueryAsSent(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t)
	req, err := http.NewRequest(http.MethodGet, srv.URL+"/v1/posts?limit=2&filter=%5B%5D", nil)
	require.NoError(t, err)
	req.Header.Set("x-api-key", srv.APIKey)
	req.Header.Set("User-Agent", "moderation-digest/1.2")
	req.Header.Set("X-Request-Id", "req-42")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()

	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	r := reqs[0]
	assert.Equal(t, "moderation-digest/1.2", r.Header.Get("User-Agent"))
	assert.Equal(t, "req-42", r.Header.Get("X-Request-Id"))
	assert.Equal(t, "[redacted]", r.Header.Get("X-Api-Key"))
	assert.Equal(t, "limit=2&filter=%5B%5D", r.RawQuery, "the query as sent")
	assert.Equal(t, "[]", r.Query.Get("filter"))
	assert.True(t, r.KeyValid)
	b, err := json.Marshal(reqs)
	require.NoError(t, err)
	assert.NotContains(t, string(b), srv.APIKey)
	assert.False(t, strings.Contains(fmt.Sprintf("%+v", r), srv.APIKey))
}
