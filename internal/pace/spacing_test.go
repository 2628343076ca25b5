package pace

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestSpacingForgivesALateRequestItsSlack: with a slack, a request let go
// and written late by up to the slack in all leaves the next token due an
// interval after its own was; one later than that (it found the bucket
// full, after a lull) spaces the next from itself, as does every late
// request without a slack.
func TestSpacingForgivesALateRequestItsSlack(t *testing.T) {
	t.Parallel()
	const interval = 10 * time.Millisecond
	start := simEpoch
	s := spacing{}
	s.set(start, 100, 1)
	s.slack = interval / 2
	s.take(start)
	due := start.Add(interval)
	assert.Equal(t, due, s.earliest())

	s.take(due.Add(3 * time.Millisecond)) // the timer woke 3 ms late
	assert.Equal(t, due.Add(interval), s.earliest(), "a late wake costs the rate nothing")
	s.delay(due.Add(5 * time.Millisecond)) // and it was written 2 ms later: 5 ms in all
	assert.Equal(t, due.Add(interval), s.earliest(), "nor its write, within the slack")
	s.delay(due.Add(6 * time.Millisecond))
	assert.Equal(t, due.Add(6*time.Millisecond+interval-interval/2), s.earliest(), "past the slack, the excess puts the next back")

	lull := s.earliest().Add(time.Second)
	s.take(lull)
	assert.Equal(t, lull.Add(interval), s.earliest(), "a request after a lull spaces the next from itself")

	strict := spacing{}
	strict.set(start, 100, 1)
	strict.take(start)
	strict.take(due.Add(3 * time.Millisecond))
	assert.Equal(t, due.Add(3*time.Millisecond+interval), strict.earliest(), "without a slack a late request puts the next back")
	strict.set(start, 50, 1)
	assert.Zero(t, strict.slack, "a new rate sets no slack")
}

// TestSpacingTakesAnyRateAndBurst: a rate too low for time.Duration, or a
// burst whose refill would overflow it, paces as the slowest interval and
// the largest bucket a spacing keeps (see maxSpan): a full bucket lets its
// burst go at once, and nothing wraps around to let a request go early.
func TestSpacingTakesAnyRateAndBurst(t *testing.T) {
	t.Parallel()
	start := simEpoch
	huge := spacing{}
	huge.set(start, 5, math.MaxInt)
	for k := range 1000 {
		assert.False(t, huge.earliest().After(start), "request %d of a huge burst waits", k)
		huge.take(start)
	}
	assert.Equal(t, int(maxSpan/(200*time.Millisecond)), huge.burst)

	slow := spacing{}
	slow.set(start, 1e-12, 3)
	assert.Equal(t, maxSpan, slow.interval)
	assert.Equal(t, 1, slow.burst)
	slow.take(start)
	assert.Equal(t, start.Add(maxSpan), slow.earliest(), "the next a year on, not at once")
	slow.set(start, 1e-300, math.MaxInt)
	assert.Equal(t, start.Add(maxSpan), slow.earliest(), "a new rate keeps the tokens: none")

	fast := spacing{}
	fast.set(start, 1e300, 2)
	assert.Equal(t, time.Duration(1), fast.interval)
}
