package pace

import (
	"math"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Pacer decides when each request of a client may be sent, from the rate
// it was configured with and what the answers said: a throttle's named
// wait pauses every request until then; a server's announced policy caps
// the rate; a server that announces nothing has its quota learned from
// its throttles ([learner]). It reads no clock: every call is told the
// time. Safe for concurrent use; a [Gate] does the waiting.
type Pacer struct {
	// active is set once anything may make a request wait: until then a
	// request costs one atomic load and the record of its sending.
	active atomic.Bool

	mu sync.Mutex
	// configured is the rate the client was given, with headroom (see
	// [Headroom]); adaptive is the rate the server announced or the
	// learner allows, and a request waits for both.
	configured, adaptive spacing
	learner              learner
	// quota and quotaBurst are the configured quota (0: none); narrowed
	// is the headroom the throttles under it added.
	quota      float64
	quotaBurst int
	narrowed   float64
	// announced is the server's policy rate (RateLimit-Policy); 0: none.
	// capacity is one more than the most the server's Remaining showed.
	announced float64
	capacity  int
	// pauseUntil is the end of the client-wide pause.
	pauseUntil time.Time
	// inflight counts the requests sent and not yet answered.
	inflight int
	// rtts are the round trips of the last answers.
	rtts roundTrips
	// spread is the recent round trips' spread, most less least.
	spread time.Duration
	// jitterSeen is the jitter in transit made room for at jitterAt,
	// which fades (see jitterRemembered).
	jitterSeen time.Duration
	jitterAt   time.Time
	// lastOut is when the last request was let go, or written if later.
	lastOut time.Time
	// cold: a configured quota whose first answer has not come (see
	// Hold). coldSent counts the requests let go meanwhile, the first at
	// coldFrom.
	cold     bool
	coldSent int
	coldFrom time.Time
	// expected is what the client's bucket expected of an announced
	// quota's after each request in flight (see expect).
	expected []expectation
	// contradicted: an announced quota's Remaining showed a token less
	// than the client expected (see announce).
	contradicted bool
	// unwritten holds the tickets of the requests let go and not yet
	// written on the wire, where they are spaced from the answers (see
	// Hold, answerSpaced).
	unwritten map[uint64]struct{}
	// nextEvent, once Hold handed it out, is closed at the next answer,
	// request lost or request written.
	nextEvent chan struct{}
	// heldUntil is when the adaptive rate's token was due that a request
	// was last told to wait for (see Earliest); zero when none waits.
	heldUntil time.Time

	throttles, pauses atomic.Int64
}

// timerLate is how late a timer may wake: Go's wake up to a millisecond
// late on an idle runtime, and up to three or four under load. A request
// let go later than that (and than an interval) after the token it waited
// for was held by something else.
const timerLate = 4 * time.Millisecond

// Headroom is how far under a known quota (configured, or announced by the
// server) the pacer keeps its rate, as a fraction of it; it also keeps one
// request under the quota's burst. A client's bucket that ran exactly at
// the server's would run ahead of it whenever a request spent less time in
// transit than the one before it: the request would find no token. One
// token spare absorbs a request early by up to the quota's spacing, and
// the 3 % a request early by 3 % of it with a burst of one (where, once
// the round trips are known, the answers keep the requests apart, and the
// 3 % absorbs a request let go late: see spaceFromTheAnswer). Where the
// round trips spread by more, see roomForTheJitter.
const Headroom = 0.03

// New returns a pacer at rps requests a second, in bursts of up to burst,
// less the headroom; rps of 0: no configured rate.
func New(rps float64, burst int) *Pacer {
	p := &Pacer{}
	if rps > 0 {
		p.quota, p.quotaBurst = rps, burst
		p.configured.set(time.Time{}, configuredRate(rps, Headroom), headroomBurst(burst))
		p.active.Store(true)
		p.cold = true
	}
	return p
}

// holdBound bounds a wait for an answer (see Hold): a server that takes
// longer to give it is paced by the clock alone.
const holdBound = time.Second

// Hold reports whether the next request must wait for another to be
// written or answered under a known quota (configured, or announced by
// the server: see quotaKnown), or a learned bucket of one or two (see
// answerSpaced), and returns a channel
// closed when the next request is written or answered, and when the hold
// ends without it. A server counts a request when it takes it, which a
// new connection, or a client or server slow for a moment, puts later
// than the client let it go, by more than a spare token absorbs; its
// write, then its answer, show by how much. So a request waits:
//
//   - with a burst of one, for the requests let go before it to be
//     written: a request that waited to be written (for a connection, or
//     for its goroutine to run) is spaced from its write (see Wrote), and
//     one let go before that write would go with it;
//   - under a configured quota, when it is past the burst and no answer
//     has come yet: the server's bucket refills from when it counted the
//     burst, and the client's refills from the first answer (see warm);
//     the hold ends holdBound after the first request went;
//   - with a burst of one, until roundTripsKnown answers are in, and
//     then when the recent answers all came back within the quota's
//     spacing (see spaceFromTheAnswer), so that one still out when the
//     next is due is late: the next is spaced from that request's send
//     plus its excess, once its answer shows it; the hold ends holdBound
//     after the last request went. (Where the answers take longer than
//     the spacing, the requests in flight overlap by design, and nothing
//     waits: each is spaced by the jitter the round trips show, see
//     roomForTheJitter.)
func (p *Pacer) Hold() (answered <-chan struct{}, until time.Time, held bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case len(p.unwritten) > 0:
		until = p.lastOut.Add(holdBound)
	case p.cold && p.coldSent >= p.configured.burst:
		until = p.coldFrom.Add(holdBound)
	case (p.configured.gap > 0 || p.adaptive.gap > 0 || p.heldForTheFirstAnswers()) && p.inflight > 0:
		until = p.lastOut.Add(holdBound)
	default:
		return nil, time.Time{}, false
	}
	if p.nextEvent == nil {
		p.nextEvent = make(chan struct{})
	}
	return p.nextEvent, until, true
}

// heldForTheFirstAnswers reports whether a request waits for the answer
// before it as the first roundTripsKnown come in: under a known quota of
// one token (see Hold).
func (p *Pacer) heldForTheFirstAnswers() bool {
	q, ok := p.quotaKnown()
	return ok && q.burst == 1 && p.rtts.taken < roundTripsKnown
}

// moved wakes the requests that Hold holds, as the request of ticket t was
// written (or answered, or lost).
func (p *Pacer) moved(t Ticket) {
	delete(p.unwritten, t.id)
	if p.nextEvent != nil {
		close(p.nextEvent)
		p.nextEvent = nil
	}
}

// warm ends the cold start at now, when the first answer (or the first
// request lost) came: the server had counted the requests let go so far
// by then at the latest, so the client's bucket refills from now, less a
// token for each of them.
func (p *Pacer) warm(now time.Time) {
	if !p.cold {
		return
	}
	p.cold = false
	p.configured.due = later(p.configured.due, now.Add(time.Duration(p.coldSent)*p.configured.interval))
}

// configuredRate is the rate the pacer keeps to under a configured quota
// of rps requests a second, headroom under it.
func configuredRate(rps, headroom float64) float64 { return rps * (1 - headroom) }

// Narrowing the configured rate after a throttle: each throttle under a
// configured rate widens the headroom by narrowStep, up to narrowMost;
// a throttle past that is a quota lower than the one configured, which the
// learner learns.
const (
	narrowStep = 0.03
	narrowMost = 0.15
)

// headroomBurst is the burst a client keeps to under a server's burst.
func headroomBurst(burst int) int { return max(burst-1, 1) }

// Ticket is a request's place in the pacer's record, from its sending to
// its answer.
type Ticket struct {
	// Sent is when the request was let go.
	Sent time.Time
	id   uint64
}

// Active reports whether anything may make a request wait.
func (p *Pacer) Active() bool { return p.active.Load() }

// Earliest returns when the next request may be sent: now, or later
// when a pause or a rate holds it.
func (p *Pacer) Earliest(now time.Time) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	if due := p.adaptive.earliest(); p.adaptive.on() && due.After(now) && !due.Before(p.pauseUntil) {
		p.heldUntil = due
	}
	return p.earliest(now)
}

func (p *Pacer) earliest(now time.Time) time.Time {
	at := later(p.configured.earliest(), p.adaptive.earliest())
	for _, s := range [...]*spacing{&p.configured, &p.adaptive} {
		if s.gap > 0 && p.inflight > 0 && !now.Before(at) {
			// a request let go late is forgiven only with the answers
			// in, to show how late the server counted it (see
			// spaceFromTheAnswer)
			at = later(at, p.lastOut.Add(s.interval))
		}
	}
	return later(now, later(p.pauseUntil, at))
}

// Interval returns the time between two requests at the rate the pacer
// allows now; 0 when no rate applies.
func (p *Pacer) Interval() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return max(p.configured.interval, p.adaptive.interval)
}

// Send lets a request go at now, which must not be before [Pacer.Earliest],
// and returns its ticket, to give back with its answer.
func (p *Pacer) Send(now time.Time) Ticket {
	p.mu.Lock()
	defer p.mu.Unlock()
	// The adaptive rate held this request back if the token was due less
	// than half an interval ago, or it waited for its token and went
	// late, as a timer wakes (late is then the timer's, not a rate the
	// client chose): a client that sends slower than it may shows
	// nothing of a higher rate.
	late := time.Duration(0)
	if d := now.Sub(p.heldUntil); !p.heldUntil.IsZero() && d <= max(p.adaptive.interval, timerLate) {
		late = max(d, 0)
	}
	paced := p.adaptive.on() && (late > 0 || now.Sub(p.adaptive.earliest()) < p.adaptive.interval/2)
	p.heldUntil = time.Time{}
	p.configured.take(now)
	p.adaptive.take(now)
	p.inflight++
	if p.cold {
		if p.coldSent == 0 {
			p.coldFrom = now
		}
		p.coldSent++
	}
	p.lastOut = later(p.lastOut, now)
	t := Ticket{Sent: now, id: p.learner.record(now, paced, late.Seconds())}
	p.expect(now, t)
	if s, _, _ := p.answerSpaced(); s != nil {
		if p.unwritten == nil {
			p.unwritten = map[uint64]struct{}{}
		}
		p.unwritten[t.id] = struct{}{}
	}
	return t
}

// Wrote takes the time a request of ticket t was written on the wire. When
// later than it was let go (it waited for a connection, or for its
// goroutine to run), the next request is spaced from then, so that the two
// cannot reach the server closer together than the rate allows; and a
// request that Hold holds for the write goes on.
func (p *Pacer) Wrote(t Ticket, at time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.moved(t)
	if !at.After(t.Sent) {
		return
	}
	p.configured.wrote(at)
	p.adaptive.wrote(at)
	p.lastOut = later(p.lastOut, at)
}

// Answer is what the pacer reads of an answer.
type Answer struct {
	// Status is the HTTP status.
	Status int
	// Limit is what the headers said of the quota; Found is false when
	// they said nothing.
	Limit Limit
	Found bool
}

// Effect is what an answer did to the pacing.
type Effect struct {
	// Throttled: a 429 or a 503 that named a wait (Wait).
	Throttled bool
	Wait      time.Duration
	// Pause is the client-wide pause this answer started or lengthened;
	// 0 for none.
	Pause time.Duration
}

// Answered takes the answer a, at now, to the request of ticket t.
func (p *Pacer) Answered(now time.Time, t Ticket, a Answer) Effect {
	var e Effect
	ok := a.Status >= 200 && a.Status <= 299
	if a.Status == http.StatusTooManyRequests || a.Status == http.StatusServiceUnavailable {
		p.throttles.Add(1)
		e.Wait = a.Limit.NamedWait()
		// One that names no wait (none, 0, a date passed) is retried as
		// an ordinary failure, with backoff, and teaches nothing: a quota
		// names when its next token comes.
		e.Throttled = e.Wait > 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.inflight--
	p.warm(now)
	defer p.moved(t)
	switch {
	case ok:
		p.learner.answered(t.id, now, accepted)
		p.learner.success(t.id)
	case e.Throttled:
		p.learner.answered(t.id, now, refused)
	default:
		p.learner.answered(t.id, now, lost)
	}
	var usedUp time.Duration
	if a.Found {
		usedUp = p.announce(now, a.Limit, t)
	}
	if e.Throttled {
		e.Pause = p.pause(now, e.Wait)
		switch {
		case p.quota > 0 && p.narrowed < narrowMost:
			// requests in transit, not the quota: keep farther under it
			p.narrowed = min(p.narrowed+narrowStep, narrowMost)
			p.configured.set(now, configuredRate(p.quota, Headroom+p.narrowed), headroomBurst(p.quotaBurst))
			p.configured.holdUntil(p.pauseUntil)
		case p.announced == 0 && p.learner.throttled(t.id, t.Sent, p.pauseUntil, e.Wait):
			p.active.Store(true)
		}
	}
	if !e.Throttled && usedUp > 0 {
		e.Pause = p.pause(now, usedUp) // the quota is used up: wait for it, not for a 429
	}
	p.follow(now)
	p.takeTheRoundTrip(now, t)
	return e
}

// Lost takes a request of ticket t that got no answer (a connection
// error, a timeout, a cancel), known at now: it took a place in flight,
// nothing more; as the first answer would, it ends a cold start (the
// server counted it by now, if at all).
func (p *Pacer) Lost(now time.Time, t Ticket) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.inflight--
	p.warm(now)
	p.moved(t)
	p.learner.answered(t.id, t.Sent, lost) // at its send: no round trip to learn from
}

// follow sets the adaptive spacing to the learner's rate, when the server
// announced none.
func (p *Pacer) follow(now time.Time) {
	if p.announced > 0 || !p.learner.engaged {
		return
	}
	if r := p.learner.rate(); r != p.adaptive.rate() {
		p.adaptive.set(now, r, 1)
	}
	p.adaptive.slack, p.adaptive.gap = 0, 0 // the answer sets the gap again (see takeTheRoundTrip)
	switch {
	case p.learner.forgivesLateness():
		// a request up to an interval late: the next may follow it at
		// once, two together at most
		p.adaptive.slack = p.adaptive.interval
	case p.learner.twoTokens() && p.rtts.taken >= roundTripsKnown:
		// one token to spare: as under a configured burst of two
		p.adaptive.slack = slackFromTheSpread(p.adaptive.interval, p.spread)
	}
}

// pause holds every request until now+d, unless a pause already lasts
// longer, and returns d if it started or lengthened one. After it, the
// requests go one at a time at the rate, not in a burst.
func (p *Pacer) pause(now time.Time, d time.Duration) time.Duration {
	until := now.Add(d)
	if !until.After(p.pauseUntil) {
		return 0
	}
	p.pauseUntil = until
	p.active.Store(true)
	p.pauses.Add(1)
	p.configured.holdUntil(until)
	p.adaptive.holdUntil(until)
	return d
}

// PauseLeft returns how long the client-wide pause lasts after now.
func (p *Pacer) PauseLeft(now time.Time) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return max(p.pauseUntil.Sub(now), 0)
}

// Rate returns the rate the pacer allows, in requests a second: the lower
// of the configured and the adaptive rates; 0 when neither applies.
func (p *Pacer) Rate() float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := min(p.configured.rate(), p.adaptive.rate())
	if math.IsInf(r, 1) {
		return 0
	}
	return r
}

// Throttles returns how many 429 and 503 answers the pacer saw, and
// Pauses how many client-wide pauses it started.
func (p *Pacer) Throttles() int64 { return p.throttles.Load() }

// Pauses returns how many client-wide pauses the pacer started.
func (p *Pacer) Pauses() int64 { return p.pauses.Load() }
