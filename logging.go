package ugc

import (
	"context"
	"log/slog"
)

// Log lines, written only with [WithLogger], through the logger's handler
// with the call's context (so a trace-aware handler can correlate them):
//
//	DEBUG "ugc: request succeeded"            method endpoint attempt status outcome=ok
//	INFO  "ugc: request succeeded after retries" ... attempt=3
//	WARN  "ugc: attempt failed, retrying"     method endpoint attempt status wait error outcome=retry
//	WARN  "ugc: request failed"               (a 4xx that is not retried) outcome=failed
//	ERROR "ugc: request failed"               (retries exhausted, 5xx, connection) outcome=failed
//	INFO  "ugc: request abandoned"            (the context ended) outcome=canceled
//	WARN  "ugc: throttled, the client pauses" (a 429, or a 503 naming a wait) ... wait pause outcome=throttled
//	WARN  "ugc: rate limited: the wait for the quota is past the call's bound"
//	                                          (a throttle's wait, or a turn, past the throttle
//	                                          budget or the deadline; status 0: not sent) ... wait outcome=throttled
//	INFO  "ugc: quota used up, the client pauses" (a success whose headers say
//	                                          nothing remains) ... pause outcome=ok
//
// Every line has method, endpoint, attempt, status (0: no answer),
// duration and outcome; a line for a failed attempt has error. The others
// are there only when they apply:
//
//	request_id           the answer carried a request ID (see RequestID)
//	wait                 another attempt follows after it, or a throttle's
//	                     wait ended the call
//	pause                the answer started a client-wide pause
//	quota_wait           the attempt waited for its turn (a pause, the rate)
//	ratelimit_remaining  the answer said how many requests the quota allows
//	ratelimit_rate       the answer sent the quota's policy (requests a second)
//
// No line holds the API key: errors are already masked, URLs never hold it.

// logAttempt writes the line for one attempt, if the client has a logger.
func (c *Client) logAttempt(ctx context.Context, a AttemptInfo, canceled bool) {
	if c.logger == nil {
		return
	}
	level, msg, outcome := attemptLine(a, canceled)
	if !c.logger.Enabled(ctx, level) {
		return
	}
	c.logger.LogAttrs(ctx, level, msg, attemptAttrs(a, outcome)...)
}

// attemptLine is the level, message and outcome of an attempt's log line.
func attemptLine(a AttemptInfo, canceled bool) (slog.Level, string, string) {
	switch {
	case canceled:
		return slog.LevelInfo, "ugc: request abandoned", "canceled"
	case a.Err != nil:
		return failedLine(a)
	case a.Attempt > 1:
		return slog.LevelInfo, "ugc: request succeeded after retries", "ok"
	case a.Pause > 0:
		return slog.LevelInfo, "ugc: quota used up, the client pauses", "ok"
	}
	return slog.LevelDebug, "ugc: request succeeded", "ok"
}

// failedLine is the level, message and outcome of the log line of an
// attempt that failed.
func failedLine(a AttemptInfo) (slog.Level, string, string) {
	switch {
	case a.Throttled && a.Retry:
		return slog.LevelWarn, "ugc: throttled, the client pauses", "throttled"
	case a.Throttled:
		return slog.LevelWarn, "ugc: rate limited: the wait for the quota is past the call's bound", "throttled"
	case a.Retry:
		return slog.LevelWarn, "ugc: attempt failed, retrying", "retry"
	case callersToHandle(a):
		return slog.LevelWarn, "ugc: request failed", "failed"
	}
	return slog.LevelError, "ugc: request failed", "failed"
}

// callersToHandle reports whether a failed attempt is the caller's to
// handle, not an outage: a 4xx answer at the first attempt.
func callersToHandle(a AttemptInfo) bool {
	return a.StatusCode >= 400 && a.StatusCode < 500 && a.Attempt == 1
}

// attemptAttrs are the attributes of an attempt's log line.
func attemptAttrs(a AttemptInfo, outcome string) []slog.Attr {
	attrs := []slog.Attr{
		slog.String("method", a.Method),
		slog.String("endpoint", a.Endpoint),
		slog.Int("attempt", a.Attempt),
		slog.Int("status", a.StatusCode),
		slog.Duration("duration", a.Duration),
		slog.String("outcome", outcome),
	}
	if a.RequestID != "" {
		attrs = append(attrs, slog.String("request_id", a.RequestID))
	}
	if a.Retry || a.Throttled {
		attrs = append(attrs, slog.Duration("wait", a.Wait))
	}
	if a.Pause > 0 {
		attrs = append(attrs, slog.Duration("pause", a.Pause))
	}
	if a.QuotaWait > 0 {
		attrs = append(attrs, slog.Duration("quota_wait", a.QuotaWait))
	}
	if rl := a.RateLimit; rl != nil && rl.Remaining >= 0 { // -1: not sent
		attrs = append(attrs, slog.Int("ratelimit_remaining", rl.Remaining))
	}
	if rl := a.RateLimit; rl != nil && rl.Rate() > 0 {
		attrs = append(attrs, slog.Float64("ratelimit_rate", rl.Rate()))
	}
	if a.Err != nil {
		attrs = append(attrs, slog.String("error", a.Err.Error()))
	}
	return attrs
}
