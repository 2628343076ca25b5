package pace

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// TestLatenessIsForgivenUntilABucketRefusesIt: once the rate is learned,
// a late request leaves the next due when it was, unless the phases leave
// only buckets of one or two (the jitter in transit can keep a bucket of
// one possible beside larger ones); not while ramping, and never again
// once two requests in a row, each sent sooner after the one before it
// than the rate allows, were refused under the learned rate (a bucket of
// one refuses one at each plateau). Refusals past the plateau, where the
// probe found the quota, do not count, nor one of a request sent on time.
func TestLatenessIsForgivenUntilABucketRefusesIt(t *testing.T) {
	t.Parallel()
	l := learner{engaged: true, est: 100, plateau: 3000, candidates: []candidate{{1, 90, 110}, {5, 80, 100}}}
	assert.True(t, l.forgivesLateness(), "a bucket of one possible, none refused")
	l.candidates = []candidate{{1, 90, 110}, {2, 80, 100}}
	assert.False(t, l.forgivesLateness(), "only buckets of one or two possible: no token to spare")
	l.candidates = []candidate{{1, 90, 110}, {5, 80, 100}}
	l.ramping = true
	assert.False(t, l.forgivesLateness(), "not while ramping")
	l.ramping = false

	// refuse, n times in a row, a request sent share of an interval after
	// the one before it, succeeded successes into the curve
	refuse := func(n int, succeeded, share float64) *learner {
		l := &learner{engaged: true, est: 100, plateau: 3000, candidates: []candidate{{3, 90, 110}}}
		now := simEpoch
		for range n {
			l.succeeded = succeeded
			interval := time.Duration(float64(time.Second) / l.rate())
			gap := time.Duration(float64(interval) * share)
			l.record(now, true, 0)
			i := l.record(now.Add(gap), true, 0)
			assert.Equal(t, share < 1, l.hist[i].early, "a request %v after the one before, at an interval of %v", gap, interval)
			l.throttled(i, now.Add(gap), now.Add(time.Second), time.Second)
			l.candidates = []candidate{{3, 90, 110}} // whatever the phase taught
			now = now.Add(2 * time.Second)
		}
		return l
	}
	assert.True(t, refuse(2, 0, 1).forgivesLateness(), "requests sent on time, refused under the learned rate")
	assert.True(t, refuse(1, 0, 0.9).forgivesLateness(), "a request sent sooner, refused under the learned rate")
	assert.False(t, refuse(2, 0, 0.9).forgivesLateness(), "two in a row")
	assert.True(t, refuse(2, 7000, 0.9).forgivesLateness(), "requests sent sooner, refused by probes past the plateau")
}

// TestABucketOfTwoSparesHalfATokenUntilAnEarlyRequestIsRefused: where the
// phases leave a bucket of two alone possible, the Pacer lets a request
// go late by half a token's interval, less the spread of the recent round
// trips, and leaves the next due when it was (see learner.twoTokens); not
// before the round trips are known, not where a bucket of one remains
// possible or one of three (which forgives a whole interval), not once a
// refusal was taken for the jitter or a phase left a bucket of one alone
// possible, and never again once a request that went sooner than the rate
// allows was refused under the learned rate, whatever throttles come
// after.
func TestABucketOfTwoSparesHalfATokenUntilAnEarlyRequestIsRefused(t *testing.T) {
	t.Parallel()
	two := func() *Pacer {
		p := New(0, 0)
		p.learner = learner{engaged: true, est: 100, plateau: 3000, candidates: []candidate{{2, 95, 105}}}
		p.rtts.taken, p.spread = roundTripsKnown, 1500*time.Microsecond
		return p
	}
	slack := func(p *Pacer) time.Duration {
		p.follow(simEpoch)
		return p.adaptive.slack
	}
	p := two()
	assert.Equal(t, p.adaptive.interval/2-1500*time.Microsecond, slack(p), "half a token less the round trips' spread")
	p.spread = time.Second
	assert.Zero(t, slack(p), "round trips that spread by more than half a token")
	p = two()
	p.rtts.taken = roundTripsKnown - 1
	assert.Zero(t, slack(p), "until the round trips are known")
	p = two()
	p.learner.candidates = []candidate{{1, 95, 105}, {2, 90, 100}}
	assert.Zero(t, slack(p), "a bucket of one possible")
	p.learner.candidates = []candidate{{2, 95, 105}, {3, 90, 100}}
	assert.Equal(t, p.adaptive.interval, slack(p), "a bucket of three possible: a whole interval (see forgivesLateness)")
	p = two()
	p.learner.jittery = true
	assert.Zero(t, slack(p), "a refusal taken for the jitter")
	p = two()
	p.learner.oneAlone = true
	assert.Zero(t, slack(p), "a phase once left a bucket of one alone possible")

	// a request sent 0.9 of an interval after the one before it, refused
	// under the learned rate: the slack's, not the quota's; then one sent
	// on time, refused
	p = two()
	l := &p.learner
	now := simEpoch
	refuse := func(share float64) {
		interval := time.Duration(float64(time.Second) / l.rate())
		gap := time.Duration(float64(interval) * share)
		l.record(now, true, 0)
		i := l.record(now.Add(gap), true, 0)
		require.True(t, l.throttled(i, now.Add(gap), now.Add(time.Second), time.Second))
		now = now.Add(2 * time.Second)
	}
	refuse(0.9)
	assert.Equal(t, []candidate{{2, 95, 105}}, l.candidates, "the slack's refusal: the bounds stand")
	assert.Equal(t, 100.0, l.est, "the slack's refusal: the estimate stands")
	assert.Zero(t, slack(p), "once an early request was refused, never again")
	refuse(1)
	l.candidates = []candidate{{2, 95, 105}} // whatever the phase taught
	assert.False(t, l.earlyRefused, "one early refusal, not two in a row")
	assert.Zero(t, slack(p), "never again, whatever throttles come after")
}

// TestAPhaseThatMissesTheBoundsBacksOffFromItsOwn: on a bucket of one,
// the jitter in transit can have a request accepted late and the next
// one refused though it went no sooner than the quota allows: a phase
// that misses the bounds learned before, and proves little below. The
// first request after a pause accepted and the next refused bound the
// quota from above only; a request accepted after a slow moment bounds it
// from below by that moment's rate only. Too little to place a new quota
// in: the learner backs off from the phase's upper bound (0.7 of it, as
// TCP does) and lets the next phase show the rest, where it used to
// settle at 0.3 of the way between the phase's bounds (a walk at 200
// req/s went from 181 to 43 requests a second; in the second case here
// the estimate would be 89).
func TestAPhaseThatMissesTheBoundsBacksOffFromItsOwn(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		accepted []time.Duration // sent, after the pause; each answered 2 ms later
		refused  time.Duration
		lower    bool // the phase bounds the quota from below
	}{
		{"bounded from above only", []time.Duration{0}, 5500 * time.Microsecond, false},
		{"bounded from below by a slow moment", []time.Duration{0, 20 * time.Millisecond}, 25500 * time.Microsecond, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := learner{}
			t0 := simEpoch
			l.answered(l.record(t0.Add(-2*time.Second), true, 0), t0.Add(-2*time.Second+2*time.Millisecond), accepted)
			l.engaged, l.est, l.lo, l.hi = true, 186.8, 185.2, 190.5
			l.candidates = []candidate{{1, 185.2, 190.5}}
			l.plateau, l.learned = 5600, 3
			l.doubted = true // the throttle before was taken as a refusal alone
			l.phase, l.from, l.pause = t0, uint64(l.histEnd), time.Second

			for _, at := range tc.accepted {
				l.answered(l.record(t0.Add(at), true, 0), t0.Add(at+2*time.Millisecond), accepted)
			}
			next := l.record(t0.Add(tc.refused), true, 0)
			l.answered(next, t0.Add(tc.refused+2*time.Millisecond), refused)
			require.True(t, l.throttled(next, t0.Add(tc.refused), t0.Add(time.Second), time.Second))

			if tc.lower {
				require.Greater(t, l.lo, minRate, "the phase bounds the quota from below")
				require.Less(t, mid(l.lo, l.hi), backOff*l.hi, "settling between the bounds would settle under the back-off")
			} else {
				require.Zero(t, l.lo, "the phase bounds the quota from above only")
			}
			require.Less(t, l.hi, 185.2, "the phase misses the bounds before")
			assert.True(t, l.oneAlone, "a phase that leaves a bucket of one alone possible is remembered (see twoTokens)")
			assert.InDelta(t, backOff*l.hi, l.est, 0.01*l.hi, "the estimate backs off from the phase's bound %.1f", l.hi)
		})
	}
}

// TestTheRecordGrowsAsRequestsAreSent: the learner's record of requests
// holds what was sent, not its whole length from the first request, so a
// Client that sends a few requests (one per tenant's key, say) holds a
// few; one that never met a throttle keeps the last quietHistLen (8 KiB),
// and once one comes the record keeps those and grows to histLen (128
// KiB), each record still found by its ticket.
func TestTheRecordGrowsAsRequestsAreSent(t *testing.T) {
	t.Parallel()
	require.EqualValues(t, 32, unsafe.Sizeof(sendRecord{}), "a record's bytes")
	start := time.Unix(1e9, 0)
	for _, quiet := range []int{1, 3, 17, quietHistLen, quietHistLen + 1, 1000} {
		for _, after := range []int{0, 1, 500, histLen, 3*histLen + 5} {
			p := New(0, 0)
			l := &p.learner
			now := start
			send := func(status int) Ticket {
				now = now.Add(time.Millisecond)
				tk := p.Send(now)
				p.Answered(now.Add(time.Millisecond/2), tk, Answer{Status: status, Limit: Limit{RetryAfter: time.Second}, Found: status == 429})
				return tk
			}
			var last Ticket
			for range quiet {
				last = send(200)
			}
			assert.Equal(t, min(quiet, quietHistLen), len(l.hist), "%d requests, no throttle", quiet)
			assert.LessOrEqual(t, cap(l.hist), max(2*min(quiet, quietHistLen), 8), "%d requests, no throttle: room for more than twice what was sent", quiet)
			if after == 0 {
				continue
			}
			throttled := send(429)
			now = now.Add(time.Second)
			for range after - 1 {
				last = send(200)
			}
			outcome := accepted
			if after == 1 {
				last, outcome = throttled, refused
			}
			sent := quiet + after
			held := min(min(quiet+1, quietHistLen)+after-1, histLen) // the throttled request went before the throttle came
			assert.Equal(t, sent-held, l.oldest(), "%d requests, a throttle, %d more", quiet, after)
			assert.LessOrEqual(t, len(l.hist), histLen, "%d requests, a throttle, %d more", quiet, after)
			for k := l.oldest(); k < l.histEnd; k++ {
				want := start.Add(time.Duration(k+1) * time.Millisecond)
				if k > quiet {
					want = want.Add(time.Second)
				}
				require.InDelta(t, want.Sub(l.epoch).Seconds(), l.rec(k).sent, 1e-9, "%d requests, a throttle, %d more: record %d", quiet, after, k)
			}
			assert.Equal(t, outcome, l.rec(int(last.id)).outcome, "%d requests, a throttle, %d more", quiet, after)
		}
	}
}

// TestAPhaseLongerThanTheRecordBoundsOnlySmallBuckets: a phase that began
// before the oldest record is replayed from a full bucket there, where a
// bucket as large as a good share of the records would explain them at a
// fraction of the rate they were sent at. A phase of 5,000 requests at 100
// a second, the last refused, with buckets of up to 2,000 considered:
// every bound it gives is of a bucket of an eighth of the records or less,
// and over 0.85 of the rate sent (a full eighth is 12.5 % of the count;
// a full bucket of 2,000 explains the 4,096 remembered at 51 a second).
func TestAPhaseLongerThanTheRecordBoundsOnlySmallBuckets(t *testing.T) {
	t.Parallel()
	l := learner{}
	t0 := simEpoch
	l.engaged, l.firstAccepted = true, 2000
	l.phase, l.from, l.pause = t0, 0, time.Second
	const n, rate = 5000, 100.0
	var last uint64
	for k := range n {
		at := t0.Add(time.Duration(float64(k) / rate * float64(time.Second)))
		last = l.record(at, true, 0)
		o := accepted
		if k == n-1 {
			o = refused
		}
		l.answered(last, at.Add(2*time.Millisecond), o)
	}
	require.False(t, l.remembered(int(l.from)), "the phase's start is forgotten")
	bounds := l.phaseBounds(last)
	require.NotEmpty(t, bounds)
	for _, c := range bounds {
		assert.LessOrEqual(t, c.b, forgottenShare*histLen, "bucket size")
		assert.Greater(t, c.lo, 0.85*rate, "the lower bound of a bucket of %v", c.b)
	}
}

// TestTwoPhasesMeetAtTheirBucket: two phases of one token bucket, sent
// at two rates above its own from a full bucket until a request is
// refused, are explained by one size of bucket and one rate, and meeting
// finds them among every size, not only those the learner tells apart.
// Generated buckets of 10 to 400 tokens at 2 to 500 requests a second
// (log-uniform), the first phase sent at 1.2 to 3 times the rate, the
// second at 0.3 to 0.8 of the way from the rate to the first's: one of
// the sizes meeting returns
// is the bucket's, within a token, and its bounds hold the rate, within
// a hundredth of it. 500 cases.
func TestTwoPhasesMeetAtTheirBucket(t *testing.T) {
	t.Parallel()
	phase := func(b, q, sent float64) *replay {
		pause := max(1, 2*b/q) // refills the bucket
		r := &replay{refill: pause}
		tokens := b
		for k := 0; ; k++ {
			gap := 1 / sent
			if k == 0 {
				gap = 0 // the first request goes as the pause ends
			}
			tokens = min(b, tokens+q*gap)
			if tokens < 1 {
				r.last = gap
				return r
			}
			tokens--
			r.steps = append(r.steps, replayStep{gap, accepted})
		}
	}
	for seed := range uint64(500) {
		rng := rand.New(rand.NewPCG(seed, 17))
		b := math.Round(logUniformOf(rng, 10, 400))
		q := math.Round(logUniformOf(rng, 2, 500)*10) / 10
		sent := q * (1.2 + 1.8*rng.Float64())
		first, second := phase(b, q, sent), phase(b, q, q+(sent-q)*(0.3+0.5*rng.Float64()))
		most := float64(max(len(first.steps), len(second.steps)))
		met := meeting(first, second, 5, most)
		found := slices.ContainsFunc(met, func(c candidate) bool {
			return math.Abs(c.b-b) <= 1 && c.lo <= q*1.01 && c.hi >= q*0.99
		})
		assert.True(t, found, "seed %d: a bucket of %v at %v a second, sent at %.1f: met at %v", seed, b, q, sent, met)
	}
}
