package pace

import (
	"slices"
	"time"
)

// Spacing from the answers. Where the server's bucket holds one or two
// tokens, the client's keeps none or one spare, and a request the server
// counts later than the client let it go (it waited for a connection, or
// the server took longer before counting it) can find no token. Its round
// trip shows by how much, once its answer comes: the requests after it are
// spaced from its send plus its round trip's excess over the least of the
// recent ones, and the next waits for an answer still out (see Hold).

// takeTheRoundTrip takes the round trip of the request of ticket t,
// answered at now, where the server's bucket is known to hold one or two
// (configured; or learned, once the jitter in transit cost a request its
// token: see answerSpaced), so that the spare token is none or one: the
// round trips show how late the server may have counted a request, and
// how much the jitter in transit takes of that token.
func (p *Pacer) takeTheRoundTrip(now time.Time, t Ticket) {
	rtt := now.Sub(t.Sent)
	configured := p.quotaBurst == 1 || p.quotaBurst == 2
	if (!configured && !p.learner.jittery) || rtt < 0 || t.Sent.IsZero() {
		return
	}
	p.rtts[p.answered%len(p.rtts)] = rtt
	p.answered++
	recent := p.rtts // a copy, to sort: the ring keeps its order
	sorted := recent[:min(p.answered, len(recent))]
	slices.Sort(sorted)
	least, median, most := sorted[0], sorted[len(sorted)/2], sorted[len(sorted)-1]
	p.spread = most - least
	known := p.narrowed == 0 && p.answered >= 16
	if spaced, quota := p.answerSpaced(); spaced != nil {
		spaceFromTheAnswer(spaced, quota, t, rtt, least, median, most, known)
	}
	if p.quotaBurst == 2 {
		p.slackFromTheSpread(most-least, known)
	}
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
// server's count late; least, median and most are the recent round
// trips', and known says 16 are known, with no throttle since under a
// configured rate. The server counted the request somewhere within its
// round trip: one longer than the least of the recent ones may have been
// counted that much later than it was sent (it waited for a connection,
// or the server took longer before counting it), which would bring the
// next request closer to it than the rate allows. The next token is due
// no sooner than the least time between two requests after the send,
// plus that excess. (With a larger burst the spare token the client
// keeps absorbs it.)
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
// show; and a request whose turn comes while an answer is still out (a
// loaded client may take it in late) waits an interval after the last
// request went, as before.
func spaceFromTheAnswer(s *spacing, quota float64, t Ticket, rtt, least, median, most time.Duration, known bool) {
	spacing := time.Duration(float64(time.Second) / quota)
	s.gap = 0
	if known && most < spacing {
		s.gap = spacing + median - least
	}
	if excess := rtt - least; excess > 0 {
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
		p.configured.slack = max(time.Duration(float64(time.Second)/p.quota)/2-spread, 0)
	}
}
