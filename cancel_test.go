package ugc_test

// A cancelled context ends a call or a walk promptly, wherever it is
// waiting: on a server that stalls, in the wait between two attempts, or
// for a page in flight. Each test cancels on an event (a request arrived,
// an answer came back), never after a sleep; the 10 s timeouts below only
// turn a hang into a failure.

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
)

// promptly bounds how long a cancelled call may take to return. It is a
// failure guard only: every test waits for an event, never for time.
const promptly = 10 * time.Second

// observedServer serves a ugctest.Handler behind a wrapper that reports each
// request as it arrives, before the fake decides on its fault. The fake's
// own request log and hook see a stalled request only when the stall ends,
// too late to cancel it.
type observedServer struct {
	*ugctest.Handler
	URL     string
	APIKey  string
	arrived chan *http.Request // one per request, buffered
}

func newObservedServer(t *testing.T, ds *ugctest.Dataset, opts ...ugctest.Option) *observedServer {
	t.Helper()
	const key = "observed-server-key"
	h, err := ugctest.NewHandler(ds, key, opts...)
	require.NoError(t, err)
	s := &observedServer{Handler: h, APIKey: key, arrived: make(chan *http.Request, 1024)}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case s.arrived <- r.Clone(context.Background()):
		default:
		}
		h.ServeHTTP(w, r)
	}))
	// Closing the connections first ends the handlers of requests a test
	// left stalled, so Close does not wait for them.
	t.Cleanup(func() { hs.CloseClientConnections(); hs.Close() })
	s.URL = hs.URL
	return s
}

func (s *observedServer) client(t *testing.T, opts ...ugc.Option) *ugc.Client {
	t.Helper()
	c, err := ugc.NewClient(s.URL, s.APIKey, append([]ugc.Option{ugc.WithRetryWait(0, 0)}, opts...)...)
	require.NoError(t, err)
	return c
}

// waitArrival returns the next request to arrive, or fails the test.
func (s *observedServer) waitArrival(t *testing.T) *http.Request {
	t.Helper()
	select {
	case r := <-s.arrived:
		return r
	case <-time.After(promptly):
		t.Fatal("no request arrived")
		return nil
	}
}

// cancelWhenStalled calls cancel once the consumer has had page one
// (pageOne is closed) and a second request, a stalled page, has arrived.
// In prefetch mode the second request may arrive first; waiting for both
// makes the walk's state at the cancel the same in every mode.
func (s *observedServer) cancelWhenStalled(ctx context.Context, cancel context.CancelFunc, pageOne <-chan struct{}) {
	for range 2 {
		select {
		case <-s.arrived:
		case <-ctx.Done():
			return
		}
	}
	select {
	case <-pageOne:
		cancel()
	case <-ctx.Done():
	}
}

// await returns what done delivers, or fails the test if the call has not
// returned within promptly.
func await[T any](t *testing.T, done <-chan T) T {
	t.Helper()
	select {
	case v := <-done:
		return v
	case <-time.After(promptly):
		t.Fatalf("the call did not return within %v of the cancel", promptly)
		var zero T
		return zero
	}
}

func TestCancelEndsACallStalledOnTheServer(t *testing.T) {
	t.Parallel()
	srv := newObservedServer(t, ugctest.Generate(30, 1))
	sig := newAnswerSignal()
	c := srv.client(t, ugc.WithHTTPClient(&http.Client{Transport: sig}), ugc.WithRetryMax(3))
	srv.FailNext(1, ugctest.Stall(time.Hour))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := c.Posts(ctx, &ugc.PostsParams{Limit: 10})
		done <- err
	}()
	srv.waitArrival(t)
	cancel()
	err := await(t, done)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, context.Canceled, err) //nolint:errorlint // ctx.Err() is returned as is
	assert.Equal(t, int32(1), sig.attempts.Load(), "no retry after the cancel")
}

// answerSignal is a transport under the client that counts attempts and
// reports each answer as the client receives it.
type answerSignal struct {
	next     http.RoundTripper
	attempts atomic.Int32
	answered chan int // status codes, buffered
}

func newAnswerSignal() *answerSignal {
	return &answerSignal{next: http.DefaultTransport.(*http.Transport).Clone(), answered: make(chan int, 16)}
}

func (a *answerSignal) RoundTrip(req *http.Request) (*http.Response, error) {
	a.attempts.Add(1)
	resp, err := a.next.RoundTrip(req)
	if err == nil {
		a.answered <- resp.StatusCode
	}
	return resp, err
}

func TestCancelEndsTheWaitBetweenAttempts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		fault ugctest.Fault
		wait  []ugc.Option
		want  int
	}{
		// Exponential backoff of at least an hour.
		{"500, backoff of an hour", ugctest.InternalError(), []ugc.Option{ugc.WithRetryWait(time.Hour, time.Hour)}, http.StatusInternalServerError},
		// No backoff of its own, but the server asks for an hour and the
		// throttle budget allows it: the client-wide pause is the wait.
		{"429, Retry-After of an hour", ugctest.RateLimit("3600"), []ugc.Option{ugc.WithRetryWait(0, 0), ugc.WithThrottleBudget(2 * time.Hour)}, http.StatusTooManyRequests},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newObservedServer(t, ugctest.Generate(30, 1))
			sig := newAnswerSignal()
			c := srv.client(t, append([]ugc.Option{ugc.WithHTTPClient(&http.Client{Transport: sig}), ugc.WithRetryMax(5)}, tt.wait...)...)
			srv.FailNext(1, tt.fault)

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() {
				_, err := c.Inbox(ctx, &ugc.InboxParams{Limit: 5})
				done <- err
			}()
			assert.Equal(t, tt.want, await(t, sig.answered), "the first attempt's answer")
			cancel()
			err := await(t, done)
			assert.ErrorIs(t, err, context.Canceled)
			var apiErr *ugc.APIError
			require.ErrorAs(t, err, &apiErr, "the last attempt's error is kept")
			assert.Equal(t, tt.want, apiErr.StatusCode)
			assert.Equal(t, int32(1), sig.attempts.Load(), "no second attempt")
			assert.Len(t, srv.Requests(), 1, "no second request")
		})
	}
}

// TestCancelEndsAWalkWaitingForAStalledPage: the first page comes back,
// then every later request stalls for an hour; the consumer waits for page
// two while another goroutine cancels once a stalled request has arrived.
func TestCancelEndsAWalkWaitingForAStalledPage(t *testing.T) {
	t.Parallel()
	for _, mode := range iterModes {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			// The hook runs once the first request's answer is decided and
			// before it is written: every request after it stalls.
			var h atomic.Pointer[ugctest.Handler]
			var first atomic.Bool
			srv := newObservedServer(t, ugctest.Generate(200, 2), ugctest.WithRequestHook(func(ugctest.Request) {
				if first.CompareAndSwap(false, true) {
					assert.NoError(t, h.Load().FailNext(100, ugctest.Stall(time.Hour)))
				}
			}))
			h.Store(srv.Handler)
			c := srv.client(t)

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			pageOne := make(chan struct{})
			go srv.cancelWhenStalled(ctx, cancel, pageOne)
			type result struct {
				posts int
				errs  []error
			}
			done := make(chan result, 1)
			go func() {
				var r result
				for _, err := range c.AllPosts(ctx, &ugc.PostsParams{Limit: 10}, mode.opts...) {
					if err != nil {
						r.errs = append(r.errs, err)
						continue
					}
					if r.posts++; r.posts == 10 {
						close(pageOne)
					}
				}
				done <- r
			}()
			r := await(t, done)
			assert.Equal(t, 10, r.posts, "page one only")
			require.Len(t, r.errs, 1, "one error, then stop")
			assert.Equal(t, context.Canceled, r.errs[0]) //nolint:errorlint // ctx.Err() is returned as is
		})
	}
}

// TestAttemptTimeoutRetriesAStalledAttempt: an attempt that stalls past
// WithAttemptTimeout is abandoned and retried, and the call succeeds with
// the caller's context untouched.
func TestAttemptTimeoutRetriesAStalledAttempt(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t)
	srv.FailNext(1, ugctest.Stall(time.Hour))
	// the retry must be answered within the bound: long enough for a
	// loaded machine under -race (100 ms was not, once)
	c := srv.Client(ugc.WithAttemptTimeout(time.Second), ugc.WithRetryMax(2))

	page, err := c.Posts(context.Background(), &ugc.PostsParams{Limit: 5})
	require.NoError(t, err)
	assert.Len(t, page.Nodes, 5)
	// The stalled request is logged when its handler notices the client
	// left, which may be after the retry (and, on a loaded machine under
	// -race, seconds later): compare as a set.
	require.Eventually(t, func() bool { return len(srv.Requests()) == 2 }, 30*time.Second, time.Millisecond,
		"the stalled attempt and the retry")
	var faults []ugctest.FaultKind
	for _, r := range srv.Requests() {
		faults = append(faults, r.Fault)
	}
	assert.ElementsMatch(t, []ugctest.FaultKind{ugctest.FaultStall, 0 /* none */}, faults)
}
