package pace

import (
	"math"
	"math/rand/v2"
	"os"
	"runtime/debug"
	"time"
)

// heavy reports whether the long runs are asked for (UGC_TEST_HEAVY=1).
func heavy() bool { return os.Getenv("UGC_TEST_HEAVY") == "1" }

// sampleSize is how many generated cases a property runs: usual, or
// underRace under -race, or inHeavy in the long runs.
func sampleSize(usual, underRace, inHeavy int) int {
	switch {
	case heavy():
		return inHeavy
	case raceEnabled():
		return underRace
	}
	return usual
}

// raceEnabled reports whether the test binary was built with -race: the
// simulations run on one goroutine, so the detector has nothing to check
// in them, and they run a tenth as fast.
func raceEnabled() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}

// generatedBucket returns the walk of seed: a server that is a token
// bucket of 1 to 1,000 requests a second (log-uniform) holding 1 to 50,
// naming its wait as the seconds to its next token, as a fixed 1 to 5 s,
// or as an HTTP date 1 to 5 s ahead (to the second, so a date names a
// shorter wait than its seconds); 1 to 64 workers (more when they could
// not keep up with the quota); 0.1 to 5 ms in transit each way, plus up
// to 50 ms of jitter, as much as the bucket can absorb at its rate (a
// bucket of one cannot absorb a request that arrives early by more than
// its spacing allows); in half the cases the quota changes once,
// between 60 and 120 s in, to between half and twice its rate; and the
// client's timers wake up to 0 to 1 ms late, as Go's do (a millisecond
// late where idle, a fifth of one to three under load, on Linux).
func generatedBucket(seed uint64, length time.Duration) simCase {
	rng := rand.New(rand.NewPCG(seed, 1))
	logUniform := func(lo, hi float64) float64 { return logUniformOf(rng, lo, hi) }
	absorbable := func(rate, burst float64) float64 { // seconds of jitter
		return min(0.050, max((burst-1)/rate, 0.02/rate))
	}
	c := simCase{seed: seed, length: length}
	s := &c.server
	s.rate = math.Round(logUniform(1, 1000)*10) / 10
	s.burst = float64(1 + rng.IntN(50))
	s.retryAfter = retryAfterForm(rng.IntN(3))
	s.fixedWait = 1 + rng.IntN(5)
	c.delay = time.Duration(logUniform(100e3, 5e6))
	c.service = time.Duration(logUniform(100e3, 2e6))
	c.jitter = time.Duration(rng.Float64() * absorbable(s.rate, s.burst) * 1e9)
	c.workers = []int{1, 2, 4, 8, 16, 64}[rng.IntN(6)]
	rtt := 2*(c.delay+c.jitter/2) + c.service
	for c.workers < 64 && float64(c.workers)/rtt.Seconds() < 1.5*s.rate {
		c.workers *= 2
	}
	if rng.IntN(2) == 0 {
		s.change = time.Duration(60+rng.Float64()*60) * time.Second
		s.rate2 = math.Round(s.rate*logUniform(0.5, 2)*10) / 10
		s.burst2 = float64(1 + rng.IntN(50))
		c.jitter = min(c.jitter, time.Duration(absorbable(s.rate2, s.burst2)*1e9))
	}
	c.late = time.Duration(rng.Float64() * float64(time.Millisecond))
	return c
}

// logUniformOf returns a number from lo to hi, log-uniform, from rng.
func logUniformOf(rng *rand.Rand, lo, hi float64) float64 {
	return math.Exp(math.Log(lo) + rng.Float64()*(math.Log(hi)-math.Log(lo)))
}

// verdict is what the property says of a walk after its first throttle:
// its throttle episodes against one per 30 s (and one for a change of
// quota), and the share of the quota it used where the quota was steady
// (from the end of the first pause; after a change, from 60 s after it,
// or 150 s after a rise, which only probing finds).
type verdict struct {
	episodes, allowed int
	throughput        float64
	finalRate         float64
}

func judge(c simCase, r simResult) verdict {
	v := verdict{throughput: 1, finalRate: r.finalRate}
	if r.firstThrottle == 0 {
		return v
	}
	v.episodes = len(r.episodes)
	v.allowed = int(math.Ceil((c.length - r.resumed).Seconds() / 30))
	from, to := r.resumed, c.length
	if s := c.server; s.change > 0 {
		v.allowed++
		settle := 60 * time.Second
		if s.rate2 > s.rate {
			settle = 150 * time.Second
		}
		from = max(from, s.change+settle)
	}
	rtt := 2*(c.delay+c.jitter/2) + c.service
	demand := float64(c.workers) / rtt.Seconds()
	want := 0.0
	const step = 100 * time.Millisecond
	for t := from; t < to; t += step {
		q := c.server.quotaAt(t)
		if c.server.burstAt(t) == 1 {
			// no spare token for a request after one its timer let go
			// late: the spacing takes the timers' mean lateness
			q = 1 / (1/q + c.late.Seconds()/2)
		}
		want += min(q, demand) * step.Seconds()
	}
	v.throughput = float64(r.acceptedIn(from, to)) / want
	return v
}

// strict reports whether the walk met the property: at most one
// throttle per 30 s of walking after the first (one more for a change of
// quota), and 0.9 of the quota or more.
func (v verdict) strict() bool { return v.episodes <= v.allowed && v.throughput >= 0.9 }

// TestLearnedPaceOnGeneratedBuckets drives the Pacer, with no configured
// rate, against generated token buckets that say nothing but Retry-After
// (see generatedBucket), on a virtual clock. Every walk stays clear of a
// throttle storm (at most twice the throttles of the property, and four
// more while it learns); all but 1 in 500 use 0.7 of what the client can
// get or more (its quota, what its workers ask, and on a bucket of one
// what its timers' lateness leaves) and end at a rate within twice of the
// quota; and 90 % of the walks or more meet the property itself: at most
// one throttle per 30 s after the first, and 0.9 of the quota or more.
// (With timers on time, before they were late here, every walk met the
// first two; with them late, the learner before late requests were
// forgiven on any bucket it could not prove small had 11 of 3,000 under
// 0.7, where now 6 are under it or end far from the quota, and 90.1 %
// met the property, where now 93.9 % do.) Where the quota stays put, a
// probe whose bounds miss the last ones by no more than the jitter in
// transit moves bounds that tight found the quota where it was, and
// doubles the plateau as any probe that confirms it does: after its first
// throttle every such walk takes at most 11 (the property allows 14 in
// 7 minutes), and 90 % of them 7 or fewer (the learner before, which took
// each such probe for a new quota and began its plateaus again, took 8 or
// more in 36 % of them). 32 walks of 6 minutes by default (about 2 s of
// CPU; 16 under -race); 3,000 of 7 minutes with UGC_TEST_HEAVY=1. The log
