package ugc

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
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

// abandoned is the error of a call whose context ended: ctxErr as is when
// no attempt had failed yet, otherwise an error that matches ctxErr and
// also carries the last attempt's error (errors.Is and errors.As reach
// both).
func abandoned(ctxErr, last error, attempts int) error {
	if last == nil {
		return ctxErr
	}
	return fmt.Errorf("%w during retries, after %d attempts; last: %w", ctxErr, attempts, last)
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
	a.Endpoint, a.Err = c.masker.mask(a.Endpoint), c.maskErr(a.Err)
	if c.observer != nil {
		c.observer(ctx, a)
	}
	c.logAttempt(ctx, a, canceled)
}

// backoff is exponential with jitter: the n-th retry waits between half and
// all of min·2ⁿ, capped at max. The answer's Retry-After (retryAfter, read
// with its other headers: see Client.answered) on a 429 or 503 wins,
// capped at max.
func backoff(minWait, maxWait time.Duration, attempt int, status int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 && (status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable) {
		return min(retryAfter, maxWait)
	}
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
