package pace

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// throttle429 is a 429 naming a wait.
func throttle429(wait time.Duration) Answer {
	return Answer{Status: http.StatusTooManyRequests, Limit: Limit{Limit: -1, Remaining: -1, RetryAfter: wait}, Found: true}
}

// TestPacerSpacesFromTheWrite: a request let go at once but written on the
// wire later (it waited for a connection) holds the next one until an
// interval after the write.
func TestPacerSpacesFromTheWrite(t *testing.T) {
	t.Parallel()
	p := New(10, 1)
	now := simEpoch
	t1 := p.Send(now)
	interval := p.Interval()
	assert.Equal(t, now.Add(interval), p.Earliest(now))
	p.Wrote(t1, now.Add(30*time.Millisecond))
	assert.Equal(t, now.Add(30*time.Millisecond+interval), p.Earliest(now), "spaced from the write")
	p.Wrote(t1, now.Add(-time.Millisecond)) // written before it was let go: a clock's jitter
	assert.Equal(t, now.Add(30*time.Millisecond+interval), p.Earliest(now), "never earlier")
}

// TestPacerMakesRoomForTheJitter: under a configured quota of 100 a
// second with a burst of 2, round trips of 1 ms but one of 31 ms show up
// to 30 ms of jitter in transit (past the quickest, which 16 answers
// show), of which the spare token absorbs one interval and the headroom
// 3 %: each request is then taken as if it went out as late as the rest,
// and where no token is spare, the next one waits for that too. Before 16
// answers are in, the whole of the longest round trip is taken for the
// jitter; round trips that spread by less than the spare token cost
// nothing, and under a burst of one, whose round trips are too long to be
// held for, only the headroom absorbs their spread.
func TestPacerMakesRoomForTheJitter(t *testing.T) {
	t.Parallel()
	ok := Answer{Status: http.StatusOK}
	answer := func(p *Pacer, now time.Time, rtt time.Duration) time.Time {
		ticket := p.Send(now)
		p.Answered(now.Add(rtt), ticket, ok)
		return now.Add(rtt).Add(time.Second) // a lull: the bucket refills
	}
	p := New(100, 2)
	interval := p.Interval()
	absorbed := interval + (interval - 10*time.Millisecond) // the spare token and the 3 %
	now := answer(p, simEpoch, 31*time.Millisecond)
	assert.Equal(t, 31*time.Millisecond-absorbed, p.configured.late, "one answer: the whole round trip may be jitter")
	for range roundTripsKnown - 1 {
		now = answer(p, now, time.Millisecond)
	}
	assert.Equal(t, 30*time.Millisecond-absorbed, p.configured.late, "16 answers: what the longest takes past the least")
	p.Send(now)
	assert.Equal(t, now.Add(interval+30*time.Millisecond-absorbed), p.Earliest(now), "no token spare: the next waits")

	q := New(100, 2)
	now = simEpoch
	for i := range roundTripsKnown { // 1 and 6 ms: a spread past the headroom, within the spare token
		now = answer(q, now, time.Millisecond+time.Duration(i%2)*5*time.Millisecond)
	}
	assert.Zero(t, q.configured.late, "round trips within a token of each other: the spare token absorbs them")
	r := New(100, 1)
	interval = r.Interval()
	now = simEpoch
	for i := range roundTripsKnown { // the same round trips, each longer than the spacing: none held for
		now = answer(r, now, 11*time.Millisecond+time.Duration(i%2)*5*time.Millisecond)
	}
	assert.Equal(t, 5*time.Millisecond-(interval-10*time.Millisecond), r.configured.late, "a burst of one: no token spare, the headroom only")
	q.Send(now)
	assert.Equal(t, now.Add(interval), q.Earliest(now))
}

// TestPacerNarrowsAConfiguredRateOnThrottles: a throttle under a
// configured rate pauses the client and keeps it 3 % farther under the
// quota, up to 15 % more; the learner is not engaged before that.
func TestPacerNarrowsAConfiguredRateOnThrottles(t *testing.T) {
	t.Parallel()
	p := New(100, 5)
	now := simEpoch
	require.InDelta(t, 97, p.Rate(), 1e-3)
	for k, want := range []float64{94, 91, 88, 85, 82, 82} {
		ticket := p.Send(now)
		e := p.Answered(now, ticket, throttle429(time.Second))
		assert.Equal(t, time.Second, e.Pause)
		now = now.Add(time.Second)
		if k < 5 {
			assert.InDelta(t, want, p.Rate(), 1e-3, "after %d throttles", k+1)
			assert.False(t, p.learner.engaged, "throttles under a configured rate are narrowed first")
		}
	}
	assert.True(t, p.learner.engaged, "past the narrowing, the quota is lower than configured: learned")
}

// TestPacerSpacesFromALateAnswer: under a configured quota with a burst of
// one, a request whose round trip is longer than the recent ones' least
// may have been counted by the server that much later: the next one is due
// an interval after its send plus the excess (after its answer, until
// the round trips are known). Round trips alike move nothing, and a
// larger burst's spare token absorbs the excess.
func TestPacerSpacesFromALateAnswer(t *testing.T) {
	t.Parallel()
	for _, burst := range []int{1, 5} {
		p := New(10, burst)
		now := simEpoch
		interval := p.Interval()
		ok := Answer{Status: http.StatusOK}
		for i := range roundTripsKnown { // round trips of 2 ms: nothing moves, once they are known
			ticket := p.Send(now)
			p.Answered(now.Add(2*time.Millisecond), ticket, ok)
			if burst == 1 && i < roundTripsKnown-1 {
				assert.Equal(t, now.Add(2*time.Millisecond+interval), p.configured.due, "answer %d: from the answer", i+1)
			}
			now = now.Add(interval)
		}
		ticket := p.Send(now)
		due := p.configured.due                              // the next token, as the send left it
		p.Answered(now.Add(12*time.Millisecond), ticket, ok) // 10 ms later than the least
		if burst == 1 {
			// known round trips, all within the spacing: the least time to the
			// next is the quota's spacing (see spaceFromTheAnswer)
			assert.Equal(t, now.Add(10*time.Millisecond+100*time.Millisecond), p.configured.due, "burst 1: the excess is added")
			assert.Equal(t, p.configured.due, p.Earliest(now))
		} else {
			assert.Equal(t, due, p.configured.due, "burst %d: the spare token absorbs it", burst)
		}
	}
}

// TestPacerForgivesALateSend: under a configured quota with a burst of
// one, a request let go late puts the next one back by its lateness until
// 16 round trips are known; then (round trips alike: no jitter) the next
// token stays due an interval after the last one was, and no sooner than
// the quota's spacing after the late request; but when it is due and the
// late request's answer is not in, it waits an interval after that
// request.
func TestPacerForgivesALateSend(t *testing.T) {
	t.Parallel()
	p := New(10, 1)
	interval, spacing := p.Interval(), time.Second/10
	ok := Answer{Status: http.StatusOK}
	now := simEpoch
	for k := range 17 {
		due := p.Earliest(now)
		late := due.Add(2 * time.Millisecond)
		ticket := p.Send(late)
		if k < 16 {
			assert.Equal(t, late.Add(interval), p.Earliest(late), "send %d: the round trips are not known yet", k)
		} else {
			assert.Equal(t, due.Add(interval), p.Earliest(late), "the lateness is forgiven")
		}
		now = late.Add(2 * time.Millisecond)
		p.Answered(now, ticket, ok)
	}
	due := p.Earliest(now)
	late := due.Add(interval - spacing + time.Millisecond) // later than the headroom absorbs
	ticket := p.Send(late)
	assert.Equal(t, late.Add(spacing), p.Earliest(late), "no sooner than the quota's spacing after it")
	p.Answered(late.Add(2*time.Millisecond), ticket, ok)

	// an answer not in when the next is due: nothing forgiven
	due = p.Earliest(now)
	late = due.Add(2 * time.Millisecond)
	p.Send(late)
	assert.Equal(t, due.Add(interval), p.Earliest(late), "forgiven while the answer may yet come")
	assert.Equal(t, late.Add(interval), p.Earliest(due.Add(interval)), "the answer is not in: an interval after the send")
}

// TestPacerRefillsFromTheFirstAnswer: under a configured quota, a client
// sends its burst (one under the quota's) and then holds the next request
// for the first answer, which shows when the server counted the burst: the
// bucket refills from that answer, not from the sends. Past the burst, or
// with the answer in, nothing holds a request; a lost request ends the
// hold too.
func TestPacerRefillsFromTheFirstAnswer(t *testing.T) {
	t.Parallel()
	p := New(10, 5)
	now := simEpoch
	interval := p.Interval()
	var tickets []Ticket
	for k := range 4 {
		_, _, held := p.Hold()
		require.False(t, held, "request %d rides the burst", k)
		tickets = append(tickets, p.Send(now))
	}
	answered, until, held := p.Hold()
	require.True(t, held, "the burst is spent before any answer")
	assert.Equal(t, now.Add(holdBound), until, "the hold is bounded")
	assert.Equal(t, now.Add(interval), p.Earliest(now), "by the clock alone, the next token is an interval away")

	late := now.Add(30 * time.Millisecond) // the server counted the burst late
	p.Answered(late, tickets[0], Answer{Status: http.StatusOK})
	select {
	case <-answered:
	default:
		t.Fatal("the first answer ends the hold")
	}
	_, _, held = p.Hold()
	assert.False(t, held)
	assert.Equal(t, late.Add(interval), p.Earliest(now), "the bucket refills from the first answer")

	q := New(10, 1)
	q.Send(now)
	_, _, held = q.Hold()
	require.True(t, held, "a burst of one is spent by one request")
	lostAt := now.Add(2 * time.Second) // a timeout: the server counted it by then, if at all
	q.Lost(lostAt, Ticket{Sent: now})
	_, _, held = q.Hold()
	assert.False(t, held, "a request lost ends the hold")
	assert.Equal(t, lostAt.Add(q.Interval()), q.Earliest(lostAt), "the bucket refills from the loss, not from the send")

	assert.False(t, func() bool { _, _, held := New(0, 0).Hold(); return held }(), "no configured quota: nothing held")
}

// TestPacerHoldsABurstOfOneForTheWriteAndTheAnswer: under a configured
// quota with a burst of one, the next request waits for the one before it
// to be written (the write spaces it), and, until 16 answers are in and
// then while they come back within the quota's spacing, for its answer
// too (which spaces it by its excess); each event closes the channel Hold
// gave.
func TestPacerHoldsABurstOfOneForTheWriteAndTheAnswer(t *testing.T) {
	t.Parallel()
	p := New(10, 1)
	now := simEpoch
	ok := Answer{Status: http.StatusOK}
	held := func() bool { _, _, h := p.Hold(); return h }

	first := p.Send(now)
	written, until, h := p.Hold()
	require.True(t, h, "held for the write")
	assert.Equal(t, now.Add(holdBound), until)
	p.Wrote(first, now.Add(time.Millisecond))
	select {
	case <-written:
	default:
		t.Fatal("the write ends the wait for it")
	}
	assert.True(t, held(), "and the first answer is still out")
	p.Answered(now.Add(2*time.Millisecond), first, ok)
	assert.False(t, held())

	for i := range 16 { // round trips of 2 ms, within the spacing: the answers keep requests apart
		now = p.Earliest(now)
		ticket := p.Send(now)
		p.Wrote(ticket, now)
		assert.True(t, held(), "answer %d: until 16 are in, each request waits for the answer before it", i+2)
		p.Answered(now.Add(2*time.Millisecond), ticket, ok)
	}
	now = p.Earliest(now)
	late := p.Send(now)
	p.Wrote(late, now)
	answered, _, h := p.Hold()
	require.True(t, h, "an answer still out when the next is due is late: held for it")
	p.Answered(now.Add(30*time.Millisecond), late, ok)
	select {
	case <-answered:
	default:
		t.Fatal("the answer ends the hold")
	}
	assert.False(t, held())
	assert.Equal(t, now.Add(28*time.Millisecond+time.Second/10), p.Earliest(now), "the quota's spacing after the send and the answer's excess")

	q := New(10, 5)
	q.Send(now) // never written: a larger burst holds nothing for writes
	assert.False(t, func() bool { _, _, h := q.Hold(); return h }())
}

// TestPacerTakesAnyHeaders: whatever a server's headers say of its quota
// (a policy of one request in centuries, or of more than an int holds a
// nanosecond, a Remaining as large as an int), the next request is due
// no sooner than now and no later than the longest interval a spacing
// keeps, and the one after it never before it.
func TestPacerTakesAnyHeaders(t *testing.T) {
	t.Parallel()
	const maxInt = int(^uint(0) >> 1)
	for _, l := range []Limit{
		{Limit: 1, Window: time.Duration(1<<63 - 1), Remaining: 1},
		{Limit: maxInt, Window: 1, Remaining: maxInt},
		{Limit: maxInt, Window: time.Duration(1<<63 - 1), Remaining: maxInt - 1},
		{Limit: -1, Remaining: maxInt},
		{Limit: 3, Window: time.Second, Remaining: maxInt},
	} {
		p := New(0, 0)
		now := simEpoch
		for k := range 3 {
			ticket := p.Send(p.Earliest(now))
			p.Answered(ticket.Sent, ticket, Answer{Status: http.StatusOK, Limit: l, Found: true})
			next := p.Earliest(ticket.Sent)
			assert.False(t, next.Before(ticket.Sent), "%+v: request %d: the next is due before it", l, k)
			assert.False(t, next.After(ticket.Sent.Add(maxSpan)), "%+v: request %d: the next is due past a year", l, k)
			now = next
		}
	}
}

// TestPacerTakesATimersLatenessFromTheTokenItWaitedFor: under the learned
// rate, a request that was told to wait for the rate's token and went a
// little after it (a timer wakes late) records that lateness, as the
// timers', and counts as held by the rate; one held by a pause, one that
// went more than an interval after its token, and one never told to wait
// record none.
func TestPacerTakesATimersLatenessFromTheTokenItWaitedFor(t *testing.T) {
	t.Parallel()
	p := New(0, 0)
	ok := Answer{Status: http.StatusOK}
	now := simEpoch
	for range 20 {
		ticket := p.Send(now)
		p.Answered(now.Add(time.Millisecond), ticket, ok)
		now = now.Add(time.Millisecond)
	}
	ticket := p.Send(now)
	p.Answered(now.Add(500*time.Microsecond), ticket, throttle429(10*time.Millisecond))
	record := func(t Ticket) sendRecord { return *p.learner.rec(int(t.id)) }

	// held by the pause, which ends within an interval of the rate's
	// token: the lateness would be the pause's, not a timer's
	at := now.Add(700 * time.Microsecond)
	token := p.adaptive.earliest()
	resume := p.Earliest(at)
	require.True(t, resume.After(token), "the throttle's pause holds the request past the token")
	require.Less(t, resume.Sub(token), p.adaptive.interval)
	sent := p.Send(resume.Add(500 * time.Microsecond))
	p.Answered(resume.Add(time.Millisecond), sent, ok)
	assert.Zero(t, record(sent).late, "held by the pause, not the rate")

	// held by the token, and sent half a millisecond after it
	at = resume.Add(time.Millisecond)
	due := p.Earliest(at)
	require.True(t, due.After(at), "the learned rate holds the next request")
	interval := p.adaptive.interval
	sent = p.Send(due.Add(500 * time.Microsecond))
	p.Answered(due.Add(time.Millisecond), sent, ok)
	assert.InDelta(t, 500e-6, record(sent).late, 1e-9, "the timer's lateness")
	assert.True(t, record(sent).paced, "a request the rate held, sent late, was held by the rate")

	// held by the token, but sent long after it: something else held it
	at = due.Add(time.Millisecond)
	due = p.Earliest(at)
	require.True(t, due.After(at))
	sent = p.Send(due.Add(interval + time.Millisecond))
	p.Answered(due.Add(interval+2*time.Millisecond), sent, ok)
	assert.Zero(t, record(sent).late, "more than an interval after its token")
	assert.False(t, record(sent).paced, "a client slower than the rate shows nothing of a higher one")

	// never told to wait
	sent = p.Send(due.Add(10 * interval))
	assert.Zero(t, record(sent).late, "no token waited for")
}
