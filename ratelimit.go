package ugc

import (
	"net/http"
	"time"

	"github.com/ugcposts/ugc-go/internal/pace"
)

// RateLimit is what one answer's headers said of the client's quota:
// RateLimit-Policy and RateLimit (IETF, and the older RateLimit-Limit,
// -Remaining, -Reset), X-RateLimit-Limit, -Remaining and -Reset, and
// Retry-After; the IETF fields win where both say something. No wait read
// is over a day.
type RateLimit struct {
	Policy     string        // the policy's name; "" if none
	Limit      int           // requests allowed per Window; -1: not sent
	Window     time.Duration // the policy's window; 0: not sent
	Remaining  int           // requests the quota still allows; -1: not sent
	Reset      time.Duration // until the quota is restored; 0: not sent
	RetryAfter time.Duration // the wait the answer named; 0: none
}

// Rate returns the policy's rate in requests per second (Limit ÷ Window),
// or 0 when the answer did not say both.
func (r RateLimit) Rate() float64 { return pace.Limit(r).Rate() }

// throttleStats are a Client's counters of throttling, for a walk's
// summary: a walk takes them at its start and at its end, and the
// summary holds the difference (see [WalkSummary.addThrottling]).
type throttleStats struct {
	throttles int64         // 429 and 503 answers
	pauses    int64         // client-wide pauses started
	waited    time.Duration // time attempts waited for their turn
	rate      float64       // the rate the client allows itself; 0: none
}

// throttleStats returns the Client's throttling counters now.
func (c *Client) throttleStats() throttleStats {
	p := c.pace.Pacer()
	return throttleStats{throttles: p.Throttles(), pauses: p.Pauses(), waited: c.pace.Waited(), rate: p.Rate()}
}

// answer is what an answer told the pacer.
type answer struct {
	// limit is what the headers said; nil when they said nothing.
	limit *RateLimit
	// throttled: a 429 or a 503 that named a wait.
	throttled bool
	// wait is the wait a throttled answer named; 0 for none. retryAfter
	// is the answer's Retry-After, whatever its status; 0 for none.
	wait, retryAfter time.Duration
	// pause is the client-wide pause this answer started, if any.
	pause time.Duration
	// quotaWait is how long the attempt waited for its turn; unsent says
	// nothing was sent: the context ended, or the turn would have come
	// too late (turnErr).
	quotaWait time.Duration
	unsent    bool
	turnErr   *pace.WaitError
}

// answered tells the pacer the answer to the attempt of ticket t, and
// returns what it made of it. Its headers are read here, once (the
// pacing, ResponseInfo, APIError.RetryAfter and the backoff take what
// they say from the answer). A wait the headers name is read against the
// wall clock (an HTTP date is one), and paced on the Client's.
func (c *Client) answered(t pace.Ticket, resp *http.Response) answer {
	a := pace.Answer{Status: resp.StatusCode}
	if len(resp.Header) > 0 {
		a.Limit, a.Found = pace.Parse(resp.Header, time.Now())
	}
	e := c.pace.Pacer().Answered(c.pace.Clock().Now(), t, a)
	ans := answer{throttled: e.Throttled, wait: e.Wait, pause: e.Pause}
	if a.Found {
		rl := RateLimit(a.Limit)
		ans.limit = &rl
		ans.retryAfter = rl.RetryAfter
	}
	return ans
}
