package pace

import (
	"math"
	"time"
)

// A quota the server announces in its headers (RateLimit-Policy with
// RateLimit, or X-RateLimit-*): its policy's rate caps the client's, less
// the headroom, in bursts of one less than the most its Remaining showed
// (see quotaKnown), and the client keeps to it as to a configured one,
// jitter in transit included (see roomForTheJitter).
//
// Its Remaining says how many tokens its bucket held when it counted a
// request. The client's own bucket took a token for every request it
// sent, those still in flight too, and expected the server's to hold its
// own tokens and the one it keeps spare after counting this one: while the
// server holds that much, less a token at most (the jitter in transit
// brings a request to the count early now and then), the answer changes
// nothing. An answer comes a round trip's way back after the count: a
// client that emptied its bucket at every answer that said no token was
// left kept that far behind the server, and with many requests in flight,
// an interval behind every answer.
//
// An answer that says none is left, where the client expected it, pauses
// the client not at all with a token to spare, and with none (a bucket of
// one) until the next token, a token's interval at most, whatever the
// reset says: many servers send it in whole seconds, rounded up.
//
// Once the server holds a token or more less than expected (another client
// spends the same key, or the server counts more than the client sends),
// the client takes the server's word instead, as it does for a request
// sent before it knew the quota, which expected nothing: the Remaining,
// less a token for each request in flight, less the spare one, is what
// the client's bucket holds, and an answer that says none is left pauses
// it until the reset. At the first answer, that may be below 0: the
// requests in flight then went out unpaced, and may each take a token, a
// debt the next request waits for; later, it is at least 0.

// expectLen is how many requests' expectations the pacer keeps: one in
// flight longer than expectLen requests sent after it is taken as one sent
// before the client knew the quota.
const expectLen = 256

// expectation is the tokens the client's bucket expected the server's to
// hold right after counting the request of ticket id.
type expectation struct {
	id     uint64
	tokens float64
	set    bool
}

// expect keeps what the client's bucket expects of the server's after the
// request of ticket t, sent at now, under an announced quota.
func (p *Pacer) expect(now time.Time, t Ticket) {
	if p.announced == 0 {
		return
	}
	if p.expected == nil {
		p.expected = make([]expectation, expectLen)
	}
	spare := max(p.capacity, 1) - p.adaptive.burst
	p.expected[t.id%expectLen] = expectation{id: t.id, tokens: p.adaptive.tokens(now) + float64(spare), set: true}
}

// expectation returns what the client's bucket expected of the server's
// after the request of ticket t, and false when it expected nothing.
func (p *Pacer) expectation(t Ticket) (float64, bool) {
	if p.expected == nil {
		return 0, false
	}
	e := p.expected[t.id%expectLen]
	return e.tokens, e.set && e.id == t.id
}

// announce takes what a server said of its quota in the answer to the
// request of ticket t, at now (see above), and returns how long an answer
// that says none is left pauses the client: until its reset, unless the
// client's bucket expected it. Then, with a token to spare, not at all; a
// bucket of one has none to spare for a request the server counted early
// (the jitter in transit), and waits for its next token: a token's
// interval at most, where the reset says more (many servers send it in
// whole seconds, rounded up: RateLimit's t).
func (p *Pacer) announce(now time.Time, l Limit, t Ticket) (usedUp time.Duration) {
	p.active.Store(true)
	if l.Remaining == 0 {
		usedUp = l.Reset
	}
	first := p.announced == 0
	if l.Remaining > 0 && l.Remaining < math.MaxInt && l.Remaining+1 > p.capacity {
		p.capacity = l.Remaining + 1
	}
	if r := l.Rate(); r > 0 && r != p.announced {
		p.announced = r
		p.adaptive.set(now, r*(1-Headroom), headroomBurst(max(p.capacity, 1)))
	}
	if p.announced == 0 || l.Remaining < 0 {
		return usedUp
	}
	if b := headroomBurst(max(p.capacity, 1)); b > p.adaptive.burst {
		p.adaptive.widen(b)
	}
	if tokens, ok := p.expectation(t); ok && !p.contradicted {
		if tokens-mostHeld(l) < 1 {
			if p.capacity > 1 {
				return 0
			}
			return min(usedUp, intervalAt(p.announced))
		}
		p.contradicted = true
	}
	k := float64(l.Remaining - p.inflight - 1)
	if !first {
		k = max(k, 0)
	}
	p.adaptive.limitTokens(now, k)
	return usedUp
}

// mostHeld returns the most tokens a bucket held that said l: Remaining
// is its whole tokens. Its Reset is not read: many servers send it in
// whole seconds, rounded up (RateLimit's t), which would make a bucket
// short of a token by a fraction look a second's tokens short.
func mostHeld(l Limit) float64 { return float64(l.Remaining) + 1 }
