package pace

import (
	"math"
	"time"
)

// learner learns the quota of a server that says nothing of it but the
// wait its throttles name (see the package documentation, "Learning a
// quota"): from the times the client sent its requests and which the
// server accepted, it keeps the token buckets that explain every phase
// since the quota last changed, and gives the client a bucket that fits
// inside all of them. The caller serialises the calls and tells it the
// time.
type learner struct {
	recs  []sendRecord // a ring, grown as requests are sent, up to ringLen
	sent  int          // records written in all: the next request's ticket
	epoch time.Time    // the first record's time; records hold seconds since

	// engaged is set by the first throttle: until then nothing is paced.
	engaged bool
	// anchor is the ticket of the refusal the phase runs from; -1 in the
	// first phase. resume is the end of the pause that refusal started:
	// a refusal of a request sent before it is part of the same episode.
	anchor int
	resume time.Time
	// kept are the buckets that explain every phase since the quota last
	// changed, by size; most is the largest size considered.
	kept []sizeBounds
	most float64
	// est is the bucket the client keeps inside; a rate of 0 while
	// ramping, when the rate is ramp.
	est  quota
	ramp float64
	// curve is the time, in seconds of sending at the rate, the curve has
	// run since the phase began; plateau is its flat part. sure is how
	// sure the estimate is, from 0 to 1: the plateau is as long.
	curve, plateau, sure float64
}

// quota is a token bucket: rate tokens a second, holding size.
type quota struct {
	rate float64
	size int
}

// sendRecord is one request: when it was sent, what came of it, and
// whether the rate held it back (see bucket.take).
type sendRecord struct {
	at      float64 // seconds since the learner's epoch
	outcome outcome
	paced   bool
}

type outcome uint8

const (
	pending  outcome = iota // no answer yet
	accepted                // a 2xx
	refused                 // a throttle
	lost                    // no answer, or another: counted or not, nobody knows
)

// Learning parameters, each a part of the model (see the package
// documentation).
const (
	// ringLen is how many requests the learner remembers: a phase of up
	// to 4,096 requests is replayed whole (64 KiB).
	ringLen = 4096
	// estimateAt is where the estimate lies between the bounds of a size:
	// nearer the lower, as a rate over the quota costs a throttle and its
	// pause, and one under it only the rate until the next probe.
	estimateAt = 0.3
	// plateauTime is how long, in seconds of sending at the estimate, the
	// client stays at it before probing; probeTime how long the probe
	// then takes to reach probeRise times the estimate. Together they
	// bound the time to find a quota that rose tenfold to about a
	// minute, and make a steady quota's throttles one in about 35 s.
	plateauTime = 30.0
	probeTime   = 20.0
	probeRise   = 10.0
	// sureWidth: an estimate is sure when every rate the phases leave
	// possible is within this share of it above it; one less sure is
	// probed sooner, in proportion, and after quickPlateauTime at least.
	sureWidth        = 0.1
	quickPlateauTime = 4.0
	// pausesPerPlateau makes the plateau that many of the server's named
	// waits long at least: a probe costs a pause, and a long one costs a
	// tenth of the time at most.
	pausesPerPlateau = 18.0
	// rampTime: with no estimate yet, the rate doubles with every
	// rampTime of requests sent at it (and at least with every success),
	// from what the server gave before the first throttle, and from
	// rampFloor requests a second at least (a lower quota costs one more
	// throttle; a higher one is met a few doublings sooner).
	rampTime  = 0.1
	rampFloor = 8.0
	// backOff multiplies the rate when nothing the learner tells apart
	// explains a phase, as CUBIC backs off at a loss.
	backOff = 0.7
	// minRate and maxRate bound every rate learned, in requests a second;
	// maxSize bounds the buckets considered.
	minRate = 0.05
	maxRate = 1e6
	maxSize = 4096
)

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
func (l *learner) remembered(k int) bool { return k >= l.oldest() && k < l.sent && k >= 0 }

// answered sets the outcome of the request of ticket k.
func (l *learner) answered(k int, o outcome) {
	if l.remembered(k) {
		l.rec(k).outcome = o
	}
}

// quota returns the bucket the client keeps inside; the zero quota
// before the first throttle, and a size of 0 (not known) while ramping.
func (l *learner) quota() quota {
	switch {
	case !l.engaged:
		return quota{}
	case l.est.rate == 0:
		return quota{rate: l.ramp} // of no size known yet
	}
	return quota{rate: l.curveRate(), size: l.est.size}
}

// curveRate is the rate on the curve: the estimate for the plateau, then
// a cubic probe above it, flat near the estimate and steep away from it,
// as TCP CUBIC's.
func (l *learner) curveRate() float64 {
	x := max(l.curve-l.plateau, 0) / probeTime
	return min(l.est.rate*(1+(probeRise-1)*x*x*x), maxRate)
}

// success takes the acceptance of the request of ticket k: if the rate
// held it back, the client used the rate, and the ramp or the curve moves
// on (one that sends slower than it may proves nothing of a higher rate).
func (l *learner) success(k int) {
	if !l.engaged || !l.remembered(k) || !l.rec(k).paced {
		return
	}
	if l.est.rate == 0 {
		l.ramp = min(l.ramp*math.Exp2(1/max(1, l.ramp*rampTime)), maxRate)
		return
	}
	l.curve += 1 / l.curveRate()
}

// throttled takes the refusal of the request of ticket k, sent at sent,
// which named a wait and paused the client until resume, and
// reports whether it taught anything: a refusal of a request sent before
// the last pause ended is part of the episode already learned from.
func (l *learner) throttled(k int, sent, resume time.Time, wait, jitter time.Duration) bool {
	if l.engaged && sent.Before(l.resume) {
		return false
	}
	if l.remembered(k) {
		l.learn(l.phase(k, jitter.Seconds()/2), resume)
	}
	l.plateau = max(quickPlateauTime, l.sure*max(plateauTime, pausesPerPlateau*wait.Seconds()))
	l.anchor, l.resume = k, resume
	l.curve = 0
	return true
}

// phase returns the phase the refusal of ticket k ends, with the jitter
// of the way in.
func (l *learner) phase(k int, jitter float64) span {
	from, st := l.anchor, fromAnchor
	switch {
	case !l.engaged && l.oldest() == 0:
		from, st = 0, fromFull
	case !l.engaged || !l.remembered(from):
		from, st = l.oldest(), fromUnknown
	}
	recs := make([]sendRecord, 0, k-from+1)
	for i := from; i <= k; i++ {
		recs = append(recs, *l.rec(i))
	}
	return span{recs: recs, start: st, jitter: jitter}
}

// learn takes the phase s, whose refusal paused the client until resume.
// The first phase shows how large the bucket can be (no larger than what
// it gave from full), and starts the ramp from the rate it gave, pause
// included. A later one narrows the buckets kept to those it agrees with;
// where none agree, the quota changed, and the phase's own are kept; where
// no bucket considered explains it, buckets up to twice as large are
// considered (a bucket larger than the phases show explains any phase at
// a low enough rate: the sizes grow as they must, no faster).
func (l *learner) learn(s span, resume time.Time) {
	given := s.given()
	if !l.engaged {
		l.engaged = true
		l.most = max(given, 1)
		l.kept = s.explain(bucketSizes(l.most))
		l.ramp = max(given/resume.Sub(l.epoch).Seconds(), rampFloor)
		return
	}
	phase := s.explain(bucketSizes(l.most))
	if debugLearn != nil {
		debugLearn(s, phase, l.kept)
	}
	if len(phase) == 0 && l.most < maxSize {
		l.most = min(2*l.most, maxSize)
		phase = s.explain(bucketSizes(l.most))
	}
	kept := agreeing(l.kept, phase, 0)
	if len(kept) == 0 {
		kept = phase
	}
	l.settle(kept)
}

var debugLearn func(s span, phase, kept []sizeBounds)

// settle keeps kept, and estimates the bucket that fits inside every one
// of them: the smallest size, at the least rate estimated for any (sizes
// ascend, and their rates fall), so that the client is not over the
// quota whichever explains the phases. Where nothing explains the phase,
// or nothing bounds the rate from below (a refusal at once after a pause:
// another client spends the key, or the quota fell), it backs off from
// the rate it sent at instead, as CUBIC does.
func (l *learner) settle(kept []sizeBounds) {
	if len(kept) == 0 || kept[0].lo == 0 {
		l.est = quota{rate: max(backOff*l.quota().rate, minRate), size: max(l.est.size, 1)}
		l.sure = 1
		return
	}
	l.kept = kept
	lo, hi := math.Inf(1), 0.0
	for _, k := range kept {
		lo, hi = min(lo, k.lo), max(hi, k.hi)
	}
	rate := lo
	if !math.IsInf(hi, 1) {
		rate += estimateAt * (hi - lo)
	}
	l.est = quota{rate: min(max(rate, minRate), maxRate), size: int(kept[0].size)}
	l.sure = min(1, sureWidth*l.est.rate/max(hi-lo, 1e-9))
}

// given returns what the server gave in the phase s: the requests before
// the refusal it did not refuse.
func (s span) given() float64 {
	n := 0.0
	for _, r := range s.recs[:len(s.recs)-1] {
		if r.outcome != refused {
			n++
		}
	}
	return n
}
