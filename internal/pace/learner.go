package pace

import (
	"math"
	"time"
)

// learner learns the quota of a server that says nothing of it but the
// wait its throttles name (see the package documentation, "Learning a
// quota"). The caller serialises the calls and tells it the time.
type learner struct {
	recs  []sendRecord // a ring, grown as requests are sent, up to ringLen
	sent  int          // records written in all: the next request's ticket
	epoch time.Time    // the first record's time; records hold seconds since

	// engaged is set by the first throttle: until then nothing is paced.
	engaged bool
	// anchor is the ticket of the refusal the phase runs from; first is
	// the first refusal's until the first phase is judged, -1 then, and
	// firstEnd the ticket of the last request sent before its answer.
	// resume is the end of the pause the anchor started: a refusal of a
	// request sent before it is part of the same episode.
	anchor, first, firstEnd int
	resume                  time.Time
	// kept are the buckets that explain every phase since the quota last
	// changed, by size; most is the largest size considered.
	kept []sizeBounds
	most float64
	// est is the bucket the client keeps inside: a rate of 0 while it
	// ramps, at ramp.
	est  quota
	ramp float64
	// curve is the time the curve has run since the phase began, in
	// seconds of sending at the rate; plateau is its flat part; sure is
	// how sure the estimate is, from 0 to 1 (see settle).
	curve, plateau, sure float64
}

// quota is a token bucket: rate tokens a second, holding size; a size of
// 0 is not known.
type quota struct {
	rate float64
	size int
}

// sendRecord is one request: when it was sent, what came of it (neither
// accepted nor refused: no answer yet, or none, or another; counted or
// not, nobody knows), and whether the rate held it back (see bucket.take).
type sendRecord struct {
	at                       float64 // seconds since the learner's epoch
	accepted, refused, paced bool
}

// Learning parameters, each a part of the model (see the package
// documentation).
const (
	// ringLen is how many requests the learner remembers, and the largest
	// bucket it considers: a phase of up to 4,096 requests is replayed
	// whole (a ring of 64 KiB, grown as requests are sent).
	ringLen = 4096
	// estimateAt is where the estimate lies between the least and the
	// most rate that explain the phases: nearer the least, as a rate over
	// the quota costs a throttle and its pause, and one under it only the
	// rate until the next probe.
	estimateAt = 0.3
	// plateauTime is how long, in seconds of sending at the estimate, the
	// client stays at it before probing, and probeTime how long the probe
	// then takes to reach ten times the estimate: a steady quota costs a
	// throttle every 35 s or so, and a quota that rose tenfold is found
	// within a minute.
	plateauTime = 30.0
	probeTime   = 20.0
	// pausesPerPlateau makes the plateau that many of the server's named
	// waits long at least: a probe costs a pause, and a long pause no more
	// than a twentieth of the time.
	pausesPerPlateau = 18.0
	// sureWidth: an estimate is sure when every rate the phases leave
	// possible is within this share of it; a less sure one is probed
	// sooner, in proportion.
	sureWidth = 0.1
	// rampTime: with no estimate yet, the rate doubles with every
	// rampTime of requests sent at it (and at least with every success),
	// from what the server gave before the first throttle, and from
	// rampFloor requests a second at least (a lower quota costs one more
	// throttle; a higher one is met a few doublings sooner).
	rampTime  = 0.1
	rampFloor = 16.0
	// backOff multiplies the rate when nothing explains a phase, as CUBIC
	// backs off at a loss.
	backOff = 0.7
	// minRate and maxRate bound every rate learned, in requests a second.
	minRate = 0.05
	maxRate = 1e6
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
func (l *learner) remembered(k int) bool { return k >= 0 && k >= l.oldest() && k < l.sent }

// quota returns the bucket the client keeps inside: none before the first
// throttle, and one of no known size while the learner ramps.
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
// a cubic probe above it, flat near the estimate and steep away from it
// as TCP CUBIC's, ten times the estimate probeTime past the plateau.
func (l *learner) curveRate() float64 {
	x := max(l.curve-l.plateau, 0) / probeTime
	return min(l.est.rate*(1+9*x*x*x), maxRate)
}

// accepted takes the acceptance of the request of ticket k: if the rate
// held it back, the client used the rate, and the ramp or the curve moves
// on (one that sends slower than it may proves nothing of a higher rate).
func (l *learner) accepted(k int) {
	if !l.remembered(k) {
		return
	}
	r := l.rec(k)
	r.accepted = true
	switch {
	case !l.engaged || !r.paced:
	case l.est.rate == 0:
		l.ramp = min(l.ramp*math.Exp2(1/max(1, l.ramp*rampTime)), maxRate)
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
// in transit, and reports whether it taught anything: a refusal of a
// request sent before the last pause ended is part of the episode already
// learned from.
func (l *learner) throttled(k int, sent, resume time.Time, wait, jitter time.Duration) bool {
	if l.engaged && sent.Before(l.resume) {
		return false
	}
	switch {
	case !l.engaged:
		l.start(k, resume)
	case l.remembered(k):
		l.learn(l.span(l.anchor, k, jitter.Seconds()/2))
	}
	l.plateau = l.sure * max(plateauTime, pausesPerPlateau*wait.Seconds())
	l.anchor, l.resume = k, resume
	l.curve = 0
	return true
}

// start takes the first throttle, the refusal of ticket k, which paused
// the client until resume: the ramp starts from the rate the server gave
// until then, pause included. The first phase is judged at the next
// throttle, when the answers in flight at this one have come.
func (l *learner) start(k int, resume time.Time) {
	l.engaged, l.first, l.firstEnd = true, k, l.sent-1
	l.ramp = max(l.span(-1, k, 0).given()/max(resume.Sub(l.epoch).Seconds(), 1e-9), rampFloor)
}

// span returns the phase from the refusal of ticket from (-1: from the
// client's first request, which found the bucket full) to the refusal of
// ticket k, with the jitter of the way in, in seconds. A phase whose start
// the ring no longer holds runs from the oldest record remembered.
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

// learn takes the phase s. The first phase, judged now, bounds the sizes
// considered (a bucket that was full gave no more than its size and its
// refill: what the server accepted of the requests in flight at the
// first refusal, in whatever order they came), and what it proves is
// kept. Then the phase narrows the buckets
// kept to those it agrees with; where none agree, the quota changed, and
// the phase's own are kept; where no bucket considered explains it,
// buckets up to twice as large are considered (a bucket larger than the
// phases show explains any phase at a low enough rate: the sizes grow as
// they must, no faster).
func (l *learner) learn(s span) {
	if l.first >= 0 {
		l.most = max(l.acceptedUpTo(l.firstEnd), 1)
		l.kept = l.span(-1, l.first, s.jitter).explain(bucketSizes(l.most))
		l.first = -1
	}
	phase := s.explain(bucketSizes(l.most))
	if len(phase) == 0 && l.most < ringLen {
		l.most = min(2*l.most, ringLen)
		phase = s.explain(bucketSizes(l.most))
	}
	kept := agreeing(l.kept, phase)
	if len(kept) == 0 {
		kept = phase
	}
	l.settle(kept)
}

// acceptedUpTo counts the requests accepted, of those remembered up to
// ticket k.
func (l *learner) acceptedUpTo(k int) float64 {
	n := 0.0
	for i := max(l.oldest(), 0); i <= k; i++ {
		if l.rec(i).accepted {
			n++
		}
	}
	return n
}

// settle keeps the buckets kept, and estimates between the least and the
// most rate they allow (estimateAt), the size their smallest; it is as
// sure as they are close. Where nothing explains the phase, or nothing
// bounds the rate from below (a refusal at once after a pause: another
// client spends the key, or the quota fell), it backs off from the rate
// it sent at, as CUBIC does.
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
	est := lo
	if !math.IsInf(hi, 1) {
		est += estimateAt * (hi - lo)
	}
	// the Client keeps the headroom under the estimate, or keeps to the
	// least rate that explains the phases where that is nearer: it is
	// under the quota whichever of them explains it
	l.est = quota{rate: min(max(lo, est*(1-Headroom), minRate), maxRate), size: int(kept[0].size)}
	l.sure = min(1, sureWidth*est/(hi-lo))
}
