package ugctest

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// A quota makes the fake answer like a metered API: each API key (the
// x-api-key value, whether valid or not) has a token bucket of rps tokens
// a second holding at most burst (golang.org/x/time/rate); a request that
// finds no token is answered 429 with the body [MsgTooManyRequests], and
// the bucket is left as it was. It is a quota by time: a client that keeps
// to rps requests a second, in bursts of at most burst, is never refused.
//
// Every answer to a request under a quota (a page, an error, a 429)
// carries the quota's state, in the IETF fields and the common ones:
//
//	RateLimit-Policy: "quota";q=<rps·w>;w=<w>    (w is 1 s, or more for rps < 1)
//	RateLimit: "quota";r=<remaining>;t=<reset, whole seconds, rounded up>
//	X-RateLimit-Limit: <rps·w>
//	X-RateLimit-Remaining: <whole tokens left>
//	X-RateLimit-Reset: <seconds until one more request is allowed, to the millisecond, rounded up>
//
// and a 429 also carries Retry-After: the seconds until a token, rounded
// up (at least 1, as Retry-After has whole seconds); X-RateLimit-Reset
// says the same instant to the millisecond. Reset is 0 while tokens
// remain.
//
// A quota that says nothing but Retry-After (QuotaConfig.RetryAfterOnly)
// sends none of those headers: a 429 carries Retry-After alone, in whole
// seconds, and an accepted request nothing. It is the common throttle of
// the web, and the contract names no rate-limit header: a client must
// learn such a quota from what is accepted.
//
// Control requests are not counted. Faults come first: a request a rule
// fires on takes no token.
type quota struct {
	mu             sync.Mutex
	rps            float64
	burst          int
	retryAfterOnly bool
	buckets        map[string]*rate.Limiter
}

// maxQuotaKeys bounds the keys a quota tracks: past it, the buckets start
// again full (a client sending random keys cannot grow the map).
const maxQuotaKeys = 10000

// WithQuota puts the server behind a quota of rps requests a second per
// API key, in bursts of at most burst, that tells its state in rate-limit
// headers (see [Handler.SetQuota]). An option that cannot work (rps
// outside 10⁻⁶ to 10⁶, burst below 1) makes [NewHandler] return an error,
// and [NewServer] fail the test.
func WithQuota(rps float64, burst int) Option {
	return WithQuotaConfig(QuotaConfig{RPS: rps, Burst: burst})
}

// WithQuotaConfig puts the server behind the quota q (see
// [Handler.SetQuotaConfig]): WithQuotaConfig(QuotaConfig{RPS: 20, Burst: 5,
// RetryAfterOnly: true}) is a quota of 20 requests a second that says
// nothing but Retry-After. An option that cannot work makes [NewHandler]
// return an error, and [NewServer] fail the test.
func WithQuotaConfig(q QuotaConfig) Option {
	return func(c *config) { c.quota = &q }
}

// QuotaConfig is a quota, as the control API reads and writes it (see
// [ControlPath]): {"rps": 20, "burst": 5}, or {"rps": 20, "burst": 5,
// "retryAfterOnly": true}.
type QuotaConfig struct {
	// RPS is the rate, in requests a second, and Burst the most requests
	// at once.
	RPS   float64 `json:"rps"`
	Burst int     `json:"burst"`
	// RetryAfterOnly makes the quota say nothing but Retry-After, in
	// whole seconds, on a 429: no RateLimit, RateLimit-Policy or
	// X-RateLimit-* header on any answer.
	RetryAfterOnly bool `json:"retryAfterOnly,omitempty"`
}

// The rates a quota takes, in requests a second: under the least, the
// wait for a token (and Retry-After, and the policy's window) would not fit
// a time.Duration.
const (
	minQuotaRate = 1e-6
	maxQuotaRate = 1e6
)

func (q QuotaConfig) check() error {
	if !(q.RPS >= minQuotaRate && q.RPS <= maxQuotaRate) {
		return fmt.Errorf("quota rate %v is not a number of requests a second from 10⁻⁶ (a request in 11.6 days) to 10⁶", q.RPS)
	}
	if q.Burst < 1 {
		return fmt.Errorf("quota burst %d is below 1", q.Burst)
	}
	return nil
}

// SetQuota puts the handler behind a quota of rps requests a second per
// API key, in bursts of at most burst, that tells its state in rate-limit
// headers, replacing any quota (every key's bucket starts full). It
// returns an error, changing nothing, for a rate outside 10⁻⁶ to 10⁶
// requests a second or a burst below 1. Safe to call while the handler
// serves.
func (h *Handler) SetQuota(rps float64, burst int) error {
	return h.SetQuotaConfig(QuotaConfig{RPS: rps, Burst: burst})
}

// SetQuotaConfig puts the handler behind the quota q, replacing any quota
// (every key's bucket starts full), as [Handler.SetQuota] does; with
// q.RetryAfterOnly, a quota that says nothing but Retry-After.
func (h *Handler) SetQuotaConfig(q QuotaConfig) error {
	if err := q.check(); err != nil {
		return fmt.Errorf("ugctest: SetQuota: %w", err)
	}
	h.quota.Store(&quota{rps: q.RPS, burst: q.Burst, retryAfterOnly: q.RetryAfterOnly, buckets: map[string]*rate.Limiter{}})
	return nil
}

// ClearQuota lifts the quota: every request is served again.
func (h *Handler) ClearQuota() { h.quota.Store(nil) }

// Quota returns the handler's quota, and false when it has none.
func (h *Handler) Quota() (QuotaConfig, bool) {
	q := h.quota.Load()
	if q == nil {
		return QuotaConfig{}, false
	}
	return QuotaConfig{RPS: q.rps, Burst: q.burst, RetryAfterOnly: q.retryAfterOnly}, true
}

// quotaState is a request's place in the quota: whether it was allowed,
// and what the headers say.
type quotaState struct {
	allowed   bool
	remaining int
	wait      time.Duration // until one more request is allowed; 0 while tokens remain
}

// take takes a token from key's bucket at now, if there is one.
func (q *quota) take(key string, now time.Time) quotaState {
	q.mu.Lock()
	defer q.mu.Unlock()
	lim := q.buckets[key]
	if lim == nil {
		if len(q.buckets) >= maxQuotaKeys {
			clear(q.buckets)
		}
		lim = rate.NewLimiter(rate.Limit(q.rps), q.burst)
		q.buckets[key] = lim
	}
	st := quotaState{allowed: lim.AllowN(now, 1)}
	tokens := lim.TokensAt(now)
	st.remaining = max(int(tokens), 0)
	if tokens < 1 {
		st.wait = time.Duration((1 - tokens) / q.rps * float64(time.Second))
	}
	return st
}

// window returns the policy's window and quota: 1 s and rps, or for a rate
// below one a second, the seconds one request takes and 1.
func (q *quota) window() (w, limit int) {
	if q.rps >= 1 {
		return 1, int(math.Round(q.rps))
	}
	return int(math.Ceil(1 / q.rps)), 1
}

// setHeaders writes the quota's state into hdr, and Retry-After when the
// request was refused.
func (q *quota) setHeaders(hdr http.Header, st quotaState) {
	reset := math.Ceil(st.wait.Seconds()*1000) / 1000 // to the millisecond, rounded up: never "0.000" for a wait
	if q.retryAfterOnly {
		if !st.allowed {
			hdr["Retry-After"] = []string{strconv.Itoa(max(int(math.Ceil(reset)), 1))}
		}
		return
	}
	w, limit := q.window()
	hdr["Ratelimit-Policy"] = []string{`"quota";q=` + strconv.Itoa(limit) + ";w=" + strconv.Itoa(w)}
	hdr["Ratelimit"] = []string{`"quota";r=` + strconv.Itoa(st.remaining) + ";t=" + strconv.Itoa(int(math.Ceil(reset)))}
	hdr["X-Ratelimit-Limit"] = []string{strconv.Itoa(limit)}
	hdr["X-Ratelimit-Remaining"] = []string{strconv.Itoa(st.remaining)}
	hdr["X-Ratelimit-Reset"] = []string{strconv.FormatFloat(reset, 'f', 3, 64)}
	if !st.allowed {
		hdr["Retry-After"] = []string{strconv.Itoa(max(int(math.Ceil(reset)), 1))}
	}
}

// errQuotaOption is returned by NewHandler for a WithQuota that cannot work.
var errQuotaOption = errors.New("WithQuota")
