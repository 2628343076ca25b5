package ugc

// Internal tests of the retry policy, the backoff and the key's confinement
// to the base URL's origin. Attempts go through a RoundTripper or loopback
// httptest servers; every wait is zero or ended by a context, never slept.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	retryTestKey  = "canary-KEY-123"
	retryTestBase = "https://api.example.test/prefix"
	retryTestPage = `{"count":1,"next":null,"nodes":[{"id":"p1","createdAt":"2024-01-02T03:04:05Z","media":{"location":"m"},"taggedProducts":[]}]}`
)

// transportFunc is an http.RoundTripper made of a function.
type transportFunc func(*http.Request) (*http.Response, error)

func (f transportFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// scripted answers attempt i with steps[i] (the last step repeats) and
// counts the attempts.
type scripted struct {
	mu    sync.Mutex
	steps []func(*http.Request) (*http.Response, error)
	calls int
}

func (s *scripted) RoundTrip(r *http.Request) (*http.Response, error) {
	s.mu.Lock()
	i := min(s.calls, len(s.steps)-1)
	s.calls++
	step := s.steps[i]
	s.mu.Unlock()
	return step(r)
}

func (s *scripted) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

func reply(status int, body string) func(*http.Request) (*http.Response, error) {
	return replyBody(status, func() io.ReadCloser { return io.NopCloser(strings.NewReader(body)) })
}

func replyBody(status int, body func() io.ReadCloser) func(*http.Request) (*http.Response, error) {
	return func(r *http.Request) (*http.Response, error) {
		return &http.Response{
			StatusCode: status,
			Status:     fmt.Sprintf("%d %s", status, http.StatusText(status)),
			Header:     http.Header{"Content-Type": {"application/json"}},
			Body:       body(),
			Request:    r,
		}, nil
	}
}

func fail(err error) func(*http.Request) (*http.Response, error) {
	return func(*http.Request) (*http.Response, error) { return nil, err }
}

// cutShort is a body that sends part of a page, then fails as a dropped
// connection does.
type cutShort struct{ r io.Reader }

func (b *cutShort) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err == io.EOF {
		return n, io.ErrUnexpectedEOF
	}
	return n, err
}
func (b *cutShort) Close() error { return nil }

func newScriptedClient(t *testing.T, rt http.RoundTripper, opts ...Option) *Client {
	t.Helper()
	all := append([]Option{WithHTTPClient(&http.Client{Transport: rt}), WithRetryWait(0, 0)}, opts...)
	c, err := NewClient(retryTestBase, retryTestKey, all...)
	require.NoError(t, err)
	return c
}

func TestRetryThenSucceed(t *testing.T) {
	t.Parallel()
	for _, status := range []int{429, 500, 502, 503, 504} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			t.Parallel()
			rt := &scripted{steps: []func(*http.Request) (*http.Response, error){
				reply(status, `"try again"`),
				reply(http.StatusOK, retryTestPage),
			}}
			c := newScriptedClient(t, rt, WithRetryMax(1))
			page, err := c.Posts(context.Background(), nil)
			require.NoError(t, err)
			assert.Equal(t, 2, rt.count())
			assert.Equal(t, 1, page.Count)
		})
	}
}

func TestNeverRetried(t *testing.T) {
	t.Parallel()
	for _, status := range []int{400, 401, 403, 404, 501} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			t.Parallel()
			rt := &scripted{steps: []func(*http.Request) (*http.Response, error){
				reply(status, `"no"`),
				reply(http.StatusOK, retryTestPage),
			}}
			c := newScriptedClient(t, rt, WithRetryMax(3))
			_, err := c.Posts(context.Background(), nil)
			var apiErr *APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, status, apiErr.StatusCode)
			assert.Equal(t, "no", apiErr.Message)
			assert.Equal(t, 1, rt.count())
		})
	}
}

func TestRetryCountHonoured(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 4} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			rt := &scripted{steps: []func(*http.Request) (*http.Response, error){reply(500, `"Something went wrong"`)}}
			c := newScriptedClient(t, rt, WithRetryMax(n))
			_, err := c.Inbox(context.Background(), nil)
			var apiErr *APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, "Something went wrong", apiErr.Message)
			assert.Equal(t, n+1, rt.count())
		})
	}
}

func TestConnectionErrorRetried(t *testing.T) {
	t.Parallel()
	rt := &scripted{steps: []func(*http.Request) (*http.Response, error){
		fail(errors.New("dial tcp 127.0.0.1:1: connect: connection refused")),
		reply(http.StatusOK, retryTestPage),
	}}
	c := newScriptedClient(t, rt, WithRetryMax(1))
	page, err := c.Posts(context.Background(), nil)
	require.NoError(t, err)
	assert.Equal(t, 2, rt.count())
	assert.Len(t, page.Nodes, 1)
}

func TestCutShortBody(t *testing.T) {
	t.Parallel()
	cut := replyBody(http.StatusOK, func() io.ReadCloser {
		return &cutShort{r: strings.NewReader(retryTestPage[:40])}
	})
	t.Run("retried, then succeeds", func(t *testing.T) {
		t.Parallel()
		rt := &scripted{steps: []func(*http.Request) (*http.Response, error){cut, reply(http.StatusOK, retryTestPage)}}
		c := newScriptedClient(t, rt, WithRetryMax(2))
		page, err := c.Posts(context.Background(), nil)
		require.NoError(t, err)
		assert.Equal(t, 2, rt.count())
		assert.Equal(t, "p1", page.Nodes[0].ID)
	})
	t.Run("every attempt cut: a DecodeError", func(t *testing.T) {
		t.Parallel()
		rt := &scripted{steps: []func(*http.Request) (*http.Response, error){cut}}
		c := newScriptedClient(t, rt, WithRetryMax(2))
		page, err := c.Posts(context.Background(), nil)
		assert.Nil(t, page)
		var de *DecodeError
		require.ErrorAs(t, err, &de)
		assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
		assert.Equal(t, retryTestPage[:40], de.Snippet)
		assert.Equal(t, 3, rt.count())
	})
}

func TestOverCapBodyNotRetried(t *testing.T) {
	t.Parallel()
	rt := &scripted{steps: []func(*http.Request) (*http.Response, error){reply(http.StatusOK, retryTestPage)}}
	c := newScriptedClient(t, rt, WithRetryMax(3), WithMaxResponseBytes(int64(len(retryTestPage)-1)))
	page, err := c.Posts(context.Background(), nil)
	assert.Nil(t, page)
	var de *DecodeError
	require.ErrorAs(t, err, &de)
	assert.ErrorIs(t, err, errBodyTooLarge)
	assert.Equal(t, http.StatusOK, de.StatusCode)
	assert.Equal(t, 1, rt.count())

	t.Run("exactly at the cap is fine", func(t *testing.T) {
		t.Parallel()
		rt := &scripted{steps: []func(*http.Request) (*http.Response, error){reply(http.StatusOK, retryTestPage)}}
		c := newScriptedClient(t, rt, WithMaxResponseBytes(int64(len(retryTestPage))))
		_, err := c.Posts(context.Background(), nil)
		assert.NoError(t, err)
	})
}

// keyRecorder is an httptest handler that records the x-api-key of each
// request it gets.
type keyRecorder struct {
	mu   sync.Mutex
	keys []string
	next http.Handler
}

func (k *keyRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	k.mu.Lock()
	k.keys = append(k.keys, r.Header.Get(apiKeyHeader))
	k.mu.Unlock()
	k.next.ServeHTTP(w, r)
}

func (k *keyRecorder) seen() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]string(nil), k.keys...)
}

func TestRedirects(t *testing.T) {
	t.Parallel()
	// other is another origin: same loopback address, named "localhost".
	other := &keyRecorder{next: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, retryTestPage)
	})}
	otherSrv := httptest.NewServer(other)
	t.Cleanup(otherSrv.Close)
	otherURL := strings.Replace(otherSrv.URL, "127.0.0.1", "localhost", 1)
	require.NotEqual(t, otherSrv.URL, otherURL)

	api := &keyRecorder{next: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/prefix/v1/posts":
			http.Redirect(w, r, otherURL+"/prefix/v1/posts", http.StatusFound)
		case "/prefix/v1/inbox":
			http.Redirect(w, r, "/prefix/v1/moved", http.StatusFound)
		case "/prefix/v1/moved":
			_, _ = io.WriteString(w, retryTestPage)
		default:
			http.NotFound(w, r)
		}
	})}
	apiSrv := httptest.NewServer(api)
	t.Cleanup(apiSrv.Close)

	t.Run("cross-origin refused, not retried, key not sent", func(t *testing.T) {
		c, err := NewClient(apiSrv.URL+"/prefix", retryTestKey, WithRetryWait(0, 0), WithRetryMax(3))
		require.NoError(t, err)
		page, err := c.Posts(context.Background(), nil)
		assert.Nil(t, page)
		require.Error(t, err)
		assert.ErrorIs(t, err, ErrForeignRedirect)
		assert.Contains(t, err.Error(), "redirect to another origin refused")
		assert.NotContains(t, err.Error(), retryTestKey)
		assert.Equal(t, []string{retryTestKey}, api.seen(), "one attempt, not retried")
		assert.Empty(t, other.seen(), "the other origin gets no request at all")
	})
	t.Run("same-origin followed, with the key", func(t *testing.T) {
		c, err := NewClient(apiSrv.URL+"/prefix", retryTestKey, WithRetryWait(0, 0), WithRetryMax(0))
		require.NoError(t, err)
		before := len(api.seen())
		page, err := c.Inbox(context.Background(), nil)
		require.NoError(t, err)
		assert.Equal(t, 1, page.Count)
		assert.Equal(t, []string{retryTestKey, retryTestKey}, api.seen()[before:])
	})
}

// TestKeyTransportConfinesKey checks the layer under the redirect policy:
// a request for another origin goes out without the key, even one that
// carries it already.
func TestKeyTransportConfinesKey(t *testing.T) {
	t.Parallel()
	base, err := parseBaseURL("https://api.example.test/prefix", false)
	require.NoError(t, err)
	var got http.Header
	kt := &keyTransport{base: base, key: retryTestKey, next: transportFunc(func(r *http.Request) (*http.Response, error) {
		got = r.Header.Clone()
		return reply(http.StatusOK, "")(r)
	})}
	tests := []struct {
		url     string
		wantKey string
	}{
		{"https://api.example.test/prefix/v1/posts", retryTestKey},
		{"https://API.example.test:443/other", retryTestKey},
		{"http://api.example.test/prefix/v1/posts", ""},
		{"https://api.example.test:8443/prefix/v1/posts", ""},
		{"https://evil.example.test/prefix/v1/posts", ""},
		{"https://api.example.test.evil.test/prefix/v1/posts", ""},
	}
	for _, tt := range tests {
		req, err := http.NewRequest(http.MethodGet, tt.url, nil)
		require.NoError(t, err)
		req.Header.Set(apiKeyHeader, "forwarded-"+retryTestKey)
		resp, err := kt.RoundTrip(req)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		assert.Equal(t, tt.wantKey, got.Get(apiKeyHeader), tt.url)
		assert.Equal(t, "forwarded-"+retryTestKey, req.Header.Get(apiKeyHeader), "the caller's request is not changed")
	}
	assert.NotContains(t, fmt.Sprintf("%v %+v %#v %s", kt, kt, kt, kt), retryTestKey)
}

func TestBackoffExponentialWithinBounds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name             string
		minWait, maxWait time.Duration
	}{
		{"defaults", DefaultRetryWaitMin, DefaultRetryWaitMax},
		{"small", time.Millisecond, time.Second},
		{"min equals max", time.Second, time.Second},
		{"large min", time.Hour, 1000 * time.Hour},
		{"one nanosecond", 1, 1 << 40},
		{"zero min: Retry-After only", 0, time.Second},
		{"huge", 1 << 58, 1 << 62},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for attempt := range 70 {
				ceiling := time.Duration(math.Min(float64(tt.minWait)*math.Pow(2, float64(attempt)), float64(tt.maxWait)))
				for range 20 {
					got := backoff(tt.minWait, tt.maxWait, attempt)
					require.GreaterOrEqual(t, got, ceiling/2, "attempt %d", attempt)
					require.LessOrEqual(t, got, ceiling, "attempt %d", attempt)
				}
			}
		})
	}
	t.Run("grows", func(t *testing.T) {
		t.Parallel()
		// The lowest possible wait of attempt n+1 is the highest of attempt n.
		for attempt := range 5 {
			hi := backoff(time.Millisecond, time.Hour, attempt)
			lo := backoff(time.Millisecond, time.Hour, attempt+1)
			assert.LessOrEqual(t, hi, lo, "attempt %d", attempt)
		}
	})
	t.Run("zero min and max: no wait", func(t *testing.T) {
		t.Parallel()
		for attempt := range 40 {
			assert.Zero(t, backoff(0, 0, attempt))
		}
	})
}

// cancelOnRetry is a slog handler that cancels a context when the retry
// layer announces a wait: the wait has begun, so the cancel must end it.
type cancelOnRetry struct {
	cancel context.CancelFunc
	n      atomic.Int32
}

func (h *cancelOnRetry) Enabled(context.Context, slog.Level) bool { return true }
func (h *cancelOnRetry) Handle(_ context.Context, r slog.Record) error {
	if strings.Contains(r.Message, "retrying") {
		h.n.Add(1)
		h.cancel()
	}
	return nil
}
func (h *cancelOnRetry) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *cancelOnRetry) WithGroup(string) slog.Handler      { return h }

func TestCancelEndsRetryWait(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h := &cancelOnRetry{cancel: cancel}
	rt := &scripted{steps: []func(*http.Request) (*http.Response, error){reply(503, `"busy"`)}}
	c := newScriptedClient(t, rt,
		WithRetryMax(5),
		WithRetryWait(time.Hour, time.Hour), // a wait the test would time out on
		WithLogger(slog.New(h)),
	)
	done := make(chan error, 1)
	go func() {
		_, err := c.Posts(ctx, nil)
		done <- err
	}()
	err := <-done
	assert.ErrorIs(t, err, context.Canceled)
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr, "the last attempt's error is kept")
	assert.Equal(t, 503, apiErr.StatusCode)
	assert.Equal(t, 1, rt.count(), "no attempt after the cancel")
	assert.Equal(t, int32(1), h.n.Load(), "the wait had begun")
}

// TestSilentByDefault captures the process's stdout and stderr while a
// client retries and fails: nothing may be written. Not parallel: it swaps
// os.Stdout and os.Stderr.
func TestSilentByDefault(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	stdout, stderr := os.Stdout, os.Stderr
	os.Stdout, os.Stderr = w, w
	restored := false
	restore := func() {
		if !restored {
			os.Stdout, os.Stderr = stdout, stderr
			restored = true
		}
	}
	t.Cleanup(restore)

	rt := &scripted{steps: []func(*http.Request) (*http.Response, error){
		fail(errors.New("connection reset by peer")),
		reply(500, `"Something went wrong"`),
		reply(http.StatusOK, retryTestPage),
	}}
	c := newScriptedClient(t, rt, WithRetryMax(2))
	_, callErr := c.Posts(context.Background(), nil)
	_, failErr := c.Inbox(context.Background(), &InboxParams{Limit: 1})
	rt2 := &scripted{steps: []func(*http.Request) (*http.Response, error){reply(500, `"Something went wrong"`)}}
	c2 := newScriptedClient(t, rt2, WithRetryMax(1))
	_, apiErr := c2.Posts(context.Background(), nil)

	restore()
	require.NoError(t, w.Close())
	out, err := io.ReadAll(r)
	require.NoError(t, err)
	require.NoError(t, callErr)
	require.NoError(t, failErr)
	require.Error(t, apiErr)
	assert.Empty(t, string(out))
}

func TestLoggerLinesNeverHoldKey(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	rt := &scripted{steps: []func(*http.Request) (*http.Response, error){
		fail(errors.New("connection reset by peer")),
		reply(503, `"busy"`),
		reply(http.StatusOK, retryTestPage),
	}}
	c := newScriptedClient(t, rt, WithRetryMax(2), WithLogger(logger))
	_, err := c.Posts(context.Background(), &PostsParams{Limit: 3, Market: "de"})
	require.NoError(t, err)

	out := buf.String()
	assert.Contains(t, out, `level=WARN msg="ugc: attempt failed, retrying"`)
	assert.Contains(t, out, `level=INFO msg="ugc: request succeeded after retries"`)
	assert.NotContains(t, out, "level=ERROR", "a retry that succeeded is no error")
	assert.Contains(t, out, "connection reset by peer")
	assert.Contains(t, out, "/prefix/v1/posts")
	assert.NotContains(t, out, retryTestKey)
	assert.Equal(t, 3, rt.count())
}

// expiringCtx is a context whose deadline passes when expire is called, so
// a test ends a call at a chosen attempt without a clock.
type expiringCtx struct {
	context.Context
	done chan struct{}
	once sync.Once
}

func newExpiringCtx() *expiringCtx {
	return &expiringCtx{Context: context.Background(), done: make(chan struct{})}
}

func (c *expiringCtx) expire()               { c.once.Do(func() { close(c.done) }) }
func (c *expiringCtx) Done() <-chan struct{} { return c.done }
func (c *expiringCtx) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// TestDeadlineNamesTheCall: a caller's deadline that ends an attempt in
// flight, after 0 to 4 failed attempts of each kind (an error status, a
// connection error, a body cut short), gives an error that matches
// context.DeadlineExceeded, names the call once, carries the last failed
// attempt's error (errors.As), and states an attempt count at most once.
func TestDeadlineNamesTheCall(t *testing.T) {
	t.Parallel()
	failures := map[string]func(*http.Request) (*http.Response, error){
		"500": func(r *http.Request) (*http.Response, error) {
			resp, err := reply(http.StatusInternalServerError, `"Something went wrong"`)(r)
			resp.Header.Set("X-Request-Id", "edge-7")
			return resp, err
		},
		"connection": fail(errors.New("connection reset by peer")),
		"cut short": replyBody(http.StatusOK, func() io.ReadCloser {
			return &cutShort{strings.NewReader(retryTestPage[:20])}
		}),
	}
	const call = "ugc: GET /prefix/v1/inbox"
	for kind, failure := range failures {
		for failed := range 5 {
			t.Run(fmt.Sprintf("%s×%d", kind, failed), func(t *testing.T) {
				t.Parallel()
				ctx := newExpiringCtx()
				steps := make([]func(*http.Request) (*http.Response, error), 0, failed+1)
				for range failed {
					steps = append(steps, failure)
				}
				steps = append(steps, func(*http.Request) (*http.Response, error) {
					ctx.expire() // the deadline passes while this attempt is in flight
					return nil, context.DeadlineExceeded
				})
				rt := &scripted{steps: steps}
				c := newScriptedClient(t, rt, WithRetryMax(10))

				_, err := c.Inbox(ctx, nil)
				require.Error(t, err)
				msg := err.Error()
				assert.Equal(t, failed+1, rt.count(), "no attempt after the deadline")
				assert.ErrorIs(t, err, context.DeadlineExceeded)
				assert.True(t, strings.HasPrefix(msg, call+": context deadline exceeded"), msg)
				assert.Equal(t, 1, strings.Count(msg, call), "the call is named once: %s", msg)
				assert.LessOrEqual(t, strings.Count(msg, "attempts"), 1, "one attempt count: %s", msg)
				assert.NotErrorIs(t, err, ErrAttemptTimeout, "the caller's deadline, not an attempt's bound")
				assert.NotContains(t, msg, retryTestKey)
				if failed == 0 {
					assert.Equal(t, call+": context deadline exceeded", msg)
					return
				}
				assert.Contains(t, msg, " during retries; last: ")
				switch kind {
				case "500":
					var apiErr *APIError
					require.ErrorAs(t, err, &apiErr)
					assert.Equal(t, failed, apiErr.Attempts)
					assert.Equal(t, "edge-7", RequestID(err))
				case "cut short":
					var decErr *DecodeError
					require.ErrorAs(t, err, &decErr)
					assert.Equal(t, failed, decErr.Attempts)
				}
				assert.Equal(t, failed > 1, strings.Contains(msg, fmt.Sprintf("after %d attempts", failed)), msg)
			})
		}
	}
}
