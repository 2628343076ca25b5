package pace

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestTheRampsEstimateIsNearTheQuota drives the Pacer, with no configured
// rate, against generated token buckets that say nothing but Retry-After:
// 10 to 300 requests a second (log-uniform) holding 2 to 20, 1 to 16
// workers, and up to 2 ms of jitter in transit each way, as much as the
// bucket absorbs. The estimate the learner makes at the throttle that
// ends its ramp (the first after the first pause) lies within 30 % of the
// quota in every walk, and within 20 % in 90 % of them: the first phase
// (the bucket emptied at once) tells the bucket's size, from the order the
// requests were answered in when they went one at a time, and from their
// count when they did not. 400 walks (100 under -race).
func TestTheRampsEstimateIsNearTheQuota(t *testing.T) {
	t.Parallel()
	cases := 400
	if raceEnabled() {
		cases = 100
	}
	near, learned := 0, 0
	for seed := range uint64(cases) {
		rng := rand.New(rand.NewPCG(seed, 3))
		q := math.Round(math.Exp(math.Log(10)+rng.Float64()*math.Log(30))*10) / 10
		b := float64(2 + rng.IntN(19))
		c := simCase{server: bucketServer{rate: q, burst: b}, workers: []int{1, 2, 8, 16}[rng.IntN(4)],
			delay: 150 * time.Microsecond, jitter: time.Duration(rng.Float64() * min(2e-3, (b-1)/q/2) * 1e9),
			service: 300 * time.Microsecond, length: 20 * time.Second, seed: seed}
		est := 0.0
		c.trace = func(_ time.Duration, _ bool, _ time.Duration, p *Pacer) {
			if l := &p.learner; est == 0 && l.learned == 1 {
				est = l.est
			}
		}
		c.run()
		if est == 0 {
			continue
		}
		learned++
		assert.InDelta(t, 1, est/q, 0.3, "%v: the ramp's estimate %.1f", c, est)
		if math.Abs(est/q-1) <= 0.2 {
			near++
		}
	}
	assert.Greater(t, learned, cases*9/10, "walks that learned")
	assert.GreaterOrEqual(t, near, learned*9/10, "within 20 %% of the quota: %d of %d", near, learned)
	t.Logf("%d of %d estimates within 20 %% of the quota", near, learned)
}
