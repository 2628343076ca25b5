package ugc

import (
	"net/http"
	"time"

	"github.com/ugcposts/ugc-go/internal/pace"
)

// RateLimit is what one answer said about the client's quota, read from
// the headers a server sends for it: the IETF fields RateLimit-Policy
// ("default";q=100;w=60) and RateLimit ("default";r=40;t=30), their older
// draft form RateLimit-Limit, -Remaining and -Reset, the common
// X-RateLimit-Limit, -Remaining and -Reset, and Retry-After. Where the IETF
// fields and the X- ones both say something, the IETF fields win, but for
// a finer X-RateLimit-Reset within the same second as theirs. Every wait
// read is at most a day, whatever form its header takes.
type RateLimit struct {
	// Policy is the name of the quota policy (RateLimit-Policy), "" if none.
	Policy string
	// Limit is the quota: requests allowed per Window; -1 when not sent.
	Limit int
	// Window is the policy's window (the w parameter); 0 when not sent.
	Window time.Duration
	// Remaining is how many requests the quota still allows; -1 when not
	// sent.
	Remaining int
	// Reset is how long until the quota is restored (RateLimit's t,
	// X-RateLimit-Reset); 0 when not sent. X-RateLimit-Reset is read as
	// seconds to wait when below 10⁹, as a Unix time in seconds when
	// below 10¹², else in milliseconds; decimals are kept.
	Reset time.Duration
	// RetryAfter is the wait the answer named (Retry-After, in seconds or
	// as an HTTP date); 0 when it named none. Retry-After has a resolution
	// of one second: with a Reset less than a second before it, the two
	// name the same instant, and RetryAfter is the more precise Reset.
	RetryAfter time.Duration
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
