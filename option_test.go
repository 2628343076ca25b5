package ugc

// Tests of per-call options, the attempt observer and the SDK's own log
// lines. Attempts go through scripted RoundTrippers or loopback httptest
// servers; no test sleeps.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCallRetryMaxOverridesTheClientsForThatCallOnly(t *testing.T) {
	t.Parallel()
	rt := &scripted{steps: []func(*http.Request) (*http.Response, error){reply(500, `"down"`)}}
	c := newScriptedClient(t, rt, WithRetryMax(4))

	_, err := c.Posts(context.Background(), nil, WithRetryMax(0))
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 1, apiErr.Attempts)
	assert.Equal(t, 1, rt.count())

	_, err = c.Posts(context.Background(), nil)
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 5, apiErr.Attempts, "the next call has the client's count again")
	assert.Equal(t, 6, rt.count())
}

func TestCallAttemptTimeoutEndsAStalledAttempt(t *testing.T) {
	t.Parallel()
	var n sync.Mutex
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Lock()
		calls++
		first := calls == 1
		n.Unlock()
		if first {
			<-r.Context().Done() // stalls until the attempt's timeout ends it
			return
		}
		_, _ = w.Write([]byte(retryTestPage))
	}))
	t.Cleanup(srv.Close)
	c, err := NewClient(srv.URL, retryTestKey, WithRetryWait(0, 0), WithAttemptTimeout(0))
	require.NoError(t, err)
	// The client's attempts are unbounded: without the per-call bound the
	// first attempt would stall forever. The bound is generous so that the
	// attempts after the first, which are answered at once, fit in it.
	var info ResponseInfo
	page, err := c.Inbox(context.Background(), nil, WithAttemptTimeout(250*time.Millisecond), WithResponseInto(&info))
	require.NoError(t, err)
	assert.Equal(t, 1, page.Count)
	assert.GreaterOrEqual(t, info.Attempts, 2, "the stalled attempt was ended and retried")
}

func TestResponseInto(t *testing.T) {
	t.Parallel()
	rt := &scripted{steps: []func(*http.Request) (*http.Response, error){
		reply(503, `"busy"`),
		func(r *http.Request) (*http.Response, error) {
			resp, _ := reply(200, retryTestPage)(r)
			resp.Header.Set("X-Request-Id", "req-42")
			resp.Header.Set("X-Echo", "key="+retryTestKey)
			return resp, nil
		},
	}}
	c := newScriptedClient(t, rt)
	var info ResponseInfo
	_, err := c.Posts(context.Background(), nil, WithResponseInto(&info))
	require.NoError(t, err)
	assert.Equal(t, 200, info.StatusCode)
	assert.Equal(t, 2, info.Attempts)
	assert.Equal(t, "req-42", info.RequestID())
	assert.Equal(t, "key="+redacted, info.Header.Get("X-Echo"))
}

// TestPerCallHeadersNeverLeakToOtherCalls runs calls with and without
// per-call options at once on one Client, under -race: each request carries
// exactly its own call's headers.
func TestPerCallHeadersNeverLeakToOtherCalls(t *testing.T) {
	t.Parallel()
	type seen struct{ call, header string }
	var mu sync.Mutex
	var got []seen
	rt := transportFunc(func(r *http.Request) (*http.Response, error) {
		mu.Lock()
		got = append(got, seen{r.URL.Query().Get("skip"), fmt.Sprint(r.Header.Values("X-Call"))})
		mu.Unlock()
		return reply(200, retryTestPage)(r)
	})
	c := newScriptedClient(t, rt)
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var opts []Option
			if i%2 == 1 {
				opts = append(opts, WithHeader("X-Call", strconv.Itoa(i)), WithRetryMax(0))
			}
			_, err := c.Posts(context.Background(), &PostsParams{Skip: i}, opts...)
			assert.NoError(t, err)
		}()
	}
	wg.Wait()
	require.Len(t, got, 64)
	for _, s := range got {
		i, err := strconv.Atoi(s.call)
		if s.call == "" {
			i, err = 0, nil
		}
		require.NoError(t, err)
		want := "[]"
		if i%2 == 1 {
			want = "[" + s.call + "]"
		}
		assert.Equal(t, want, s.header, "call %d", i)
	}
}

func TestCallOptionsApplyToEachRequestOfAWalk(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var headers []string
	rt := transportFunc(func(r *http.Request) (*http.Response, error) {
		mu.Lock()
		headers = append(headers, r.Header.Get("Traceparent"))
		mu.Unlock()
		// Three posts, p1 to p3, served by skip and limit.
		skip, _ := strconv.Atoi(r.URL.Query().Get("skip"))
		limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		var nodes []string
		for i := skip; i < min(skip+limit, 3); i++ {
			nodes = append(nodes, strings.Replace(retryTestPage[strings.Index(retryTestPage, "[")+1:len(retryTestPage)-2], `"p1"`, `"p`+strconv.Itoa(i+1)+`"`, 1))
		}
		next := `"https://api.example.test/prefix/v1/posts?limit=` + strconv.Itoa(limit) + `&skip=` + strconv.Itoa(skip+limit) + `"`
		if skip+limit >= 3 {
			next = "null"
		}
		return reply(200, `{"count":3,"next":`+next+`,"nodes":[`+strings.Join(nodes, ",")+`]}`)(r)
	})
	c := newScriptedClient(t, rt)
	tp := "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	for _, err := range c.AllPosts(context.Background(), &PostsParams{Limit: 1}, WithHeader("traceparent", tp), WithReadAhead(0)) {
		require.NoError(t, err)
	}
	require.NotEmpty(t, headers)
	for _, h := range headers {
		assert.Equal(t, tp, h, "every request of the walk carries the header")
	}
}

func TestAttemptObserverSeesEveryAttemptInOrder(t *testing.T) {
	t.Parallel()
	var infos []AttemptInfo
	rt := &scripted{steps: []func(*http.Request) (*http.Response, error){
		reply(500, `"oops"`),
		fail(errors.New("connection reset by peer")),
		reply(200, retryTestPage),
	}}
	type key struct{}
	ctx := context.WithValue(context.Background(), key{}, "span-1")
	c := newScriptedClient(t, rt, WithAttemptObserver(func(ctx context.Context, a AttemptInfo) {
		assert.Equal(t, "span-1", ctx.Value(key{}), "the call's context")
		infos = append(infos, a) // the observer runs on the calling goroutine
	}))
	_, err := c.Posts(ctx, nil)
	require.NoError(t, err)
	require.Len(t, infos, 3)
	for i, want := range []struct {
		status int
		retry  bool
		err    bool
	}{{500, true, true}, {0, true, true}, {200, false, false}} {
		a := infos[i]
		assert.Equal(t, i+1, a.Attempt)
		assert.Equal(t, "/prefix/v1/posts", a.Endpoint)
		assert.Equal(t, want.status, a.StatusCode)
		assert.Equal(t, want.retry, a.Retry)
		assert.Equal(t, want.err, a.Err != nil)
	}
}

func TestNoSuchHostIsNotRetried(t *testing.T) {
	t.Parallel()
	rt := &scripted{steps: []func(*http.Request) (*http.Response, error){
		fail(&net.DNSError{Err: "no such host", Name: "api.example.test", IsNotFound: true}),
	}}
	c := newScriptedClient(t, rt, WithRetryMax(4))
	_, err := c.Posts(context.Background(), nil)
	var dns *net.DNSError
	require.ErrorAs(t, err, &dns)
	assert.Equal(t, 1, rt.count())
}

// recordingHandler keeps every record with a value of its context.
type recordingHandler struct {
	mu      sync.Mutex
	records []slog.Record
	ctxVals []any
}

type traceKey struct{}

func (h *recordingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *recordingHandler) Handle(ctx context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.records = append(h.records, r)
	h.ctxVals = append(h.ctxVals, ctx.Value(traceKey{}))
	return nil
}
func (h *recordingHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *recordingHandler) WithGroup(string) slog.Handler      { return h }

func attrs(r slog.Record) map[string]string {
	m := map[string]string{}
	r.Attrs(func(a slog.Attr) bool { m[a.Key] = a.Value.String(); return true })
	return m
}

func TestLogLinesCarryContextAttributesAndMeaningfulLevels(t *testing.T) {
	t.Parallel()
	h := &recordingHandler{}
	rt := &scripted{steps: []func(*http.Request) (*http.Response, error){
		reply(503, `"busy `+retryTestKey+`"`),
		replyBody(200, func() io.ReadCloser { return &cutShort{r: strings.NewReader(retryTestPage[:20])} }),
		reply(200, retryTestPage),
		reply(404, `"Gallery not found"`),
		reply(500, `"down"`),
	}}
	c := newScriptedClient(t, rt, WithLogger(slog.New(h)), WithRetryMax(2))
	ctx := context.WithValue(context.Background(), traceKey{}, "trace-7")
	_, err := c.Posts(ctx, nil)
	require.NoError(t, err)
	_, err = c.GalleryPosts(ctx, "g", nil)
	require.ErrorIs(t, err, ErrNotFound)
	_, err = c.Inbox(ctx, nil)
	require.ErrorIs(t, err, ErrServer)

	var levels []slog.Level
	for i, r := range h.records {
		levels = append(levels, r.Level)
		assert.Equal(t, "trace-7", h.ctxVals[i], "LogAttrs with the call's context")
		a := attrs(r)
		for _, k := range []string{"method", "endpoint", "attempt", "status", "outcome"} {
			assert.Contains(t, a, k, r.Message)
		}
		assert.NotContains(t, fmt.Sprint(a)+r.Message, retryTestKey)
	}
	assert.Equal(t, []slog.Level{
		slog.LevelWarn, slog.LevelWarn, slog.LevelInfo, // 503, cut short, success after retries
		slog.LevelWarn,                                  // a 404 is the caller's to handle
		slog.LevelWarn, slog.LevelWarn, slog.LevelError, // 500 thrice: the last is final
	}, levels)
	assert.Equal(t, "0s", attrs(h.records[0])["wait"])
	assert.Equal(t, "failed", attrs(h.records[6])["outcome"])
}

func TestDecodeErrorKeepsHeadersAndAttempts(t *testing.T) {
	t.Parallel()
	rt := &scripted{steps: []func(*http.Request) (*http.Response, error){
		replyBody(200, func() io.ReadCloser { return &cutShort{r: strings.NewReader(retryTestPage[:10])} }),
		func(r *http.Request) (*http.Response, error) {
			resp, _ := reply(200, `<html>maintenance</html>`)(r)
			resp.Header.Set("X-Amzn-RequestId", "amzn-1")
			return resp, nil
		},
	}}
	c := newScriptedClient(t, rt, WithRetryMax(3))
	_, err := c.Posts(context.Background(), nil)
	var decErr *DecodeError
	require.ErrorAs(t, err, &decErr)
	assert.Equal(t, 2, decErr.Attempts, "a cut-short body is retried, an HTML page is final")
	assert.Equal(t, "amzn-1", decErr.RequestID())
	assert.Equal(t, 2, rt.count())
}
