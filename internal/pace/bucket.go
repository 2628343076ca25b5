package pace

import "time"

// bucket is the client's token bucket as the time its next token is due
// (GCRA): a request may go at t ≥ due − tolerance, and then due =
// max(due, t) + interval. A bucket of burst tokens has a tolerance of
// (burst−1)·interval; a negative one spaces requests further. A bucket of
// one may have a gap under its interval: a request let go late (as a timer
// wakes) does not put the next back, which follows no sooner than the gap,
// and the rate holds on average. The zero value paces nothing.
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
// a request may go at one. A negative tolerance spaces requests by the
// spread: it counts as tokens owed after a request, but an idle bucket
// holds one.
func (b *bucket) tokens(now time.Time) float64 {
	full := b.full()
	return min(max(full, 1), full-float64(b.due.Sub(now))/float64(b.interval))
}

// full returns the tokens the bucket holds when its next token is due at
// now: 1 + tolerance/interval.
func (b *bucket) full() float64 { return float64(b.tolerance+b.interval) / float64(b.interval) }

// turn returns when the request with ahead requests before it in line may
// go, the first of them going at start (not before earliest): after the
// first, as many as the tokens left go together, and the rest as their
// tokens come, an interval and the spread apart.
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
// new size).
func (b *bucket) set(now time.Time, rps float64, tolerance, gap time.Duration) {
	if !(rps > 0) {
		*b = bucket{}
		return
	}
	interval := intervalAt(rps)
	tolerance = min(max(tolerance, -maxSpan), maxSpan)
	full := float64(tolerance+interval) / float64(interval)
	tokens := full
	if b.on() && b.tokens(now) < max(b.full(), 1) {
		// a negative tolerance is a spread, a time: it keeps its length
		// at the new interval, not its count of tokens
		spread := float64(max(-b.tolerance, 0))
		tokens = min(b.tokens(now)+spread/float64(b.interval)-spread/float64(interval), full)
	}
	due := b.due
	b.interval, b.tolerance, b.gap = interval, tolerance, gap
	if tokens < full || due.After(now) {
		b.due = now.Add(tolerance + interval - spanOf(tokens, interval))
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
