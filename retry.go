package ugc

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// and 5xx but 501. A refused redirect, an oversized body and an ended
// context are final.
func checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	if errors.Is(err, errForeignRedirect) || errors.Is(err, errBodyTooLarge) {
		return false, err
	}
	return retryablehttp.DefaultRetryPolicy(ctx, resp, err)
}

// backoff is exponential with jitter: the n-th retry waits between half and
// all of min·2ⁿ, capped at max. A Retry-After on a 429 or 503 wins, capped at
// max.
func backoff(minWait, maxWait time.Duration, attempt int, resp *http.Response) time.Duration {
	if resp != nil && (resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable) {
		if d, ok := parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
			return min(d, maxWait)
		}
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

// parseRetryAfter reads a Retry-After value: delay seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		if secs > int64(24*time.Hour/time.Second) {
			secs = int64(24 * time.Hour / time.Second)
		}
		return time.Duration(secs) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}
