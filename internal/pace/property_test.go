package pace

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The properties of the pacing over generated servers, each run in the
// simulation (sim_test.go): a case of minutes of traffic runs in
// milliseconds. The learned pacing is measured beside the reference,
// TCP CUBIC as the AWS SDKs run it (cubic_test.go); TestAB writes the
// table of BENCHMARKS.md.

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
	perMinute         float64 // episodes a minute after the first throttle
}

func judge(c simCase, r simResult) verdict {
	v := verdict{throughput: 1, finalRate: r.finalRate}
	if r.firstThrottle == 0 {
		return v
	}
	v.episodes = len(r.episodes)
	v.perMinute = float64(v.episodes) / max(c.length-r.resumed, time.Second).Minutes()
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

// cubic returns c with the reference pacing in place of the Pacer.
func cubic(c simCase) simCase {
	c.pacer = func() simPacer { return &cubicPacer{} }
	return c
}

// generatedShares runs n generated walks of length, learned and with the
// reference, and returns each one's verdict.
func generatedShares(n int, length time.Duration) (learned, reference []verdict) {
	learned, reference = make([]verdict, n), make([]verdict, n)
	var wg sync.WaitGroup
	for shard := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := shard; i < n; i += 4 {
				c := generatedBucket(uint64(i+1), length)
				learned[i] = judge(c, c.run())
				ref := cubic(c)
				reference[i] = judge(ref, ref.run())
			}
		}()
	}
	wg.Wait()
	return learned, reference
}

// shareSummary is what a row of verdicts says: the mean share of the
// quota and its tenth percentile, and the mean 429 episodes a minute
// after the first.
type shareSummary struct{ mean, p10, perMinute float64 }

func summarize(vs []verdict) shareSummary {
	var s shareSummary
	shares := make([]float64, len(vs))
	for i, v := range vs {
		shares[i] = v.throughput
		s.mean += v.throughput / float64(len(vs))
		s.perMinute += v.perMinute / float64(len(vs))
	}
	slices.Sort(shares)
	s.p10 = shares[len(shares)/10]
	return s
}

// TestLearnedPaceOnGeneratedBuckets drives the Pacer, with no configured
// rate, against generated token buckets that say nothing but Retry-After
// (see generatedBucket), beside the reference on the same buckets. No walk
// storms (at most twice the throttles of one every 30 s, and four more
// while it learns); the walks use 0.93 of the quota or more on average,
// and nine in ten 0.85 or more; and the learned pacing is ahead of the
// reference in the share it uses and in the throttles it takes. 32 walks
// of 7 minutes (16 under -race, too few for a tenth percentile); 1,000
// with UGC_TEST_HEAVY=1.
func TestLearnedPaceOnGeneratedBuckets(t *testing.T) {
	t.Parallel()
	learned, reference := generatedShares(sampleSize(32, 16, 1000), 7*time.Minute)
	for i, v := range learned {
		assert.LessOrEqual(t, v.episodes, 2*v.allowed+4, "%v: a throttle storm", generatedBucket(uint64(i+1), 0))
	}
	l, r := summarize(learned), summarize(reference)
	t.Logf("learned: %.3f of the quota on average, %.3f at the tenth percentile, %.2f 429s a minute", l.mean, l.p10, l.perMinute)
	t.Logf("CUBIC:   %.3f of the quota on average, %.3f at the tenth percentile, %.2f 429s a minute", r.mean, r.p10, r.perMinute)
	assert.GreaterOrEqual(t, l.mean, 0.93)
	if len(learned) >= 30 { // a tenth percentile of fewer is one walk's share
		assert.GreaterOrEqual(t, l.p10, 0.85)
	}
	assert.Greater(t, l.mean, r.mean, "ahead of the reference's share")
	assert.Less(t, l.perMinute, r.perMinute, "ahead of the reference's throttles")
}

// riseFound returns how long after its rise the walk of seed, on a
// generated bucket whose quota rises tenfold 100 s in (Retry-After: the
// seconds to the next token, one), took to use 0.8 of the new quota over
// five seconds (of what its timers leave a bucket of one: see judge);
// 240 s where it never did. ref runs the reference instead.
func riseFound(seed uint64, ref bool) time.Duration {
	c := generatedBucket(seed, 0)
	s := &c.server
	rng := rand.New(rand.NewPCG(seed, 77))
	s.rate = math.Round(logUniformOf(rng, 1, 100)*10) / 10
	s.change, s.rate2, s.burst2 = 100*time.Second, 10*s.rate, s.burst
	s.retryAfter = retryTokenSeconds
	c.length = s.change + 4*time.Minute
	rtt := 2*(c.delay+c.jitter/2) + c.service
	for c.workers = 1; float64(c.workers)/rtt.Seconds() < 1.5*s.rate2 && c.workers < 1024; c.workers *= 2 {
	}
	c.jitter = min(c.jitter, time.Duration(min(0.050, max((s.burst-1)/s.rate2, 0.02/s.rate2))*1e9))
	if ref {
		c = cubic(c)
	}
	r := c.run()
	want := s.rate2
	if s.burst2 == 1 {
		want = 1 / (1/want + c.late.Seconds()/2)
	}
	for from := s.change; from+5*time.Second <= c.length; from += time.Second {
		if float64(r.acceptedIn(from, from+5*time.Second)) >= 0.8*5*want {
			return from - s.change
		}
	}
	return c.length - s.change
}

// TestARiseIsFoundWithinAMinute: on generated buckets (1 to 50 tokens,
// 1 to 100 requests a second) whose quota rises tenfold, the walk uses
// the new quota (0.8 of it over 5 s) within a minute in 19 buckets of 20
// or more, a bucket of one included; the log lists the others. They are
// buckets whose size the phases leave open: the learner keeps to the
// smallest size kept, and a bucket of one loses to each late timer at
// hundreds of requests a second, or, held for each answer, to the round
// trips' spread where it is a third of the interval or more. 20 buckets (8
// under -race); 400 with UGC_TEST_HEAVY=1.
func TestARiseIsFoundWithinAMinute(t *testing.T) {
	t.Parallel()
	cases, late := sampleSize(20, 8, 400), 0
	for seed := range uint64(cases) {
		if found := riseFound(seed+1, false); found > time.Minute {
			late++
			t.Logf("%v: the rise used after %v", generatedBucket(seed+1, 0), found)
		}
	}
	assert.LessOrEqual(t, late, cases/20, "buckets whose rise took more than a minute, of %d", cases)
}

// serviceLatencies returns the latencies of a service's calls near its
// quota, in walks of seeds 1 to n: 4 calls a second, at random, against a
// bucket of 5 a second holding 5, for 10 minutes; ref runs the reference.
func serviceLatencies(n int, ref bool) (median, p99 []time.Duration) {
	for seed := range uint64(n) {
		c := simCase{seed: seed + 1, length: 10 * time.Minute, calls: 4,
			delay: 5 * time.Millisecond, jitter: 2 * time.Millisecond, service: 5 * time.Millisecond, late: 500 * time.Microsecond,
			server: bucketServer{rate: 5, burst: 5, retryAfter: retryTokenSeconds}}
		if ref {
			c = cubic(c)
		}
		l := c.run().latencies
		slices.Sort(l)
		median, p99 = append(median, l[len(l)/2]), append(p99, l[len(l)*99/100])
	}
	slices.Sort(median)
	slices.Sort(p99)
	return median, p99
}

// TestAServiceNearItsQuotaGoesTogether: a service makes 4 calls a second
// at random against a quota of 5 a second in bursts of 5. The bucket the
// Client learns holds several tokens, so calls that come together go
// together: the median call takes no longer than its round trip and a
// third more, and the calls' latencies are no worse than the reference's.
func TestAServiceNearItsQuotaGoesTogether(t *testing.T) {
	t.Parallel()
	n := sampleSize(4, 2, 40)
	median, p99 := serviceLatencies(n, false)
	refMedian, refP99 := serviceLatencies(n, true)
	t.Logf("median %v, p99 %v; the reference's %v, %v", median[n/2], p99[n/2], refMedian[n/2], refP99[n/2])
	assert.LessOrEqual(t, median[n/2], 20*time.Millisecond, "a round trip (15 ms) and a third")
	assert.LessOrEqual(t, median[n/2], refMedian[n/2]+time.Millisecond)
	assert.LessOrEqual(t, p99[n/2], refP99[n/2])
}

// TestPhaseBoundsHoldTheTruth: for generated token buckets, and
// generated sendings (bursts and rates above and under the quota, after
// pauses), the rates that explain each phase, with the bucket's true size,
// hold its true rate: lo ≤ r < hi where each request reached the bucket
// as it was sent, and lo ≤ r where each reached it up to the jitter
// later. 2,000 phases (20,000 with UGC_TEST_HEAVY=1).
func TestPhaseBoundsHoldTheTruth(t *testing.T) {
	t.Parallel()
	for seed := range uint64(sampleSize(2000, 500, 20000)) {
		rng := rand.New(rand.NewPCG(seed, 91))
		rate := logUniformOf(rng, 1, 1000)
		size := float64(1 + rng.IntN(50))
		jitter := 0.0
		if seed%2 == 1 {
			jitter = rng.Float64() * 5 / rate
		}
		s, ok := generatedPhase(rng, rate, size, jitter)
		if !ok {
			continue
		}
		lo, hi, _ := s.rates(size)
		assert.LessOrEqual(t, lo, rate*(1+1e-3), "seed %d: %v tokens at %v a second, jitter %v s: lo", seed, size, rate, jitter)
		if jitter == 0 {
			assert.Greater(t, hi, rate*(1-1e-3), "seed %d: %v tokens at %v a second: hi", seed, size, rate)
		}
	}
}

// generatedPhase sends requests from rng to a token bucket of rate a
// second holding size, each reaching it up to jitter seconds after it was
// sent, and returns the phase that ends at the first refused: from full
// at the first request, or from an anchor (a first refusal) and a pause.
// The bucket takes the requests in the order they reach it. It reports
// false when none was refused.
func generatedPhase(rng *rand.Rand, rate, size, jitter float64) (span, bool) {
	type request struct{ sent, arrived float64 }
	var reqs []request
	at := 0.0
	send := func(n int) {
		for range n {
			gap := rng.ExpFloat64() / (rate * logUniformOf(rng, 0.3, 5))
			if rng.IntN(10) == 0 {
				gap = 0 // a burst
			}
			at += gap
			reqs = append(reqs, request{at, at + rng.Float64()*jitter})
		}
	}
	send(2000)
	anchored := rng.IntN(2) == 0
	if anchored {
		at += logUniformOf(rng, 0.1, 5) / rate * size // a pause after the first refusal
		send(2000)
	}
	order := make([]int, len(reqs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmpFloat(reqs[a].arrived, reqs[b].arrived) })
	accepted := make([]bool, len(reqs))
	tokens, last := size, 0.0
	for _, i := range order {
		tokens = min(size, tokens+rate*(reqs[i].arrived-last))
		last = reqs[i].arrived
		if accepted[i] = tokens >= 1; accepted[i] {
			tokens--
		}
	}
	var refusals []int // in the order they came
	for _, i := range order {
		if !accepted[i] {
			refusals = append(refusals, i)
		}
	}
	from := -1
	if anchored && len(refusals) > 0 {
		from = refusals[0]
		refusals = slices.DeleteFunc(refusals, func(i int) bool { return reqs[i].sent <= reqs[from].sent+jitter })
	}
	if len(refusals) == 0 {
		return span{}, false
	}
	var l learner // the phase as the learner takes it from its records
	for i, r := range reqs {
		k := l.record(simEpoch.Add(time.Duration(r.sent*float64(time.Second))), false)
		l.rec(k).accepted, l.rec(k).refused = accepted[i], !accepted[i]
	}
	sp := l.span(from, refusals[0], jitter)
	return sp, len(sp.recs) > 1
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestALearnedQuotaFollowsAChange: a quota that falls to a fifth mid-walk
// (50 to 10 a second, 10 tokens, Retry-After one second) costs throttles
// for a few seconds, then none beyond a probe every 30 s; one that rises
// fivefold is used within a minute.
func TestALearnedQuotaFollowsAChange(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ from, to float64 }{{50, 10}, {10, 50}} {
		c := simCase{seed: 1, length: 3 * time.Minute, workers: 16, delay: time.Millisecond, jitter: 200 * time.Microsecond, service: time.Millisecond, late: 300 * time.Microsecond,
			server: bucketServer{rate: tc.from, burst: 10, rate2: tc.to, burst2: 10, change: time.Minute, retryAfter: retryTokenSeconds}}
		r := c.run()
		after := 0
		for _, e := range r.episodes {
			if e > c.server.change+20*time.Second {
				after++
			}
		}
		assert.LessOrEqual(t, after, 5, "%v: throttles from 20 s after the change", c)
		from := c.server.change + time.Minute
		assert.GreaterOrEqual(t, float64(r.acceptedIn(from, c.length))/(c.length-from).Seconds(), 0.85*tc.to, "%v: the new quota used", c)
	}
}

// TestConfiguredRateNeverRunsAhead sets the Pacer's rate to a bucket's own
// (WithRateLimit(q, b) against a bucket of q, b that says nothing but
// Retry-After), with as much jitter in its round trips as the headroom
// absorbs (half of it each way: the client cannot tell the ways apart,
// and takes the whole spread of its round trips for the way in; more is
// TestConfiguredRateMakesRoomForTheJitter's), and 1 to 16 workers: the
// bucket never refuses a request, and the walk gets 0.95 of the quota or
// more. 100 generated buckets (20 under -race; 2,000 with
// UGC_TEST_HEAVY=1).
func TestConfiguredRateNeverRunsAhead(t *testing.T) {
	t.Parallel()
	cases := sampleSize(100, 20, 2000)
	for seed := range uint64(cases) {
		rng := rand.New(rand.NewPCG(seed, 2))
		rate := math.Round(math.Exp(rng.Float64()*math.Log(1000))*10) / 10
		burst := 1 + rng.IntN(20)
		// The headroom absorbs a request early by what a burst of one
		// less (one token) and a rate 3 % lower leave between it and the
		// one before: jitter each way up to half of that.
		absorbed := (float64(min(burst-1, 1)) + Headroom) / rate / 2
		c := simCase{
			server:     bucketServer{rate: rate, burst: float64(burst)},
			workers:    []int{1, 2, 8, 16}[rng.IntN(4)],
			delay:      500 * time.Microsecond,
			jitter:     time.Duration(rng.Float64() * 0.9 * absorbed * 1e9),
			service:    200 * time.Microsecond,
			length:     time.Duration(max(20, 2000/rate)) * time.Second,
			configured: rate, configuredBurst: burst, seed: seed,
		}
		r := c.run()
		require.Zero(t, r.refused, "%v: refused", c)
		rtt := 2*(c.delay+c.jitter/2) + c.service
		demand := float64(c.workers) / rtt.Seconds()
		if demand > 1.2*rate {
			assert.GreaterOrEqual(t, float64(r.accepted)/c.length.Seconds()/rate, 0.95, "%v", c)
		}
	}
}

// TestConfiguredRateMakesRoomForTheJitter sets the Pacer's rate to a
// bucket's own (WithRateLimit(q, b) against a bucket of q, b that says
// nothing but Retry-After) with more jitter in transit than a spare token
// absorbs: up to 50 ms each way, at 1 to 1,000 requests a second, bursts
// of 1 to 20, 1 to 16 workers, on a gate whose timers wake up to a
// millisecond late. A bucket of two or more never refuses a request. A
// bucket of one may refuse one or two, where a round trip comes back
// quicker than any of the recent ones by more than their least tells, in
// at most one walk in twenty (and one more). And the walk gets 0.9 or more of what the jitter
// leaves: the quota, less an interval for what the round trips spread
// past the server's spare tokens (see Pacer.refresh), or the workers'
// own rate where that is lower. 100 generated buckets (20 under -race;
// 4,000 with UGC_TEST_HEAVY=1).
func TestConfiguredRateMakesRoomForTheJitter(t *testing.T) {
	t.Parallel()
	cases := sampleSize(100, 20, 4000)
	refusedWalks := 0
	for seed := range uint64(cases) {
		rng := rand.New(rand.NewPCG(seed, 77))
		rate := math.Round(math.Exp(rng.Float64()*math.Log(1000))*10) / 10
		burst := 1 + rng.IntN(20)
		c := jitteryWalk(rng, seed, bucketServer{rate: rate, burst: float64(burst)})
		c.configured, c.configuredBurst = rate, burst
		r := c.run()
		if burst > 1 {
			require.Zero(t, r.refused, "%v: refused", c)
		}
		assert.LessOrEqual(t, r.refused, 2, "%v: refused", c)
		if r.refused > 0 {
			refusedWalks++
			t.Logf("%v: refused one of %d", c, r.sent)
		}
		assert.GreaterOrEqual(t, float64(r.accepted)/c.length.Seconds(), 0.9*c.whatTheJitterLeaves(), "%v", c)
	}
	assert.LessOrEqual(t, refusedWalks, cases/20+1, "walks refused a request, of %d", cases)
	t.Logf("%d of %d walks refused a request", refusedWalks, cases)
}

// jitteryWalk generates a walk on the bucket srv of seed from rng: 1, 2, 8
// or 16 workers, 0.1 to 20 ms in transit each way and up to 50 ms of
// jitter more, timers up to a millisecond late, for 2,000 of the bucket's
// tokens (20 s at least).
func jitteryWalk(rng *rand.Rand, seed uint64, srv bucketServer) simCase {
	return simCase{
		server:  srv,
		workers: []int{1, 2, 8, 16}[rng.IntN(4)],
		delay:   time.Duration(math.Exp(math.Log(100e3) + rng.Float64()*math.Log(200))),
		jitter:  time.Duration(rng.Float64() * 50e6),
		service: 200 * time.Microsecond,
		late:    time.Duration(rng.Float64() * float64(time.Millisecond)),
		length:  time.Duration(max(20, 2000/srv.rate)) * time.Second,
		seed:    seed,
	}
}

// whatTheJitterLeaves returns the rate, in requests a second, that c's
// jitter in transit leaves a client that keeps under the bucket's quota:
// the round trips spread by up to twice the jitter (it is drawn each way),
// and what the server's spare tokens do not absorb widens the client's
// interval; or the workers' own rate, where that is lower.
func (c simCase) whatTheJitterLeaves() float64 {
	interval := time.Duration(float64(time.Second) / (c.server.rate * (1 - Headroom)))
	over := max(2*c.jitter-time.Duration(c.server.burst-1)*interval, 0)
	leaves := float64(time.Second) / float64(interval+over)
	rtt := 2*(c.delay+c.jitter) + c.service + c.late
	demand := float64(c.workers) / rtt.Seconds()
	return min(leaves, demand)
}

// TestAnnouncedQuotaMakesRoomForTheJitter walks a bucket that announces
// its quota in every answer's headers, as ugctest's quota does (the policy's
// rate, the tokens left, the milliseconds to the next), or in RateLimit
// alone, whose reset is in whole seconds (every other case), with the
// default options: 1 to 1,000 requests a second, bursts of 1 to 20, 1 to 16
// workers, up to 50 ms of jitter in transit each way, on a gate whose
// timers wake up to a millisecond late. The first answer tells the quota;
// of the requests sent after it, a bucket of two or more refuses none, and
// a bucket of one refuses at most one, in at most one walk in a hundred
// (and one more), as under a configured quota
// (TestConfiguredRateMakesRoomForTheJitter). The requests in flight when
// the first answer comes went out before the client knew the quota, and
// are not counted.
//
// And the walk gets 0.9 or more of what the jitter leaves, or, with a
// bucket of one, which pauses until the next token at an answer that says
// none is left (a token's interval at most), 0.7: none of 4,000 under
// 0.9, the least at 0.928. A client that emptied its bucket at every such
// answer, and paused until the reset, whatever it expected, had 187 walks
// refused requests, 241 under 0.9, and the least at 0.018 (a bucket of one
// paused a second at every answer that said none was left). 50
// generated buckets (20 under -race; 4,000 with UGC_TEST_HEAVY=1).
func TestAnnouncedQuotaMakesRoomForTheJitter(t *testing.T) {
	t.Parallel()
	cases := sampleSize(50, 20, 4000)
	refusedWalks, slow, least := 0, 0, math.Inf(1)
	for seed := range uint64(cases) {
		rng := rand.New(rand.NewPCG(seed, 78))
		rate := math.Round(math.Exp(rng.Float64() * math.Log(1000)))
		burst := 1 + rng.IntN(20)
		firstAnswer, refused, sent := time.Duration(-1), 0, 0
		c := jitteryWalk(rng, seed, bucketServer{rate: rate, burst: float64(burst), announces: true, wholeSeconds: seed%2 == 1})
		c.trace = func(at time.Duration, ok bool, sentAt time.Duration, _ simPacer) {
			if firstAnswer < 0 {
				firstAnswer = at
			}
			if sentAt > firstAnswer {
				sent++
				if !ok {
					refused++
				}
			}
		}
		r := c.run()
		if burst > 1 {
			require.Zero(t, refused, "%v: refused after the first answer", c)
		}
		require.LessOrEqual(t, refused, 1, "%v: refused after the first answer", c)
		if refused > 0 {
			refusedWalks++
			t.Logf("%v: refused one of %d", c, sent)
		}
		got := float64(r.accepted) / c.length.Seconds() / c.whatTheJitterLeaves()
		if burst > 1 {
			assert.GreaterOrEqual(t, got, 0.9, "%v", c)
		}
		assert.GreaterOrEqual(t, got, 0.7, "%v", c)
		if got < 0.9 {
			slow++
		}
		least = min(least, got)
	}
	assert.LessOrEqual(t, refusedWalks, cases/100+1, "walks refused a request, of %d", cases)
	t.Logf("%d of %d walks refused a request; %d got under 0.9 of what the jitter leaves, the least %.3f", refusedWalks, cases, slow, least)
}

// TestEightCallersShareABurstOfOne: eight workers share a configured rate
// with a burst of one (WithRateLimit(q, 1) against a bucket of q, 1 that
// says nothing but Retry-After), in order, on a gate whose timers wake up
// to a millisecond late (as Go's do on Linux), with 0.1 to 5 ms in transit
// each way, 0.1 to 2 ms of service, and up to 0.9 of the headroom's
// spacing of jitter each way: no request is refused; and where the jitter
// is at most 1 % of the spacing and a round trip is shorter than the
// spacing (each answer is in before the next request goes), they get 0.95
// of the quota or more once the Client knows its round trips (after the
// first second: until 16 answers are in, each request also waits for the
// one before it). A bucket of one has no spare token: a timer late past
// the headroom is lost, so 0.95 is near what late timers leave (0.951 at
// 94 req/s with timers up to a millisecond late). 100 generated buckets
// of 1 to 100 requests a second (20 under -race; 2,000 with
// UGC_TEST_HEAVY=1).
func TestEightCallersShareABurstOfOne(t *testing.T) {
	t.Parallel()
	cases := sampleSize(100, 20, 2000)
	for seed := range uint64(cases) {
		rng := rand.New(rand.NewPCG(seed, 8))
		rate := math.Round(math.Exp(rng.Float64()*math.Log(100))*10) / 10
		spacing := float64(time.Second) / rate
		c := simCase{
			server:     bucketServer{rate: rate, burst: 1},
			workers:    8,
			delay:      time.Duration(100e3 + rng.Float64()*4.9e6),
			service:    time.Duration(100e3 + rng.Float64()*1.9e6),
			jitter:     time.Duration(rng.Float64() * 0.9 * Headroom * spacing),
			late:       time.Duration(rng.Float64() * float64(time.Millisecond)),
			length:     time.Duration(max(30, 600/rate)) * time.Second,
			configured: rate, configuredBurst: 1, seed: seed,
		}
		r := c.run()
		require.Zero(t, r.refused, "%v: refused", c)
		if rtt := 2*(c.delay+c.jitter) + c.service; float64(c.jitter) <= 0.01*spacing && float64(rtt) < spacing {
			settled := float64(r.acceptedIn(time.Second, c.length)) / (c.length - time.Second).Seconds()
			assert.GreaterOrEqual(t, settled/rate, 0.95, "%v", c)
		}
	}
}

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
// requests a second, with 1 to 16 workers each, for 5 minutes (see
// sharedKey). Each learns the quota as its own; the others' requests
// refuse it at its estimate, and it cuts its rate, so they trade the
// quota between them and are throttled more than one Client alone. But
// there is no throttle storm (at most 9 throttles in 30 s a client, where
// a storm has one a pause), and together they use 0.8 of the quota or
// more in 99 keys of 100, 0.7 in every one. The log gives the least share
// of an even split and the least used together. 4 keys (2 under -race;
// 1,000 with UGC_TEST_HEAVY=1).
func TestLearnersOnOneKeyShareItWithoutAStorm(t *testing.T) {
	t.Parallel()
	cases := sampleSize(4, 2, 1000)
	leastShare, leastTogether, mostThrottles, under := math.Inf(1), math.Inf(1), 0.0, 0
	for seed := range uint64(cases) {
		c := sharedKey(seed)
		r := c.run()
		together := float64(r.accepted) / c.length.Seconds() / c.server.rate
		assert.GreaterOrEqual(t, together, 0.7, "%v: together", c)
		if together < 0.8 {
			under++
		}
		leastTogether = min(leastTogether, together)
		for i, cr := range r.byClient {
			per30s := float64(cr.episodes) / c.length.Seconds() * 30
			assert.LessOrEqual(t, per30s, 9.0, "%v: client %d throttled %d times", c, i, cr.episodes)
			leastShare = min(leastShare, float64(cr.accepted)/c.length.Seconds()/(c.server.rate/float64(c.clients)))
			mostThrottles = max(mostThrottles, per30s)
		}
	}
	assert.LessOrEqual(t, under, cases/100, "keys used under 0.8 together, of %d", cases)
	t.Logf("the least used together: %.3f (%d keys under 0.8)", leastTogether, under)
	t.Logf("the least share of an even split: %.3f; the most throttles in 30 s of a client: %.1f", leastShare, mostThrottles)
}

// TestAB writes the A/B table of BENCHMARKS.md: the learned pacing
// beside the reference on each row. It runs with UGC_PACE_AB=1:
//
//	UGC_PACE_AB=1 go test -run '^TestAB$' -v ./internal/pace
func TestAB(t *testing.T) {
	if os.Getenv("UGC_PACE_AB") != "1" {
		t.Skip("the A/B table runs with UGC_PACE_AB=1")
	}
	const walks = 1000
	learned, reference := generatedShares(walks, 7*time.Minute)
	l, r := summarize(learned), summarize(reference)
	var rises, refRises []time.Duration
	for seed := range uint64(200) {
		rises, refRises = append(rises, riseFound(seed+1, false)), append(refRises, riseFound(seed+1, true))
	}
	slices.Sort(rises)
	slices.Sort(refRises)
	median, p99 := serviceLatencies(20, false)
	refMedian, refP99 := serviceLatencies(20, true)
	shared, refShared := sharedKeys(200, false), sharedKeys(200, true)
	var b strings.Builder
	fmt.Fprintf(&b, "| row | learned | CUBIC (reference) |\n|---|---|---|\n")
	fmt.Fprintf(&b, "| share of the quota, %d generated 7-minute walks: mean; tenth percentile | %.3f; %.3f | %.3f; %.3f |\n", walks, l.mean, l.p10, r.mean, r.p10)
	fmt.Fprintf(&b, "| 429 episodes a minute after the first, the same walks | %.2f | %.2f |\n", l.perMinute, r.perMinute)
	fmt.Fprintf(&b, "| time to use a tenfold rise, 200 generated buckets: median; 90th percentile; most | %v; %v; %v | %v; %v; %v |\n",
		rises[100], rises[180], rises[199], refRises[100], refRises[180], refRises[199])
	fmt.Fprintf(&b, "| a service's calls near its quota (4 a second, quota 5 in bursts of 5): median; p99 latency (median of 20 walks) | %v; %v | %v; %v |\n",
		median[10].Round(time.Millisecond), p99[10].Round(time.Millisecond), refMedian[10].Round(time.Millisecond), refP99[10].Round(time.Millisecond))
	fmt.Fprintf(&b, "| 2 or 3 Clients on one key, 200 generated keys: share used together; least share of an even split; most 429 episodes a minute of a Client | %.3f; %.3f; %.1f | %.3f; %.3f; %.1f |\n",
		shared.together, shared.least, shared.most, refShared.together, refShared.least, refShared.most)
	t.Log("\n" + b.String())
}

// keyShares is what Clients sharing a key got: the mean share of the
// quota used together, the least share of an even split a Client got,
// and the most 429 episodes a minute a Client took.
type keyShares struct{ together, least, most float64 }

// sharedKeys runs n generated keys shared by 2 or 3 Clients (see
// TestLearnersOnOneKeyShareItWithoutAStorm); ref runs the reference.
func sharedKeys(n int, ref bool) keyShares {
	s := keyShares{least: math.Inf(1)}
	for seed := range uint64(n) {
		c := sharedKey(seed)
		if ref {
			c = cubic(c)
		}
		r := c.run()
		s.together += float64(r.accepted) / c.length.Seconds() / c.server.rate / float64(n)
		for _, cr := range r.byClient {
			s.least = min(s.least, float64(cr.accepted)/c.length.Seconds()/(c.server.rate/float64(c.clients)))
			s.most = max(s.most, float64(cr.episodes)/c.length.Minutes())
		}
	}
	return s
}

// sharedKey returns the key of seed: 2 or 3 Clients with no configured
// rate on one bucket that says nothing but Retry-After and holds a token
// for each of them or more (up to 50), at 1 to 1,000 requests a second,
// with 1 to 16 workers each, for 5 minutes.
func sharedKey(seed uint64) simCase {
	rng := rand.New(rand.NewPCG(seed, 41))
	k := 2 + rng.IntN(2)
	rate := math.Round(math.Exp(rng.Float64()*math.Log(1000))*10) / 10
	return simCase{
		server:  bucketServer{rate: rate, burst: float64(k + rng.IntN(51-k)), retryAfter: retryTokenSeconds},
		clients: k,
		workers: []int{1, 2, 8, 16}[rng.IntN(4)],
		delay:   150 * time.Microsecond, jitter: 300 * time.Microsecond, service: 300 * time.Microsecond,
		length: 5 * time.Minute, seed: seed,
	}
}
