package pace

import (
	"context"
	"maps"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stepClock is a clock a test moves: After returns a channel that fires
// when the test has moved the clock past the wait.
type stepClock struct {
	mu      sync.Mutex
	now     time.Time
	waiters []stepWaiter
}

type stepWaiter struct {
	at time.Time
	c  chan time.Time
}

func newStepClock() *stepClock { return &stepClock{now: simEpoch} }

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *stepClock) After(d time.Duration, _ Wait) (<-chan time.Time, func() bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- c.now
		return ch, func() bool { return false }
	}
	c.waiters = append(c.waiters, stepWaiter{at: c.now.Add(d), c: ch})
	return ch, func() bool { return c.stop(ch) }
}

// stop takes the wait on ch out of the pending ones, as a timer's Stop
// does: a wait given up no longer counts in waiting, where a test that
// counted it could move the clock before the wait that replaced it.
func (c *stepClock) stop(ch chan time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, w := range c.waiters {
		if w.c == ch {
			c.waiters = append(c.waiters[:i], c.waiters[i+1:]...)
			return true
		}
	}
	return false
}

// advance moves the clock by d, firing the waits that end.
func (c *stepClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.waiters[:0]
	for _, w := range c.waiters {
		if w.at.After(c.now) {
			kept = append(kept, w)
			continue
		}
		w.c <- c.now
	}
	c.waiters = kept
}

// waiting returns how many waits are pending.
func (c *stepClock) waiting() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.waiters)
}

// received returns what ch gives, failing the test if it gives nothing
// within a few seconds: a gate that never lets a request go fails the
// test, not the package's time limit.
func received[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(5 * time.Second):
		require.FailNow(t, "nothing came in 5 s")
	}
	var zero T
	return zero
}

// interval returns the spacing of the pacer's bucket.
func (p *Pacer) interval() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.bucket.interval
}

// TestGateServesInOrder: at a configured rate of 10 a second (burst 1),
// four requests queued together go one at a time, in the order they came,
// a tenth of a second (and the headroom) apart.
func TestGateServesInOrder(t *testing.T) {
	t.Parallel()
	clock := newStepClock()
	g := NewGate(New(10, 1, 0), clock)
	ticket, _, err := g.Turn(context.Background(), -1)
	require.NoError(t, err, "the first goes at once")
	g.Pacer().Lost(clock.Now(), ticket)

	order := make(chan int, 4)
	for i := range 4 {
		go func() {
			ticket, _, err := g.Turn(context.Background(), -1)
			assert.NoError(t, err)
			order <- i
			g.Pacer().Lost(clock.Now(), ticket)
		}()
		require.Eventually(t, func() bool { return g.issued.Load() == uint64(i+2) }, time.Second, time.Millisecond, "request %d in line", i)
	}
	for i := range 4 {
		require.Eventually(t, func() bool { return clock.waiting() == 1 }, time.Second, time.Millisecond)
		clock.advance(g.Pacer().interval())
		assert.Equal(t, i, received(t, order), "served in the order they came")
	}
}

// TestGateRefusesATurnBeyondTheLimit: during a pause of a minute, a turn
// that may wait a second is refused at once with the time to the pause's
// end; one that may wait longer waits for it.
func TestGateRefusesATurnBeyondTheLimit(t *testing.T) {
	t.Parallel()
	clock := newStepClock()
	g := NewGate(New(0, 0, 0), clock)
	ticket, _, err := g.Turn(context.Background(), -1)
	require.NoError(t, err)
	g.Pacer().Answered(clock.Now(), ticket, Answer{Status: http.StatusTooManyRequests, Limit: Limit{RetryAfter: time.Minute, Limit: -1, Remaining: -1}, Found: true})

	_, waited, err := g.Turn(context.Background(), time.Second)
	var we *WaitError
	require.ErrorAs(t, err, &we)
	assert.Equal(t, time.Minute, we.Wait)
	assert.Equal(t, time.Minute, we.Pause)
	assert.Equal(t, time.Second, we.Limit)
	assert.Zero(t, waited, "refused at once")

	done := make(chan error, 1)
	go func() {
		ticket, _, err := g.Turn(context.Background(), 2*time.Minute)
		if err == nil {
			g.Pacer().Lost(clock.Now(), ticket)
		}
		done <- err
	}()
	require.Eventually(t, func() bool { return clock.waiting() == 1 }, time.Second, time.Millisecond)
	clock.advance(time.Minute)
	require.NoError(t, received(t, done), "it waited for the pause's end")
}

// TestGateLineMovesPastALeaver: a request whose context ends while it is
// in line leaves it, and the one behind it is served in its place.
func TestGateLineMovesPastALeaver(t *testing.T) {
	t.Parallel()
	clock := newStepClock()
	g := NewGate(New(10, 1, 0), clock)
	ticket, _, err := g.Turn(context.Background(), -1)
	require.NoError(t, err)
	g.Pacer().Lost(clock.Now(), ticket)

	ctx, cancel := context.WithCancel(context.Background())
	first, second := make(chan error, 1), make(chan error, 1)
	go func() { _, _, err := g.Turn(ctx, -1); first <- err }()
	require.Eventually(t, func() bool { return clock.waiting() == 1 }, time.Second, time.Millisecond)
	go func() { _, _, err := g.Turn(context.Background(), -1); second <- err }()
	require.Eventually(t, func() bool { return g.issued.Load() == 3 }, time.Second, time.Millisecond)
	cancel()
	assert.ErrorIs(t, received(t, first), context.Canceled)
	require.Eventually(t, func() bool { return clock.waiting() >= 1 }, time.Second, time.Millisecond)
	clock.advance(time.Second)
	assert.NoError(t, received(t, second))
}

// TestGateHoldsPastTheBurstForTheFirstAnswer: under a configured quota of
// 100 a second with a burst of 2 (one request under it), the second
// request waits for the first one's answer, not for the clock alone; then
// an interval after the answer. Without an answer the hold ends holdBound
// after the first request went.
func TestGateHoldsPastTheBurstForTheFirstAnswer(t *testing.T) {
	t.Parallel()
	clock := newStepClock()
	g := NewGate(New(100, 2, 0), clock)
	first, _, err := g.Turn(context.Background(), -1)
	require.NoError(t, err)

	done := make(chan time.Time, 1)
	go func() {
		ticket, _, err := g.Turn(context.Background(), -1)
		assert.NoError(t, err)
		done <- ticket.Sent
	}()
	require.Eventually(t, func() bool { return clock.waiting() == 1 }, time.Second, time.Millisecond)
	clock.advance(g.Pacer().interval()) // the clock alone would let it go
	require.Eventually(t, func() bool { return clock.waiting() == 1 }, time.Second, time.Millisecond, "held for the answer")
	select {
	case <-done:
		t.Fatal("sent before the first answer")
	default:
	}
	clock.advance(5 * time.Millisecond)
	answeredAt := clock.Now()
	g.Pacer().Answered(answeredAt, first, Answer{Status: http.StatusOK})
	clock.advance(g.Pacer().interval())
	sent := received(t, done)
	assert.GreaterOrEqual(t, sent.Sub(answeredAt), intervalAt(100), "the quota's spacing after the answer")
	assert.LessOrEqual(t, sent.Sub(answeredAt), g.Pacer().interval(), "an interval after it at most")

	// no answer: the hold ends by the clock
	clock = newStepClock()
	g = NewGate(New(100, 2, 0), clock)
	start := clock.Now()
	_, _, err = g.Turn(context.Background(), -1)
	require.NoError(t, err)
	go func() {
		ticket, _, err := g.Turn(context.Background(), -1)
		assert.NoError(t, err)
		done <- ticket.Sent
	}()
	require.Eventually(t, func() bool { return clock.waiting() == 1 }, time.Second, time.Millisecond)
	clock.advance(g.Pacer().interval())
	require.Eventually(t, func() bool { return clock.waiting() == 1 }, time.Second, time.Millisecond)
	clock.advance(holdBound - g.Pacer().interval())
	assert.Equal(t, start.Add(holdBound), received(t, done), "the hold ends holdBound after the first request")
}

// TestGateLeaversHoldNoPlace: during a pause of 2 s that a server named,
// 200 calls that may wait 300 ms are each refused at once, and each is
// told the true wait, the pause's end: a caller that leaves holds no
// place, so those after it are not told an interval more for each. Five
// patient callers (5 s) then wait in line, and each is told no more than
// the pause and the requests before it.
func TestGateLeaversHoldNoPlace(t *testing.T) {
	t.Parallel()
	clock := newStepClock()
	g := NewGate(New(0, 0, 0), clock)
	ticket, _, err := g.Turn(context.Background(), -1)
	require.NoError(t, err)
	g.Pacer().Answered(clock.Now(), ticket, Answer{Status: http.StatusTooManyRequests, Limit: Limit{RetryAfter: 2 * time.Second, Limit: -1, Remaining: -1}, Found: true})
	clock.advance(40 * time.Millisecond)
	for i := range 200 {
		_, _, err := g.Turn(context.Background(), 300*time.Millisecond)
		var we *WaitError
		require.ErrorAs(t, err, &we, "call %d", i)
		assert.Equal(t, 1960*time.Millisecond, we.Wait, "call %d is told the pause's end", i)
	}
	step := g.Pacer().interval()
	done := make(chan error, 5)
	for i := range 5 {
		go func() {
			ticket, _, err := g.Turn(context.Background(), 5*time.Second)
			if err == nil {
				g.Pacer().Answered(clock.Now(), ticket, Answer{Status: http.StatusOK})
			}
			done <- err
		}()
		require.Eventually(t, func() bool { return g.issued.Load() == uint64(i+201) }, time.Second, time.Millisecond)
		wait, _ := g.Pacer().WaitFor(clock.Now(), g.ahead(uint64(i+200)))
		assert.LessOrEqual(t, wait, 1960*time.Millisecond+time.Duration(i)*step, "caller %d is told the pause and those before it", i)
	}
	clock.advance(1960 * time.Millisecond)
	for range 5 {
		require.NoError(t, received(t, done))
		clock.advance(step)
	}
}

// TestGateWakesOnlyTheNextInLine (G4): of 50 requests waiting in line
// behind one that waits for its token, only the next is woken as the line
// moves on: a line of thousands costs a wake a turn, not a wake of every
// request in it.
func TestGateWakesOnlyTheNextInLine(t *testing.T) {
	t.Parallel()
	clock := newStepClock()
	g := NewGate(New(10, 1, 0), clock)
	ticket, _, err := g.Turn(context.Background(), -1)
	require.NoError(t, err)
	g.Pacer().Lost(clock.Now(), ticket)
	const waiting = 50
	done := make(chan uint64, waiting+1)
	for range waiting + 1 {
		go func() {
			ticket, _, err := g.Turn(context.Background(), -1)
			assert.NoError(t, err)
			g.Pacer().Lost(clock.Now(), ticket)
			done <- 0
		}()
	}
	turns := func() map[uint64]chan struct{} {
		g.mu.Lock()
		defer g.mu.Unlock()
		return maps.Clone(g.turns)
	}
	require.Eventually(t, func() bool { return len(turns()) == waiting && clock.waiting() == 1 }, time.Second, time.Millisecond,
		"the first waits for its token, the others for their turn")
	for served := range waiting {
		before := turns()
		clock.advance(g.Pacer().interval())
		received(t, done)
		require.Eventually(t, func() bool { return len(turns()) == waiting-served-1 && clock.waiting() == 1 }, time.Second, time.Millisecond)
		woken := 0
		for _, turn := range before {
			select {
			case <-turn:
				woken++
			default:
			}
		}
		assert.Equal(t, 1, woken, "turn %d woke one request", served+1)
	}
}

// TestGateAsksAgainWhenAPauseStarts (G3): a request waiting in line that
// could wait a second is refused, with the pause's end, when a pause of a
// minute starts, though the line has not moved.
func TestGateAsksAgainWhenAPauseStarts(t *testing.T) {
	t.Parallel()
	clock := newStepClock()
	g := NewGate(New(10, 1, 0), clock)
	first, _, err := g.Turn(context.Background(), -1)
	require.NoError(t, err)
	go func() { _, _, _ = g.Turn(context.Background(), -1) }() // waits for the first's answer
	require.Eventually(t, func() bool { return clock.waiting() == 1 }, time.Second, time.Millisecond)
	refused := make(chan error, 1)
	go func() { _, _, err := g.Turn(context.Background(), time.Second); refused <- err }()
	require.Eventually(t, func() bool { g.mu.Lock(); defer g.mu.Unlock(); return len(g.turns) == 1 }, time.Second, time.Millisecond)
	g.Pacer().Answered(clock.Now(), first, throttledAnswer(time.Minute))
	var we *WaitError
	require.ErrorAs(t, received(t, refused), &we)
	assert.GreaterOrEqual(t, we.Wait, time.Minute)
	assert.Equal(t, time.Second, we.Limit)
}

// TestGateLineSkipsALeaverInTheMiddle (G2): of three requests in line, the
// second leaves while the first waits for its token: the third counts one
// request before it, is told one interval less, and goes right after the
// first.
func TestGateLineSkipsALeaverInTheMiddle(t *testing.T) {
	t.Parallel()
	clock := newStepClock()
	g := NewGate(New(10, 1, 0), clock)
	ticket, _, err := g.Turn(context.Background(), -1)
	require.NoError(t, err)
	g.Pacer().Lost(clock.Now(), ticket)
	served := make(chan string, 3)
	turn := func(ctx context.Context, name string) {
		ticket, _, err := g.Turn(ctx, -1)
		if err != nil {
			served <- name + ": " + err.Error()
			return
		}
		g.Pacer().Lost(clock.Now(), ticket)
		served <- name
	}
	go turn(context.Background(), "A")
	require.Eventually(t, func() bool { return clock.waiting() == 1 }, time.Second, time.Millisecond, "A waits for its token")
	ctx, cancel := context.WithCancel(context.Background())
	go turn(ctx, "B")
	require.Eventually(t, func() bool { return g.issued.Load() == 3 }, time.Second, time.Millisecond)
	go turn(context.Background(), "C")
	require.Eventually(t, func() bool { return g.issued.Load() == 4 }, time.Second, time.Millisecond)
	before, _ := g.Pacer().WaitFor(clock.Now(), g.ahead(3))
	cancel()
	assert.Equal(t, "B: "+context.Canceled.Error(), received(t, served))
	after, _ := g.Pacer().WaitFor(clock.Now(), g.ahead(3))
	assert.Equal(t, 1, g.ahead(3), "C counts A alone before it")
	assert.Equal(t, g.Pacer().interval(), before-after, "C is told an interval less")
	clock.advance(g.Pacer().interval())
	assert.Equal(t, "A", received(t, served))
	require.Eventually(t, func() bool { return clock.waiting() == 1 }, time.Second, time.Millisecond)
	clock.advance(g.Pacer().interval())
	assert.Equal(t, "C", received(t, served))
}
