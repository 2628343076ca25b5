package pace

import (
	"math"
	"time"
)

// spacing is a token bucket of rate requests a second holding at most
// burst, written as the time its next token is due (the generic cell rate
// algorithm): due is when the bucket would hold exactly burst-1 tokens
// after the last request taken. The zero value caps nothing.
//
// gap, when set (0 < gap < interval), is the least time from a request to
// the next: a request taken late by up to interval-gap does not put the
// next token back, which stays due an interval after the last one was
// (GCRA's theoretical arrival time), unless that is less than gap after
// the request. The pacer sets it with a burst of one only (see
// Pacer.spaceFromTheAnswer).
//
// slack, when set, is how late after its token was due a request may be
// let go and written, in all, and the next token stay due an interval
// after that one was (as if the request had gone on time): a timer that
// woke late, or a request that waited to be written, then costs the rate
// nothing. A request let go later than that (one that found the bucket
// full, after a lull) spaces the next from itself. The pacer sets it, on a
// spacing whose burst is one, for the learned rate (see
// learner.forgivesLateness and learner.twoTokens) and for a configured
// burst of two (see slackFromTheSpread).
//
// late, when set, is how much later than it went out the server may count
// a request, past what the spare token absorbs (the jitter in transit: see
// Pacer.roomForTheJitter): a request is taken as if it went out that late.
type spacing struct {
	interval time.Duration // between two tokens; 0: no cap
	burst    int
	due      time.Time
	gap      time.Duration // 0: the interval
	slack    time.Duration
	late     time.Duration
}

// least returns the least time from a request to the next.
func (s *spacing) least() time.Duration {
	if s.gap > 0 && s.gap < s.interval {
		return s.gap
	}
	return s.interval
}

// on reports whether the spacing caps anything.
func (s *spacing) on() bool { return s.interval > 0 }

// rate returns the spacing's rate in requests per second; +Inf when off.
func (s *spacing) rate() float64 {
	if !s.on() {
		return math.Inf(1)
	}
	return float64(time.Second) / float64(s.interval)
}

// earliest returns when the next request may go.
func (s *spacing) earliest() time.Time {
	if !s.on() {
		return time.Time{}
	}
	return s.due.Add(-time.Duration(s.burst-1) * s.interval)
}

// take spends a token for a request sent at at.
func (s *spacing) take(at time.Time) {
	if !s.on() {
		return
	}
	if s.slack > 0 && !at.After(s.earliest().Add(s.slack)) {
		s.due = s.due.Add(s.interval)
		return
	}
	s.due = later(s.due.Add(s.interval), at.Add(s.late+s.least()))
}

// delay takes a request, taken earlier, that went out at at: the next
// token is due no sooner than the least time between two requests after
// it, less the slack.
func (s *spacing) delay(at time.Time) {
	if s.on() {
		s.due = later(s.due, at.Add(s.least()-s.slack))
	}
}

// wrote takes a request, taken earlier, written at at: as delay, counted
// as late as the jitter in transit allows.
func (s *spacing) wrote(at time.Time) { s.delay(at.Add(s.late)) }

// tokens returns the tokens the bucket holds at now.
func (s *spacing) tokens(now time.Time) float64 {
	return min(float64(s.burst), float64(s.burst)+float64(now.Sub(s.due))/float64(s.interval))
}

// limitTokens leaves at most k tokens in the bucket at now; k below 0 is
// a debt, repaid before the next request goes (up to maxSpan of it).
func (s *spacing) limitTokens(now time.Time, k float64) {
	if s.on() && s.tokens(now) > k {
		s.due = now.Add(time.Duration(min((float64(s.burst)-k)*float64(s.interval), float64(time.Duration(s.burst)*s.interval+maxSpan))))
	}
}

// holdUntil lets no request go before t, and one alone at t: the bucket
// refills from there, as a server's does after the pause it named.
func (s *spacing) holdUntil(t time.Time) {
	if s.on() {
		s.due = later(s.due, t.Add(time.Duration(s.burst-1)*s.interval))
	}
}

// maxSpan bounds the time between two tokens and the time a bucket takes
// to fill: a year, past which a bucket paces no differently (no walk
// waits so long), and far inside time.Duration's range (292 years) in every
// sum a spacing makes, whatever rate and burst it is given (a server's
// headers may say anything).
const maxSpan = 365 * 24 * time.Hour

// set changes the rate (requests a second; 0 or less turns the cap off)
// and the burst at now, keeping the tokens the bucket holds. The interval
// is a nanosecond at least and maxSpan at most, and the burst no more than
// fills in maxSpan.
func (s *spacing) set(now time.Time, rps float64, burst int) {
	if !(rps > 0) {
		*s = spacing{}
		return
	}
	interval := intervalAt(rps)
	burst = int(min(time.Duration(max(burst, 1)), maxSpan/interval)) // in int64: no more than burst, whatever int holds
	tokens := float64(burst)
	if s.on() {
		tokens = min(max(s.tokens(now), 0), float64(burst))
	}
	s.interval, s.burst = interval, burst
	s.due = now.Add(time.Duration((float64(s.burst) - tokens) * float64(s.interval)))
	s.gap, s.slack, s.late = 0, 0, 0
}

// widen raises the burst to burst, keeping the tokens the bucket holds
// (or owes: see limitTokens); burst is bounded as set bounds it.
func (s *spacing) widen(burst int) {
	if !s.on() {
		return
	}
	burst = int(min(time.Duration(burst), maxSpan/s.interval))
	if burst > s.burst {
		s.due = s.due.Add(time.Duration(burst-s.burst) * s.interval)
		s.burst = burst
	}
}

// intervalAt returns the time between two requests at rps requests a
// second (more than 0): a nanosecond at least, maxSpan at most.
func intervalAt(rps float64) time.Duration {
	return time.Duration(min(max(float64(time.Second)/rps, 1), float64(maxSpan)))
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
