package ugc

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// retryable is the retry policy for an attempt's answer or error:
// connection errors, 429 and 5xx but 501 are retried (bodies cut short are
// too, decided by the caller). A refused redirect, a host that does not
// exist and an ended context are final.
func retryable(ctx context.Context, resp *http.Response, err error) bool {
	var dns *net.DNSError
	switch {
	case ctx.Err() != nil, errors.Is(err, ErrForeignRedirect), errors.Is(err, errBodyTooLarge):
		return false
	case errors.As(err, &dns) && dns.IsNotFound:
		return false
	case resp != nil:
		retry, _ := retryablehttp.DefaultRetryPolicy(ctx, resp, nil)
		return retry
	}
	retry, _ := retryablehttp.DefaultRetryPolicy(ctx, nil, err)
	return retry
}

// spendsRetryBudget reports whether retrying an attempt that failed with
// err takes a token of the Client's retry budget, which is meant for
// outages. A local resource that ran out (file descriptors, ephemeral
// ports, socket buffers: thousands of requests at once on a transport with
// no cap on its connections; see [localExhaustion]) says nothing of the
// server: its retries are still bounded by WithRetryMax and spaced by the
// backoff, but they leave the budget to calls that meet a server that is
// down.
func spendsRetryBudget(err error) bool {
	for _, e := range localExhaustion {
		if errors.Is(err, e) {
			return false
		}
	}
	return true
}

// withAttempts records the attempt count on the SDK's own errors and names
// the request on a transport's.
func withAttempts(err error, path string, attempts int) error {
	var apiErr *APIError
	var decErr *DecodeError
	switch {
	case errors.As(err, &apiErr):
		apiErr.Attempts = attempts
	case errors.As(err, &decErr):
		decErr.Attempts = attempts
	default:
		if attempts > 1 {
			return fmt.Errorf("ugc: GET %s: after %d attempts: %w", path, attempts, err)
		}
		return fmt.Errorf("ugc: GET %s: %w", path, err)
	}
	return err
}

// abandoned is the error of a call to path whose context ended once the
// call had begun (in an attempt, in the wait for its turn or for a
// retry). A deadline is a fault to diagnose, so its error names the call
// that ran out of time and matches ctxErr; so does any end once an attempt
// had failed, and the error then carries that attempt's error too
// (errors.Is and errors.As reach both). A cancel before any attempt
// failed is the caller's own act, and gives ctxErr as it is, as does a
// context that ended before the call began.
func abandoned(path string, ctxErr, last error) error {
	if last == nil && errors.Is(ctxErr, context.Canceled) {
		return ctxErr
	}
	return &abandonedError{path: path, ctxErr: ctxErr, last: last}
}

// abandonedError is a call that its context ended; see [abandoned].
type abandonedError struct {
	path   string
	ctxErr error // the context's error
	last   error // the last failed attempt's error; nil when none failed
}

// Error names the call and what ended it, then the last attempt's error
// without the call's name again: "ugc: GET /v1/posts: context deadline
// exceeded during retries; last: 500 Internal Server Error: Something
// went wrong (after 3 attempts)". The attempt count is the last error's.
func (e *abandonedError) Error() string {
	call := "ugc: " + http.MethodGet + " " + e.path + ": "
	if e.last == nil {
		return call + e.ctxErr.Error()
	}
	return call + e.ctxErr.Error() + " during retries; last: " + strings.TrimPrefix(e.last.Error(), call)
}

// Unwrap returns the context's error and the last attempt's, if any.
func (e *abandonedError) Unwrap() []error {
	if e.last == nil {
		return []error{e.ctxErr}
	}
	return []error{e.ctxErr, e.last}
}

// sleep waits d or until ctx ends, and returns ctx.Err() if it ended.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// observe tells the observer and the log about an attempt.
func (c *Client) observe(ctx context.Context, a AttemptInfo, canceled bool) {
	if c.observer == nil && c.logger == nil {
		return
	}
	a.Endpoint, a.RequestID, a.Err = c.masker.mask(a.Endpoint), c.masker.mask(a.RequestID), c.maskErr(a.Err)
	if c.observer != nil {
		c.observer(ctx, a)
	}
	c.logAttempt(ctx, a, canceled)
}

// backoff is exponential with jitter: the n-th retry waits between half and
// all of min·2ⁿ, capped at max. An answer that names a wait is a throttle,
// retried after that wait instead (see Client.decideRetry).
func backoff(minWait, maxWait time.Duration, attempt int) time.Duration {
	ceiling := maxWait
	switch {
	case minWait == 0:
		ceiling = 0
	case attempt >= 0 && attempt < 63 && minWait <= maxWait>>attempt:
		ceiling = minWait << attempt // cannot overflow: at most maxWait
	}
	if ceiling <= 0 {
		return 0
	}
	half := ceiling / 2
	return half + rand.N(ceiling-half+1)
}
