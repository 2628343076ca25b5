package pace

import "math"

// span is a phase (rule L2 of the package documentation): its records,
// the last of them the refused request; what the first says of the
// server's bucket (full: it is the client's first request, which found
// the bucket full; anchored: it is a refusal, and the bucket held less
// than a token; neither: it is the oldest record remembered, and the
// bucket held anything up to full); and the jitter in transit, seconds.
type span struct {
	recs           []sendRecord
	full, anchored bool
	jitter         float64
}

// given returns the rate the server gave over s: the requests it
// accepted a second, from the anchor's refusal (the pause included) to
// the last refusal.
func (s span) given() float64 {
	n := 0
	for _, r := range s.recs {
		if r.accepted {
			n++
		}
	}
	return float64(n) / max(s.recs[len(s.recs)-1].at-s.recs[0].at, 1e-9)
}

// rates returns the rates that explain s with a bucket of size tokens,
// and ok false when none does.
func (s span) rates(size float64) (lo, hi float64, ok bool) {
	hi = s.upper(size)
	lo = s.lower(size, hi)
	return lo, hi, lo < hi
}

// upper returns the least rate at which a bucket of size tokens would
// have accepted the refused request e, at face value (0: at no rate would
// it have refused it). The bucket was last full just before some request
// j took its token (or held nothing at the anchor), and gave a token to
// each request since, then had less than one: size + r·(t_e − t_j) <
// used + 1. Requests whose answers never came count as used.
func (s span) upper(size float64) float64 {
	last := len(s.recs) - 1
	e := s.recs[last].at
	hi, used := 0.0, 0.0
	for j := last - 1; j >= 0; j-- {
		r := s.recs[j]
		level := size
		if !r.refused {
			used++
		}
		switch {
		case j == 0 && !s.full:
			level = 0
		case r.refused:
			continue // a full bucket would have accepted it
		}
		if need := used + 1 - level; need > 0 {
			hi = max(hi, need/(e-r.at))
		}
	}
	return hi
}

// lower returns the least rate under hi at which a bucket of size tokens
// accepts every request the server accepted (hi where none does), by
// bisection: one that accepts them at a rate does at any higher.
func (s span) lower(size, hi float64) float64 {
	top := capped(hi)
	if !s.accepts(size, top) {
		return hi
	}
	if s.accepts(size, minRate) {
		return 0
	}
	lo := minRate
	for top-lo > boundsPrecision*top {
		mid := (lo + top) / 2
		if s.accepts(size, mid) {
			top = mid
		} else {
			lo = mid
		}
	}
	return top
}

// boundsPrecision is how close, as a share of it, the bisection brings
// lo: a hundredth of a percent, far finer than the jitter moves it.
const boundsPrecision = 1e-4

// accepts reports whether a bucket of size tokens at rate requests a
// second accepts every accepted request of s: GCRA on the times sent, each
// counted as far from the last as the jitter allows (a tolerance of the
// jitter more), from full, or from a token at the anchor.
func (s span) accepts(size, rate float64) bool {
	interval := 1 / rate
	tolerance := (size-1)*interval + s.jitter
	due := s.recs[0].at // full
	if s.anchored {
		due += tolerance - s.jitter // one token, and what the jitter refilled
	}
	for _, r := range s.recs[:len(s.recs)-1] {
		if !r.accepted || s.anchored && r.at <= s.recs[0].at+s.jitter {
			continue // not taken, or perhaps taken before the anchor
		}
		if r.at < due-tolerance-1e-9 { // a nanosecond for the rounding of times as seconds
			return false
		}
		due = max(due, r.at) + interval
	}
	return true
}

// sizeBounds are the rates that explain every phase since the quota last
// changed, for a bucket of size tokens.
type sizeBounds struct{ size, lo, hi float64 }

// explain returns, for each of sizes, the rates that explain s; sizes
// ascending, so are the bounds.
func (s span) explain(sizes []float64) []sizeBounds {
	var out []sizeBounds
	for _, b := range sizes {
		if lo, hi, ok := s.rates(b); ok {
			out = append(out, sizeBounds{b, lo, hi})
		}
	}
	return out
}

// agreeing returns, size by size, the rates both kept and phase allow,
// where they overlap.
func agreeing(kept, phase []sizeBounds) []sizeBounds {
	var out []sizeBounds
	for _, k := range kept {
		for _, p := range phase {
			if lo, hi := max(k.lo, p.lo), min(k.hi, p.hi); p.size == k.size && lo < hi {
				out = append(out, sizeBounds{k.size, lo, hi})
			}
		}
	}
	return out
}

// bucketSizes returns the sizes of bucket the learner tells apart, up to
// most: every size to 64, where a token is a large share of the bucket,
// then steps of a 64th, as fine a share.
func bucketSizes(most float64) []float64 {
	var out []float64
	for b := 1.0; b <= most; {
		out = append(out, b)
		if b < 64 {
			b++
		} else {
			b = math.Round(b * (1 + 1.0/64))
		}
	}
	return out
}
