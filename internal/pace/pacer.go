package pace

import (
	"cmp"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Pacer decides when each request of a Client may be sent (see the
// package documentation). It reads no clock: every call is told the time.
// Safe for concurrent use; a [Gate] does the waiting.
type Pacer struct {
	active   atomic.Bool // anything may make a request wait
	maxPause time.Duration

	mu sync.Mutex
	// the quotas: configured (WithRateLimit), stated by the server, and
	// learned; the Client's bucket keeps inside the tightest (refresh)
	configured, announced quota
	statedSince           time.Time // when an answer first stated a quota
	learner               learner
	bucket                bucket
	// pauseUntil ends the client-wide pause, namedUntil the wait the
	// answer that started it named (see New)
	pauseUntil, namedUntil time.Time
	inflight               int
	lastSent               time.Time
	// unanswered counts the requests let go before the first answer or
	// loss, which warms the pacer (see coldStart)
	unanswered int
	warmed     bool
	rtts       roundTrips
	answered   signal // the next answer or loss, for Hold
	paused     signal // the next pause to start or grow, for Paused

	throttles, pauses atomic.Int64
}

// Headroom is how far under a quota the Client's bucket keeps its rate,
// as a share of it: a request the server counts a little late still finds
// its token, and one a timer sent late is followed on time.
const Headroom = 0.03

// DefaultMaxPause bounds how long one answer pauses a Client (see [New]).
const DefaultMaxPause = 5 * time.Minute

// holdBound bounds a wait for an answer (see Hold).
const holdBound = time.Second

// New returns a pacer for a Client configured with a quota of rps
// requests a second in bursts of burst (rps 0: none). An answer that names
// a wait pauses the Client maxPause at most (0: DefaultMaxPause); the
// calls that meet the pause are told the wait it named, and the Client
// asks again when it ends.
func New(rps float64, burst int, maxPause time.Duration) *Pacer {
	p := &Pacer{maxPause: cmp.Or(max(maxPause, 0), DefaultMaxPause)}
	if rps > 0 {
		p.configured = quota{rate: rps, size: max(burst, 1)}
		p.refresh(time.Time{})
		p.active.Store(true)
	}
	return p
}

// Ticket is a request's place in the pacer's record: Sent is when it was
// let go.
type Ticket struct {
	Sent time.Time
	id   int
}

// Active reports whether anything may make a request wait.
func (p *Pacer) Active() bool { return p.active.Load() }

// Earliest returns when the next request may be sent: now, or later when
// the pause or the bucket holds it.
func (p *Pacer) Earliest(now time.Time) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return later(now, later(p.pauseUntil, p.bucket.earliest()))
}

// WaitFor returns how long a request with ahead requests before it in
// line would wait at now, and the part of it that is a pause: during a
// pause, the wait the server named (see [New]).
func (p *Pacer) WaitFor(now time.Time, ahead int) (wait, pause time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if now.Before(p.pauseUntil) {
		pause = later(p.pauseUntil, p.namedUntil).Sub(now)
	}
	wait = pause
	if p.bucket.on() {
		start := later(now, later(p.pauseUntil, p.bucket.earliest()))
		wait = max(wait, p.bucket.turn(start, ahead).Sub(now))
	}
	return wait, pause
}

// Send lets a request go at now, which must not be before
// [Pacer.Earliest], and returns its ticket, to give back with its answer.
func (p *Pacer) Send(now time.Time) Ticket {
	p.mu.Lock()
	defer p.mu.Unlock()
	paced := p.bucket.take(now)
	p.inflight++
	if !p.warmed {
		p.unanswered++
	}
	p.lastSent = later(p.lastSent, now)
	return Ticket{Sent: now, id: p.learner.record(now, paced)}
}

// Hold reports whether the next request waits for an answer (see
// holdsForAnswers and coldStart): a channel closed at the next answer, and
// when the hold ends without one.
func (p *Pacer) Hold() (answered <-chan struct{}, until time.Time, held bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.inflight == 0 || !p.holdsForAnswers() && !p.coldStart() {
		return nil, time.Time{}, false
	}
	return p.answered.wait(), p.lastSent.Add(holdBound), true
}

// holdsForAnswers reports whether each request waits for the answer to
// the one before it: under a quota of one token, while the round trips
// are not known or all come back within the spacing (where they take
// longer, requests overlap, and a hold would cut the rate to one a round
// trip).
func (p *Pacer) holdsForAnswers() bool {
	q, _ := p.inForce()
	return q.size == 1 && p.bucket.on() && (!p.rtts.known() || p.rtts.slowest() < p.bucket.interval)
}

// coldStart reports whether the next request waits for the first answer:
// under a configured quota, past the burst.
func (p *Pacer) coldStart() bool {
	return p.configured.rate > 0 && !p.warmed && p.unanswered >= max(p.configured.size-1, 1)
}

// Answer is what the pacer reads of an answer: its status, and what its
// headers said of the quota (Found: they said something).
type Answer struct {
	Status int
	Limit  Limit
	Found  bool
}

// Effect is what an answer did: Throttled, a 429 or 503 that named the
// wait Wait; Pause, the client-wide pause it started or lengthened.
type Effect struct {
	Throttled   bool
	Wait, Pause time.Duration
}

// Answered takes the answer a, at now, to the request of ticket t.
func (p *Pacer) Answered(now time.Time, t Ticket, a Answer) Effect {
	var e Effect
	if a.Status == http.StatusTooManyRequests || a.Status == http.StatusServiceUnavailable {
		p.throttles.Add(1)
		e.Wait = a.Limit.NamedWait()
		// one that names no wait is retried as an ordinary failure,
		// with backoff, and teaches nothing
		e.Throttled = e.Wait > 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	defer p.answered.fire()
	p.inflight--
	p.warm(now)
	rtt := now.Sub(t.Sent)
	p.rtts.take(rtt)
	switch {
	case a.Status >= 200 && a.Status <= 299:
		p.learner.accepted(t.id)
	case e.Throttled:
		p.learner.refused(t.id)
	}
	if a.Found {
		e.Pause = p.announce(now, t, rtt, a.Limit)
	}
	if e.Throttled {
		e.Pause = max(e.Pause, p.pause(now, e.Wait))
		if p.announced.rate == 0 && p.learner.throttled(t.id, t.Sent, p.pauseUntil, e.Wait, p.rtts.jitter()) {
			p.active.Store(true)
		}
	}
	p.refresh(now)
	if p.holdsForAnswers() {
		p.bucket.counted(p.countedBy(t, rtt))
	}
	return e
}

// countedBy returns the latest the server may have counted the request
// of ticket t, answered after rtt: sent, plus the round trip past the
// quickest.
func (p *Pacer) countedBy(t Ticket, rtt time.Duration) time.Time {
	return t.Sent.Add(max(rtt-p.rtts.quickest(), 0))
}

// Lost takes a request of ticket t that got no answer (a connection
// error, a timeout, a cancel), known at now.
func (p *Pacer) Lost(now time.Time, t Ticket) {
	p.mu.Lock()
	defer p.mu.Unlock()
	defer p.answered.fire()
	p.inflight--
	p.warm(now)
}

// warm ends the cold start at the first answer or loss, at now: the
// server had counted the requests let go before it by then, and the
// bucket refills from now, less a token for each.
func (p *Pacer) warm(now time.Time) {
	if !p.warmed && p.bucket.on() {
		p.bucket.counted(now.Add(time.Duration(p.unanswered-1) * p.bucket.interval))
	}
	p.warmed = true
}

// signal is a channel handed out to those waiting for something, closed,
// and replaced, when it happens.
type signal struct{ c chan struct{} }

func (s *signal) wait() <-chan struct{} {
	if s.c == nil {
		s.c = make(chan struct{})
	}
	return s.c
}

func (s *signal) fire() {
	if s.c != nil {
		close(s.c)
		s.c = nil
	}
}

// announce takes what the headers of the answer to the request of ticket
// t, after rtt, at now, said of the quota (see the package
// documentation, "The model"), and returns the pause it starts: with no
// policy stated, a Remaining of 0 pauses the Client until the reset.
func (p *Pacer) announce(now time.Time, t Ticket, rtt time.Duration, l Limit) time.Duration {
	p.active.Store(true)
	if r := l.Rate(); r > 0 {
		if p.announced.rate == 0 {
			p.statedSince = now
		}
		p.announced.rate = r
		p.announced.size = max(p.announced.size, 1)
	}
	if l.Remaining < 0 {
		return 0
	}
	if p.announced.rate == 0 {
		if l.Remaining == 0 && l.Reset > 0 {
			return p.pause(now, l.Reset)
		}
		return 0
	}
	p.announced.size = max(p.announced.size, min(l.Remaining, ringLen-1)+1)
	p.refresh(now)
	counted := t.Sent // the spare token and the room for the spread cover its lateness
	if t.Sent.Before(p.statedSince) {
		counted = p.countedBy(t, rtt) // sent unpaced: as late as it may have been
	}
	refilled := now.Sub(counted).Seconds() * p.announced.rate
	p.bucket.limitTokens(now, float64(l.Remaining)+refilled-float64(p.inflight))
	return 0
}

// pause holds every request until now+d, maxPause at most, unless a
// pause already lasts longer, and returns the pause it started or
// lengthened; it empties the bucket, which refills through it.
func (p *Pacer) pause(now time.Time, d time.Duration) time.Duration {
	if !now.Before(p.pauseUntil) {
		p.namedUntil = time.Time{} // the last pause ended: the Client asked again
	}
	p.namedUntil = later(p.namedUntil, now.Add(d))
	d = min(d, p.maxPause)
	until := now.Add(d)
	if !until.After(p.pauseUntil) {
		return 0
	}
	p.pauseUntil = until
	p.active.Store(true)
	p.pauses.Add(1)
	p.bucket.empty(now)
	p.paused.fire()
	return d
}

// Paused returns a channel closed when the next pause starts or grows.
func (p *Pacer) Paused() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.paused.wait()
}

// inForce returns the tightest quota of the configured, the stated and,
// where none is stated, the learned; learned: the learned sets its rate.
func (p *Pacer) inForce() (q quota, learned bool) {
	sources := []quota{p.configured, p.announced}
	if p.announced.rate == 0 {
		sources = append(sources, p.learner.quota())
	}
	for i, s := range sources {
		if s.rate > 0 && (q.rate == 0 || s.rate < q.rate) {
			q.rate, learned = s.rate, i == 2
		}
		if s.size > 0 && (q.size == 0 || s.size < q.size) {
			q.size = s.size
		}
	}
	return q, learned
}

// refresh sets the Client's bucket inside the quota in force, at now (see
// the package documentation, "The Client's bucket"). While no size is
// known (the learner ramps), requests go one at a time.
func (p *Pacer) refresh(now time.Time) {
	q, learned := p.inForce()
	if q.rate == 0 {
		p.bucket = bucket{}
		return
	}
	jitter, rate := p.rtts.spread(), q.rate*(1-Headroom)
	if learned {
		jitter, rate = 0, q.rate // its headroom is the learner's
	}
	interval := intervalAt(rate)
	var tolerance time.Duration // one at a time: no size known yet, or held for the answers
	switch {
	case q.size > 1:
		tolerance = spanOf(float64(q.size-1), interval) - max(jitter, interval)
	case q.size == 1 && !p.holdsForAnswers():
		tolerance = -jitter
	}
	gap := intervalAt(q.rate) // a bucket of one's: the quota's own spacing
	if interval != p.bucket.interval || tolerance != p.bucket.tolerance || gap != p.bucket.gap {
		p.bucket.set(now, rate, tolerance, gap)
	}
}

// PauseLeft returns how long the pause lasts after now.
func (p *Pacer) PauseLeft(now time.Time) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return max(p.pauseUntil.Sub(now), 0)
}

// Rate returns the bucket's rate, in requests a second; 0: none.
func (p *Pacer) Rate() float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.bucket.on() {
		return 0
	}
	return float64(time.Second) / float64(p.bucket.interval)
}

// Throttles returns how many 429 and 503 answers the pacer saw.
func (p *Pacer) Throttles() int64 { return p.throttles.Load() }

// Pauses returns how many client-wide pauses the pacer started.
func (p *Pacer) Pauses() int64 { return p.pauses.Load() }
