package pace

import (
	"math"
	"slices"
)

// What a phase proves. A phase is the requests from the end of one pause
// to the throttle that ends it (the first phase: from the first request).
// Replayed on the times they were sent, through a token bucket of rate q
// holding at most b, every request accepted found a token and the
// throttled one did not; for each size b, that bounds q from below and
// above (a candidate), as far as the jitter in transit lets the replay
// stand for the server's bucket. The learner keeps the candidates the
// phases agree on, and estimates the quota between their bounds.

// candidate is a size b the server's bucket may have, and the bounds on
// its rate that the phases since the quota last changed prove for it.
type candidate struct{ b, lo, hi float64 }

// agreeing returns, for each size of bucket both cands and phase hold
// bounds for, the bounds both prove, where they overlap; or, where they
// miss each other by gap or less, the gap between them (the jitter in
// transit moves bounds that tight by about so much: a phase that misses
// the last by so little found the quota where it was, not a new one).
func agreeing(cands, phase []candidate, gap float64) []candidate {
	var out []candidate
	for _, c := range cands {
		for _, p := range phase {
			switch lo, hi := max(c.lo, p.lo), min(c.hi, p.hi); {
			case p.b != c.b:
			case lo <= hi:
				out = append(out, candidate{c.b, lo, hi})
			case lo-hi <= gap:
				out = append(out, candidate{c.b, hi, lo})
			}
		}
	}
	return out
}

// phaseBounds returns, for each size b the server's bucket may have (from
// one to what the first phase accepted), the bounds on q that the phase
// the throttle of ticket i ends proves, where some q explains it.
func (l *learner) phaseBounds(i uint64) []candidate {
	return l.windowBounds(l.phaseWindow(), i)
}

// windowBounds returns, for each size b the server's bucket may have
// (from one to what the first phase accepted), the bounds on q that the
// requests of w up to the throttle of ticket i prove, where some q
// explains them. A window whose start was forgotten bounds sizes up to
// forgottenShare of its requests only: a full bucket of more would
// explain them at a fraction of the rate they were sent at.
func (l *learner) windowBounds(w window, i uint64) []candidate {
	r := l.replayOf(w, i)
	var out []candidate
	for _, b := range l.sizes() {
		if w.forgot && b > forgottenShare*float64(len(r.steps)) {
			break
		}
		if lo, hi := r.bounds(b); lo <= hi && hi > 0 {
			out = append(out, candidate{b, lo, hi})
		}
	}
	return out
}

// sizes returns the sizes of bucket the learner tells apart, in order:
// those up to what the first phase accepted (see bucketSizes), and those
// of its candidates, such as a size two phases met at (see meeting).
func (l *learner) sizes() []float64 {
	sizes := bucketSizes(l.firstAccepted)
	n := len(sizes)
	for _, c := range l.candidates {
		if _, found := slices.BinarySearch(sizes[:n], c.b); !found {
			sizes = append(sizes, c.b)
		}
	}
	slices.Sort(sizes)
	return slices.Compact(sizes)
}

// meeting returns the bounds on which the replays a and b agree, at the
// sizes of bucket from least to most where the rates that explain them
// meet: the rate that explains a phase falls as the bucket grows, the
// faster the shorter the phase, so the two meet at one size, which
// bisection finds among every size, not only those the learner tells
// apart.
func meeting(a, b *replay, least, most float64) []candidate {
	lo, hi := least, most
	apart := func(size float64) bool { // a's rate above b's
		alo, ahi := a.bounds(size)
		blo, bhi := b.bounds(size)
		return alo+ahi > blo+bhi
	}
	above := apart(lo)
	if apart(hi) == above {
		return nil // they do not meet between
	}
	for hi-lo > 1 {
		if mid := math.Floor((lo + hi) / 2); apart(mid) == above {
			lo = mid
		} else {
			hi = mid
		}
	}
	// the bounds are not even about the rates they hold: look a token
	// or two either side
	var out []candidate
	for size := max(lo-2, least); size <= min(hi+2, most); size++ {
		alo, ahi := a.bounds(size)
		blo, bhi := b.bounds(size)
		if min(ahi, bhi) <= 0 {
			continue
		}
		out = append(out, agreeing([]candidate{{size, alo, ahi}}, []candidate{{size, blo, bhi}}, 0)...)
	}
	return out
}

// bucketSizes returns the sizes of bucket the learner tells apart, up to
// most, what the first phase accepted (the bucket, and what refilled it
// while the phase lasted): every one up to 4 and the last denseSizes,
// steps of about a third between.
func bucketSizes(most float64) []float64 {
	most = max(math.Floor(most), 1)
	var out []float64
	for b := 1.0; b <= most; b = max(b+1, min(math.Round(b*4/3), most-denseSizes)) {
		out = append(out, b)
	}
	return out
}

// Slack of the lower bound, in tokens: a request's time in transit
// varies, so the server's bucket is not exactly the one replayed on send
// times. It is kept small: on a bucket of one a token is the whole of the
// quota's spacing, and a tenth of one put the estimate a tenth under it.
const boundSlack = 0.02

// forgottenShare bounds the sizes of bucket a window whose start was
// forgotten tells apart, as a share of its requests.
const forgottenShare = 0.125

// bounds returns the bounds on q that the phase replayed proves, for a
// bucket holding at most b: every request accepted had a token (q at least
// lo), the throttled one had none (q below hi). The replay runs on the
// times the requests were sent, and the server's bucket on the times they
// arrived: each bound gives way by the refill of the spread of the times
// in transit (half that of the round trips), and the lower by boundSlack
// more for an accepted request, which may have arrived that much later
// than its sending says. The throttled request is taken as arriving later
// by the spread: that keeps the upper bound, and the estimate, on the low
// side (taken as arriving earlier, a request refused by a bucket of one,
// whose gap the spread swallows, proves nothing, and the client would go
// on sending into the throttle). A request refused by a bucket of one
// found it a fraction of a token short, no more: a slack on the upper
// bound would put it that fraction of the quota under the rate that was
// refused.
func (r *replay) bounds(b float64) (lo, hi float64) {
	lo = bisect(func(q float64) bool { return r.acceptedFound(q, b, 1-boundSlack-q*r.spread) })
	hi = bisect(func(q float64) bool { return r.throttledFound(q, b) >= 1 })
	return lo, hi
}

// transitSpread returns half the spread of the round trips of the
// requests of w up to ticket i, in seconds.
func (l *learner) transitSpread(w window, i uint64) float64 {
	least, most := math.Inf(1), 0.0
	for k := max(w.from, l.oldest()); k <= int(i); k++ {
		if rtt := l.rec(k).rtt; rtt > 0 {
			least, most = min(least, rtt), max(most, rtt)
		}
	}
	if most < least {
		return 0
	}
	return (most - least) / 2
}

// bisect returns the least q for which ok holds, ok being monotone.
func bisect(ok func(q float64) bool) float64 {
	qlo, qhi := 0.0, 1.0
	for !ok(qhi) {
		if qhi *= 2; qhi > maxRate {
			return maxRate
		}
	}
	for qhi-qlo > qhi*1e-4 {
		if qhi < minRate/16 {
			return 0
		}
		m := (qlo + qhi) / 2
		if ok(m) {
			qhi = m
		} else {
			qlo = m
		}
	}
	return qhi
}

// window is the requests a replay runs over: from the ticket from on,
// the bucket refilling from start (in seconds since the epoch), full
// then, or holding what the pause before it refilled.
type window struct {
	from  int
	start float64
	full  bool
	pause float64
	// forgot: the phase began before the oldest record, which is taken
	// as finding a full bucket; a bucket as large as a good share of the
	// records would explain any count of them (see windowBounds).
	forgot bool
}

// phaseWindow is the phase since the end of the last pause. If its first
// record is forgotten, it begins with the oldest remembered and a full
// bucket.
func (l *learner) phaseWindow() window {
	if !l.remembered(int(l.from)) {
		lo := l.oldest()
		return window{from: lo, start: l.rec(lo).sent, full: true, forgot: true}
	}
	return window{from: int(l.from), start: l.seconds(l.phase), pause: l.pause.Seconds()}
}

// oneAtATime reports whether each request of w up to ticket i was sent
// after the answer to the one before it had come.
func (l *learner) oneAtATime(w window, i uint64) bool {
	for k := max(w.from, l.oldest()) + 1; k <= int(i); k++ {
		prev := l.rec(k - 1)
		if prev.rtt == 0 || l.rec(k).sent < prev.sent+prev.rtt {
			return false
		}
	}
	return true
}

// countBounds returns, for each size b the server's bucket may have, the
// least q that the count of what the first phase accepted proves,
// whatever the order its requests arrived in: a bucket of b accepts at
// most b and what refilled it while they arrived, between the first
// sending and the last answer.
func (l *learner) countBounds() []candidate {
	first, last := l.oldest(), 0.0
	for k := first; k < l.firstEnd; k++ {
		r := l.rec(k)
		last = max(last, r.sent+r.rtt)
	}
	span := last - l.rec(first).sent
	var out []candidate
	for _, b := range bucketSizes(l.firstAccepted) {
		out = append(out, candidate{b, max(l.firstAccepted-b, 0) / max(span, 1e-9), math.Inf(1)})
	}
	return out
}

// firstWindow is the first phase: the oldest request remembered found a
// full bucket.
func (l *learner) firstWindow() window {
	lo := l.oldest()
	return window{from: lo, start: l.rec(lo).sent, full: true}
}

// replay is a window's requests before a throttle as a bucket replayed
// over them sees them: the seconds since the request before (or since the
// window's start), and what came of each. It is built once for a throttle
// and run many times, for each size of bucket and each rate bisect tries.
type replay struct {
	steps []replayStep
	// last is the seconds from the last request of the window to the
	// throttled one.
	last float64
	// refill is the seconds the pause before the window refilled the
	// bucket; full: it began full.
	refill float64
	full   bool
	// spread is half the spread of the window's round trips (see
	// transitSpread).
	spread float64
}

// upTo returns x, or b where x is more: min(b, x) for the numbers a
// replay has (never NaN), in half the time of the builtin's, which
// handles NaN; a replay runs it hundreds of times over each request.
func upTo(b, x float64) float64 {
	if x < b {
		return x
	}
	return b
}

// replayStep is a request as a replay sees it: the seconds since the
// request before it, and what came of it.
type replayStep struct {
	gap     float64
	outcome outcome
}

// replayOf returns the requests of w before the throttle of ticket i, as
// a replay sees them.
func (l *learner) replayOf(w window, i uint64) *replay {
	from := max(w.from, l.oldest())
	r := &replay{steps: make([]replayStep, 0, max(int(i)-from, 0)), refill: w.pause, full: w.full, spread: l.transitSpread(w, i)}
	prev := w.start
	for k := from; k < int(i); k++ {
		rec := l.rec(k)
		r.steps = append(r.steps, replayStep{max(rec.sent-prev, 0), rec.outcome})
		prev = rec.sent
	}
	r.last = max(l.rec(int(i)).sent-prev, 0)
	return r
}

// acceptedFound runs a bucket of rate q holding at most b over the
// requests and reports whether every accepted request found at least
// need tokens (the lower bound's test). An answer not yet come (or none)
// is taken as having taken no token, and a window after a pause as
// beginning with a token and what the pause refilled: what makes the
// bound weakest.
func (r *replay) acceptedFound(q, b, need float64) bool {
	tokens := b
	if !r.full {
		tokens = min(b, 1+q*r.refill)
	}
	for _, s := range r.steps {
		tokens = upTo(b, tokens+q*s.gap)
		if s.outcome == accepted {
			if tokens < need {
				return false
			}
			tokens--
		}
	}
	return true
}

// throttledFound runs a bucket of rate q holding at most b over the
// requests and returns the tokens the throttled request found, arriving
// spread seconds after it was sent (the upper bound's test). An answer
// not yet come (or none) is taken as having taken a token, and a window
// after a pause as beginning with what the pause refilled to what the
// bucket held at the throttle, which was less than a token, taken as
// none: what makes the bound weakest.
func (r *replay) throttledFound(q, b float64) float64 {
	tokens := b
	if !r.full {
		tokens = min(b, q*r.refill)
	}
	for _, s := range r.steps {
		tokens = upTo(b, tokens+q*s.gap)
		if s.outcome != refused {
			tokens--
		}
	}
	return min(b, tokens+q*(r.last+r.spread))
}
