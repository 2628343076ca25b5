package pace

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestJitterOnABucketOfOneKeepsTheRate drives the Pacer, with no
// configured rate, against generated buckets of one that say nothing but
// Retry-After: 10 to 300 requests a second (log-uniform), 1 to 16
// workers, up to 2 ms of jitter in transit each way, evenly spread, or in
// half the walks in spikes, as on a loopback (1 to 5 % of the transits
// take up to all of it, the others a twentieth). A bucket of one allows
// q ÷ (1 + q × jitter) with no refusal at all, and a refusal the jitter
// caused is taken as a refusal alone: the rate at the end of 3 minutes
// is 0.85 of that or more in every walk (a refusal learned from as an
// overshoot could put it at a quarter); after the first 30 s every walk
// takes at most two throttles per 30 s (and two more), and 90 % of them
// one (and one more): the learner before took more in 15 % of them.
// 24 walks (12 under -race, 400 with UGC_TEST_HEAVY=1).
func TestJitterOnABucketOfOneKeepsTheRate(t *testing.T) {
	t.Parallel()
	cases := sampleSize(24, 12, 400)
	const length, learning = 3 * time.Minute, 30 * time.Second
	allowed := int((length - learning) / (30 * time.Second))
	within := 0
	for seed := range uint64(cases) {
		rng := rand.New(rand.NewPCG(seed, 11))
		q := math.Round(math.Exp(math.Log(10)+rng.Float64()*math.Log(30))*10) / 10
		c := simCase{server: bucketServer{rate: q, burst: 1}, workers: []int{1, 2, 8, 16}[rng.IntN(4)],
			delay: 150 * time.Microsecond, jitter: time.Duration(rng.Float64() * 2e6), service: 300 * time.Microsecond,
			length: length, seed: seed}
		if rng.IntN(2) == 0 {
			c.spikes = 0.01 + rng.Float64()*0.04
		}
		r := c.run()
		require.NotZero(t, r.firstThrottle, "%v: never throttled", c)
		ceiling := q / (1 + q*c.jitter.Seconds())
		assert.GreaterOrEqual(t, r.finalRate, 0.85*ceiling, "%v: final rate %.1f against %.1f (%.1f with the jitter)", c, r.finalRate, q, ceiling)
		episodes := 0
		for _, at := range r.episodes {
			if at >= learning {
				episodes++
			}
		}
		assert.LessOrEqual(t, episodes, 2*allowed+2, "%v: a throttle storm", c)
		if episodes <= allowed+1 {
			within++
		}
	}
	assert.GreaterOrEqual(t, within, cases*9/10, "walks with at most one throttle per 30 s and one more")
	t.Logf("%d of %d walks with at most one throttle per 30 s after the first 30 s, and one more", within, cases)
}
