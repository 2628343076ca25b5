package ugctest

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"golang.org/x/time/rate"
)

// TestQuotaIsByTime drives a quota's buckets on a made-up clock: a burst,
// then one request per 1/rps, each key on its own.
func TestQuotaIsByTime(t *testing.T) {
	t.Parallel()
	q := &quota{rps: 10, burst: 3, buckets: map[string]*rate.Limiter{}}
	t0 := time.Date(2026, 11, 24, 22, 0, 0, 0, time.UTC)
	for i := range 3 {
		st := q.take("a", t0)
		assert.True(t, st.allowed, "burst request %d", i)
		assert.Equal(t, 2-i, st.remaining)
	}
	st := q.take("a", t0)
	assert.False(t, st.allowed, "over the burst")
	assert.Equal(t, 0, st.remaining)
	assert.Equal(t, 100*time.Millisecond, st.wait, "one token takes 1/rps")
	assert.True(t, q.take("b", t0).allowed, "another key has its own bucket")

	st = q.take("a", t0.Add(60*time.Millisecond))
	assert.False(t, st.allowed, "a refused request takes no token")
	assert.Equal(t, 40*time.Millisecond, st.wait)
	assert.True(t, q.take("a", t0.Add(100*time.Millisecond)).allowed, "by time, not by count")
	assert.False(t, q.take("a", t0.Add(100*time.Millisecond)).allowed)
	st = q.take("a", t0.Add(time.Hour))
	assert.True(t, st.allowed)
	assert.Equal(t, 2, st.remaining, "the bucket holds no more than its burst")
}

func TestQuotaHeaders(t *testing.T) {
	t.Parallel()
	tests := []struct {
		rps  float64
		st   quotaState
		want http.Header
	}{
		{20, quotaState{allowed: true, remaining: 4}, http.Header{
			"Ratelimit-Policy": {`"quota";q=20;w=1`}, "Ratelimit": {`"quota";r=4;t=0`},
			"X-Ratelimit-Limit": {"20"}, "X-Ratelimit-Remaining": {"4"}, "X-Ratelimit-Reset": {"0.000"}}},
		{20, quotaState{allowed: true, remaining: 0, wait: 37 * time.Millisecond}, http.Header{
			"Ratelimit-Policy": {`"quota";q=20;w=1`}, "Ratelimit": {`"quota";r=0;t=1`},
			"X-Ratelimit-Limit": {"20"}, "X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {"0.037"}}},
		{20, quotaState{allowed: false, remaining: 0, wait: 49 * time.Millisecond}, http.Header{
			"Ratelimit-Policy": {`"quota";q=20;w=1`}, "Ratelimit": {`"quota";r=0;t=1`}, "Retry-After": {"1"},
			"X-Ratelimit-Limit": {"20"}, "X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {"0.049"}}},
		{1000, quotaState{allowed: false, remaining: 0, wait: 300 * time.Microsecond}, http.Header{
			"Ratelimit-Policy": {`"quota";q=1000;w=1`}, "Ratelimit": {`"quota";r=0;t=1`}, "Retry-After": {"1"},
			"X-Ratelimit-Limit": {"1000"}, "X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {"0.001"}}},
		{0.25, quotaState{allowed: false, remaining: 0, wait: 2500 * time.Millisecond}, http.Header{
			"Ratelimit-Policy": {`"quota";q=1;w=4`}, "Ratelimit": {`"quota";r=0;t=3`}, "Retry-After": {"3"},
			"X-Ratelimit-Limit": {"1"}, "X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {"2.500"}}},
	}
	for _, tt := range tests {
		q := &quota{rps: tt.rps, burst: 1}
		h := http.Header{}
		q.setHeaders(h, tt.st)
		assert.Equal(t, tt.want, h)
	}
}

// TestQuotaHeadersRetryAfterOnly: a quota that says nothing but
// Retry-After sends it alone, in whole seconds rounded up (at least one),
// on a refusal, and nothing on an accepted request.
func TestQuotaHeadersRetryAfterOnly(t *testing.T) {
	t.Parallel()
	tests := []struct {
		rps  float64
		st   quotaState
		want http.Header
	}{
		{20, quotaState{allowed: true, remaining: 4}, http.Header{}},
		{20, quotaState{allowed: true, remaining: 0, wait: 37 * time.Millisecond}, http.Header{}},
		{20, quotaState{allowed: false, remaining: 0, wait: 49 * time.Millisecond}, http.Header{"Retry-After": {"1"}}},
		{0.25, quotaState{allowed: false, remaining: 0, wait: 2500 * time.Millisecond}, http.Header{"Retry-After": {"3"}}},
	}
	for _, tt := range tests {
		q := &quota{rps: tt.rps, burst: 1, retryAfterOnly: true}
		h := http.Header{}
		q.setHeaders(h, tt.st)
		assert.Equal(t, tt.want, h)
	}
}
