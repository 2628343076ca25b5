package pace

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Gate lets a client's requests go in the order they came, each when its
// Pacer allows, waiting on its Clock (see the package documentation).
type Gate struct {
	pacer *Pacer
	clock Clock

	issued atomic.Uint64 // places given out
	mu     sync.Mutex
	// served is the place whose turn it is; gone the places left before
	// their turn; turns the channels closed when a waiting place's comes.
	served uint64
	gone   map[uint64]bool
	turns  map[uint64]chan struct{}

	waited atomic.Int64 // nanoseconds requests waited for their turn, in all
}

// NewGate returns a gate for p on clock.
func NewGate(p *Pacer, clock Clock) *Gate {
	return &Gate{pacer: p, clock: clock, gone: map[uint64]bool{}, turns: map[uint64]chan struct{}{}}
}

// Pacer returns the gate's pacer.
func (g *Gate) Pacer() *Pacer { return g.pacer }

// Clock returns the gate's clock.
func (g *Gate) Clock() Clock { return g.clock }

// Waited returns how long requests waited for their turn, in all.
func (g *Gate) Waited() time.Duration { return time.Duration(g.waited.Load()) }

// WaitError is a turn refused at once because it would have come later
// than the caller could wait (Limit): Wait is how long it would have
// waited, Pause the part that is a pause a server named.
type WaitError struct {
	Wait, Pause, Limit time.Duration
}

// Error says how long the wait would have been.
func (e *WaitError) Error() string {
	return fmt.Sprintf("a turn in %v (pause %v) is later than the %v the call can wait", e.Wait, e.Pause, e.Limit)
}

// Turn waits for a request's turn and lets it go: it returns the
// request's ticket, for [Pacer.Answered] or [Pacer.Lost], and how long it
// waited. A turn later than limit from now (negative: no bound but ctx's)
// is refused at once with a *WaitError; a context that ends first ends the
// wait with ctx.Err(); either way the request holds no place. A wait for
// an answer ([Pacer.Hold]) ends at limit too, and the request goes.
func (g *Gate) Turn(ctx context.Context, limit time.Duration) (Ticket, time.Duration, error) {
	start := g.clock.Now()
	if !g.pacer.Active() {
		return g.pacer.Send(start), 0, nil
	}
	place := g.issued.Add(1) - 1
	var until time.Time
	if limit >= 0 {
		until = start.Add(limit)
	}
	t, err := g.wait(ctx, place, until)
	d := g.clock.Now().Sub(start)
	g.waited.Add(int64(d))
	return t, d, err
}

// wait waits for place's turn in line, then for the pacer, until at most
// until (zero: no bound but ctx's), and lets the request go.
func (g *Gate) wait(ctx context.Context, place uint64, until time.Time) (Ticket, error) {
	defer g.leave(place)
	if err := g.waitTurn(ctx, place, until); err != nil {
		return Ticket{}, err
	}
	for {
		now := g.clock.Now()
		at := g.pacer.Earliest(now)
		if !at.After(now) {
			held, err := g.holdForAnAnswer(ctx, now, until)
			if err != nil {
				return Ticket{}, err
			}
			if !held {
				return g.pacer.Send(now), nil
			}
			continue
		}
		if err := g.within(now, place, until); err != nil {
			return Ticket{}, err
		}
		kind := ForRate
		if g.pacer.PauseLeft(now) >= at.Sub(now) {
			kind = ForPause
		}
		if err := g.sleep(ctx, at.Sub(now), kind); err != nil {
			return Ticket{}, err
		}
	}
}

// waitTurn waits until place is first in line, or until its turn would
// come after until, or ctx ends. It wakes when its turn comes, and when a
// pause starts, to ask again whether its turn comes in time; never as
// those ahead of it go, so that a line of thousands costs a wake a turn.
func (g *Gate) waitTurn(ctx context.Context, place uint64, until time.Time) error {
	for {
		paused := g.pacer.Paused()
		g.mu.Lock()
		first, turn := place == g.served, g.turns[place]
		if !first && turn == nil {
			turn = make(chan struct{})
			g.turns[place] = turn
		}
		g.mu.Unlock()
		if err := g.within(g.clock.Now(), place, until); err != nil || first {
			return err
		}
		select {
		case <-turn:
		case <-paused:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// sleep waits d on the gate's clock, for w, or until ctx ends.
func (g *Gate) sleep(ctx context.Context, d time.Duration, w Wait) error {
	c, stop := g.clock.After(d, w)
	defer stop()
	select {
	case <-c:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// holdForAnAnswer waits, when the pacer holds the next request for an
// answer, until one comes, the hold ends or until does (zero: no bound
// but ctx's). It reports whether it waited, and ctx.Err() if ctx ended.
func (g *Gate) holdForAnAnswer(ctx context.Context, now, until time.Time) (bool, error) {
	answered, end, held := g.pacer.Hold()
	if !held || !now.Before(end) || !until.IsZero() && !now.Before(until) {
		return false, nil
	}
	if !until.IsZero() && until.Before(end) {
		end = until
	}
	c, stop := g.clock.After(end.Sub(now), ForAnswer)
	defer stop()
	select {
	case <-answered:
	case <-c:
	case <-ctx.Done():
		return true, ctx.Err()
	}
	return true, nil
}

// within returns a *WaitError when the request of place would get its
// turn after until (zero: no bound), those in line before it first.
func (g *Gate) within(now time.Time, place uint64, until time.Time) error {
	if until.IsZero() {
		return nil
	}
	wait, pause := g.pacer.WaitFor(now, g.ahead(place))
	if left := until.Sub(now); wait > left {
		return &WaitError{Wait: wait, Pause: min(pause, wait), Limit: max(left, 0)}
	}
	return nil
}

// ahead returns how many requests are in line before place: those given
// a place before it, less those that left.
func (g *Gate) ahead(place uint64) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := int(place - g.served)
	for p := range g.gone {
		if p < place {
			n--
		}
	}
	return n
}

// leave gives up place: the line moves on, now or when its turn comes,
// and the next in it is woken.
func (g *Gate) leave(place uint64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.turns, place)
	if place != g.served {
		g.gone[place] = true
		return
	}
	g.served++
	for g.gone[g.served] {
		delete(g.gone, g.served)
		g.served++
	}
	if turn := g.turns[g.served]; turn != nil {
		close(turn)
		delete(g.turns, g.served)
	}
}
