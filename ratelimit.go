package ugc

import (
	"context"
	"math"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

// pacer is a Client's pacing, shared by every call and walk: the rate the
// caller configured ([WithRateLimit]), one pause for the whole client
// (a throttle's named wait, or a used-up quota's reset), and the
// client's own rate and requests in flight once a server throttled it or
// told its quota ([adaptiveRate]). Until any of these applies, an attempt
// pays one atomic load for it.
type pacer struct {
	// active is set once anything may make an attempt wait.
	active atomic.Bool
	// user is the configured limiter; nil: none.
	user *rate.Limiter
	// pauseUntil is the end of the client-wide pause, in Unix nanoseconds.
	pauseUntil atomic.Int64
	// sending counts the attempts between their turn and their answer.
	sending atomic.Int64

	mu sync.Mutex
	// ctl is the adaptive rate; lim applies it (nil until engaged),
	// capacity is its burst: the most the server's Remaining showed, plus
	// one.
	ctl      adaptiveRate
	lim      *rate.Limiter
	capacity int
	// freed is closed, and replaced, each time an attempt ends while the
	// requests in flight are capped.
	freed chan struct{}

	accepted acceptedRate

	throttles atomic.Int64 // 429 and 503 answers
	pauses    atomic.Int64 // client-wide pauses started
	waitedNs  atomic.Int64 // time attempts waited for their turn

	now func() time.Time // time.Now, or a test's clock
}

func newPacer(rps float64, burst int) *pacer {
	p := &pacer{freed: make(chan struct{}), now: time.Now}
	if rps > 0 {
		p.user = rate.NewLimiter(rate.Limit(rps), burst)
		p.active.Store(true)
	}
	return p
}

// turn waits until an attempt may be sent: a free slot when the requests
// in flight are capped, the end of the client-wide pause, then the
// configured and the adaptive rates. It returns how long it waited; the
// attempt must call [pacer.done] after its answer unless turn failed (the
// context ended).
func (p *pacer) turn(ctx context.Context) (time.Duration, error) {
	if !p.active.Load() {
		p.sending.Add(1)
		return 0, nil
	}
	start := p.now()
	if err := p.slot(ctx); err != nil {
		return p.waited(start), err
	}
	for {
		if err := sleep(ctx, p.pauseLeft()); err != nil {
			p.done()
			return p.waited(start), err
		}
		if err := p.reserve(ctx, p.user); err != nil {
			p.done()
			return p.waited(start), err
		}
		p.mu.Lock()
		lim := p.lim
		p.mu.Unlock()
		if err := p.reserve(ctx, lim); err != nil {
			p.done()
			return p.waited(start), err
		}
		if p.pauseLeft() <= 0 { // no pause began while it waited
			return p.waited(start), nil
		}
	}
}

// waited records and returns the time since start.
func (p *pacer) waited(start time.Time) time.Duration {
	d := p.now().Sub(start)
	p.waitedNs.Add(int64(d))
	return d
}

// pauseLeft returns how long the client-wide pause still lasts.
func (p *pacer) pauseLeft() time.Duration {
	until := p.pauseUntil.Load()
	if until == 0 {
		return 0
	}
	return time.Duration(until - p.now().UnixNano())
}

// reserve waits for a token of lim (nil: none), or until ctx ends.
func (p *pacer) reserve(ctx context.Context, lim *rate.Limiter) error {
	if lim == nil {
		return nil
	}
	r := lim.ReserveN(p.now(), 1)
	if !r.OK() {
		return nil // a burst of 0 cannot happen: options refuse it
	}
	if err := sleep(ctx, r.DelayFrom(p.now())); err != nil {
		r.Cancel()
		return err
	}
	return nil
}

// slot takes a place among the requests in flight, waiting while they are
// capped and the cap is reached.
func (p *pacer) slot(ctx context.Context) error {
	for {
		p.mu.Lock()
		if limit := p.ctl.inflight; limit == 0 || p.sending.Load() < int64(limit) {
			p.sending.Add(1)
			p.mu.Unlock()
			return nil
		}
		freed := p.freed
		p.mu.Unlock()
		select {
		case <-freed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// done ends an attempt's place among the requests in flight.
func (p *pacer) done() {
	p.sending.Add(-1)
	if !p.active.Load() {
		return
	}
	p.mu.Lock()
	close(p.freed)
	p.freed = make(chan struct{})
	p.mu.Unlock()
}

// answer is what an answer told the pacer.
type answer struct {
	// limit is what the headers said; nil when they said nothing.
	limit *RateLimit
	// throttled: a 429 or a 503 that named a wait.
	throttled bool
	// wait is the wait a throttled answer named; 0 for none.
	wait time.Duration
	// pause is the client-wide pause this answer started, if any.
	pause time.Duration
	// quotaWait is how long the attempt waited for its turn; unsent says
	// the context ended while it waited, and nothing was sent.
	quotaWait time.Duration
	unsent    bool
}

// observe reads an answer to an attempt sent at sent: it counts a 429 or
// 503, pauses the client for a throttle's named wait or a used-up quota's
// reset, and feeds the adaptive rate. On an unlimited server (no such
// status, no rate-limit header) it costs a few map lookups.
func (p *pacer) observe(resp *http.Response, sent time.Time) answer {
	var a answer
	code := resp.StatusCode
	ok2xx := code >= 200 && code <= 299
	rl, found := RateLimit{}, false
	if len(resp.Header) > 0 {
		rl, found = parseRateLimit(resp.Header, p.now())
	}
	if !found && ok2xx {
		if p.active.Load() {
			p.succeeded()
		}
		return a
	}
	now := p.now()
	if found {
		seen := rl
		a.limit = &seen
	}
	if code == http.StatusTooManyRequests || code == http.StatusServiceUnavailable {
		p.throttles.Add(1)
		a.wait = rl.namedWait()
		a.throttled = a.wait > 0 // one that names no wait is an ordinary failure
	}
	if !a.throttled && !found {
		return a
	}
	a.pause = p.adapt(now, sent, rl, a, ok2xx)
	return a
}

// adapt takes what an answer sent at sent said of the quota (rl) and of
// throttling (a), under the pacer's lock: the quota's policy and size, the
// adaptive rate, and the pause an answer starts (returned; 0 for none).
func (p *pacer) adapt(now, sent time.Time, rl RateLimit, a answer, ok2xx bool) (pause time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.active.Store(true)
	if rl.Remaining > 0 && rl.Remaining+1 > p.capacity {
		p.capacity = rl.Remaining + 1
	}
	p.ctl.policy(now, rl.Rate())
	switch {
	case a.throttled:
		p.ctl.throttled(now, sent, p.accepted.rate(now), a.wait, int(p.sending.Load()))
		pause = p.pause(now, a.wait) // a.wait > 0: a throttle names a wait
	case rl.Remaining == 0 && rl.Reset > 0:
		pause = p.pause(now, rl.Reset) // the quota is used up: wait for it, not for a 429
	}
	if ok2xx {
		p.accepted.add(now)
		p.ctl.succeeded()
	}
	p.apply(now, rl.Remaining, a.throttled)
	return pause
}

// succeeded feeds a success to an engaged controller.
func (p *pacer) succeeded() {
	now := p.now()
	p.accepted.add(now)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ctl.engaged() && p.lim != nil {
		p.ctl.succeeded()
		p.lim.SetLimitAt(now, rate.Limit(p.ctl.rate(now)))
	}
}

// apply sets the adaptive limiter to the controller's rate; it is made
// when the controller engages, holding the Remaining the server showed,
// and emptied by a throttle so that the requests waiting for the pause
// go one by one after it. p.mu is held.
func (p *pacer) apply(now time.Time, remaining int, throttled bool) {
	if !p.ctl.engaged() {
		return
	}
	r := rate.Limit(p.ctl.rate(now))
	burst := max(p.capacity, 1)
	if p.lim == nil {
		tokens := burst
		switch {
		case throttled:
			tokens = 0
		case remaining >= 0:
			tokens = max(min(remaining-int(p.sending.Load()), burst), 0)
		}
		p.lim = rate.NewLimiter(r, max(tokens, 1))
		if tokens == 0 {
			p.lim.ReserveN(now, 1) // starts empty
		}
		p.lim.SetBurstAt(now, burst)
		return
	}
	p.lim.SetLimitAt(now, r)
	p.lim.SetBurstAt(now, burst)
	if throttled {
		if n := int(p.lim.TokensAt(now)); n > 0 {
			p.lim.ReserveN(now, n)
		}
	}
}

// pause holds every new attempt of the client until now+d, unless a pause
// already lasts longer; it returns d if it started or lengthened one.
func (p *pacer) pause(now time.Time, d time.Duration) time.Duration {
	until := now.Add(d).UnixNano()
	for {
		cur := p.pauseUntil.Load()
		if cur >= until {
			return 0
		}
		if p.pauseUntil.CompareAndSwap(cur, until) {
			p.pauses.Add(1)
			return d
		}
	}
}

// rate returns the rate the client allows itself now, in requests per
// second: the lower of the configured and the adaptive rates; 0 when
// neither applies.
func (p *pacer) rate() float64 {
	r := math.Inf(1)
	if p.user != nil {
		r = float64(p.user.Limit())
	}
	p.mu.Lock()
	r = min(r, p.ctl.rate(p.now()))
	p.mu.Unlock()
	if math.IsInf(r, 1) {
		return 0
	}
	return r
}

// acceptedRate counts the answers the server accepted over the last
// second, in ten buckets of 100 ms, lock-free.
type acceptedRate struct {
	buckets [10]struct{ epoch, n atomic.Int64 }
}

const acceptedBucket = 100 * time.Millisecond

func (r *acceptedRate) add(now time.Time) {
	e := now.UnixNano() / int64(acceptedBucket)
	b := &r.buckets[e%int64(len(r.buckets))]
	if old := b.epoch.Load(); old != e && b.epoch.CompareAndSwap(old, e) {
		b.n.Store(0)
	}
	b.n.Add(1)
}

// rate returns the answers accepted in the last second, per second.
func (r *acceptedRate) rate(now time.Time) float64 {
	e := now.UnixNano() / int64(acceptedBucket)
	var n int64
	for i := range r.buckets {
		b := &r.buckets[i]
		if be := b.epoch.Load(); be > e-int64(len(r.buckets)) && be <= e {
			n += b.n.Load()
		}
	}
	return float64(n)
}

// throttleStats are a Client's counters of throttling, for a walk's
// summary: a walk takes them at its start and at its end, and the
// summary holds the difference (see [WalkSummary.addThrottling]).
type throttleStats struct {
	throttles int64         // 429 and 503 answers
	pauses    int64         // client-wide pauses started
	waited    time.Duration // time attempts waited for their turn
	rate      float64       // the rate the client allows itself; 0: none
}

// throttleStats returns the Client's throttling counters now.
func (c *Client) throttleStats() throttleStats {
	return throttleStats{throttles: c.pace.throttles.Load(), pauses: c.pace.pauses.Load(),
		waited: time.Duration(c.pace.waitedNs.Load()), rate: c.pace.rate()}
}
