package pace

import (
	"math"
	"time"
)

// learner learns the quota of a server that states none (see the package
// documentation). The caller serialises the calls and tells it the time.
type learner struct {
	recs  []sendRecord // a ring, grown as requests are sent, up to ringLen
	sent  int          // records written in all: the next request's ticket
	epoch time.Time    // the first record's time; records hold seconds since

	engaged bool // by the first throttle
	// anchor is the refusal the phase runs from; first the first refusal
	// until its phase is judged (-1 then), firstEnd the last request sent
	// before its answer; resume ends the pause the anchor started.
	anchor, first, firstEnd int
	resume                  time.Time
	kept                    []sizeBounds // what every phase since the quota changed agrees on
	most                    float64      // the largest size considered
	est                     quota        // the estimate: rate 0 while ramping, at ramp
	ramp                    float64
	// curve is the time the curve has run since the phase began (seconds
	// at the rate), plateau its flat part; sure is from 0 to 1 (settle)
	curve, plateau, sure float64
}

// quota is a token bucket: rate tokens a second, holding size (0: not
// known).
type quota struct {
	rate float64
	size int
}

// sendRecord is one request: when it was sent, what came of it (neither:
// no answer yet, or none, or another), and whether the rate held it back.
type sendRecord struct {
	at                       float64 // seconds since the learner's epoch
	accepted, refused, paced bool
}

// Learning parameters, each a part of the model the package documentation gives.
const (
	ringLen          = 4096 // requests remembered (a ring of up to 64 KiB), and the largest bucket considered
	estimateAt       = 0.3  // where the estimate lies from the least rate kept to the most
	plateauTime      = 30.0 // seconds of sending at the estimate before the probe
	probeTime        = 20.0 // seconds the probe then takes to reach ten times the estimate
	pausesPerPlateau = 18.0 // named waits a plateau lasts at least: a probe's pause is 1/20 of the time at most
	sureWidth        = 0.1  // the span of the rates kept, as a share of the estimate, at which it is sure
	rampTime         = 0.1  // seconds of requests at the ramp's rate that double it (at least every success does)
	rampFloor        = 16.0 // the least rate a ramp starts from: a lower quota costs a throttle more
	backOff          = 0.7  // CUBIC's cut: the least share of the rate refused the back-off keeps
	minRate          = 0.05 // the least rate learned, in requests a second: a request in 20 s
)

// capped returns rate, but no more than a request a nanosecond, the
// finest a bucket spaces.
func capped(rate float64) float64 { return min(rate, float64(time.Second)) }

// record remembers a request sent at t, and returns its ticket.
func (l *learner) record(t time.Time, paced bool) int {
	if l.sent == 0 {
		l.epoch = t
	}
	r := sendRecord{at: t.Sub(l.epoch).Seconds(), paced: paced}
	if len(l.recs) < ringLen && l.sent == len(l.recs) {
		l.recs = append(l.recs, r) // a Client that sends a few holds a few
	} else {
		*l.rec(l.sent) = r
	}
	l.sent++
	return l.sent - 1
}

// rec returns record k, which must be remembered.
func (l *learner) rec(k int) *sendRecord { return &l.recs[k%len(l.recs)] }

// oldest returns the ticket of the oldest record remembered.
func (l *learner) oldest() int { return l.sent - len(l.recs) }

// remembered reports whether record k is still in the ring.
func (l *learner) remembered(k int) bool { return k >= 0 && k >= l.oldest() && k < l.sent }

// quota returns the bucket learned: none before the first throttle, and
// one of no known size while the learner ramps.
func (l *learner) quota() quota {
	switch {
	case !l.engaged:
		return quota{}
	case l.est.rate == 0:
		return quota{rate: l.ramp}
	}
	return quota{rate: l.curveRate(), size: l.est.size}
}

// curveRate is the rate on the curve: the estimate for the plateau, then
// a cubic probe, ten times the estimate probeTime past it.
func (l *learner) curveRate() float64 {
	x := max(l.curve-l.plateau, 0) / probeTime
	return capped(l.est.rate * (1 + 9*x*x*x))
}

// accepted takes the acceptance of the request of ticket k: where the
// rate held it back (the client used the rate), the ramp or the curve
// moves on.
func (l *learner) accepted(k int) {
	if !l.remembered(k) {
		return
	}
	r := l.rec(k)
	r.accepted = true
	switch {
	case !l.engaged || !r.paced:
	case l.est.rate == 0:
		l.ramp = capped(l.ramp * math.Exp2(1/max(1, l.ramp*rampTime)))
	default:
		l.curve += 1 / l.curveRate()
	}
}

// refused marks the request of ticket k refused (by a throttle).
func (l *learner) refused(k int) {
	if l.remembered(k) {
		l.rec(k).refused = true
	}
}

// throttled takes the refusal of the request of ticket k, sent at sent,
// which named wait and paused the client until resume, with the jitter
// in transit, and reports whether it taught anything (one of the episode
// already learned from teaches nothing).
func (l *learner) throttled(k int, sent, resume time.Time, wait, jitter time.Duration) bool {
	if l.engaged && sent.Before(l.resume) {
		return false
	}
	switch {
	case !l.engaged:
		l.start(k, resume)
	case l.remembered(k):
		l.learn(l.span(l.anchor, k, jitter.Seconds()/2), l.quota().rate, l.kept != nil && l.curve < l.plateau)
	}
	l.plateau = l.sure * max(plateauTime, pausesPerPlateau*wait.Seconds())
	l.anchor, l.resume = k, resume
	l.curve = 0
	return true
}

// start takes the first throttle, the refusal of ticket k, which paused
// the client until resume: the ramp starts from the rate the server gave
// until then. The first phase is judged at the next throttle.
func (l *learner) start(k int, resume time.Time) {
	l.engaged, l.first, l.firstEnd = true, k, l.sent-1
	l.ramp = max(l.acceptedUpTo(k)/max(resume.Sub(l.epoch).Seconds(), 1e-9), rampFloor)
}

// span returns the phase from the refusal of ticket from (-1: the first
// request) to that of ticket k, with the jitter of the way in, seconds; or
// from the oldest record remembered, where the ring lost its start.
func (l *learner) span(from, k int, jitter float64) span {
	s := span{jitter: jitter, anchored: true}
	switch {
	case from < 0 && l.oldest() == 0:
		from, s.anchored, s.full = 0, false, true
	case !l.remembered(from):
		from, s.anchored = l.oldest(), false
	}
	// requests sent at the same time reached the server in no known
	// order: those sent with the anchor belong to the phase before it,
	// as those sent with the refusal go before it
	s.recs = append(s.recs, *l.rec(from))
	for i := from + 1; i < k; i++ {
		if r := l.rec(i); !s.anchored || r.at != s.recs[0].at {
			s.recs = append(s.recs, *r)
		}
	}
	for i := k + 1; l.remembered(i) && l.rec(i).at == l.rec(k).at; i++ {
		s.recs = append(s.recs, *l.rec(i))
	}
	s.recs = append(s.recs, *l.rec(k))
	return s
}

// learn takes the phase s, which ended in a refusal at the rate refused,
// atEstimate when the Client sent at the estimate the buckets kept gave:
// rules L2 to L4, and L7, of the package documentation.
func (l *learner) learn(s span, refused float64, atEstimate bool) {
	if l.first >= 0 { // the first phase, judged now, bounds the sizes
		l.most = max(l.acceptedUpTo(l.firstEnd), 1)
		l.kept = l.span(-1, l.first, s.jitter).explain(bucketSizes(l.most))
		l.first = -1
	}
	phase := s.explain(bucketSizes(l.most))
	kept := agreeing(l.kept, phase)
	if len(kept) == 0 {
		kept = phase
	}
	if (len(kept) == 0 || kept[0].lo == 0) && l.most < ringLen {
		l.most = min(2*l.most, ringLen)
		kept = s.explain(bucketSizes(l.most))
	}
	if len(kept) == 0 || kept[0].lo == 0 || atEstimate && keptRate(kept) >= (1-Headroom)*refused {
		// L7: the quota fell, or another client spends the key
		l.kept, l.sure = nil, 1
		l.est = quota{rate: max(backOff*refused, s.given(), minRate)}
		return
	}
	l.settle(kept)
}

// acceptedUpTo counts the requests remembered up to ticket k accepted.
func (l *learner) acceptedUpTo(k int) float64 {
	n := 0.0
	for i := max(l.oldest(), 0); i <= k; i++ {
		if l.rec(i).accepted {
			n++
		}
	}
	return n
}

// rates returns the least rate the buckets kept allow, the estimate (0.3
// of the way from it to the most) and the most.
func rates(kept []sizeBounds) (lo, est, hi float64) {
	lo = math.Inf(1)
	for _, k := range kept {
		lo, hi = min(lo, k.lo), max(hi, k.hi)
	}
	if math.IsInf(hi, 1) {
		return lo, lo, hi
	}
	return lo, lo + estimateAt*(hi-lo), hi
}

// keptRate returns the rate the Client keeps to under the buckets kept:
// the headroom under the estimate, or the least rate kept where that is
// nearer. It is under the quota whichever of them explains it.
func keptRate(kept []sizeBounds) float64 {
	lo, est, _ := rates(kept)
	return capped(max(lo, est*(1-Headroom), minRate))
}

// settle keeps the buckets kept, which bound the rate, and estimates from
// them, as sure as they are close.
func (l *learner) settle(kept []sizeBounds) {
	l.kept = kept
	lo, est, hi := rates(kept)
	l.est = quota{rate: keptRate(kept), size: int(kept[0].size)}
	l.sure = min(1, sureWidth*est/(hi-lo))
}
