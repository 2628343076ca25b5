package ugc

import (
	"context"
	"time"
)

// AttemptInfo describes one attempt of a call, as an [AttemptObserver]
// sees it once the attempt has ended. Nothing in it holds the API key.
type AttemptInfo struct {
	Method     string // "GET"
	Endpoint   string // the request's path, without the query
	Attempt    int    // from 1
	StatusCode int    // 0 when no answer came
	RequestID  string // the answer's (see [RequestID]); "" if none
	// Err is the attempt's error; nil for a success.
	Err error
	// Duration runs from sending to the body's last byte.
	Duration time.Duration
	// Retry says another attempt follows, after Wait. For a throttle that
	// ends the call, Wait is the wait it would have had.
	Retry bool
	Wait  time.Duration
	// QuotaWait is how long the attempt waited for its turn.
	QuotaWait time.Duration
	// Throttled says the answer was a 429, or a 503 that named a wait; or
	// that the attempt was not sent because its turn came too late
	// (StatusCode 0, Err the call's [*ThrottleError]).
	Throttled bool
	// Pause is the client-wide pause this answer started; 0: none.
	Pause time.Duration
	// RateLimit is what the answer's headers said of the quota; nil: nothing.
	RateLimit *RateLimit
}

// AttemptObserver is called after each attempt, in order, on the goroutine
// making the call, with the call's context. It must not block: the next
// attempt waits for it.
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
