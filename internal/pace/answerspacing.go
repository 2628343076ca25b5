package pace

import (
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
// answer, and takes the whole of it for the way in. Under a configured
// quota, what the spare token and the headroom do not absorb of the recent
// round trips' spread spaces every request (roomForTheJitter). Where the
// server's bucket holds one token (or, learned, one or two), each request
// waits for the answer before it while that comes back within the spacing,
// and is spaced from that request's own excess (spaceFromTheAnswer).

// takeTheRoundTrip takes the round trip of the request of ticket t,
// answered at now, under a configured quota, or a learned bucket of one
// or two once the jitter in transit cost a request its token (see
// answerSpaced).
func (p *Pacer) takeTheRoundTrip(now time.Time, t Ticket) {
	rtt := now.Sub(t.Sent)
	if (p.quota == 0 && !p.learner.jittery) || rtt < 0 || t.Sent.IsZero() {
		return
	}
	p.rtts[p.answered%len(p.rtts)] = rtt
	p.answered++
	recent := p.rtts // a copy, to sort: the ring keeps its order
	sorted := recent[:min(p.answered, len(recent))]
	slices.Sort(sorted)
	p.spread = sorted[len(sorted)-1] - sorted[0]
	known := p.narrowed == 0 && p.answered >= roundTripsKnown
	if p.quota > 0 {
		p.roomForTheJitter(sorted, known)
	}
	if spaced, quota := p.answerSpaced(); spaced != nil {
		spaceFromTheAnswer(spaced, quota, t, rtt, sorted, p.answered, known, spaced == &p.configured)
	}
	if p.quotaBurst == 2 {
		p.slackFromTheSpread(p.spread, known)
	}
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
// writes and answers (see Hold and spaceFromTheAnswer), and the rate of
// the server's bucket it keeps under: the configured one, with a burst of
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
func (p *Pacer) answerSpaced() (*spacing, float64) {
	switch {
	case p.quotaBurst == 1:
		return &p.configured, p.quota
	case p.announced == 0 && p.learner.jittery && p.learner.atMostTwoTokens() && p.spread.Seconds() > settleBelow/p.learner.est:
		return &p.adaptive, max(p.learner.est, p.adaptive.rate())
	}
	return nil, 0
}

// spaceFromTheAnswer takes the round trip rtt of the request of ticket t
// into the spacing s, under a bucket of quota requests a second (see
// answerSpaced) with no spare token to absorb a request that reaches the
// server's count late; sorted are the recent round trips, of answered in
// all, and known says roundTripsKnown are known, with no throttle since
// under a configured rate, and configured that s is the configured
// spacing. The server counted the request somewhere within its round
// trip: one longer than the quickest may have been counted that much
// later than it was sent (it waited for a connection, or the server took
// longer before counting it), which would bring the next request closer
// to it than the rate allows. The next token is due no sooner than
// the least time between two requests after the send, plus that excess.
// (With a larger burst the spare token the client keeps absorbs it.)
//
// Under a configured quota, the quickest is none after the first answer
// (the whole round trip may be jitter; the cold start spaces from it
// too), then, while fewer than roundTripsKnown are in, the least under by
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
func spaceFromTheAnswer(s *spacing, quota float64, t Ticket, rtt time.Duration, sorted []time.Duration, answered int, known, configured bool) {
	least, median, most := sorted[0], sorted[len(sorted)/2], sorted[len(sorted)-1]
	spacing := time.Duration(float64(time.Second) / quota)
	s.gap = 0
	if known && most < spacing {
		s.gap = spacing + median - least
	}
	floor := quickest(sorted)
	switch {
	case !configured:
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

// slackFromTheSpread sets the configured spacing's slack under a burst of
// two, whose client keeps bursts of one (see headroomBurst): the server's
// spare token absorbs the jitter in transit, which the spread of the
// recent round trips shows, up to a token. Once the round trips are known
// (see spaceFromTheAnswer), what half a token leaves past that spread is
// the slack: a request let go or written that late (a late timer, a
// goroutine slow to write) does not put the next one back.
func (p *Pacer) slackFromTheSpread(spread time.Duration, known bool) {
	p.configured.slack = 0
	if known {
		p.configured.slack = max(p.quotaSpacing()/2-spread, 0)
	}
}

// roomForTheJitter makes room, under a configured quota, for the jitter
// in transit: what the recent round trips, sorted, take past the quickest
// (the whole of the most until roundTripsKnown are in). A request the
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
func (p *Pacer) roomForTheJitter(sorted []time.Duration, known bool) {
	s := &p.configured
	most := sorted[len(sorted)-1]
	var jitter time.Duration
	switch {
	case p.quotaBurst == 1 && (p.answered < roundTripsKnown || known && most < p.quotaSpacing()):
		// held for each answer: none in flight
	case p.answered < roundTripsKnown:
		jitter = most
	default:
		jitter = most - quickest(sorted)
	}
	spareTokens := min(int64(p.quotaBurst-s.burst), int64(maxSpan/s.interval)) // a burst set() bounded spares the rest
	headroom := s.interval - p.quotaSpacing()
	s.late = max(jitter-time.Duration(spareTokens)*s.interval-headroom, 0)
}

// quotaSpacing returns the configured quota's time between two tokens.
func (p *Pacer) quotaSpacing() time.Duration { return time.Duration(float64(time.Second) / p.quota) }
