package pace

import (
	"math"
	"slices"
	"time"
)

// Spacing from the answers. A server counts a request when it takes it,
// which the jitter in transit (a wait for a connection, a slow moment of
// the client, the network or the server) puts later than the client let
// it go; and the next request may be counted early: the two come closer
// together than the client sent them. The round trips show by how much, at
// most: what one takes past the quickest a round trip may take. The client
// cannot tell the way in from the way back, nor from the server's time to
// answer, and takes the whole of it for the way in. Under a known quota
// (configured, or announced by the server: see quotaKnown), what the spare
// token and the headroom do not absorb of the recent round trips' spread
// spaces every request (roomForTheJitter). Where the server's bucket holds
// one token (or, learned, one or two), each request waits for the answer
// before it while that comes back within the spacing, and is spaced from
// that request's own excess (spaceFromTheAnswer).

// knownQuota is a quota the client knows the rate and burst of, and the
// spacing that keeps under it.
type knownQuota struct {
	s     *spacing
	rate  float64 // requests a second
	burst int
}

// tokenInterval returns the time between two of the quota's tokens.
func (q knownQuota) tokenInterval() time.Duration { return intervalAt(q.rate) }

// quotaKnown returns the quota the client knows, and false where it knows
// none: the configured one (WithRateLimit), else the one the server
// announced (RateLimit-Policy), whose burst is one more than the most its
// Remaining showed (one until it showed more: a server whose Remaining
// stays at 0 holds one token, or is spent by another client).
func (p *Pacer) quotaKnown() (knownQuota, bool) {
	switch {
	case p.quota > 0:
		return knownQuota{&p.configured, p.quota, p.quotaBurst}, true
	case p.announced > 0:
		return knownQuota{&p.adaptive, p.announced, max(p.capacity, 1)}, true
	}
	return knownQuota{}, false
}

// takeTheRoundTrip takes the round trip of the request of ticket t,
// answered at now, under a known quota, or a learned bucket of one or two
// once the jitter in transit cost a request its token (see answerSpaced).
func (p *Pacer) takeTheRoundTrip(now time.Time, t Ticket) {
	rtt := now.Sub(t.Sent)
	q, quotaKnown := p.quotaKnown()
	if (!quotaKnown && !p.learner.jittery && !p.learner.twoTokens()) || rtt < 0 || t.Sent.IsZero() {
		return
	}
	sorted := p.rtts.take(rtt)
	p.spread = sorted[len(sorted)-1] - sorted[0]
	known := p.narrowed == 0 && p.rtts.taken >= roundTripsKnown
	if quotaKnown {
		p.roomForTheJitter(now, q, sorted, known)
	}
	if spaced, quota, exact := p.answerSpaced(); spaced != nil {
		spaceFromTheAnswer(spaced, quota, t, rtt, sorted, p.rtts.taken, known, exact)
	}
	if quotaKnown && q.burst == 2 {
		q.s.slack = 0
		if known {
			// the spread the last seconds showed, under a configured
			// quota (see jitterRemembered)
			q.s.slack = slackFromTheSpread(q.tokenInterval(), max(p.spread, p.jitterSeen))
		}
	}
}

// roundTrips are the round trips of the last answers: 64, so that their
// least is near the round trip without jitter. The ring keeps the order
// they came in, to drop the oldest; sorted keeps the same ones in order
// of length, for their least, median and most.
type roundTrips struct {
	ring   [64]time.Duration
	sorted [64]time.Duration
	taken  int // in all
}

// take adds rtt, in place of the oldest once the ring is full, and
// returns the recent round trips sorted (in place: valid until the next
// take).
func (r *roundTrips) take(rtt time.Duration) []time.Duration {
	sorted := r.sorted[:min(r.taken, len(r.ring))]
	slot := r.taken % len(r.ring)
	if r.taken >= len(r.ring) {
		i, _ := slices.BinarySearch(sorted, r.ring[slot])
		sorted = slices.Delete(sorted, i, i+1)
	}
	r.ring[slot] = rtt
	r.taken++
	i, _ := slices.BinarySearch(sorted, rtt)
	return slices.Insert(sorted, i, rtt)
}

// roundTripsKnown is how many answers show the least round trip well
// enough to take only what a round trip takes past it for the jitter;
// until then, a bucket of one waits for each answer (see Hold).
const roundTripsKnown = 16

// quickest returns the quickest a round trip may take, from the recent
// ones, sorted: under the least of them by as much as the fifth least of
// 64 is above it, since the next may be quicker than any of them.
func quickest(sorted []time.Duration) time.Duration {
	least := sorted[0]
	return max(least-(sorted[len(sorted)/16]-least), 0)
}

// answerSpaced returns the spacing whose requests are spaced from their
// writes and answers (see Hold and spaceFromTheAnswer), the rate of the
// server's bucket it keeps under, and whether that rate is exact (known,
// not learned): the known quota's (see quotaKnown), with a burst of
// one; the learned one, where the server announced nothing, the phases
// leave only buckets of one or two possible (see
// learner.atMostTwoTokens), whose spare token the jitter may have spent,
// a refusal was taken for the jitter (see learner.jittered), and the
// recent round trips spread by more than the learner settles under its
// estimate (settleBelow), which absorbs less: at the estimate, or at the
// rate allowed when the curve probes above it (so that the hold for an
// answer never keeps the client under the rate it allows). Nil
// elsewhere: a spare token, or the margin, absorbs a request counted
// late, and spacing from the answers would cost the rate for nothing.
func (p *Pacer) answerSpaced() (s *spacing, quota float64, exact bool) {
	q, quotaKnown := p.quotaKnown()
	switch {
	case quotaKnown && q.burst == 1:
		return q.s, q.rate, true
	case p.announced == 0 && p.learner.jittery && p.learner.atMostTwoTokens() && p.spread.Seconds() > settleBelow/p.learner.est:
		return &p.adaptive, max(p.learner.est, p.adaptive.rate()), false
	}
	return nil, 0, false
}

// spaceFromTheAnswer takes the round trip rtt of the request of ticket t
// into the spacing s, under a bucket of quota requests a second (see
// answerSpaced) with no spare token to absorb a request that reaches the
// server's count late; sorted are the recent round trips, of answered in
// all, and known says roundTripsKnown are known, with no throttle since
// under a configured rate, and exact that the quota is known, not learned
// (see answerSpaced). The server counted the request somewhere within its round
// trip: one longer than the quickest may have been counted that much
// later than it was sent (it waited for a connection, or the server took
// longer before counting it), which would bring the next request closer
// to it than the rate allows. The next token is due no sooner than
// the least time between two requests after the send, plus that excess.
// (With a larger burst the spare token the client keeps absorbs it.)
//
// Under a known quota, the quickest is none after the first answer (the
// whole round trip may be jitter; a configured quota's cold start spaces
// from it too), then, while fewer than roundTripsKnown are in, the least under by
// their spread times roundTripsKnown over their number, where that spread
// is more than the headroom absorbs (the next may be quicker than any of
// these few, and the fewer, the likelier), then quickest's. The learned rate
// takes the least: it keeps under its estimate (settleBelow), which
// absorbs a quicker one.
//
// That least time is the spacing's interval until the round trips are
// known. Then, while the recent round trips all came back within the
// quota's spacing (an answer is in before the next request goes, to push
// it back), it is the quota's spacing plus their median excess over the
// least, when that is less than the interval: the next token stays due an
// interval after the last one was, and a request let go late (the gate's
// timer wakes up to a millisecond late on Linux) does not put the next
// one back, as long as the two stay that far apart. The median excess is
// a margin for the jitter in transit that an answer not yet in cannot
// show, and for a round trip quicker than the least: the excess is then
// taken over the least itself. A request whose turn comes while an answer
// is still out (a loaded client may take it in late) waits an interval
// after the last request went, as before.
func spaceFromTheAnswer(s *spacing, quota float64, t Ticket, rtt time.Duration, sorted []time.Duration, answered int, known, exact bool) {
	least, median, most := sorted[0], sorted[len(sorted)/2], sorted[len(sorted)-1]
	spacing := intervalAt(quota)
	s.gap = 0
	if known && most < spacing {
		s.gap = spacing + median - least
	}
	floor := quickest(sorted)
	switch {
	case !exact:
		floor = least // the learned rate keeps under its estimate (settleBelow), which absorbs it
	case answered < 2:
		floor = 0
	case answered < roundTripsKnown && float64(most-least) > Headroom*float64(spacing):
		floor = max(least-(most-least)*roundTripsKnown/time.Duration(answered), 0)
	case answered < roundTripsKnown:
		floor = least
	case s.least() < s.interval:
		floor = least // the gap's median excess is a margin under the least already
	}
	if excess := rtt - floor; excess > 0 {
		s.delay(t.Sent.Add(excess))
	}
}

// slackFromTheSpread returns the slack of a spacing under a server's
// bucket of two tokens, token apart, whose client keeps bursts of one
// (see headroomBurst; the learned rate's: see learner.twoTokens): the
// server's spare token absorbs the jitter in transit, which the spread of
// the recent round trips shows, up to a token. Once the round trips are
// known (see spaceFromTheAnswer), what half a token leaves past that
// spread is the slack: a request let go or written that late (a late
// timer, a goroutine slow to write) does not put the next one back.
func slackFromTheSpread(token, spread time.Duration) time.Duration {
	return max(token/2-spread, 0)
}

// roomForTheJitter makes room at now, under the known quota q, for the
// jitter in transit: what the recent round trips, sorted, take past the
// quickest (the whole of the most until roundTripsKnown are in), or,
// under a configured quota, what they showed lately, fading (see
// jitterRemembered; an announced quota's headers show where the client
// ran ahead, see announce). A request the
// server counts that late, and the next one counted early, come closer
// together than the client sent them by as much. The client's spare token
// and its headroom (3 % of the spacing) absorb some of that; each request
// is taken as if it went out as late as the rest (see spacing.late), which
// where the server's bucket has tokens to spare costs only the burst after
// a lull, and where it has none spaces the requests farther apart: no
// request in flight with another is counted too soon after it.
//
// A bucket of one holds each request for the answer before it (see Hold)
// until roundTripsKnown answers are in, and then while they come back
// within its spacing; the answer then spaces the next request from that
// request's own excess (see spaceFromTheAnswer): none is in flight to make
// room for.
func (p *Pacer) roomForTheJitter(now time.Time, q knownQuota, sorted []time.Duration, known bool) {
	s := q.s
	most := sorted[len(sorted)-1]
	var jitter time.Duration
	switch {
	case q.burst == 1 && (p.rtts.taken < roundTripsKnown || known && most < q.tokenInterval()):
		// held for each answer: none in flight
	case p.rtts.taken < roundTripsKnown:
		jitter = most
	case p.quota > 0:
		jitter = p.jitterRemembered(now, most-quickest(sorted))
	default:
		jitter = most - quickest(sorted)
	}
	spareTokens := min(int64(q.burst-s.burst), int64(maxSpan/s.interval)) // a burst set() bounded spares the rest
	headroom := s.interval - q.tokenInterval()
	s.late = max(jitter-time.Duration(spareTokens)*s.interval-headroom, 0)
}

// jitterMemory is how long the jitter in transit the round trips showed
// is still made room for after they stop showing it, halving each time it
// passes. The recent round trips are 64: a tenth of a second at 700
// requests a second, and a delay rarer than that (a goroutine slow to
// run, a moment of a loaded machine) comes again.
const jitterMemory = time.Second

// jitterRemembered returns the room to make at now for the jitter in
// transit, of which the recent round trips show jitter: that, or what the
// round trips showed before, fading (see jitterMemory).
func (p *Pacer) jitterRemembered(now time.Time, jitter time.Duration) time.Duration {
	if d := now.Sub(p.jitterAt); d > 0 && !p.jitterAt.IsZero() {
		p.jitterSeen = time.Duration(float64(p.jitterSeen) * math.Exp2(-float64(d)/float64(jitterMemory)))
	}
	p.jitterSeen, p.jitterAt = max(p.jitterSeen, jitter), now
	return p.jitterSeen
}
