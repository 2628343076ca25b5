package ugc_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
)

const emptyPage = `{"count":0,"next":null,"nodes":[]}`

// throttleServer answers with what answer returns for the n-th request
// (from 1), and records when each request arrived.
type throttleServer struct {
	*httptest.Server
	mu       sync.Mutex
	arrivals []time.Time
	n        atomic.Int64
}

func newThrottleServer(t *testing.T, answer func(n int64, w http.ResponseWriter)) *throttleServer {
	t.Helper()
	s := &throttleServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		now := time.Now()
		s.mu.Lock()
		s.arrivals = append(s.arrivals, now)
		s.mu.Unlock()
		answer(s.n.Add(1), w)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *throttleServer) requests() []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.arrivals)
}

// throttle writes a 429 whose only named wait is a used-up quota's reset,
// to the millisecond.
func throttle(w http.ResponseWriter, reset time.Duration) {
	w.Header().Set("X-RateLimit-Remaining", "0")
	w.Header().Set("X-RateLimit-Reset", fmt.Sprintf("%.3f", reset.Seconds()))
	w.WriteHeader(http.StatusTooManyRequests)
	fmt.Fprint(w, `"Too many requests"`)
}

func ok(w http.ResponseWriter) { fmt.Fprint(w, emptyPage) }

// TestThrottlePausesTheWholeClient: N calls are in flight together and
// every one is answered 429 naming a wait of 200 ms. No request arrives
// before the first 429 was written plus its wait, and the retries after
// the pause do not arrive together: the client spreads them at the rate it
// then allows itself.
func TestThrottlePausesTheWholeClient(t *testing.T) {
	t.Parallel()
	const (
		n    = 6
		wait = 200 * time.Millisecond
	)
	var (
		arrived   sync.WaitGroup
		firstSent atomic.Int64 // when the first 429 was written, Unix ns
	)
	arrived.Add(n)
	srv := newThrottleServer(t, func(k int64, w http.ResponseWriter) {
		if k > n {
			ok(w)
			return
		}
		arrived.Done()
		arrived.Wait() // all n in flight together
		firstSent.CompareAndSwap(0, time.Now().UnixNano())
		throttle(w, wait)
	})
	c, err := ugc.NewClient(srv.URL, "k", ugc.WithRetryWait(0, 0))
	require.NoError(t, err)

	var calls sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		calls.Add(1)
		go func() {
			defer calls.Done()
			_, err := c.Posts(context.Background(), &ugc.PostsParams{Limit: 1})
			errs <- err
		}()
	}
	calls.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	got := srv.requests()
	require.Len(t, got, 2*n, "each call: one 429, one success")
	retries := got[n:]
	pauseEnd := time.Unix(0, firstSent.Load()).Add(wait)
	for i, at := range retries {
		assert.False(t, at.Before(pauseEnd), "retry %d arrived %v before the pause ended", i, pauseEnd.Sub(at))
	}
	// No storm: the first retry is alone in its 50 ms, and the retries
	// spread over 150 ms at least (the learned rate ramps up from what the
	// server gave, here nothing: 16 requests a second, doubling with every
	// tenth of a second of requests sent at it).
	together := 0
	for _, at := range retries {
		if at.Sub(retries[0]) < 50*time.Millisecond {
			together++
		}
	}
	assert.LessOrEqual(t, together, 2, "retries arriving with the first: %v", offsets(retries, pauseEnd))
	assert.GreaterOrEqual(t, retries[n-1].Sub(retries[0]), 150*time.Millisecond, "retries spread: %v", offsets(retries, pauseEnd))
}

func offsets(ts []time.Time, from time.Time) []time.Duration {
	out := make([]time.Duration, len(ts))
	for i, t := range ts {
		out[i] = t.Sub(from).Round(time.Millisecond)
	}
	return out
}

// TestThrottleDoesNotUseUpRetryMax: three 429s naming a wait, then a page,
// with WithRetryMax(1): the throttles are retried by time, not by count.
// TestEveryRetryCountsAgainstRetryMax: an answer is an attempt. A call
// retries throttles that name a wait, and other failures, WithRetryMax
// times in all, then ends with its last answer's error: three throttles
// in a row end a call of WithRetryMax(2) after three attempts, and a call
// of WithRetryMax(1) against a server that names 90 s waits after two
// (the test kit skips the waits), not after the throttle budget.
func TestEveryRetryCountsAgainstRetryMax(t *testing.T) {
	t.Parallel()
	t.Run("throttles and failures alike", func(t *testing.T) {
		t.Parallel()
		srv := newThrottleServer(t, func(k int64, w http.ResponseWriter) {
			switch {
			case k == 2:
				w.WriteHeader(http.StatusBadGateway)
			case k <= 3:
				throttle(w, 10*time.Millisecond)
			default:
				ok(w)
			}
		})
		c, err := ugc.NewClient(srv.URL, "k", ugc.WithRetryMax(2), ugc.WithRetryWait(0, 0))
		require.NoError(t, err)
		_, err = c.Posts(context.Background(), nil)
		var apiErr *ugc.APIError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, http.StatusTooManyRequests, apiErr.StatusCode)
		assert.Equal(t, 3, apiErr.Attempts)
		assert.Len(t, srv.requests(), 3)
	})
	t.Run("a long named wait", func(t *testing.T) {
		t.Parallel()
		srv := ugctest.NewServer(t)
		srv.FailNext(10, ugctest.RateLimit("90"))
		var attempts []ugc.AttemptInfo
		c := srv.Client(ugc.WithRetryMax(1), ugc.WithAttemptObserver(func(_ context.Context, a ugc.AttemptInfo) { attempts = append(attempts, a) }))
		_, err := c.Posts(context.Background(), nil)
		require.ErrorIs(t, err, ugc.ErrRateLimited)
		assert.Len(t, srv.Requests(), 2, "one retry, after the 90 s the fault named")
		require.Len(t, attempts, 2)
		assert.Equal(t, 90*time.Second, attempts[0].Wait)
	})
}

// TestThrottleBudgetEndsWithErrRateLimited: a server that throttles
// forever ends the call once its next wait for the quota would pass the
// throttle budget, before WithRetryMax's retries are spent, with an error that matches
// ErrRateLimited, holds the last 429, and says how long the next wait
// would have been.
func TestThrottleBudgetEndsWithErrRateLimited(t *testing.T) {
	t.Parallel()
	srv := newThrottleServer(t, func(_ int64, w http.ResponseWriter) { throttle(w, 20*time.Millisecond) })
	c, err := ugc.NewClient(srv.URL, "k", ugc.WithRetryMax(100), ugc.WithRetryWait(0, 0), ugc.WithThrottleBudget(150*time.Millisecond))
	require.NoError(t, err)
	_, err = c.Posts(context.Background(), nil)
	require.ErrorIs(t, err, ugc.ErrRateLimited)
	var te *ugc.ThrottleError
	require.ErrorAs(t, err, &te)
	var apiErr *ugc.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusTooManyRequests, apiErr.StatusCode)
	assert.Same(t, te.Err, apiErr)
	assert.Len(t, srv.requests(), apiErr.Attempts)
	// Each retry waits 20 ms at least: however slow the machine, no more
	// retries than the budget holds waits (a bound on time would be a
	// timed test).
	assert.LessOrEqual(t, apiErr.Attempts, 1+150/20, "no retry once the waits would pass the budget")
	assert.LessOrEqual(t, te.Waited, 150*time.Millisecond, "it never waited past the budget")
	assert.Greater(t, te.Waited+te.Wait, 150*time.Millisecond, "it ends when the next wait would pass the budget")
	assert.Contains(t, err.Error(), "throttle budget of 150ms spent")
}

func TestThrottleBudgetRefusesAWaitLongerThanItselfAtOnce(t *testing.T) {
	t.Parallel()
	srv := newThrottleServer(t, func(_ int64, w http.ResponseWriter) {
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprint(w, `"Down for maintenance"`)
	})
	c, err := ugc.NewClient(srv.URL, "k", ugc.WithThrottleBudget(time.Minute))
	require.NoError(t, err)
	_, err = c.Posts(context.Background(), nil)
	require.ErrorIs(t, err, ugc.ErrRateLimited, "a 503 naming a wait is a throttle")
	require.ErrorIs(t, err, ugc.ErrServer)
	var te *ugc.ThrottleError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, time.Hour, te.Wait)
	assert.Len(t, srv.requests(), 1, "no waiting for a wait beyond the budget")
}

// TestRetryBudgetBoundsRetriesInAnOutage: every answer is a 500. Forty
// calls on one client, eight at a time, each allowed four retries, make
// at most their own forty attempts plus the budget's ten retries, where
// without a budget they would make two hundred.
func TestRetryBudgetBoundsRetriesInAnOutage(t *testing.T) {
	t.Parallel()
	srv := newThrottleServer(t, func(_ int64, w http.ResponseWriter) {
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, `"Something went wrong"`)
	})
	c, err := ugc.NewClient(srv.URL, "k", ugc.WithRetryMax(4), ugc.WithRetryWait(0, 0), ugc.WithRetryBudget(10))
	require.NoError(t, err)
	var (
		wg        sync.WaitGroup
		exhausted atomic.Int64
	)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				_, err := c.Posts(context.Background(), nil)
				assert.ErrorIs(t, err, ugc.ErrServer)
				if errors.Is(err, ugc.ErrRetryBudgetExhausted) {
					exhausted.Add(1)
					var apiErr *ugc.APIError
					assert.ErrorAs(t, err, &apiErr, "the attempt's error is kept")
				}
			}
		}()
	}
	wg.Wait()
	assert.LessOrEqual(t, len(srv.requests()), 40+10)
	assert.Positive(t, exhausted.Load())
}

// TestThrottlesDoNotSpendTheRetryBudget: a budget of one retry, and a
// call answered 429 three times, then 500, then a page: the throttles are
// the quota's, not an outage, and leave the budget's retry for the 500, so
// the call succeeds on its fifth attempt (WithRetryMax(4) counts all four
// retries).
func TestThrottlesDoNotSpendTheRetryBudget(t *testing.T) {
	t.Parallel()
	srv := newThrottleServer(t, func(k int64, w http.ResponseWriter) {
		switch {
		case k <= 3:
			throttle(w, 10*time.Millisecond)
		case k == 4:
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, `"Something went wrong"`)
		default:
			ok(w)
		}
	})
	c, err := ugc.NewClient(srv.URL, "k", ugc.WithRetryMax(4), ugc.WithRetryWait(0, 0), ugc.WithRetryBudget(1))
	require.NoError(t, err)
	_, err = c.Posts(context.Background(), nil)
	require.NoError(t, err)
	assert.Len(t, srv.requests(), 5)
}

// TestRetryBudgetRefillsOnSuccess: a call that succeeds after its retries
// gives their tokens back, so a flaky but working server never drains it.
func TestRetryBudgetRefillsOnSuccess(t *testing.T) {
	t.Parallel()
	srv := newThrottleServer(t, func(k int64, w http.ResponseWriter) {
		if k%2 == 1 {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		ok(w)
	})
	c, err := ugc.NewClient(srv.URL, "k", ugc.WithRetryWait(0, 0), ugc.WithRetryBudget(1))
	require.NoError(t, err)
	for i := range 50 {
		_, err := c.Posts(context.Background(), nil)
		require.NoError(t, err, "call %d", i)
	}
}

// TestRateLimitWaitBeyondTheDeadlineFailsAtOnce: a call whose turn under
// the configured rate would come after its context's deadline is not sent
// and does not wait: it fails at once with a *ThrottleError that says how
// long its turn would have taken.
func TestRateLimitWaitBeyondTheDeadlineFailsAtOnce(t *testing.T) {
	t.Parallel()
	srv := newThrottleServer(t, func(_ int64, w http.ResponseWriter) { ok(w) })
	c, err := ugc.NewClient(srv.URL, "k", ugc.WithRateLimit(0.001, 1))
	require.NoError(t, err)
	_, err = c.Posts(context.Background(), nil)
	require.NoError(t, err, "the burst allows the first")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = c.Posts(ctx, nil)
	require.ErrorIs(t, err, ugc.ErrRateLimited)
	var te *ugc.ThrottleError
	require.ErrorAs(t, err, &te)
	assert.Greater(t, te.Wait, 16*time.Minute, "a turn 1,000 s (and the headroom) after the first")
	assert.Nil(t, te.Err, "nothing was sent")
	assert.NoError(t, ctx.Err(), "it did not wait for the deadline")
	assert.Len(t, srv.requests(), 1, "the second was never sent")
	assert.Contains(t, err.Error(), "after the context's deadline")
}

func TestRateLimitOptionsRefuseBadValues(t *testing.T) {
	t.Parallel()
	for name, opt := range map[string]ugc.Option{
		"zero rate":        ugc.WithRateLimit(0, 1),
		"negative rate":    ugc.WithRateLimit(-1, 1),
		"NaN rate":         ugc.WithRateLimit(math.NaN(), 1),
		"infinite rate":    ugc.WithRateLimit(1e300, 1),
		"a rate over 1e9":  ugc.WithRateLimit(2e9, 1),
		"a rate too low":   ugc.WithRateLimit(1e-10, 1), // its interval overflows time.Duration
		"zero burst":       ugc.WithRateLimit(1, 0),
		"negative burst":   ugc.WithRateLimit(1, -3),
		"negative budget":  ugc.WithThrottleBudget(-time.Second),
		"negative retries": ugc.WithRetryBudget(-1),
	} {
		_, err := ugc.NewClient("https://api.example.com", "k", opt)
		assert.Error(t, err, name)
	}
	_, err := ugc.NewClient("https://api.example.com", "k", ugc.WithRateLimit(1e-10, 1))
	assert.EqualError(t, err, "ugc: NewClient: WithRateLimit: need a rate from 1e-06 (a request in 11.6 days) to 1e+09 requests a second, got 1e-10")
}

// TestRateLimitTakesAHugeBurst: a burst too large to refill in a lifetime
// lets requests go as a full bucket does, without waiting, and is never
// read as a wait of years.
func TestRateLimitTakesAHugeBurst(t *testing.T) {
	t.Parallel()
	for _, burst := range []int{1 << 30, math.MaxInt / 2, math.MaxInt} {
		srv := ugctest.NewServer(t)
		var waited atomic.Int64
		c := srv.Client(ugc.WithRateLimit(5, burst), ugc.WithAttemptObserver(func(_ context.Context, i ugc.AttemptInfo) {
			waited.Add(int64(i.QuotaWait))
		}))
		for k := range 5 {
			_, err := c.Posts(context.Background(), nil)
			require.NoError(t, err, "burst %d, call %d", burst, k)
		}
		assert.Less(t, time.Duration(waited.Load()), time.Second, "burst %d: the time five calls waited for their turns", burst)
	}
}

// TestObserverAndLoggerSeeThrottlesAndPauses: the throttled attempt says
// so, with the pause it started; the attempt after it says how long it
// waited for its turn; the log has a line for each.
func TestObserverAndLoggerSeeThrottlesAndPauses(t *testing.T) {
	t.Parallel()
	srv := newThrottleServer(t, func(k int64, w http.ResponseWriter) {
		if k == 1 {
			throttle(w, 30*time.Millisecond)
			return
		}
		ok(w)
	})
	var (
		mu   sync.Mutex
		seen []ugc.AttemptInfo
		logs bytes.Buffer
	)
	c, err := ugc.NewClient(srv.URL, "k", ugc.WithRetryWait(0, 0),
		ugc.WithAttemptObserver(func(_ context.Context, a ugc.AttemptInfo) { mu.Lock(); seen = append(seen, a); mu.Unlock() }),
		ugc.WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	require.NoError(t, err)
	_, err = c.Posts(context.Background(), nil)
	require.NoError(t, err)
	require.Len(t, seen, 2)
	first, second := seen[0], seen[1]
	assert.True(t, first.Throttled)
	assert.True(t, first.Retry)
	assert.Equal(t, 30*time.Millisecond, first.Pause)
	assert.Equal(t, 30*time.Millisecond, first.Wait)
	require.NotNil(t, first.RateLimit)
	assert.Equal(t, 0, first.RateLimit.Remaining)
	assert.False(t, second.Throttled)
	assert.Positive(t, second.QuotaWait, "the second attempt waited for the pause")
	assert.Contains(t, logs.String(), `msg="ugc: throttled, the client pauses"`)
	assert.Contains(t, logs.String(), "pause=30ms")
	assert.Contains(t, logs.String(), "quota_wait=")
}

// TestResponseInfoHoldsTheQuota: the fake's quota headers reach the
// caller, read.
func TestResponseInfoHoldsTheQuota(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t, ugctest.WithQuota(100, 3))
	c := srv.Client()
	var info ugc.ResponseInfo
	_, err := c.Posts(context.Background(), &ugc.PostsParams{Limit: 2}, ugc.WithResponseInto(&info))
	require.NoError(t, err)
	require.NotNil(t, info.RateLimit)
	assert.Equal(t, ugc.RateLimit{Policy: "quota", Limit: 100, Window: time.Second, Remaining: 2, Reset: 0}, *info.RateLimit)
	assert.InDelta(t, 100, info.RateLimit.Rate(), 1e-9)
}

// TestNoThrottleStormOnTheFakesQuota walks the fake behind quotas of 150
// and 300 requests a second, bursts of 1 and 4 (each burst at one of the
// rates without UGC_TEST_HEAVY=1: the walks wait on the quota, and each
// holds one of the run's parallel slots while it waits), in every mode,
// with the default options and with WithRateLimit set to the quota: every walk is
// complete, and the 429s stay within a tenth of the requests, give or take
// one for timing (under -race on a loaded machine a rate equal to the
// quota, with no margin, meets a 429 now and then; BenchmarkQuotaWalk
// shows none).
func TestNoThrottleStormOnTheFakesQuota(t *testing.T) {
	t.Parallel()
	const posts = 600 // 26 requests at a limit of 25
	ds := ugctest.Generate(posts, 18)
	for _, rps := range []float64{150, 300} {
		for _, burst := range []int{1, 4} {
			if !heavy() && (rps == 150) != (burst == 1) {
				continue
			}
			for _, mode := range iterModes {
				for _, configured := range []bool{false, true} {
					name := fmt.Sprintf("%v/%d/%s/rate-set=%t", rps, burst, mode.name, configured)
					t.Run(name, func(t *testing.T) {
						t.Parallel()
						srv := ugctest.NewServer(t, ugctest.WithDataset(ds), ugctest.WithQuota(rps, burst), ugctest.WithRequestLogLimit(-1))
						var opts []ugc.Option
						if configured {
							opts = append(opts, ugc.WithRateLimit(rps, burst))
						}
						c := srv.Client(opts...)
						n := 0
						for _, err := range c.AllPosts(context.Background(), &ugc.PostsParams{Limit: 25}, mode.opts...) {
							require.NoError(t, err)
							n++
						}
						assert.Equal(t, posts, n)
						reqs, refused := 0, 0
						for _, r := range srv.Requests() {
							reqs++
							if r.OverQuota {
								refused++
							}
						}
						// A tenth, give or take two for timing on a loaded
						// machine under -race (3 of 28 was seen once there;
						// the benchmarks show none, rate set or not); a
						// storm is most of the requests in flight.
						assert.LessOrEqual(t, refused, max(reqs/10, 3), "429s among %d requests", reqs)
					})
				}
			}
		}
	}
}

// TestWalkSummaryCountsItsThrottles: a walk behind the fake's quota, with a
// burst smaller than the walk, is throttled or paced; its summary says so
// (throttles and pauses of the Client over the walk, the time waited, the
// rate it ended at), and a second walk's summary counts only its own.
func TestWalkSummaryCountsItsThrottles(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t, ugctest.WithDataset(ugctest.Generate(200, 3)), ugctest.WithQuota(50, 1)) // slower than any machine sends: the quota binds
	c := srv.Client()
	var first, second ugc.WalkSummary
	for _, err := range c.AllPosts(context.Background(), &ugc.PostsParams{Limit: 10}, ugc.WithSummary(&first)) {
		require.NoError(t, err)
	}
	assert.Equal(t, 200, first.Posts)
	assert.Positive(t, first.QuotaWait, "the quota showed in the summary: the walk waited for its turn")
	assert.Positive(t, first.FinalRate, "the client capped its rate from the quota's headers")
	for _, err := range c.AllPosts(context.Background(), &ugc.PostsParams{Limit: 25}, ugc.WithSummary(&second)) {
		require.NoError(t, err)
	}
	assert.LessOrEqual(t, second.Throttles, second.Requests, "a walk counts its own throttles, not the first walk's")
	assert.LessOrEqual(t, second.Pauses, second.Requests, "and its own pauses")
}

// retryAfter60 answers every request 429 with Retry-After: 60.
func retryAfter60(_ int64, w http.ResponseWriter) {
	w.Header().Set("Retry-After", "60")
	w.WriteHeader(http.StatusTooManyRequests)
	fmt.Fprint(w, `"Too many requests"`)
}

// TestACallBoundedToASecondFailsAtOnceOnAMinutesWait (issue 26): against a
// server that always answers 429 with Retry-After: 60, a call bound to a
// second, by its deadline or by its throttle budget, fails at its first
// answer with a *ThrottleError that says to wait a minute, long before
// its deadline.
func TestACallBoundedToASecondFailsAtOnceOnAMinutesWait(t *testing.T) {
	t.Parallel()
	for name, bound := range map[string]func() (context.Context, []ugc.Option){
		"deadline": func() (context.Context, []ugc.Option) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			t.Cleanup(cancel)
			return ctx, nil
		},
		"budget": func() (context.Context, []ugc.Option) {
			return context.Background(), []ugc.Option{ugc.WithThrottleBudget(time.Second)}
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := newThrottleServer(t, retryAfter60)
			c, err := ugc.NewClient(srv.URL, "k")
			require.NoError(t, err)
			ctx, opts := bound()
			_, err = c.Posts(ctx, nil, opts...)
			require.ErrorIs(t, err, ugc.ErrRateLimited)
			var te *ugc.ThrottleError
			require.ErrorAs(t, err, &te)
			assert.Equal(t, time.Minute, te.Wait)
			require.NotNil(t, te.Err)
			assert.Equal(t, http.StatusTooManyRequests, te.Err.StatusCode)
			assert.NoError(t, ctx.Err(), "it did not wait for the deadline")
			assert.Len(t, srv.requests(), 1)
		})
	}
}

// TestACallDuringAnotherCallsPauseFailsAtOnce (issue 26): one call's 429
// pauses the Client for a minute; another call, with a deadline of a
// second, sends nothing and fails at once with a *ThrottleError that says
// how long the pause lasts, which the observer sees and the log records:
// never a bare context error after a silent wait.
func TestACallDuringAnotherCallsPauseFailsAtOnce(t *testing.T) {
	t.Parallel()
	srv := newThrottleServer(t, func(k int64, w http.ResponseWriter) {
		if k == 1 {
			retryAfter60(k, w)
			return
		}
		ok(w)
	})
	var (
		mu   sync.Mutex
		seen []ugc.AttemptInfo
		logs bytes.Buffer
	)
	c, err := ugc.NewClient(srv.URL, "k",
		ugc.WithAttemptObserver(func(_ context.Context, a ugc.AttemptInfo) { mu.Lock(); seen = append(seen, a); mu.Unlock() }),
		ugc.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	require.NoError(t, err)
	_, err = c.Posts(context.Background(), nil, ugc.WithThrottleBudget(0))
	require.ErrorIs(t, err, ugc.ErrRateLimited, "the first call, which may not wait, ends at its 429")

	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, err = c.Posts(ctx, nil)
	require.ErrorIs(t, err, ugc.ErrRateLimited)
	require.NotErrorIs(t, err, context.DeadlineExceeded)
	var te *ugc.ThrottleError
	require.ErrorAs(t, err, &te)
	assert.Greater(t, te.Wait, 59*time.Second, "the pause's end")
	assert.LessOrEqual(t, te.Wait, time.Minute)
	assert.Nil(t, te.Err, "the second call sent nothing")
	assert.NoError(t, ctx.Err(), "it did not wait for the deadline")
	assert.Len(t, srv.requests(), 1, "only the first call's request")

	mu.Lock()
	defer mu.Unlock()
	require.Len(t, seen, 2)
	unsent := seen[1]
	assert.True(t, unsent.Throttled)
	assert.Zero(t, unsent.StatusCode, "not sent")
	assert.Equal(t, te.Wait, unsent.Wait)
	assert.ErrorAs(t, unsent.Err, &te)
	assert.Equal(t, 2, strings.Count(logs.String(), "outcome=throttled"), "both calls' ends are logged: %s", logs.String())
	assert.Contains(t, logs.String(), "status=0")
}

// TestThrottleBudgetGivenToACallOrWalk: WithThrottleBudget is accepted at
// every level; a call's own overrides the Client's.
func TestThrottleBudgetGivenToACallOrWalk(t *testing.T) {
	t.Parallel()
	srv := newThrottleServer(t, retryAfter60)
	c, err := ugc.NewClient(srv.URL, "k", ugc.WithThrottleBudget(time.Hour))
	require.NoError(t, err)
	_, err = c.Posts(context.Background(), nil, ugc.WithThrottleBudget(time.Second))
	var te *ugc.ThrottleError
	require.ErrorAs(t, err, &te, "the call's budget, not the Client's hour")
	assert.Equal(t, time.Second, te.Budget)
	for _, err := range c.AllPosts(context.Background(), nil, ugc.WithThrottleBudget(0)) {
		require.ErrorAs(t, err, &te, "a walk's budget holds for each of its requests")
		assert.Zero(t, te.Budget)
		break
	}
}

// rateLimitMode is a way to use a Client behind a quota: walks of every
// post, each with its options, or callers making four calls each.
type rateLimitMode struct {
	name           string
	opts           []ugc.Option
	walks, callers int
}

// rateLimitModes are the iterator's modes, two walks sharing a Client, and
// eight callers.
var rateLimitModes = []rateLimitMode{
	{"sequential", []ugc.Option{ugc.WithReadAhead(0)}, 1, 0},
	{"prefetch", nil, 1, 0},
	{"read-ahead-8", []ugc.Option{ugc.WithReadAhead(8)}, 1, 0},
	{"read-ahead-16", []ugc.Option{ugc.WithReadAhead(16)}, 1, 0},
	{"two-walks", nil, 2, 0},
	{"eight-callers", nil, 0, 8},
}

// run uses c in the mode, against a server of posts posts: each walk
// yields every post once, and each call succeeds.
func (m rateLimitMode) run(t *testing.T, c *ugc.Client, posts int) {
	var wg sync.WaitGroup
	for range m.walks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			seen := map[string]bool{}
			for p, err := range c.AllPosts(context.Background(), &ugc.PostsParams{Limit: 25}, m.opts...) {
				if !assert.NoError(t, err) {
					return
				}
				assert.False(t, seen[p.ID], "post %s came twice", p.ID)
				seen[p.ID] = true
			}
			assert.Len(t, seen, posts)
		}()
	}
	for range m.callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 4 {
				_, err := c.Posts(context.Background(), &ugc.PostsParams{Limit: 1})
				assert.NoError(t, err)
			}
		}()
	}
	wg.Wait()
}

// TestRateLimitOutlastsAServerSlowToCountItsFirstRequests: WithRateLimit(q,
// b) against the fake behind a bucket of q, b that says nothing but
// Retry-After, where the server counts the requests that come before its
// first answer four token intervals late (as one slow to start, or to take
// its first connections, does): no request is refused, in every mode, and
// every walk yields every post once. A client that refilled its bucket
// from its own sends would be four tokens ahead of the server's, which
// stayed full, and wasted its refill, until it counted them; this one
// sends its burst, then waits for the first answer to show when the
// server counted it. Generated buckets: 50 to 200 requests a second,
// bursts of 2 to 10 (a burst of one has no spare token for the jitter of
// the connections that follow: see WithRateLimit); 6 cases (about 2 s,
// sleeping), 18 with UGC_TEST_HEAVY=1. Not under the race detector, which
// slows the server in this process past what the spare token absorbs.
func TestRateLimitOutlastsAServerSlowToCountItsFirstRequests(t *testing.T) {
	if raceEnabled() {
		t.Skip("the race detector slows the server past what a spare token absorbs")
	}
	t.Parallel()
	for seed := range uint64(heavyOr(18, 6)) {
		rng := rand.New(rand.NewPCG(seed, 62))
		rps := math.Round(50 * math.Exp(rng.Float64()*math.Log(4)))
		burst := 2 + rng.IntN(9)
		mode := rateLimitModes[seed%uint64(len(rateLimitModes))]
		posts := 200 + rng.IntN(300)
		t.Run(fmt.Sprintf("seed=%d/%s/quota=%v/burst=%d/posts=%d", seed, mode.name, rps, burst, posts), func(t *testing.T) {
			t.Parallel()
			h, err := ugctest.NewHandler(ugctest.Generate(posts, seed), "k", ugctest.WithRequestLogLimit(-1),
				ugctest.WithQuotaConfig(ugctest.QuotaConfig{RPS: rps, Burst: burst, RetryAfterOnly: true}))
			require.NoError(t, err)
			var answered atomic.Bool
			late := time.Duration(4 * float64(time.Second) / rps)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if !answered.Load() {
					time.Sleep(late)
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, r)
				answered.Store(true) // before the answer leaves: the client may send the next at once
				for k, v := range rec.Header() {
					w.Header()[k] = v
				}
				w.WriteHeader(rec.Code)
				_, _ = w.Write(rec.Body.Bytes())
			}))
			t.Cleanup(srv.Close)
			c, err := ugc.NewClient(srv.URL, "k", ugc.WithRateLimit(rps, burst))
			require.NoError(t, err)
			mode.run(t, c, posts)
			reqs := h.Requests()
			var refused []time.Duration
			for _, r := range reqs {
				if r.OverQuota {
					refused = append(refused, r.Arrived.Sub(reqs[0].Arrived))
				}
			}
			assert.Empty(t, refused, "requests refused (at these times after the first was counted) of %d", len(reqs))
		})
	}
}

// TestRateLimitOutlastsJitterInTransit: WithRateLimit(q, b) against the
// fake behind a quota of q, b that says nothing but Retry-After, on a way
// in that holds each request at random for up to three of the quota's
// intervals before the server counts it (more than the spare token
// absorbs), in every mode: every post comes once, and the server refuses
// nothing where its burst has a token to spare; with a burst of one, at
// most one request, whose round trip came quicker than the margin allows
// (see WithRateLimit; once in 18 walks on a loaded machine). 6 generated
// cases of 50 to 200 requests a second, bursts of 1 to 5 (18 with
// UGC_TEST_HEAVY=1).
func TestRateLimitOutlastsJitterInTransit(t *testing.T) {
	if raceEnabled() {
		t.Skip("the race detector slows the server past what the round trips showed")
	}
	t.Parallel()
	for seed := range uint64(heavyOr(18, 6)) {
		c := newJitterCase(seed, 63, seed)
		t.Run(c.String(), func(t *testing.T) {
			t.Parallel()
			refused, requests := c.walk(t, true, ugc.WithRateLimit(c.rps, c.burst))
			if c.burst > 1 {
				assert.Zero(t, refused, "requests refused, of %d", requests)
			}
			assert.LessOrEqual(t, refused, 1, "requests refused, of %d", requests)
		})
	}
}

// TestAnnouncedQuotaOutlastsJitterInTransit: the default options against
// the fake behind a quota that tells its state in rate-limit headers (its
// default), on a way in that holds each request at random for up to three
// of the quota's intervals before the server counts it, in every mode:
// every post comes once, and the server refuses none of the requests the
// client sent once it knew the quota; of those sent before (a walk's
// first, each of eight callers'), as many as the burst has no token for,
// and, with a burst of one, one more (see WithRateLimit). Under load, a
// client that took the announced quota without the round trips' jitter
// met a 429 in one walk of 20 (TestNoThrottleStormOnTheFakesQuota with
// -race beside three busy cores). 3 generated cases of 50 to 200 requests
// a second, bursts of 1 to 5 (18 with UGC_TEST_HEAVY=1).
func TestAnnouncedQuotaOutlastsJitterInTransit(t *testing.T) {
	if raceEnabled() {
		t.Skip("the race detector slows the server past what the round trips showed")
	}
	t.Parallel()
	for seed := range uint64(heavyOr(18, 3)) {
		c := newJitterCase(seed, 64, seed+3)
		t.Run(c.String(), func(t *testing.T) {
			t.Parallel()
			refused, requests := c.walk(t, false)
			unpaced := max(c.mode.walks+c.mode.callers-c.burst, 0) // sent together, before any answer
			if c.burst == 1 {
				unpaced++
			}
			assert.LessOrEqual(t, refused, unpaced, "requests refused, of %d", requests)
		})
	}
}

// jitterCase is a generated walk for the jitter tests: a quota of 50 to 200
// requests a second, bursts of 1 to 5, on a way in that holds each request
// at random for up to three of the quota's intervals before the server
// counts it, in one of rateLimitModes, over 200 to 500 posts.
type jitterCase struct {
	seed   uint64
	rps    float64
	burst  int
	jitter time.Duration
	mode   rateLimitMode
	posts  int
}

// newJitterCase generates the case of seed from the random stream, in the
// mode modeIndex picks.
func newJitterCase(seed, stream, modeIndex uint64) jitterCase {
	rng := rand.New(rand.NewPCG(seed, stream))
	c := jitterCase{seed: seed, rps: math.Round(50 * math.Exp(rng.Float64()*math.Log(4))), burst: 1 + rng.IntN(5)}
	c.jitter = time.Duration(rng.Float64() * 3 * float64(time.Second) / c.rps)
	c.mode = rateLimitModes[modeIndex%uint64(len(rateLimitModes))]
	c.posts = 200 + rng.IntN(300)
	return c
}

func (c jitterCase) String() string {
	return fmt.Sprintf("seed=%d/%s/quota=%v/burst=%d/jitter=%v/posts=%d", c.seed, c.mode.name, c.rps, c.burst, c.jitter.Round(time.Microsecond), c.posts)
}

// walk runs the case against the fake behind the quota, which says nothing
// but Retry-After when retryAfterOnly, and otherwise tells its state in
// rate-limit headers, with a Client of opts; it returns the requests the
// quota refused, and all the server took.
func (c jitterCase) walk(t *testing.T, retryAfterOnly bool, opts ...ugc.Option) (refused, requests int) {
	h, err := ugctest.NewHandler(ugctest.Generate(c.posts, c.seed), "k", ugctest.WithRequestLogLimit(-1),
		ugctest.WithQuotaConfig(ugctest.QuotaConfig{RPS: c.rps, Burst: c.burst, RetryAfterOnly: retryAfterOnly}))
	require.NoError(t, err)
	srv := httptest.NewServer(jittered(h, c.jitter, c.seed))
	t.Cleanup(srv.Close)
	client, err := ugc.NewClient(srv.URL, "k", opts...)
	require.NoError(t, err)
	c.mode.run(t, client, c.posts)
	reqs := h.Requests()
	for _, r := range reqs {
		if r.OverQuota {
			refused++
		}
	}
	return refused, len(reqs)
}

// TestKitClientsWaitForTheFirstAnswerInRealTime: a test kit's client skips
// the waits a server names on its virtual clock, but the wait for the
// first answer under WithRateLimit is none: of four calls at once, past a
// burst of one, none reaches the server before the first call's answer
// was decided there, 20 ms after it came (the server's own clock).
// Skipped, the hold would let them go at once and report a second of
// quota wait. (The quota waits a
// kit client reports are on its virtual clock: they include the pacing it
// skipped, which on a loaded machine, with round trips of hundreds of
// milliseconds taken for jitter to make room for, added up to 0.85 s
// where the calls took 0.38; so the server's log is the test, not them.)
func TestKitClientsWaitForTheFirstAnswerInRealTime(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t, ugctest.WithLatency(20*time.Millisecond))
	c := srv.Client(ugc.WithRateLimit(1000, 2))
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.Posts(context.Background(), &ugc.PostsParams{Limit: 1})
			assert.NoError(t, err)
		}()
	}
	wg.Wait()
	reqs := srv.Requests()
	require.Len(t, reqs, 4)
	first := reqs[0]
	for _, r := range reqs[1:] {
		if r.Arrived.Before(first.Arrived) {
			first = r
		}
	}
	answered := first.Arrived.Add(first.Duration)
	for _, r := range reqs {
		if r.ID != first.ID {
			assert.False(t, r.Arrived.Before(answered), "a request arrived %v before the first answer was decided", answered.Sub(r.Arrived))
		}
	}
}

// TestAHandlerIsToldTheTrueWait: a 429 naming two seconds pauses the
// Client, and the call it answered waits in line for the pause's end. 200
// handler calls that may wait 300 ms are each refused at once, each told
// the true wait: the pause, and the requests still in line before it (a
// caller that leaves holds no place in line, so the wait told does not
// grow by an interval per caller gone before). They call eight at a time,
// so that no more than eight are in line however the scheduler runs them. Five patient calls
// (5 s) that come after them go when the pause ends. It takes the two
// seconds of the pause.
func TestAHandlerIsToldTheTrueWait(t *testing.T) {
	t.Parallel()
	srv := newThrottleServer(t, func(k int64, w http.ResponseWriter) {
		if k == 1 {
			throttle(w, 2*time.Second)
			return
		}
		ok(w)
	})
	paused := make(chan struct{})
	var once sync.Once
	c, err := ugc.NewClient(srv.URL, "k", ugc.WithRetryWait(0, 0),
		ugc.WithAttemptObserver(func(_ context.Context, a ugc.AttemptInfo) {
			if a.Throttled {
				once.Do(func() { close(paused) }) // the Client has taken the throttle
			}
		}))
	require.NoError(t, err)
	first := make(chan error, 1)
	go func() { _, err := c.Posts(context.Background(), nil); first <- err }()
	select {
	case <-paused:
	case <-time.After(10 * time.Second):
		require.FailNow(t, "the first call's 429 was not observed")
	}
	var wg sync.WaitGroup
	for range 8 { // 200 calls, eight at a time
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 25 {
				_, err := c.Posts(context.Background(), nil, ugc.WithThrottleBudget(300*time.Millisecond))
				var te *ugc.ThrottleError
				if assert.ErrorAs(t, err, &te) {
					// the pause, and at the rate the Client ramps up
					// from (16 a second) the retry and the seven other
					// callers that may be in line before it
					assert.LessOrEqual(t, te.Wait, 2*time.Second+9*time.Second/16, "however many left before")
				}
			}
		}()
	}
	wg.Wait()
	for range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.Posts(context.Background(), nil, ugc.WithThrottleBudget(5*time.Second))
			assert.NoError(t, err)
		}()
	}
	wg.Wait()
	require.NoError(t, <-first)
}

// TestOneAnswerCannotPauseAClientForADay: a 429 whose Retry-After names a
// day (86400000 s, read as a day at most) pauses the Client for
// WithMaxPause only. Calls that meet the pause fail at once, told the day;
// one whose budget holds the day waits out the bound, and the Client asks
// the server again, which now answers; later calls go. The test kit skips
// the waits.
func TestOneAnswerCannotPauseAClientForADay(t *testing.T) {
	t.Parallel()
	for _, retryAfter := range []string{"86400000", "Fri, 31 Dec 9999 23:59:59 GMT"} {
		srv := ugctest.NewServer(t)
		srv.FailNext(1, ugctest.RateLimit(retryAfter))
		c := srv.Client(ugc.WithMaxPause(time.Minute))
		_, err := c.Posts(context.Background(), nil)
		var te *ugc.ThrottleError
		require.ErrorAs(t, err, &te, "Retry-After: %s", retryAfter)
		assert.Equal(t, 24*time.Hour, te.Wait)

		_, err = c.Posts(context.Background(), nil)
		require.ErrorAs(t, err, &te, "a call that meets the pause")
		assert.Greater(t, te.Wait, time.Hour, "told the wait the server named")
		assert.Len(t, srv.Requests(), 1, "and sent nothing")

		_, err = c.Posts(context.Background(), nil, ugc.WithThrottleBudget(25*time.Hour))
		require.NoError(t, err, "the bound passed: the Client asked again")
		_, err = c.Posts(context.Background(), nil)
		require.NoError(t, err, "and goes on")
		assert.Len(t, srv.Requests(), 3)
	}
}
