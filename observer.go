package ugc

import (
	"context"
	"time"
)

// AttemptInfo describes one attempt of a call, as an [AttemptObserver]
// sees it once the attempt has ended.
type AttemptInfo struct {
	Method   string // "GET"
	Endpoint string // the path of the request, without the query
	// Attempt counts from 1.
	Attempt int
	// StatusCode is the answer's status; 0 when none came (a connection
	// error, a timeout).
	StatusCode int
	// RequestID is the ID the server or a proxy gave the answer (see
	// [RequestID]), the API key masked; "" when no answer came or it
	// carried none.
	RequestID string
	// Err is the attempt's error (an [*APIError], a [*DecodeError], a
	// transport error); nil for a success. It never holds the API key.
	Err error
	// Duration is how long the attempt took, from sending to the last byte
	// of the body.
	Duration time.Duration
	// Retry says whether another attempt follows, after Wait. For a
	// throttle that ends the call (see [WithThrottleBudget]), Wait is the
	// wait it would have had.
	Retry bool
	Wait  time.Duration
	// QuotaWait is how long the attempt waited for its turn before it was
	// sent: a client-wide pause, the configured or adaptive rate, the cap
	// on requests in flight (see [WithRateLimit]).
	QuotaWait time.Duration
	// Throttled says the answer was a throttle: a 429 or a 503 that named
	// a wait (Retry-After, or a used-up quota's reset). A throttle does
	// not use up the attempts of [WithRetryMax]; a 429 that names no wait
	// is an ordinary failure. An attempt that was not sent because its
	// turn would have come later than the call may wait is Throttled too,
	// with StatusCode 0 and Err the call's [*ThrottleError].
	Throttled bool
	// Pause is the client-wide pause this answer started: a throttle's
	// named wait, or the reset of a quota the answer showed used up; 0
	// when it started none. Every new attempt of the Client waits for it.
	Pause time.Duration
	// RateLimit is what the answer's headers said about the quota; nil
	// when they said nothing.
	RateLimit *RateLimit
}

// AttemptObserver is called after each attempt of every call, in order, on
// the goroutine making the call, with the call's context (so a span that
// the caller started is reachable). It must not block: the next attempt
// waits for it. Use it for metrics and traces; see [WithAttemptObserver].
type AttemptObserver func(ctx context.Context, a AttemptInfo)

// then returns an observer that calls o (if any), then next.
func (o AttemptObserver) then(next AttemptObserver) AttemptObserver {
	if o == nil {
		return next
	}
	return func(ctx context.Context, a AttemptInfo) {
		o(ctx, a)
		next(ctx, a)
	}
}
