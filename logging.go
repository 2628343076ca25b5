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
//
// No line holds the API key: errors are already masked, URLs never hold it.

// logAttempt writes the line for one attempt, if the client has a logger.
func (c *Client) logAttempt(ctx context.Context, a AttemptInfo, canceled bool) {
	if c.logger == nil {
		return
	}
	level, msg, outcome := slog.LevelDebug, "ugc: request succeeded", "ok"
	switch {
	case canceled:
		level, msg, outcome = slog.LevelInfo, "ugc: request abandoned", "canceled"
	case a.Err == nil && a.Attempt > 1:
		level, msg = slog.LevelInfo, "ugc: request succeeded after retries"
	case a.Err != nil && a.Retry:
		level, msg, outcome = slog.LevelWarn, "ugc: attempt failed, retrying", "retry"
	case a.Err != nil && a.StatusCode >= 400 && a.StatusCode < 500 && a.Attempt == 1:
		level, msg, outcome = slog.LevelWarn, "ugc: request failed", "failed"
	case a.Err != nil:
		level, msg, outcome = slog.LevelError, "ugc: request failed", "failed"
	}
	if !c.logger.Enabled(ctx, level) {
		return
	}
	attrs := []slog.Attr{
		slog.String("method", a.Method),
		slog.String("endpoint", a.Endpoint),
		slog.Int("attempt", a.Attempt),
		slog.Int("status", a.StatusCode),
		slog.Duration("duration", a.Duration),
		slog.String("outcome", outcome),
	}
	if a.Retry {
		attrs = append(attrs, slog.Duration("wait", a.Wait))
	}
	if a.Err != nil {
		attrs = append(attrs, slog.String("error", a.Err.Error()))
	}
	c.logger.LogAttrs(ctx, level, msg, attrs...)
}
