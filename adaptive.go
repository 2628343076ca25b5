package ugc

import (
	"math"
	"time"
)

// adaptiveRate is the sending rate and the number of requests in flight a
// Client allows itself once a server has throttled it, or told it its
// quota: additive increase, multiplicative decrease (AIMD), as TCP and the
// AWS SDKs' adaptive retry mode do. A throttle halves the rate (and the
// requests in flight); every second without one gives back a tenth of the
// rate before the cut, up to the server's policy rate when it sent one
// (and then the rate is back at the policy's within a second). After a
// first throttle without a policy, nothing tells the server's rate yet:
// the rate starts from what the client saw and doubles every 250 ms until
// the next throttle (TCP's slow start).
// It is arithmetic on the times it is given, so tests drive it with a
// clock of their own; the caller serialises the calls.
type adaptiveRate struct {
	// base is the rate set at since, in requests per second; 0: the
	// controller is not engaged and nothing is capped.
	base  float64
	since time.Time
	// step is the additive increase, in requests per second per second.
	step float64
	// probe is set after a first throttle that gave no measure of the
	// server's rate: the rate then doubles every aimdDoubling (TCP's slow
	// start) until the next throttle shows where the limit is.
	probe bool
	// ceiling is the most the rate grows to: the server's policy rate;
	// 0: none.
	ceiling float64
	// inflight caps the requests in flight; 0: no cap. acks counts the
	// successes since it last grew.
	inflight, acks int
}

// AIMD parameters.
const (
	aimdDecrease    = 0.5  // a throttle multiplies the rate by this
	aimdIncrease    = 0.1  // of the rate before a cut, given back per second
	aimdMinRate     = 0.05 // requests per second: one every 20 s
	aimdMaxInflight = 64   // a cap that grows past this is lifted
	aimdDoubling    = 250 * time.Millisecond
	aimdMaxRate     = 1e6 // requests per second: a probe stops doubling here
)

// engaged reports whether the controller caps anything.
func (a *adaptiveRate) engaged() bool { return a.base > 0 }

// rate returns the rate allowed at now; +Inf when not engaged.
func (a *adaptiveRate) rate(now time.Time) float64 {
	if a.base <= 0 {
		return math.Inf(1)
	}
	elapsed := max(now.Sub(a.since).Seconds(), 0)
	r := a.base + a.step*elapsed
	if a.probe {
		r = min(a.base*math.Exp2(elapsed/aimdDoubling.Seconds()), aimdMaxRate)
	}
	if a.ceiling > 0 {
		r = min(r, a.ceiling)
	}
	return r
}

// throttled takes a throttle at now of a request sent at sent. measured is
// the rate of answers the server accepted over the last second, wait the
// wait it named (0: none), inflight the requests in flight. A throttle of
// a request sent before the last cut is part of the same congestion and
// cuts nothing more.
func (a *adaptiveRate) throttled(now, sent time.Time, measured float64, wait time.Duration, inflight int) {
	if a.engaged() && sent.Before(a.since) {
		return
	}
	var before float64
	switch {
	case a.engaged():
		before = a.rate(now)
		a.probe = false
	default:
		// The first throttle, and no policy: what the client sent says
		// nothing of the server's rate (a burst is throttled in
		// milliseconds), so start low and probe up.
		before = measured
		if wait > 0 {
			before = max(before, 1/wait.Seconds()/aimdDecrease)
		}
		a.probe = true
	}
	a.base = max(before*aimdDecrease, aimdMinRate)
	a.step = max(before*aimdIncrease, aimdMinRate)
	if a.ceiling > 0 {
		// The server said its rate: a throttle below it is another
		// client on the same quota, or timing; back within a second.
		a.step = max(a.ceiling-a.base, aimdMinRate)
	}
	a.since = now
	switch {
	case a.inflight > 0:
		a.inflight = max(a.inflight/2, 1)
	default:
		a.inflight = max(inflight/2, 1)
	}
	a.acks = 0
}

// policy takes the server's policy rate (requests per second), seen at
// now: it becomes the ceiling, and the rate of a controller not yet
// engaged, so that the client paces itself before being throttled.
func (a *adaptiveRate) policy(now time.Time, r float64) {
	if r <= 0 {
		return
	}
	a.ceiling = r
	if !a.engaged() {
		a.base, a.step, a.since = r, r*aimdIncrease, now
	}
}

// succeeded takes a success: the cap on requests in flight grows by one
// for each cap's worth of successes, and is lifted past aimdMaxInflight.
func (a *adaptiveRate) succeeded() {
	if a.inflight == 0 {
		return
	}
	if a.acks++; a.acks >= a.inflight {
		a.inflight++
		a.acks = 0
	}
	if a.inflight > aimdMaxInflight {
		a.inflight = 0
	}
}
