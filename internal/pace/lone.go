package pace

// A refusal alone. On a bucket of one, no spare token absorbs a request
// that reaches the server later than its sending says: the next one, on
// time, finds the bucket a fraction of a token short, though the two were
// sent further apart than the quota's spacing. Such a refusal says the
// jitter in transit needs room, not that the quota is lower: learning
// from it as from an overshoot (taking the refused request as arriving
// late, as the bounds do) puts the quota under the gap it was refused at,
// and a phase of one accepted request puts it at a fraction of that.

// loneStep is how far a refusal alone lowers the estimate: room for the
// jitter, a few percent of the spacing.
const loneStep = 0.03

// lone reports whether the throttle of ticket i is a refusal alone: the
// bucket is known to hold one, its rate to within looseBounds (an
// estimate established, not one a loose bound leaves) and the jitter in
// transit to less than its spacing, the refused request was sent at the
// estimate or under it (not by a probe above it), the one before it in
// the phase was accepted, and the throttle before was not a refusal
// alone in the same plateau: a second one before the plateau's end is a
// quota that changed, learned as usual (jitter that lets a whole plateau
// through is still jitter; a quota that fell to a larger bucket at a
// lower rate refuses a request every few bucketfuls, and each refusal
// taken alone lowered the rate 3 %, a throttle every few seconds).
func (l *learner) lone(i uint64) bool {
	inRow := l.doubted && l.succeeded < l.plateau
	if l.ramping || inRow || l.succeeded > l.plateau || len(l.candidates) == 0 || l.hi-l.lo > looseBounds*l.est {
		return false
	}
	for _, c := range l.candidates {
		if c.b != 1 {
			return false
		}
	}
	if l.transitSpread(l.phaseWindow(), i) >= 1/l.est {
		// jitter of more than the spacing: a bucket of one would refuse
		// half the requests; the bucket is larger, or the quota lower
		return false
	}
	prev := int(i) - 1
	return prev >= int(l.from) && l.remembered(prev) && l.rec(prev).outcome == accepted
}

// jittered takes a refusal alone: the bounds stand, and the estimate
// makes room for the jitter.
func (l *learner) jittered() {
	l.doubted, l.jittery = true, true
	l.est = max(l.est*(1-loneStep), minRate)
}
