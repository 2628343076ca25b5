package pace

import (
	"context"
	"math"
	"math/rand/v2"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The rules of the package documentation's table, each pinned here (the
// gate's in gate_test.go), on a pacer told the time.

// throttledAnswer is a 429 that names wait.
func throttledAnswer(wait time.Duration) Answer {
	return Answer{Status: http.StatusTooManyRequests, Limit: Limit{RetryAfter: wait, Limit: -1, Remaining: -1}, Found: true}
}

var okAnswer = Answer{Status: http.StatusOK}

// TestNothingIsPacedUntilAQuotaShows (P1): without a configured rate, a
// Client's requests go at once, answered or not, until a throttle names a
// wait.
func TestNothingIsPacedUntilAQuotaShows(t *testing.T) {
	t.Parallel()
	p := New(0, 0, 0)
	now := simEpoch
	for range 100 {
		require.False(t, p.Active())
		assert.Equal(t, now, p.Earliest(now))
		p.Answered(now, p.Send(now), okAnswer)
		now = now.Add(time.Microsecond)
	}
	p.Answered(now, p.Send(now), Answer{Status: http.StatusInternalServerError})
	assert.False(t, p.Active(), "a failure is not a quota")
	p.Answered(now, p.Send(now), throttledAnswer(time.Second))
	assert.True(t, p.Active(), "a throttle that names a wait is")
	assert.Equal(t, now.Add(time.Second), p.Earliest(now))
}

// TestAPauseIsBoundedAndAsksAgain (P2): an answer that names a day pauses
// the whole Client for the pacer's bound only. A call that meets the
// pause is told the day, and refused if it may not wait so long; when the
// bound has passed, the Client asks again, and an answer that names a
// short wait then pauses it for that.
func TestAPauseIsBoundedAndAsksAgain(t *testing.T) {
	t.Parallel()
	clock := newStepClock()
	g := NewGate(New(0, 0, time.Minute), clock)
	ticket, _, err := g.Turn(context.Background(), -1)
	require.NoError(t, err)
	e := g.Pacer().Answered(clock.Now(), ticket, throttledAnswer(24*time.Hour))
	assert.True(t, e.Throttled)
	assert.Equal(t, 24*time.Hour, e.Wait, "the wait the server named")
	assert.Equal(t, time.Minute, e.Pause, "the Client pauses for the bound")

	_, _, err = g.Turn(context.Background(), 5*time.Minute)
	var we *WaitError
	require.ErrorAs(t, err, &we, "a call that may wait five minutes does not wait for a day")
	assert.Equal(t, 24*time.Hour, we.Wait)
	assert.Equal(t, 24*time.Hour, we.Pause)

	clock.advance(time.Minute)
	ticket, waited, err := g.Turn(context.Background(), 5*time.Minute)
	require.NoError(t, err, "the bound passed: the Client asks again")
	assert.Zero(t, waited)
	e = g.Pacer().Answered(clock.Now(), ticket, throttledAnswer(2*time.Second))
	assert.Equal(t, 2*time.Second, e.Pause)
	wait, pause := g.Pacer().WaitFor(clock.Now(), 0)
	assert.Equal(t, 2*time.Second, pause, "the day named before no longer holds")
	assert.GreaterOrEqual(t, wait, 2*time.Second)
}

// TestAThrottleThatNamesNoWaitTeachesNothing (P3): a 429 or a 503 with no
// Retry-After (or one of 0, or a date passed) is retried as an ordinary
// failure: no pause, nothing learned, nothing paced.
func TestAThrottleThatNamesNoWaitTeachesNothing(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusTooManyRequests, http.StatusServiceUnavailable} {
		p := New(0, 0, 0)
		now := simEpoch
		e := p.Answered(now, p.Send(now), Answer{Status: status, Limit: Limit{Limit: -1, Remaining: -1}})
		assert.False(t, e.Throttled)
		assert.Zero(t, e.Pause)
		assert.False(t, p.Active(), "status %d", status)
		assert.EqualValues(t, 1, p.Throttles(), "counted all the same")
	}
}

// TestTheTightestQuotaHolds (P4): the Client keeps under the tightest
// quota it knows of; a stated quota takes the place of a learned one.
func TestTheTightestQuotaHolds(t *testing.T) {
	t.Parallel()
	p := New(100, 5, 0)
	now := simEpoch
	assert.InEpsilon(t, 100*(1-Headroom), p.Rate(), 1e-6, "the configured quota")
	p.Answered(now, p.Send(now), Answer{Status: http.StatusOK, Found: true,
		Limit: Limit{Policy: "p", Limit: 40, Window: time.Second, Remaining: 9}})
	assert.InEpsilon(t, 40*(1-Headroom), p.Rate(), 1e-6, "a stated one under it")
	q, learned := p.inForce()
	assert.Equal(t, quota{rate: 40, size: 5}, q, "the smaller size of the two, the stated one's 10 being larger")
	assert.False(t, learned)

	p = New(100, 5, 0)
	p.learner.engaged, p.learner.est = true, quota{rate: 30, size: 3}
	p.learner.plateau = plateauTime
	p.refresh(now)
	q, learned = p.inForce()
	assert.Equal(t, quota{rate: 30, size: 3}, q, "a learned one under the configured one")
	assert.True(t, learned)
}

// TestTheSpreadIsTheWholeRoundTripUntilKnown (P5): under a configured
// quota of two tokens, the first answers do not show how quick a round
// trip may be, and a round trip may be all jitter: until they do, each
// request goes the slowest round trip after the one before it, not an
// interval; once they do, the spread past the least.
func TestTheSpreadIsTheWholeRoundTripUntilKnown(t *testing.T) {
	t.Parallel()
	p := New(100, 2, 0)
	rtt := 30 * time.Millisecond // three of the quota's intervals
	now := simEpoch
	p.Answered(now.Add(rtt), p.Send(now), okAnswer) // the first, alone (P7)
	now = now.Add(rtt)
	type flight struct {
		ticket Ticket
		due    time.Time
	}
	var inFlight []flight
	var last time.Time
	for i := 0; !p.rtts.known(); i++ {
		send := p.Earliest(now)
		if len(inFlight) > 0 && inFlight[0].due.Before(send) {
			now = inFlight[0].due
			p.Answered(now, inFlight[0].ticket, okAnswer)
			inFlight = inFlight[1:]
			continue
		}
		if i > 0 {
			require.GreaterOrEqual(t, send.Sub(last), rtt, "request %d: a round trip after the one before", i+2)
		}
		now, last = send, send
		inFlight = append(inFlight, flight{p.Send(now), now.Add(rtt + time.Duration(i%4)*time.Microsecond)})
	}
	ticket := p.Send(p.Earliest(now))
	assert.LessOrEqual(t, p.Earliest(ticket.Sent).Sub(ticket.Sent), p.interval(), "known: the round trips spread by 3 µs, under the spare token")
}

// TestABucketOfOneWaitsForEachAnswer (P6): under a quota of one token,
// each request waits for the answer to the one before it, and goes the
// quota's interval after the latest the server may have counted that one:
// its sending, plus its round trip past the quickest (all of it while the
// round trips are not known).
func TestABucketOfOneWaitsForEachAnswer(t *testing.T) {
	t.Parallel()
	p := New(10, 1, 0)
	interval := intervalAt(10) // the quota's own spacing
	now := simEpoch
	rtts := []time.Duration{4, 3, 9, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 5, 3, 30}
	for i, rtt := range rtts {
		rtt *= time.Millisecond
		now = p.Earliest(now)
		ticket := p.Send(now)
		_, _, held := p.Hold()
		require.True(t, held, "request %d: the next waits for this one's answer", i+1)
		now = now.Add(rtt)
		p.Answered(now, ticket, okAnswer)
		counted := ticket.Sent.Add(rtt) // the round trips this one's included
		if p.rtts.known() {
			counted = ticket.Sent.Add(rtt - p.rtts.quickest())
		}
		assert.False(t, p.Earliest(now).Before(counted.Add(interval)), "request %d: an interval after its latest count", i+2)
	}
}

// TestTheQuickestIsUnderTheLeast (P6): the quickest a round trip may
// take, which bounds how late the server counted a request, lies under
// the true least round trip in 97 windows of 64 in a hundred or more,
// where each round trip is a base plus two transits' jitter (the sum is
// rare near its floor, where a single transit's is not).
func TestTheQuickestIsUnderTheLeast(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(6, 6))
	const base, jitter, windows = 10 * time.Millisecond, 5 * time.Millisecond, 2000
	over := 0
	for range windows {
		var r roundTrips
		for range len(r.ring) {
			r.take(base + time.Duration(rng.Int64N(int64(jitter))+rng.Int64N(int64(jitter))))
		}
		if r.quickest() > base {
			over++
		}
	}
	assert.LessOrEqual(t, over, windows*3/100, "windows whose quickest is over the true least")
}

// TestAStatedQuotaCapsTheTokens (P8): an answer's Remaining caps the
// Client's tokens at the server's: a Remaining of 0 leaves the next
// request waiting for the next token, less what refilled since the
// request was sent, where the Client's bucket paced it, or since the
// latest the server may have counted it, where it went before the Client
// knew the quota; with no policy stated, a Remaining of 0 pauses the
// Client until the reset.
func TestAStatedQuotaCapsTheTokens(t *testing.T) {
	t.Parallel()
	p := New(0, 0, 0)
	now := simEpoch
	stated := func(remaining int) Answer {
		return Answer{Status: http.StatusOK, Found: true, Limit: Limit{Policy: "p", Limit: 10, Window: time.Second, Remaining: remaining, Reset: time.Second}}
	}
	p.Answered(now.Add(time.Millisecond), p.Send(now), stated(5))
	now = now.Add(time.Millisecond)
	assert.Equal(t, now, p.Earliest(now), "tokens left: the next goes at once")
	sent := now
	now = now.Add(time.Millisecond)
	p.Answered(now, p.Send(sent), stated(0))
	next := p.Earliest(now)
	assert.True(t, next.After(now), "none left: it waits")
	assert.LessOrEqual(t, next.Sub(sent), p.interval(), "paced: for a token from its sending, the spare token covering its lateness")

	p = New(0, 0, 0)
	now = simEpoch
	first, second := p.Send(now), p.Send(now) // unpaced: the quota not known yet
	now = now.Add(10 * time.Millisecond)
	p.Answered(now, first, stated(1))
	p.Answered(now, second, stated(0))
	assert.Equal(t, now.Add(p.interval()), p.Earliest(now), "sent before the quota was known: for a token from the latest it may have been counted")

	p = New(0, 0, 0)
	now = simEpoch
	e := p.Answered(now, p.Send(now), Answer{Status: http.StatusOK, Found: true, Limit: Limit{Limit: -1, Remaining: 0, Reset: 3 * time.Second}})
	assert.Equal(t, 3*time.Second, e.Pause, "no policy: until the reset")
	assert.Equal(t, now.Add(3*time.Second), p.Earliest(now))
}

// TestAPauseEmptiesTheBucket (P9): a pause empties the Client's bucket,
// which refills through it as the server's does: after a pause of a
// second under a configured quota of 10 a second in bursts of 5, four
// requests go at its end (a token spare), and the fifth an interval on.
func TestAPauseEmptiesTheBucket(t *testing.T) {
	t.Parallel()
	p := New(10, 5, 0)
	now := simEpoch
	p.Answered(now, p.Send(now), okAnswer)
	e := p.Answered(now, p.Send(now), throttledAnswer(time.Second))
	require.Equal(t, time.Second, e.Pause)
	assert.Equal(t, now.Add(time.Second), p.Earliest(now), "nothing goes during the pause")
	now = now.Add(time.Second)
	for i := range 4 {
		require.Equal(t, now, p.Earliest(now), "request %d of the burst the pause refilled", i+1)
		p.Answered(now, p.Send(now), okAnswer)
	}
	assert.Equal(t, now.Add(p.interval()), p.Earliest(now))
}

// generatedClientBucket returns a Client's bucket from rng: 1 to 1,000 requests a second,
// a tolerance from a spread of two intervals to a burst of 50 (none, with
// a gap under the interval, one time in four), and whether it was left
// idle or used at its pace before now.
func generatedClientBucket(rng *rand.Rand, now time.Time) (b bucket, idle bool) {
	rps := math.Exp(rng.Float64() * math.Log(1000))
	interval := intervalAt(rps)
	tolerance := time.Duration((rng.Float64()*51 - 2) * float64(interval))
	var gap time.Duration
	if rng.IntN(4) == 0 {
		tolerance, gap = 0, intervalAt(rps/(1-Headroom))
	}
	b.set(now.Add(-time.Hour), rps, tolerance, gap)
	if idle = rng.IntN(2) == 0; !idle {
		b.empty(now.Add(-spanOf(rng.Float64()*60, interval)))
		for t := b.earliest(); t.Before(now); t = later(b.earliest(), t) {
			b.take(t)
		}
	}
	return b, idle
}

// TestTheWaitToldIsTheTurnTaken (P10): over 10,000 generated buckets,
// idle or used at their pace, a request with 0 to 30 requests before it
// in line is told the wait it then has when each goes as soon as the
// bucket lets it: the tokens held go at once, the rest as their tokens
// come, spaced by the spread where the bucket has one. An idle bucket
// lets a request go at once.
func TestTheWaitToldIsTheTurnTaken(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(10, 10))
	for i := range 10_000 {
		now := simEpoch
		p := New(0, 0, 0)
		idle := false
		p.bucket, idle = generatedClientBucket(rng, now)
		p.active.Store(true)
		ahead := rng.IntN(31)
		told, _ := p.WaitFor(now, ahead)
		if idle {
			require.Equal(t, now, p.Earliest(now), "bucket %d %+v: idle, a request goes at once", i, p.bucket)
		}
		at := now
		for range ahead + 1 {
			at = p.Earliest(at)
			p.Send(at)
		}
		require.InDelta(t, float64(at.Sub(now)), float64(told), float64(time.Microsecond),
			"bucket %d %+v, %d ahead: told %v, goes in %v", i, p.bucket, ahead, told, at.Sub(now))
	}
}

// TestAChangeKeepsTheTokensNotTheSpread (P10): a negative tolerance is a
// spread, a spacing, never a debt: over 10,000 changes of a generated
// bucket's rate, tolerance or gap, a bucket used at its pace lets the next
// request go within the new interval and a spread, the old one's (the
// spacing of the last request it let go) or the new one's, whatever the
// old interval.
func TestAChangeKeepsTheTokensNotTheSpread(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 11))
	for i := range 10_000 {
		now := simEpoch
		was, _ := generatedClientBucket(rng, now)
		to, _ := generatedClientBucket(rng, now)
		b := was
		b.set(now, float64(time.Second)/float64(to.interval), to.tolerance, to.gap)
		assert.LessOrEqual(t, b.earliest().Sub(now), b.interval+max(-was.tolerance, -b.tolerance, 0)+time.Microsecond,
			"change %d: from %+v to %+v", i, was, b)
	}
}

// TestTheRampStartsFromWhatTheServerGave (L1): the first throttle starts
// the ramp at what the server gave until then, pause included, 8 a second
// at least, and each request the rate held back that succeeds raises it,
// doubling with every tenth of a second of them.
func TestTheRampStartsFromWhatTheServerGave(t *testing.T) {
	t.Parallel()
	p := New(0, 0, 0)
	now := simEpoch
	for range 50 { // 50 accepted in a second
		p.Answered(now, p.Send(now), okAnswer)
		now = now.Add(time.Second / 50)
	}
	p.Answered(now, p.Send(now), throttledAnswer(time.Second)) // 50 in 2 s with the pause
	assert.InDelta(t, 25, p.learner.ramp, 1e-6)
	assert.Zero(t, p.learner.est.rate, "no estimate yet")
	now = p.Earliest(now)
	before := p.learner.ramp
	for range 30 {
		now = p.Earliest(now)
		p.Answered(now, p.Send(now), okAnswer)
	}
	assert.Greater(t, p.learner.ramp, 2*before, "it climbed with the requests it held back")
}

// TestTheEstimateFitsTheBucketsKept (L4): the estimate lies 0.3 of the
// way from the least rate the buckets kept allow to the most, and the
// Client keeps the headroom under it, or the least where that is nearer;
// the size is the smallest kept, and the estimate is sure where they span
// a tenth of it.
func TestTheEstimateFitsTheBucketsKept(t *testing.T) {
	t.Parallel()
	var l learner
	l.settle([]sizeBounds{{4, 100, 104}, {5, 98, 101}, {6, 96, 99}})
	estimate := 96 + 0.3*(104-96)
	assert.InDelta(t, 96, l.est.rate, 1e-9, "the least rate kept, nearer than the headroom under the estimate")
	assert.Equal(t, 4, l.est.size)
	assert.InDelta(t, 1, l.sure, 1e-9, "they span 8 % of it")
	l.settle([]sizeBounds{{1, 50, 150}})
	estimate = 50 + 0.3*100
	assert.InDelta(t, estimate*(1-Headroom), l.est.rate, 1e-9, "the headroom under the estimate")
	assert.InDelta(t, 0.08, l.sure, 1e-9, "they span 125 % of it: probed sooner")
}

// TestTheCurveMovesOnlyWithTheRateUsed (L5): the rate stays at the
// estimate for the plateau, then climbs tenfold in probeTime; a success
// moves it on only where the rate held the request back.
func TestTheCurveMovesOnlyWithTheRateUsed(t *testing.T) {
	t.Parallel()
	l := learner{engaged: true, est: quota{rate: 10, size: 1}, plateau: plateauTime}
	now := simEpoch
	k := l.record(now, false)
	l.accepted(k)
	assert.Zero(t, l.curve, "sent slower than the rate: proves nothing")
	k = l.record(now, true)
	l.accepted(k)
	assert.InDelta(t, 0.1, l.curve, 1e-9, "an interval at the rate")
	l.curve = plateauTime
	assert.InDelta(t, 10, l.curveRate(), 1e-9, "the plateau's end")
	l.curve = plateauTime + probeTime
	assert.InDelta(t, 100, l.curveRate(), 1e-9, "tenfold probeTime on")
}

// TestARefusalOfTheSameEpisodeTeachesNothing (L6): refusals of requests
// sent before the last pause ended (in flight with the one that started
// it) move nothing.
func TestARefusalOfTheSameEpisodeTeachesNothing(t *testing.T) {
	t.Parallel()
	p := New(0, 0, 0)
	now := simEpoch
	tickets := []Ticket{p.Send(now), p.Send(now), p.Send(now)}
	p.Answered(now.Add(time.Millisecond), tickets[0], throttledAnswer(time.Second))
	before := p.learner
	for _, t2 := range tickets[1:] {
		e := p.Answered(now.Add(2*time.Millisecond), t2, throttledAnswer(time.Second))
		assert.True(t, e.Throttled, "a throttle all the same")
	}
	assert.Equal(t, before.ramp, p.learner.ramp)
	assert.Equal(t, before.anchor, p.learner.anchor, "the phase runs from the first refusal")
	assert.Equal(t, before.first, p.learner.first)
}

// TestAnUnexplainedPhaseBacksOff (L7): where nothing bounds a phase's
// rate from below, or the Client was refused at the estimate and the
// phase leaves it where it was, the buckets kept are forgotten, their
// size with them, and the rate goes to what the server gave over the
// phase, pause included: 0.7 of the rate refused at least.
func TestAnUnexplainedPhaseBacksOff(t *testing.T) {
	t.Parallel()
	// a phase from a refusal at 0: a pause of pause seconds, then
	// requests every 10 ms for 10 s, all accepted, then one refused
	phase := func(pause float64) span {
		s := span{anchored: true, jitter: 0.002, recs: []sendRecord{{at: 0, refused: true}}}
		for at := pause; at < pause+10; at += 0.01 {
			s.recs = append(s.recs, sendRecord{at: at, accepted: true, paced: true})
		}
		last := s.recs[len(s.recs)-1].at
		s.recs = append(s.recs, sendRecord{at: last + 0.01, refused: true})
		return s
	}
	for _, pause := range []float64{0.1, 5} {
		s := phase(pause)
		given := float64(len(s.recs)-2) / s.recs[len(s.recs)-1].at
		assert.InDelta(t, given, s.given(), 1e-9)
		kept := s.explain(bucketSizes(4))
		require.True(t, len(kept) > 0 && kept[0].lo > 0, "the phase bounds the rate")

		// refused at the estimate, and the phase agrees with it
		l := learner{engaged: true, first: -1, most: 4, kept: kept, est: quota{rate: keptRate(kept), size: 1}}
		l.learn(s, keptRate(kept), true)
		assert.Nil(t, l.kept, "pause %v: the buckets are forgotten", pause)
		assert.InDelta(t, max(0.7*keptRate(kept), given), l.est.rate, 1e-9, "pause %v", pause)

		// the same phase on a probe, above the estimate: learned from
		l = learner{engaged: true, first: -1, most: 4, kept: kept}
		l.learn(s, 2*keptRate(kept), false)
		assert.NotNil(t, l.kept)
		assert.InDelta(t, keptRate(kept), l.est.rate, 1e-9)
	}

	// nothing bounds the rate from below: a refusal at once after a pause
	l := learner{engaged: true, first: -1, most: 4, est: quota{rate: 100, size: 3}}
	l.learn(span{anchored: true, recs: []sendRecord{{at: 0, refused: true}, {at: 1, refused: true}}}, 100, true)
	assert.InDelta(t, 70, l.est.rate, 1e-9)
	assert.Zero(t, l.est.size, "the size is forgotten too: requests go spaced at the rate")
}
