package ugc

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/ugcposts/ugc-go/internal/pace"
)

// TestThrottleStatsCountThrottlesPausesAndWaits: a 429 naming 30 ms, a
// 503 naming nothing, then pages: the client's counters, and the summary
// a walk makes of two snapshots.
func TestThrottleStatsCountThrottlesPausesAndWaits(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		switch n.Add(1) {
		case 1:
			w.Header().Set("X-RateLimit-Remaining", "0")
			w.Header().Set("X-RateLimit-Reset", "0.030")
			w.WriteHeader(http.StatusTooManyRequests)
		case 2:
			w.WriteHeader(http.StatusServiceUnavailable)
		default:
			fmt.Fprint(w, `{"count":0,"next":null,"nodes":[]}`)
		}
	}))
	defer srv.Close()
	c, err := NewClient(srv.URL, "k", WithRetryWait(0, 0))
	require.NoError(t, err)
	before := c.throttleStats()
	assert.Equal(t, throttleStats{}, before, "nothing before any call")

	_, err = c.Posts(context.Background(), nil)
	require.NoError(t, err)
	after := c.throttleStats()
	assert.Equal(t, int64(2), after.throttles, "the 429 and the 503")
	assert.Equal(t, int64(1), after.pauses, "the 429 named a wait; the 503 none")
	assert.GreaterOrEqual(t, after.waited, 20*time.Millisecond, "the attempt after the 429 waited for the pause")
	assert.Positive(t, after.rate, "the client caps its rate after a throttle")

	var sum WalkSummary
	sum.addThrottling(before, after)
	assert.Equal(t, 2, sum.Throttles)
	assert.Equal(t, 1, sum.Pauses)
	assert.Equal(t, after.waited, sum.QuotaWait)
	assert.Equal(t, after.rate, sum.FinalRate)
}

// TestThrottleStatsOfAConfiguredRate: a configured rate is kept to with
// its headroom, and nothing caps a client before any throttle.
func TestThrottleStatsOfAConfiguredRate(t *testing.T) {
	t.Parallel()
	c, err := NewClient("https://api.example.com", "k", WithRateLimit(20, 5))
	require.NoError(t, err)
	assert.InDelta(t, 20*(1-pace.Headroom), c.throttleStats().rate, 1e-6)
	c2, err := NewClient("https://api.example.com", "k")
	require.NoError(t, err)
	assert.Zero(t, c2.throttleStats().rate, "no rate before any throttle")
}

// TestTurnIsFreeBeforeAnyThrottle: before any throttle or rate-limit
// header, an attempt's turn costs no wait.
func TestTurnIsFreeBeforeAnyThrottle(t *testing.T) {
	t.Parallel()
	c, err := NewClient("https://api.example.com", "k")
	require.NoError(t, err)
	for range 1000 {
		ticket, d, err := c.pace.Turn(context.Background(), 0)
		require.NoError(t, err)
		require.Zero(t, d)
		c.pace.Pacer().Lost(c.pace.Clock().Now(), ticket)
	}
	assert.False(t, c.pace.Pacer().Active())
}
