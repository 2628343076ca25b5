package ugc

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestParseRateLimit(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 24, 22, 0, 0, 0, time.UTC)
	h := func(kv ...string) http.Header {
		out := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			out.Add(kv[i], kv[i+1])
		}
		return out
	}
	tests := []struct {
		name   string
		header http.Header
		want   RateLimit
		found  bool
		wait   time.Duration // namedWait
		rate   float64
	}{
		{"none", h("Content-Type", "application/json"), RateLimit{Limit: -1, Remaining: -1}, false, 0, 0},
		{"Retry-After seconds", h("Retry-After", "3"), RateLimit{Limit: -1, Remaining: -1, RetryAfter: 3 * time.Second}, true, 3 * time.Second, 0},
		{"Retry-After HTTP date", h("Retry-After", now.Add(90*time.Second).Format(http.TimeFormat)), RateLimit{Limit: -1, Remaining: -1, RetryAfter: 90 * time.Second}, true, 90 * time.Second, 0},
		{"Retry-After in the past", h("Retry-After", now.Add(-time.Hour).Format(http.TimeFormat)), RateLimit{Limit: -1, Remaining: -1}, true, 0, 0},
		{"Retry-After garbage", h("Retry-After", "soon"), RateLimit{Limit: -1, Remaining: -1}, true, 0, 0},
		{"Retry-After of a year is capped", h("Retry-After", "31536000"), RateLimit{Limit: -1, Remaining: -1, RetryAfter: 24 * time.Hour}, true, 24 * time.Hour, 0},
		{"IETF policy and state", h("RateLimit-Policy", `"default";q=100;w=60`, "RateLimit", `"default";r=40;t=30`),
			RateLimit{Policy: "default", Limit: 100, Window: time.Minute, Remaining: 40, Reset: 30 * time.Second}, true, 0, 100.0 / 60},
		{"IETF two policies: the first", h("RateLimit-Policy", `"burst";q=10;w=1, "day";q=5000;w=86400`),
			RateLimit{Policy: "burst", Limit: 10, Window: time.Second, Remaining: -1}, true, 0, 10},
		{"IETF token policy name", h("RateLimit-Policy", `peruser;q=5;w=1`), RateLimit{Policy: "peruser", Limit: 5, Window: time.Second, Remaining: -1}, true, 0, 5},
		{"IETF used up", h("RateLimit", `"default";r=0;t=2`), RateLimit{Limit: -1, Remaining: 0, Reset: 2 * time.Second}, true, 2 * time.Second, 0},
		{"older draft fields", h("RateLimit-Limit", "100, 100;w=60", "RateLimit-Remaining", "0", "RateLimit-Reset", "7"),
			RateLimit{Limit: 100, Remaining: 0, Reset: 7 * time.Second}, true, 7 * time.Second, 0},
		{"X- delta seconds with decimals", h("X-RateLimit-Limit", "20", "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "0.037"),
			RateLimit{Limit: 20, Remaining: 0, Reset: 37 * time.Millisecond}, true, 37 * time.Millisecond, 0},
		{"X- Unix seconds", h("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", strconv.FormatInt(now.Unix()+45, 10)),
			RateLimit{Limit: -1, Remaining: 0, Reset: 45 * time.Second}, true, 45 * time.Second, 0},
		{"X- Unix seconds with decimals", h("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", strconv.FormatInt(now.Unix()+2, 10)+".5"),
			RateLimit{Limit: -1, Remaining: 0, Reset: 2500 * time.Millisecond}, true, 2500 * time.Millisecond, 0},
		{"X- Unix milliseconds", h("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", strconv.FormatInt(now.UnixMilli()+250, 10)),
			RateLimit{Limit: -1, Remaining: 0, Reset: 250 * time.Millisecond}, true, 250 * time.Millisecond, 0},
		{"X- reset in the past", h("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "1000000000"), RateLimit{Limit: -1, Remaining: 0}, true, 0, 0},
		{"X- remaining left: no wait", h("X-RateLimit-Remaining", "3", "X-RateLimit-Reset", "2"), RateLimit{Limit: -1, Remaining: 3, Reset: 2 * time.Second}, true, 0, 0},
		{"IETF wins over X-", h("X-RateLimit-Remaining", "9", "RateLimit", `"q";r=1;t=4`), RateLimit{Limit: -1, Remaining: 1, Reset: 4 * time.Second}, true, 0, 0},
		{"garbage numbers", h("X-RateLimit-Limit", "many", "X-RateLimit-Remaining", "-4", "X-RateLimit-Reset", "NaN"), RateLimit{Limit: -1, Remaining: -1}, true, 0, 0},
		{"whole-second Retry-After refined by a reset within the second", h("Retry-After", "1", "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "0.250"),
			RateLimit{Limit: -1, Remaining: 0, Reset: 250 * time.Millisecond, RetryAfter: 250 * time.Millisecond}, true, 250 * time.Millisecond, 0},
		{"Retry-After not refined by a reset a second earlier", h("Retry-After", "3", "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "1.5"),
			RateLimit{Limit: -1, Remaining: 0, Reset: 1500 * time.Millisecond, RetryAfter: 3 * time.Second}, true, 3 * time.Second, 0},
		{"Retry-After not shortened by a later reset", h("Retry-After", "1", "X-RateLimit-Reset", "5"),
			RateLimit{Limit: -1, Remaining: -1, Reset: 5 * time.Second, RetryAfter: time.Second}, true, time.Second, 0},
		{"the fake's 429", h("Retry-After", "1", "RateLimit-Policy", `"quota";q=20;w=1`, "RateLimit", `"quota";r=0;t=1`,
			"X-RateLimit-Limit", "20", "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "0.049"),
			RateLimit{Policy: "quota", Limit: 20, Window: time.Second, Remaining: 0, Reset: 49 * time.Millisecond, RetryAfter: 49 * time.Millisecond}, true, 49 * time.Millisecond, 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, found := parseRateLimit(tt.header, now)
			assert.Equal(t, tt.found, found)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.wait, got.namedWait(), "named wait")
			assert.InDelta(t, tt.rate, got.Rate(), 1e-9, "rate")
		})
	}
}

// FuzzParseRateLimit: any header values parse without a panic into waits
// of at most a day and counts of at least -1.
func FuzzParseRateLimit(f *testing.F) {
	f.Add("1", `"default";q=100;w=60`, `"default";r=0;t=2`, "20", "0", "0.037")
	f.Add("Tue, 24 Nov 2026 22:00:00 GMT", `x;q=;w=-1`, `;;;=`, "-1", "9999999999999999999", "1e308")
	f.Fuzz(func(t *testing.T, retryAfter, policy, state, limit, remaining, reset string) {
		h := http.Header{"Retry-After": {retryAfter}, "Ratelimit-Policy": {policy}, "Ratelimit": {state},
			"X-Ratelimit-Limit": {limit}, "X-Ratelimit-Remaining": {remaining}, "X-Ratelimit-Reset": {reset}}
		rl, found := parseRateLimit(h, time.Now())
		if !found {
			t.Fatal("headers present, none found")
		}
		for _, d := range []time.Duration{rl.Reset, rl.RetryAfter, rl.Window, rl.namedWait()} {
			if d < 0 || d > maxNamedWait {
				t.Fatalf("wait %v out of bounds in %+v", d, rl)
			}
		}
		if rl.Limit < -1 || rl.Remaining < -1 || rl.Rate() < 0 {
			t.Fatalf("bad counts in %+v", rl)
		}
	})
}
