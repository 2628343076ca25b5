package ugctest_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
)

// attempts records what an AttemptObserver saw.
type attempts struct {
	mu  sync.Mutex
	all []ugc.AttemptInfo
}

func (a *attempts) observe(_ context.Context, info ugc.AttemptInfo) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.all = append(a.all, info)
}

func (a *attempts) list() []ugc.AttemptInfo {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]ugc.AttemptInfo(nil), a.all...)
}

// TestUgctest_A429PathRecoversWithoutWaiting is a downstream team's test of
// its 429 path: the server throttles twice naming a second each time, and
// the client recovers, as it would in production, reporting the pauses
// the server named; the test kit's client skips them instead of sleeping
// (BenchmarkUgctest429Path times it: well under 100 ms).
func TestUgctest_A429PathRecoversWithoutWaiting(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t)
	srv.FailNext(2, ugctest.RateLimit("1"))
	var seen attempts
	c := srv.Client(ugc.WithAttemptObserver(seen.observe))
	page, err := c.Posts(t.Context(), &ugc.PostsParams{Limit: 5})
	require.NoError(t, err)
	assert.Len(t, page.Nodes, 5)
	all := seen.list()
	require.Len(t, all, 3)
	for _, a := range all[:2] {
		assert.True(t, a.Throttled)
		assert.Equal(t, time.Second, a.Pause, "the pause the server named")
	}
	// each wait runs from after its throttle's answer to the end of the
	// pause it named: a second less the time the answer took to read
	assert.InDelta(t, 2*time.Second, all[1].QuotaWait+all[2].QuotaWait, float64(50*time.Millisecond), "in the time the fault named")
}

// TestUgctest_AThrottleBeyondTheBudgetFailsAtOnce: a handler's call with a
// throttle budget of a second, against a server that says Retry-After: 60,
// ends with a *ThrottleError that says to wait a minute.
func TestUgctest_AThrottleBeyondTheBudgetFailsAtOnce(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t)
	srv.FailNext(1, ugctest.RateLimit("60"))
	_, err := srv.Client().Posts(t.Context(), nil, ugc.WithThrottleBudget(time.Second))
	var te *ugc.ThrottleError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, time.Minute, te.Wait)
}

// TestUgctestStallShorterThanTheAttemptIsItsAnswer: a stall of ten seconds
// against an attempt timeout of thirty is answered, at once.
func TestUgctestStallShorterThanTheAttemptIsItsAnswer(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t)
	srv.FailNext(1, ugctest.Stall(10*time.Second))
	var seen attempts
	_, err := srv.Client(ugc.WithAttemptObserver(seen.observe)).Posts(t.Context(), nil)
	require.NoError(t, err)
	assert.Len(t, seen.list(), 1, "one attempt: the stall was its answer")
	assert.Empty(t, srv.Requests()[0].Header.Get("Ugctest-Kit"), "the kit's mark is not in the log")
}

// TestUgctestStallLongerThanTheAttemptTimesItOut: a stall of a minute
// against an attempt timeout of thirty seconds ends the attempt as its
// timeout would, at once; the retry is answered.
func TestUgctestStallLongerThanTheAttemptTimesItOut(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t)
	srv.FailNext(1, ugctest.Stall(time.Minute))
	var seen attempts
	_, err := srv.Client(ugc.WithAttemptObserver(seen.observe), ugc.WithAttemptTimeout(30*time.Second)).Posts(t.Context(), nil)
	require.NoError(t, err)
	all := seen.list()
	require.Len(t, all, 2)
	assert.True(t, errors.Is(all[0].Err, context.DeadlineExceeded), "the first attempt timed out: %v", all[0].Err)
	assert.True(t, all[0].Retry)
}

// TestUgctestStallOutlastingTheCallersDeadline: a caller's own deadline,
// shorter than a stall, still ends the call with the context's error. (The
// deadline leaves the request time to reach the server under -race on a
// loaded machine: at 20 ms it once ended before, and the stall never fired.)
func TestUgctestStallOutlastingTheCallersDeadline(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t)
	srv.FailNext(1, ugctest.Stall(time.Minute))
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	_, err := srv.Client(ugc.WithRetryMax(0)).Posts(ctx, nil)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

// BenchmarkUgctest429Path is TestUgctest_A429PathRecoversWithoutWaiting's
// path: two 429s naming a second each, then the page. Its time is the
// test's.
func BenchmarkUgctest429Path(b *testing.B) {
	for b.Loop() {
		srv := ugctest.NewServer(b)
		srv.FailNext(2, ugctest.RateLimit("1"))
		if _, err := srv.Client().Posts(context.Background(), &ugc.PostsParams{Limit: 5}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestUgctestStallCostsWhatServerClientSays pins Server.Client's doc: a
// stall that outlasts an attempt with more than a second left ends it at
// once (far less than the thirty seconds it names), and one that outlasts
// a caller's deadline with a second or less left is waited out until that
// deadline, in real time, and ends the call with the caller's deadline.
func TestUgctestStallCostsWhatServerClientSays(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t)
	srv.FailNext(1, ugctest.Stall(time.Hour))
	start := time.Now()
	_, err := srv.Client(ugc.WithRetryMax(0), ugc.WithAttemptTimeout(30*time.Second)).Posts(t.Context(), nil)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 15*time.Second, "not the attempt's thirty seconds")

	const deadline = 300 * time.Millisecond
	srv.FailNext(1, ugctest.Stall(time.Hour))
	ctx, cancel := context.WithTimeout(t.Context(), deadline)
	defer cancel()
	start = time.Now()
	_, err = srv.Client(ugc.WithRetryMax(0)).Posts(ctx, nil)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.NotErrorIs(t, err, ugc.ErrAttemptTimeout, "the caller's deadline")
	assert.GreaterOrEqual(t, time.Since(start), deadline, "waited out until the deadline")
}

// TestUgctest_AFaultsPauseIsSkippedUnderAQuota: a fault's named wait costs
// no real time under a quota the test asked for either: the retry after
// RateLimit("2") reaches the server milliseconds after the throttle, not
// two seconds (a bound of a second, far from both).
func TestUgctest_AFaultsPauseIsSkippedUnderAQuota(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t, ugctest.WithQuota(1000, 10))
	srv.FailNext(1, ugctest.RateLimit("2"))
	var seen attempts
	_, err := srv.Client(ugc.WithAttemptObserver(seen.observe)).Posts(t.Context(), nil)
	require.NoError(t, err)
	all := seen.list()
	require.Len(t, all, 2)
	assert.Equal(t, 2*time.Second, all[0].Pause, "reported in the time the fault named")
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	assert.Less(t, reqs[1].Arrived.Sub(reqs[0].Arrived), time.Second, "the retry did not wait the two seconds")
}
