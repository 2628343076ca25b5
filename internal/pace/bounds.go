package pace

import "math"

// What a phase proves. A phase is the client's requests from one refusal
// (the anchor: the server's bucket then held less than a token) to the
// next; the first runs from the client's first request, taken to have
// found the bucket full. For a bucket of b tokens, the rates that explain
// a phase form an interval [lo, hi): more rate only adds tokens, so lo is
// the least rate at which such a bucket accepts every request the server
// accepted, and hi the least at which it would have accepted the refused
// one too. The server counted each request some time after the client
// sent it, by up to the jitter in transit more for one than another; the
// bounds take that time against the client: lo as weak as the jitter
// allows, hi as strong, so that a refusal is always explained by the
// rate, never by the jitter (a refusal the jitter caused then lowers the
// estimate a little, which is what a bucket too small for the jitter
// needs).

// start is what a phase's first record says of the server's bucket.
type start int

const (
	fromFull    start = iota // the client's first request: the bucket was full
	fromAnchor               // a refusal: the bucket held less than a token
	fromUnknown              // the oldest record remembered: anything up to full
)

// span is a phase: its records, the last of them the refused request;
// what the first says of the bucket; and the jitter in transit, seconds.
type span struct {
	recs   []sendRecord
	start  start
	jitter float64
}

// rates returns the rates that explain s with a bucket of size tokens,
// and ok false when none does.
func (s span) rates(size float64) (lo, hi float64, ok bool) {
	hi = s.upper(size)
	lo = s.lower(size, hi)
	return lo, hi, lo < hi
}

// upper returns the least rate at which a bucket of size tokens would
// have accepted the refused request. The bucket was last full just before
// some request j took its token (or held nothing at the anchor, or
// something at the oldest record), and from there to the refusal it gave
// out a token to every request counted since and had less than one left:
// level + r·(t_e − t_j) < used + 1. The refusal is taken as counted the
// jitter late. Requests whose answers have not come, or never came, count
// as used.
func (s span) upper(size float64) float64 {
	last := len(s.recs) - 1
	e := s.recs[last].at
	hi, used := 0.0, 0.0
	for j := last - 1; j >= 0; j-- {
		r := s.recs[j]
		level := size
		if r.outcome != refused {
			used++
		}
		switch {
		case j == 0 && s.start != fromFull:
			level = 0
		case r.outcome == refused:
			continue // a full bucket would have accepted it
		}
		if need := used + 1 - level; need > 0 {
			hi = max(hi, need/(e-r.at))
		}
	}
	if hi == 0 {
		return math.Inf(1) // nothing before the refusal: any rate explains it
	}
	return hi
}

// lower returns the least rate, below hi, at which a bucket of size
// tokens accepts every request the server accepted, counted as far apart
// as the jitter allows (a tolerance of the jitter more), starting with one
// token at the anchor, or full otherwise; by bisection, as a bucket that
// accepts them at a rate accepts them at any higher one. It returns hi
// when no rate under hi does.
func (s span) lower(size, hi float64) float64 {
	top := min(hi, maxRate)
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
// second accepts every accepted request of s (GCRA on the times sent, with
// the jitter's tolerance more).
func (s span) accepts(size, rate float64) bool {
	interval := 1 / rate
	tolerance := (size-1)*interval + s.jitter
	due := s.recs[0].at // full
	if s.start == fromAnchor {
		due = s.recs[0].at + tolerance // one token
	}
	for _, r := range s.recs[:len(s.recs)-1] {
		if r.outcome != accepted {
			continue
		}
		if r.at < due-tolerance {
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
// where they overlap, or where they miss each other by slack or less,
// the gap between them: the count of a phase is uncertain by a token at
// either end, and by the requests the jitter moves across them.
func agreeing(kept, phase []sizeBounds, slack float64) []sizeBounds {
	var out []sizeBounds
	for _, k := range kept {
		for _, p := range phase {
			lo, hi := max(k.lo, p.lo), min(k.hi, p.hi)
			switch {
			case p.size != k.size:
			case lo < hi:
				out = append(out, sizeBounds{k.size, lo, hi})
			case lo-hi <= slack:
				out = append(out, sizeBounds{k.size, hi, lo})
			}
		}
	}
	return out
}

// slack returns how far the bounds of s may miss others and agree (see
// agreeing), at the rate rate.
func (s span) slack(rate float64) float64 {
	d := s.recs[len(s.recs)-1].at - s.recs[0].at
	return (1 + s.jitter*rate) / max(d, 1e-9)
}

// bucketSizes returns the sizes of bucket the learner tells apart, up to
// most: every size to 64, where a token is a large share of the bucket,
// then steps of a 64th, as fine a share.
func bucketSizes(most float64) []float64 {
	var out []float64
	for b := 1.0; b <= min(most, maxSize); {
		out = append(out, b)
		if b < 64 {
			b++
		} else {
			b = math.Round(b * (1 + 1.0/64))
		}
	}
	return out
}
