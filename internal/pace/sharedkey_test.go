package pace

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Several Clients that spend one API key: each has its own Pacer, and
// the server's bucket is theirs together.

// TestSharesOfAKeyAreNeverRefused gives each of 2 or 3 Pacers a share
// of a bucket's quota (WithRateLimit(q/k, b/k) against a bucket of q, b
// that says nothing but Retry-After), with shares of 2 to 10 tokens and
// as much jitter in transit as a share's spare token absorbs, 1 to 16
// workers each: the bucket never refuses a request (k streams that each
// keep to a bucket of q/k, b/k together keep to one of q, b), and the
// clients together get 0.95 of the quota or more where they ask for it.
// 20 generated keys (6 under -race; 1,000 with UGC_TEST_HEAVY=1).
func TestSharesOfAKeyAreNeverRefused(t *testing.T) {
	t.Parallel()
	cases := sampleSize(20, 6, 1000)
	for seed := range uint64(cases) {
		rng := rand.New(rand.NewPCG(seed, 40))
		k := 2 + rng.IntN(2)
		rate := math.Round(math.Exp(rng.Float64()*math.Log(1000))*10) / 10
		share := 2 + rng.IntN(9)
		// as TestConfiguredRateNeverRunsAhead, at the share's rate
		absorbed := (1 + Headroom) / (rate / float64(k)) / 2
		c := simCase{
			server:     bucketServer{rate: rate, burst: float64(k * share)},
			clients:    k,
			workers:    []int{1, 2, 8, 16}[rng.IntN(4)],
			delay:      500 * time.Microsecond,
			jitter:     time.Duration(rng.Float64() * 0.9 * absorbed * 1e9),
			service:    200 * time.Microsecond,
			length:     time.Duration(max(20, 2000/rate)) * time.Second,
			configured: rate / float64(k), configuredBurst: share, seed: seed,
		}
		r := c.run()
		require.Zero(t, r.refused, "%v: refused", c)
		rtt := 2*(c.delay+c.jitter/2) + c.service
		if demand := float64(c.workers) / rtt.Seconds(); demand > 1.2*rate/float64(k) {
			assert.GreaterOrEqual(t, float64(r.accepted)/c.length.Seconds()/rate, 0.95, "%v", c)
		}
	}
}

// TestLearnersOnOneKeyShareItWithoutAStorm drives 2 or 3 Pacers with no
// configured rate against one bucket that says nothing but Retry-After and
// holds a token for each of them or more (up to 50), at 1 to 1,000
// requests a second, with 1 to 16 workers each, for 5 minutes. Each learns the quota as its
// own, and the others' requests contradict what it learned, so they
// share it unevenly and are throttled more than one Client alone; but
// there is no throttle storm (at most 9 throttles in 30 s a client,
// where a storm has one a pause), and together they use 0.8 of the
// quota or more. The log gives the least share of an even split. 4 keys
// (2 under -race; 1,000 with UGC_TEST_HEAVY=1).
func TestLearnersOnOneKeyShareItWithoutAStorm(t *testing.T) {
	t.Parallel()
	cases := sampleSize(4, 2, 1000)
	leastShare, mostThrottles := math.Inf(1), 0.0
	for seed := range uint64(cases) {
		rng := rand.New(rand.NewPCG(seed, 41))
		k := 2 + rng.IntN(2)
		rate := math.Round(math.Exp(rng.Float64()*math.Log(1000))*10) / 10
		c := simCase{
			server:  bucketServer{rate: rate, burst: float64(k + rng.IntN(51-k)), retryAfter: retryTokenSeconds},
			clients: k,
			workers: []int{1, 2, 8, 16}[rng.IntN(4)],
			delay:   150 * time.Microsecond, jitter: 300 * time.Microsecond, service: 300 * time.Microsecond,
			length: 5 * time.Minute, seed: seed,
		}
		r := c.run()
		assert.GreaterOrEqual(t, float64(r.accepted)/c.length.Seconds()/rate, 0.8, "%v: together", c)
		for i, cr := range r.byClient {
			per30s := float64(cr.episodes) / c.length.Seconds() * 30
			assert.LessOrEqual(t, per30s, 9.0, "%v: client %d throttled %d times", c, i, cr.episodes)
			leastShare = min(leastShare, float64(cr.accepted)/c.length.Seconds()/(rate/float64(k)))
			mostThrottles = max(mostThrottles, per30s)
		}
	}
	t.Logf("the least share of an even split: %.3f; the most throttles in 30 s of a client: %.1f", leastShare, mostThrottles)
}
