package pace

import "time"

// bucket is the client's token bucket as the time its next token is due
// (GCRA): a request may go at t ≥ due − tolerance, and then due =
// max(due, t) + interval. A bucket of burst tokens has a tolerance of
// (burst−1)·interval; a negative one, the spread, spaces requests further
// (a time: an idle bucket does not owe it, a new rate does not scale it).
// A bucket of one may have a gap under its interval: a request let go late
// does not put the next back, which follows no sooner than the gap, and
// the rate holds on average. The zero value paces nothing.
type bucket struct {
	interval  time.Duration // 0: no rate
	tolerance time.Duration
	gap       time.Duration // the least time between two requests; 0: the interval
	due       time.Time
}

// maxSpan bounds every span a bucket holds: a year, far inside
// time.Duration's range in every sum a bucket makes.
const maxSpan = 365 * 24 * time.Hour

// on reports whether the bucket paces anything.
func (b *bucket) on() bool { return b.interval > 0 }

// earliest returns when the next request may go; zero when off.
func (b *bucket) earliest() time.Time {
	if !b.on() {
		return time.Time{}
	}
	return b.due.Add(-b.tolerance)
}

// take spends a token for a request let go at t, and reports whether the
// rate held it back: it went within an interval of its token.
func (b *bucket) take(t time.Time) (paced bool) {
	if !b.on() {
		return false
	}
	paced = t.Sub(b.earliest()) < b.interval
	b.due = later(b.due.Add(b.interval), t.Add(b.least()))
	return paced
}

// counted takes a request that the server may have counted as late as
// at: the next token is due no sooner than an interval (or the gap)
// after it.
func (b *bucket) counted(at time.Time) {
	if b.on() {
		b.due = later(b.due, at.Add(b.least()))
	}
}

// least returns the least time between two requests.
func (b *bucket) least() time.Duration {
	if b.gap > 0 && b.tolerance == 0 {
		return b.gap
	}
	return b.interval
}

// empty leaves the bucket no token at now; it refills from there.
func (b *bucket) empty(now time.Time) {
	if b.on() {
		b.due = later(b.due, now.Add(b.tolerance+b.interval))
	}
}

// limitTokens leaves at most k tokens in the bucket at now (below 0: a
// debt, repaid before the next request goes).
func (b *bucket) limitTokens(now time.Time, k float64) {
	if b.on() && b.tokens(now) > k {
		b.due = now.Add(b.tolerance + b.interval - spanOf(k, b.interval))
	}
}

// tokens returns the tokens the bucket holds at now (negative: a debt);
// a request may go at one.
func (b *bucket) tokens(now time.Time) float64 {
	return min(max(b.full(), 1), b.full()-float64(b.due.Sub(now))/float64(b.interval))
}

// full returns the tokens held when the next is due at now.
func (b *bucket) full() float64 { return 1 + float64(b.tolerance)/float64(b.interval) }

// turn returns when the request with ahead requests before it may go, the
// first going at start (not before earliest): after it, the tokens left
// go together, and the rest an interval and the spread apart.
func (b *bucket) turn(start time.Time, ahead int) time.Time {
	if ahead == 0 {
		return start
	}
	next := *b
	next.take(start) // a gap's bucket may let the second go sooner than an interval
	start = later(start, next.earliest())
	return start.Add(spanOf(max(float64(ahead)-next.tokens(start), 0), b.interval+max(-b.tolerance, 0)))
}

// set changes the rate (requests a second; 0 turns the bucket off), the
// tolerance and the gap at now, keeping the tokens it holds (up to its
// new size) and the spread's length.
func (b *bucket) set(now time.Time, rps float64, tolerance, gap time.Duration) {
	if !(rps > 0) {
		*b = bucket{}
		return
	}
	was := *b
	b.interval, b.tolerance, b.gap = intervalAt(rps), min(max(tolerance, -maxSpan), maxSpan), gap
	tokens := b.full()
	if was.on() && was.tokens(now) < max(was.full(), 1) {
		spread := float64(max(-was.tolerance, 0))
		tokens = min(was.tokens(now)+spread/float64(was.interval)-spread/float64(b.interval), tokens)
	}
	if tokens < b.full() || b.due.After(now) {
		b.due = now.Add(b.tolerance + b.interval - spanOf(tokens, b.interval))
	}
}

// spanOf returns k intervals, within ±maxSpan.
func spanOf(k float64, interval time.Duration) time.Duration {
	return time.Duration(min(max(k*float64(interval), -float64(maxSpan)), float64(maxSpan)))
}

// intervalAt returns the time between two requests at rps requests a
// second (more than 0), within a nanosecond and maxSpan.
func intervalAt(rps float64) time.Duration {
	return time.Duration(min(max(float64(time.Second)/rps, 1), float64(maxSpan)))
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
