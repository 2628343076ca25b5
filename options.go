package ugc

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"
)

// Defaults of the options, documented on each option.
const (
	DefaultRetryMax         = 4
	DefaultRetryWaitMin     = 500 * time.Millisecond
	DefaultRetryWaitMax     = 20 * time.Second
	DefaultAttemptTimeout   = 30 * time.Second
	DefaultMaxResponseBytes = 8 << 20
	// DefaultThrottleBudget bounds the time one request spends throttled
	// (see [WithThrottleBudget]).
	DefaultThrottleBudget = 5 * time.Minute
	// DefaultRetryBudget is the client-wide budget of retries (see
	// [WithRetryBudget]).
	DefaultRetryBudget = 100
)

// Option configures a [Client] in [NewClient].
type Option func(*options) error

type options struct {
	httpClient     *http.Client
	strict         bool
	retryMax       int
	waitMin        time.Duration
	waitMax        time.Duration
	attemptTimeout time.Duration
	logger         *slog.Logger
	uaSuffix       string
	maxBody        int64
	insecureHTTP   bool
	observer       AttemptObserver
	rateLimit      float64 // requests per second; 0: none
	rateBurst      int
	throttleBudget time.Duration
	retryBudget    int
}

// WithHTTPClient sets the *http.Client that sends each attempt, under the
// retry layer. The client is copied, not changed: the copy refuses redirects
// to another origin and attaches the API key only to requests for the base
// URL's origin. Its Timeout, if set, bounds each attempt and takes the place
// of [WithAttemptTimeout]. Use it to set a proxy, TLS settings, or a test
// transport. Because the client is copied here, anything that wraps its
// Transport (such as gock.InterceptClient) must do so before NewClient, and
// the client should have a Transport of its own (gock panics on a nil one).
// Without this option, the client reaches gock.New's interception whenever
// it was built. See the package documentation on testing.
func WithHTTPClient(hc *http.Client) Option {
	return func(o *options) error {
		if hc == nil {
			return errors.New("WithHTTPClient: nil *http.Client")
		}
		o.httpClient = hc
		return nil
	}
}

// WithRetryMax sets how many times a failed attempt is retried (0 disables
// retries). Default: [DefaultRetryMax]. Retried: connection errors, bodies
// cut short, 429 and 5xx other than 501. Never retried: other 4xx.
func WithRetryMax(n int) Option {
	return func(o *options) error {
		if n < 0 {
			return fmt.Errorf("WithRetryMax: negative count %d", n)
		}
		o.retryMax = n
		return nil
	}
}

// WithRetryWait sets the bounds of the wait between attempts. The n-th retry
// waits a random time between half and all of min·2ⁿ, capped at max. A 429
// or 503 that names a wait (Retry-After in seconds or as an HTTP date, or a
// used-up quota's reset) is waited for in full, by the whole Client, within
// [WithThrottleBudget]; a Retry-After of 0 counts as no wait. Defaults: [DefaultRetryWaitMin], [DefaultRetryWaitMax]. Zero for both
// retries at once, which tests use.
func WithRetryWait(minWait, maxWait time.Duration) Option {
	return func(o *options) error {
		if minWait < 0 || maxWait < minWait {
			return fmt.Errorf("WithRetryWait: need 0 <= min <= max, got %v, %v", minWait, maxWait)
		}
		o.waitMin, o.waitMax = minWait, maxWait
		return nil
	}
}

// WithAttemptTimeout bounds each attempt, from sending the request to reading
// the last byte of the body; an attempt that runs over is retried. Default:
// [DefaultAttemptTimeout]; 0 leaves attempts unbounded (the context still
// applies). Ignored when the client given to [WithHTTPClient] has a Timeout.
func WithAttemptTimeout(d time.Duration) Option {
	return func(o *options) error {
		if d < 0 {
			return fmt.Errorf("WithAttemptTimeout: negative duration %v", d)
		}
		o.attemptTimeout = d
		return nil
	}
}

// WithLogger makes the client log each attempt through l, with the call's
// context and structured attributes (method, endpoint, attempt, status,
// duration, wait, outcome, error): a success at Debug, a success after
// retries at Info, a failed attempt that will be retried at Warn, a final
// failure at Error (Warn for a 4xx answer, which is the caller's to handle),
// a call abandoned by its context at Info. Without it the client writes
// nothing anywhere. No line carries the API key.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) error {
		if l == nil {
			return errors.New("WithLogger: nil *slog.Logger")
		}
		o.logger = l
		return nil
	}
}

// WithUserAgent appends suffix to the User-Agent, which is
// "ugc-go/<Version>" alone by default.
func WithUserAgent(suffix string) Option {
	return func(o *options) error {
		if strings.ContainsAny(suffix, "\r\n") {
			return errors.New("WithUserAgent: suffix contains a line break")
		}
		o.uaSuffix = strings.TrimSpace(suffix)
		return nil
	}
}

// WithMaxResponseBytes caps the size of a response body; a larger one is a
// [*DecodeError]. Default: [DefaultMaxResponseBytes].
func WithMaxResponseBytes(n int64) Option {
	return func(o *options) error {
		if n <= 0 {
			return fmt.Errorf("WithMaxResponseBytes: need a positive size, got %d", n)
		}
		o.maxBody = n
		return nil
	}
}

// WithStrictDecoding makes every deviation from the contract in a page (a
// value of another type, a timestamp in another form, a required field
// missing, a node that is not a post) a [*DecodeError] that names the post
// and the field, instead of a [Deviation] on the page. Contract tests use
// it; ugctest's Server.Client sets it, so the fake and the client stay
// exact to the contract. Without it the client is a tolerant reader (see
// [Page.Deviations]).
func WithStrictDecoding() Option {
	return func(o *options) error {
		o.strict = true
		return nil
	}
}

// WithInsecureHTTP allows a plain http:// base URL on a host that is not a
// loopback address. The API key then crosses the network in clear text; use
// it only on a network you trust. Loopback hosts (localhost, 127.0.0.0/8,
// ::1) are allowed over http:// without it.
func WithInsecureHTTP() Option {
	return func(o *options) error {
		o.insecureHTTP = true
		return nil
	}
}

// WithRateLimit paces every call and walk of the Client together to at
// most rps requests a second, with bursts of up to burst requests, by a
// token bucket (golang.org/x/time/rate). An attempt waits for its turn
// before it is sent; the wait ends early with the context, and is counted
// in [AttemptInfo.QuotaWait] and [WalkSummary.QuotaWait]. Set it to the
// API key's quota and a walk runs at the quota's full speed without a
// single 429.
//
// Without it the client is adaptive: it sends as fast as it is asked to
// until a server throttles it (a 429, or a 503 naming a wait) or tells it
// its quota (the RateLimit-Policy header), then caps its own rate and its
// requests in flight, and raises them again while answers succeed (see
// [WalkSummary.FinalRate]). The adaptive cap also applies below a
// configured rate. It returns an error for a rate that is not positive
// and finite or a burst below 1.
func WithRateLimit(rps float64, burst int) Option {
	return func(o *options) error {
		if !(rps > 0) || rps > 1e9 {
			return fmt.Errorf("WithRateLimit: need a positive, finite rate, got %v", rps)
		}
		if burst < 1 {
			return fmt.Errorf("WithRateLimit: need a burst of at least 1, got %d", burst)
		}
		o.rateLimit, o.rateBurst = rps, burst
		return nil
	}
}

// WithThrottleBudget bounds the time one request may spend throttled. A
// 429 or 503 whose answer names a wait (Retry-After, or a used-up quota's
// reset) pauses the whole Client until then, and is retried after it
// without using up the attempts of [WithRetryMax], which are for 5xx and
// connection errors; once waiting for the server would take the request
// past d from its first throttle, it fails with a [*ThrottleError]
// (matching [ErrRateLimited]) at once, without waiting. The context bounds
// it too. Default: [DefaultThrottleBudget]; 0 fails at the first throttle
// that names a wait. With [WithRetryMax] (or [WithCallRetryMax]) of 0, a
// throttle is not retried either.
func WithThrottleBudget(d time.Duration) Option {
	return func(o *options) error {
		if d < 0 {
			return fmt.Errorf("WithThrottleBudget: negative duration %v", d)
		}
		o.throttleBudget = d
		return nil
	}
}

// WithRetryBudget sets the client-wide budget of retries for failures that
// are not throttles (5xx, connection errors, bodies cut short), shared by
// every call and walk: each retry takes one of n tokens, and a call that
// succeeds gives back its retries' tokens and a fifth of one more. While a
// server is down the budget runs out, and calls then fail at their first
// error (with an error matching [ErrRetryBudgetExhausted] and carrying the
// last attempt's) instead of multiplying the load by their retries.
// Default: [DefaultRetryBudget]; 0 turns the budget off.
func WithRetryBudget(n int) Option {
	return func(o *options) error {
		if n < 0 {
			return fmt.Errorf("WithRetryBudget: negative count %d", n)
		}
		o.retryBudget = n
		return nil
	}
}
