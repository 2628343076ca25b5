package pace

import (
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"time"
)

// A simulated walk: workers that send requests one after another through
// a Pacer (in the order a Gate serves them), to a server that is a token
// bucket, over a link whose delay varies, on a virtual clock. Nothing
// sleeps and nothing goes on the network: a case of minutes of traffic
// runs in milliseconds.

// bucketServer is the quota: rate requests a second, holding at most
// burst tokens, by arrival time, changing to its second form at change.
type bucketServer struct {
	rate, burst   float64
	rate2, burst2 float64
	change        time.Duration // from the start; 0: never
	retryAfter    retryAfterForm
	fixedWait     int // seconds, for a fixed Retry-After
	// announces: every answer tells the bucket's state in rate-limit
	// headers, as ugctest's quota does (see announcement); wholeSeconds:
	// in RateLimit alone, whose reset is in whole seconds, rounded up, as
	// many real servers send it.
	announces, wholeSeconds bool

	tokens float64
	last   time.Duration
}

// windowCounter is the other quota real servers keep: at most n requests
// in a window of w, fixed (counted from each multiple of w, shifted by
// offset) or sliding (the last w before each request). A refusal names
// the whole seconds until the request would have been accepted, at least
// one. A token bucket of n and n/w a second models it only roughly: a
// window gives back all of its n at once.
type windowCounter struct {
	n       int
	w       time.Duration
	sliding bool
	offset  time.Duration

	start    time.Duration // the fixed window's
	count    int
	accepted []time.Duration // the sliding window's, oldest first
}

// take decides the request that arrives at t, as bucketServer.take does;
// a refusal is always a number of seconds.
func (s *windowCounter) take(t time.Duration) (ok bool, refusal int64) {
	if s.sliding {
		for len(s.accepted) > 0 && s.accepted[0] <= t-s.w {
			s.accepted = s.accepted[1:]
		}
		if len(s.accepted) < s.n {
			s.accepted = append(s.accepted, t)
			return true, 0
		}
		return false, waitSeconds(s.accepted[0] + s.w - t)
	}
	if start := (t+s.offset)/s.w*s.w - s.offset; start != s.start {
		s.start, s.count = start, 0
	}
	if s.count < s.n {
		s.count++
		return true, 0
	}
	return false, waitSeconds(s.start + s.w - t)
}

// waitSeconds is d in whole seconds, rounded up, at least one.
func waitSeconds(d time.Duration) int64 { return int64(max(math.Ceil(d.Seconds()), 1)) }

// retryAfterForm is how the server names its wait.
type retryAfterForm int

const (
	retryTokenSeconds retryAfterForm = iota // seconds to the next token, rounded up, at least 1
	retryFixedSeconds                       // always fixedWait seconds
	retryHTTPDate                           // a date fixedWait seconds ahead, to the second
)

// simEpoch is the virtual clock's time 0: it falls mid-second, so that
// HTTP dates (whole seconds) name waits shorter than their seconds.
var simEpoch = time.Date(2026, 11, 24, 22, 0, 0, 317_000_000, time.UTC)

// take decides the request that arrives at t: accepted, or refused with
// a 429 whose Retry-After is retryAfterValue(refusal).
func (s *bucketServer) take(t time.Duration) (ok bool, refusal int64) {
	rate, burst := s.rate, s.burst
	if s.change > 0 && t >= s.change {
		if s.last < s.change {
			s.tokens = min(s.tokens, s.burst2)
		}
		rate, burst = s.rate2, s.burst2
	}
	s.tokens = min(burst, s.tokens+rate*(t-s.last).Seconds())
	s.last = t
	if s.tokens >= 1 {
		s.tokens--
		return true, 0
	}
	switch s.retryAfter {
	case retryTokenSeconds:
		return false, int64(max(math.Ceil((1-s.tokens)/rate), 1))
	case retryFixedSeconds:
		return false, int64(s.fixedWait)
	}
	return false, simEpoch.Add(t + time.Duration(s.fixedWait)*time.Second).Unix()
}

// retryAfterHeader is the Retry-After header of a refusal take returned.
func (s *bucketServer) retryAfterHeader(refusal int64) http.Header {
	v := fmt.Sprint(refusal)
	if s.retryAfter == retryHTTPDate {
		v = time.Unix(refusal, 0).UTC().Format(http.TimeFormat)
	}
	return http.Header{"Retry-After": {v}}
}

// announcement is what the bucket's headers say after the request at t:
// the whole tokens left, and the milliseconds until one more, rounded up
// (0 while a token is left).
func (s *bucketServer) announcement(t time.Duration) (remaining int32, resetMs int64) {
	rate := s.quotaAt(t)
	if s.tokens >= 1 {
		return int32(min(s.tokens, math.MaxInt32)), 0
	}
	return 0, int64(math.Ceil((1 - s.tokens) / rate * 1000))
}

// announcedHeader is the header of an answer that announced remaining
// and resetMs (see announcement), with the policy in force at t, and the
// Retry-After of a refusal take returned (0: accepted): ugctest's quota's
// headers.
func (s *bucketServer) announcedHeader(t time.Duration, remaining int32, resetMs, refusal int64) http.Header {
	h := http.Header{}
	if refusal != 0 {
		h = s.retryAfterHeader(refusal)
	}
	h["Ratelimit-Policy"] = []string{fmt.Sprintf(`"quota";q=%d;w=1`, int64(math.Round(s.quotaAt(t))))}
	h["Ratelimit"] = []string{fmt.Sprintf(`"quota";r=%d;t=%d`, remaining, (resetMs+999)/1000)}
	if !s.wholeSeconds {
		h["X-Ratelimit-Remaining"] = []string{fmt.Sprint(remaining)}
		h["X-Ratelimit-Reset"] = []string{fmt.Sprintf("%.3f", float64(resetMs)/1000)}
	}
	return h
}

// burstAt returns the burst in force at t.
func (s *bucketServer) burstAt(t time.Duration) float64 {
	if s.change > 0 && t >= s.change {
		return s.burst2
	}
	return s.burst
}

// quotaAt returns the rate in force at t.
func (s *bucketServer) quotaAt(t time.Duration) float64 {
	if s.change > 0 && t >= s.change {
		return s.rate2
	}
	return s.rate
}

// simCase is one generated walk.
type simCase struct {
	server bucketServer
	// window, when its n is set, is the quota instead of server.
	window  windowCounter
	workers int
	// calls, when set, replaces the workers by single calls that come at
	// random (a Poisson process), this many a second, as a service's
	// handlers make them; each waits for its turn, is retried after a
	// throttle, and its latency, from its coming to its answer, is kept.
	calls float64
	// delay is the base time in transit each way, jitter the most added
	// to it, at random, each way; service the server's time.
	delay, jitter, service time.Duration
	// spikes, when set, is the share of transits whose jitter is drawn
	// from the whole of jitter, as a loopback's is: the others take up
	// to a twentieth of it.
	spikes float64
	// late is the most a wait on a timer ends late, at random (Go's
	// timers wake up to a millisecond late on Linux); 0: on time.
	late time.Duration
	// length is how long the walk lasts.
	length time.Duration
	// clients is how many Clients spend the key, each with its own
	// Pacer and workers; 0 is one.
	clients int
	// configured is a rate given to each pacer (WithRateLimit); 0: none.
	configured      float64
	configuredBurst int
	seed            uint64
	// pacer, if set, makes each Client's pacer in place of New's (the
	// reference beside the learned pacing: see cubic_test.go).
	pacer func() simPacer
	// trace, if set, is called after the pacer took each answer: when it
	// came, whether it was accepted, when its request was sent.
	trace func(at time.Duration, ok bool, sent time.Duration, p simPacer)
}

// simPacer is what the simulation drives: a Pacer, or a reference.
type simPacer interface {
	Hold() (<-chan struct{}, time.Time, bool)
	Earliest(now time.Time) time.Time
	Send(now time.Time) Ticket
	Answered(now time.Time, t Ticket, a Answer) Effect
	Rate() float64
}

func (c simCase) String() string {
	if w := c.window; w.n > 0 {
		kind := "fixed"
		if w.sliding {
			kind = "sliding"
		}
		return fmt.Sprintf("seed %d: %d requests in a %s window of %v, %d workers, delay %v + jitter %v, %v, timers up to %v late",
			c.seed, w.n, kind, w.w, c.workers, c.delay, c.jitter, c.length, c.late)
	}
	s := c.server
	form := [...]string{"token-seconds", "fixed", "http-date"}[s.retryAfter]
	out := fmt.Sprintf("seed %d: quota %.1f/s burst %.0f, Retry-After %s %d s, %d workers, delay %v + jitter %v",
		c.seed, s.rate, s.burst, form, s.fixedWait, c.workers, c.delay, c.jitter)
	if s.announces {
		form := "to the millisecond"
		if s.wholeSeconds {
			form = "in whole seconds"
		}
		out = fmt.Sprintf("seed %d: quota %.1f/s burst %.0f announced in its headers (reset %s), %d workers, delay %v + jitter %v",
			c.seed, s.rate, s.burst, form, c.workers, c.delay, c.jitter)
	}
	if c.spikes > 0 {
		out += fmt.Sprintf(" in %.1f %% of the transits (a twentieth in the others)", 100*c.spikes)
	}
	out += fmt.Sprintf(", %v", c.length)
	if c.late > 0 {
		out += fmt.Sprintf(", timers up to %v late", c.late)
	}
	if s.change > 0 {
		out += fmt.Sprintf(", then %.1f/s burst %.0f from %v", s.rate2, s.burst2, s.change)
	}
	if c.configured > 0 {
		out += fmt.Sprintf(", configured %.1f/s burst %d", c.configured, c.configuredBurst)
	}
	if c.clients > 1 {
		out += fmt.Sprintf(", %d clients on the key", c.clients)
	}
	return out
}

// simResult is what a walk did.
type simResult struct {
	sent, accepted, refused int
	// firstThrottle is when the first client's first 429 was answered,
	// and resumed when its pause ended; 0 when none came.
	firstThrottle, resumed time.Duration
	// episodes are the first client's 429s of requests sent after the
	// pause the previous one named had ended (the 429s of requests in
	// flight together are one episode), after the first.
	episodes []time.Duration
	// byClient is what each client did, when several spend the key.
	byClient []clientResult
	// accepts are the times the accepted requests arrived at the server,
	// and refusals those of the refused ones.
	accepts, refusals []time.Duration
	// finalRate is the pacer's rate at the end.
	finalRate float64
	// latencies are the calls' (see simCase.calls).
	latencies []time.Duration
}

// clientResult is what one of the clients on a key did.
type clientResult struct {
	accepted int
	// episodes counts its throttle episodes after its first (see
	// simResult.episodes).
	episodes  int
	finalRate float64
}

// event kinds of the simulation.
const (
	evWake   = iota // the line's head may go
	evArrive        // a request reaches the server
	evAnswer        // its answer reaches the client
	evRetry         // a worker's backoff ends
	evCall          // a call comes (see simCase.calls)
)

// retryBackoff is the wait before the retry of a 429 that names no wait:
// the client's least backoff.
const retryBackoff = 500 * time.Millisecond

// simEvent is one event; it holds no pointer, so that the queue costs
// the garbage collector nothing.
type simEvent struct {
	at      time.Duration
	seq     int64
	kind    int8
	ok      bool
	client  int8
	worker  int32
	id      int
	sent    time.Duration
	refusal int64
	// remaining and resetMs are what an announcing bucket's answer said
	// (see bucketServer.announcement).
	remaining int32
	resetMs   int64
}

// eventQueue is a binary heap of events by time, then by order of
// scheduling.
type eventQueue []simEvent

func (q eventQueue) less(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
	}
	return q[i].seq < q[j].seq
}

func (q *eventQueue) push(e simEvent) {
	*q = append(*q, e)
	h := *q
	for i := len(h) - 1; i > 0; {
		parent := (i - 1) / 2
		if !h.less(i, parent) {
			break
		}
		h[i], h[parent] = h[parent], h[i]
		i = parent
	}
}

func (q *eventQueue) pop() simEvent {
	h := *q
	e := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for i := 0; ; {
		l, r, least := 2*i+1, 2*i+2, i
		if l < len(h) && h.less(l, least) {
			least = l
		}
		if r < len(h) && h.less(r, least) {
			least = r
		}
		if least == i {
			break
		}
		h[i], h[least] = h[least], h[i]
		i = least
	}
	*q = h
	return e
}

// newPacer returns a Client's pacer: the case's, or New's.
func (c simCase) newPacer() simPacer {
	if c.pacer != nil {
		return c.pacer()
	}
	return New(c.configured, c.configuredBurst, 0)
}

// run simulates the walk: each client's workers, through its own Pacer,
// to the one server.
func (c simCase) run() simResult {
	rng := rand.New(rand.NewPCG(c.seed, 25))
	srv := c.server
	srv.tokens = srv.burst
	win := c.window
	take := srv.take
	if win.n > 0 {
		take = win.take
	}
	// simClient is one Client on the key: its Pacer, its workers waiting
	// (in order), its next wake, and when the pause of its last episode
	// ended.
	type simClient struct {
		p         simPacer
		line      []int32
		wakeAt    time.Duration
		pauseEnds time.Duration
		throttled bool
	}
	clients := make([]simClient, max(c.clients, 1))
	var (
		res simResult
		q   eventQueue
		seq int64
	)
	res.byClient = make([]clientResult, len(clients))
	push := func(e simEvent) {
		seq++
		e.seq = seq
		q.push(e)
	}
	wake := func(k int8, at time.Duration) {
		cl := &clients[k]
		if cl.wakeAt >= 0 && cl.wakeAt <= at {
			return
		}
		cl.wakeAt = at
		push(simEvent{at: at, kind: evWake, client: k})
	}
	transit := func() time.Duration {
		jitter := c.jitter
		if c.spikes > 0 && rng.Float64() >= c.spikes {
			jitter /= 20
		}
		return c.delay + time.Duration(rng.Int64N(int64(jitter)+1))
	}
	for k := range clients {
		clients[k] = simClient{p: c.newPacer(), wakeAt: -1}
		for w := range c.workers {
			clients[k].line = append(clients[k].line, int32(w))
		}
		// the clients start apart, by a little more than a millisecond
		wake(int8(k), time.Duration(k)*1_137*time.Microsecond)
	}
	var came []time.Duration // each call's coming
	if c.calls > 0 {
		push(simEvent{kind: evCall})
	}
	for len(q) > 0 {
		e := q.pop()
		if e.at > c.length {
			break
		}
		now := simEpoch.Add(e.at)
		cl := &clients[e.client]
		p := cl.p
		switch e.kind {
		case evWake:
			if e.at != cl.wakeAt {
				continue // a later wake replaced it, or an earlier one ran
			}
			cl.wakeAt = -1
			for len(cl.line) > 0 {
				if _, _, held := p.Hold(); held {
					break // until an answer, which wakes the line (each request is written as it goes)
				}
				at := p.Earliest(now)
				if at.After(now) {
					if c.late > 0 {
						at = at.Add(time.Duration(rng.Int64N(int64(c.late) + 1)))
					}
					wake(e.client, at.Sub(simEpoch))
					break
				}
				w := cl.line[0]
				cl.line = cl.line[1:]
				t := p.Send(now)
				res.sent++
				push(simEvent{at: e.at + transit(), kind: evArrive, client: e.client, worker: w, id: t.id, sent: e.at})
			}
		case evArrive:
			ok, refusal := take(e.at)
			if ok {
				res.accepts = append(res.accepts, e.at)
			} else {
				res.refusals = append(res.refusals, e.at)
			}
			answer := simEvent{at: e.at + c.service + transit(), kind: evAnswer, client: e.client, worker: e.worker, id: e.id, sent: e.sent, ok: ok, refusal: refusal}
			if srv.announces && win.n == 0 {
				answer.remaining, answer.resetMs = srv.announcement(e.at)
			}
			push(answer)
		case evAnswer:
			a := Answer{Status: http.StatusOK}
			if srv.announces && win.n == 0 {
				a.Limit, a.Found = Parse(srv.announcedHeader(e.at, e.remaining, e.resetMs, e.refusal), now)
			}
			if e.ok {
				res.accepted++
				res.byClient[e.client].accepted++
			} else {
				res.refused++
				a.Status = http.StatusTooManyRequests
				if !srv.announces {
					a.Limit, a.Found = Parse(srv.retryAfterHeader(e.refusal), now)
				}
				switch {
				case !cl.throttled:
					cl.throttled = true
					cl.pauseEnds = e.at + a.Limit.NamedWait()
					if e.client == 0 {
						res.firstThrottle, res.resumed = e.at, cl.pauseEnds
					}
				case e.sent >= cl.pauseEnds:
					cl.pauseEnds = e.at + a.Limit.NamedWait()
					res.byClient[e.client].episodes++
					if e.client == 0 {
						res.episodes = append(res.episodes, e.at)
					}
				}
			}
			eff := p.Answered(now, Ticket{Sent: simEpoch.Add(e.sent), id: e.id}, a)
			if c.trace != nil && e.client == 0 {
				c.trace(e.at, e.ok, e.sent, p)
			}
			if !e.ok && !eff.Throttled {
				// a 429 that names no wait is retried after the client's
				// backoff (WithRetryWait's minimum)
				push(simEvent{at: e.at + retryBackoff, kind: evRetry, client: e.client, worker: e.worker})
				continue
			}
			if e.ok && c.calls > 0 {
				res.latencies = append(res.latencies, e.at-came[e.worker])
				continue // the call is done
			}
			cl.line = append(cl.line, e.worker)
			wake(e.client, e.at)
		case evRetry:
			cl.line = append(cl.line, e.worker)
			wake(e.client, e.at)
		case evCall:
			cl.line = append(cl.line, int32(len(came)))
			came = append(came, e.at)
			wake(e.client, e.at)
			push(simEvent{at: e.at + time.Duration(rng.ExpFloat64()/c.calls*float64(time.Second)), kind: evCall})
		}
	}
	for k, cl := range clients {
		res.byClient[k].finalRate = cl.p.Rate()
	}
	res.finalRate = res.byClient[0].finalRate
	return res
}

// accepted returns how many requests the server accepted in [from, to).
func (r simResult) acceptedIn(from, to time.Duration) int {
	n := 0
	for _, t := range r.accepts {
		if t >= from && t < to {
			n++
		}
	}
	return n
}
