package pace

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
		want   Limit
		found  bool
		wait   time.Duration // namedWait
		rate   float64
	}{
		{"none", h("Content-Type", "application/json"), Limit{Limit: -1, Remaining: -1}, false, 0, 0},
		{"Retry-After seconds", h("Retry-After", "3"), Limit{Limit: -1, Remaining: -1, RetryAfter: 3 * time.Second}, true, 3 * time.Second, 0},
		{"Retry-After HTTP date", h("Retry-After", now.Add(90*time.Second).Format(http.TimeFormat)), Limit{Limit: -1, Remaining: -1, RetryAfter: 90 * time.Second}, true, 90 * time.Second, 0},
		{"Retry-After date in the past: a second", h("Retry-After", now.Add(-time.Hour).Format(http.TimeFormat)), Limit{Limit: -1, Remaining: -1, RetryAfter: time.Second}, true, time.Second, 0},
		{"Retry-After garbage", h("Retry-After", "soon"), Limit{Limit: -1, Remaining: -1}, true, 0, 0},
		{"Retry-After of a year is capped", h("Retry-After", "31536000"), Limit{Limit: -1, Remaining: -1, RetryAfter: 24 * time.Hour}, true, 24 * time.Hour, 0},
		{"Retry-After date decades ahead is capped", h("Retry-After", "Tue, 01 Nov 2100 0:00:00 GMT"), Limit{Limit: -1, Remaining: -1, RetryAfter: 24 * time.Hour}, true, 24 * time.Hour, 0},
		{"a policy window of 10^300 seconds is capped", h("RateLimit-Policy", `p;q=1;w=1e300`), Limit{Policy: "p", Limit: 1, Window: 24 * time.Hour, Remaining: -1}, true, 0, 1.0 / 86400},
		{"IETF policy and state", h("RateLimit-Policy", `"default";q=100;w=60`, "RateLimit", `"default";r=40;t=30`),
			Limit{Policy: "default", Limit: 100, Window: time.Minute, Remaining: 40, Reset: 30 * time.Second}, true, 0, 100.0 / 60},
		{"IETF two policies: the first", h("RateLimit-Policy", `"burst";q=10;w=1, "day";q=5000;w=86400`),
			Limit{Policy: "burst", Limit: 10, Window: time.Second, Remaining: -1}, true, 0, 10},
		{"IETF token policy name", h("RateLimit-Policy", `peruser;q=5;w=1`), Limit{Policy: "peruser", Limit: 5, Window: time.Second, Remaining: -1}, true, 0, 5},
		{"IETF used up", h("RateLimit", `"default";r=0;t=2`), Limit{Limit: -1, Remaining: 0, Reset: 2 * time.Second}, true, 2 * time.Second, 0},
		{"older draft fields", h("RateLimit-Limit", "100, 100;w=60", "RateLimit-Remaining", "0", "RateLimit-Reset", "7"),
			Limit{Limit: 100, Remaining: 0, Reset: 7 * time.Second}, true, 7 * time.Second, 0},
		{"X- delta seconds with decimals", h("X-RateLimit-Limit", "20", "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "0.037"),
			Limit{Limit: 20, Remaining: 0, Reset: 37 * time.Millisecond}, true, 37 * time.Millisecond, 0},
		{"X- Unix seconds", h("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", strconv.FormatInt(now.Unix()+45, 10)),
			Limit{Limit: -1, Remaining: 0, Reset: 45 * time.Second}, true, 45 * time.Second, 0},
		{"X- Unix seconds with decimals", h("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", strconv.FormatInt(now.Unix()+2, 10)+".5"),
			Limit{Limit: -1, Remaining: 0, Reset: 2500 * time.Millisecond}, true, 2500 * time.Millisecond, 0},
		{"X- Unix milliseconds", h("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", strconv.FormatInt(now.UnixMilli()+250, 10)),
			Limit{Limit: -1, Remaining: 0, Reset: 250 * time.Millisecond}, true, 250 * time.Millisecond, 0},
		{"X- reset in the past", h("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "1000000000"), Limit{Limit: -1, Remaining: 0}, true, 0, 0},
		{"X- remaining left: no wait", h("X-RateLimit-Remaining", "3", "X-RateLimit-Reset", "2"), Limit{Limit: -1, Remaining: 3, Reset: 2 * time.Second}, true, 0, 0},
		{"IETF wins over X-", h("X-RateLimit-Remaining", "9", "RateLimit", `"q";r=1;t=4`), Limit{Limit: -1, Remaining: 1, Reset: 4 * time.Second}, true, 0, 0},
		{"garbage numbers", h("X-RateLimit-Limit", "many", "X-RateLimit-Remaining", "-4", "X-RateLimit-Reset", "NaN"), Limit{Limit: -1, Remaining: -1}, true, 0, 0},
		{"whole-second Retry-After refined by a reset within the second", h("Retry-After", "1", "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "0.250"),
			Limit{Limit: -1, Remaining: 0, Reset: 250 * time.Millisecond, RetryAfter: 250 * time.Millisecond}, true, 250 * time.Millisecond, 0},
		{"Retry-After not refined by a reset a second earlier", h("Retry-After", "3", "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "1.5"),
			Limit{Limit: -1, Remaining: 0, Reset: 1500 * time.Millisecond, RetryAfter: 3 * time.Second}, true, 3 * time.Second, 0},
		{"Retry-After not shortened by a later reset", h("Retry-After", "1", "X-RateLimit-Reset", "5"),
			Limit{Limit: -1, Remaining: -1, Reset: 5 * time.Second, RetryAfter: time.Second}, true, time.Second, 0},
		{"the fake's 429", h("Retry-After", "1", "RateLimit-Policy", `"quota";q=20;w=1`, "RateLimit", `"quota";r=0;t=1`,
			"X-RateLimit-Limit", "20", "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "0.049"),
			Limit{Policy: "quota", Limit: 20, Window: time.Second, Remaining: 0, Reset: 49 * time.Millisecond, RetryAfter: 49 * time.Millisecond}, true, 49 * time.Millisecond, 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, found := Parse(tt.header, now)
			assert.Equal(t, tt.found, found)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.wait, got.NamedWait(), "named wait")
			assert.InDelta(t, tt.rate, got.Rate(), 1e-9, "rate")
		})
	}
}

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, time.November, 22, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		value  string
		want   time.Duration
		wantOK bool
	}{
		{"seconds", "3", 3 * time.Second, true},
		{"seconds with spaces", " 7 ", 7 * time.Second, true},
		{"zero", "0", 0, true},
		{"huge seconds capped at a day", "999999999999", 24 * time.Hour, true},
		{"HTTP date ahead", now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{"HTTP date passed: a second", now.Add(-time.Hour).Format(http.TimeFormat), time.Second, true},
		{"HTTP date within the second: a second", now.Add(300 * time.Millisecond).Format(http.TimeFormat), time.Second, true},
		{"RFC 850 date", now.Add(10 * time.Second).Format("Monday, 02-Jan-06 15:04:05 GMT"), 10 * time.Second, true},
		{"HTTP date a year ahead capped at a day", now.AddDate(1, 0, 0).Format(http.TimeFormat), 24 * time.Hour, true},
		{"HTTP date with a one-digit hour, decades ahead, capped", "Tue, 01 Nov 2100 0:00:00 GMT", 24 * time.Hour, true},
		{"empty", "", 0, false},
		{"negative", "-1", 0, false},
		{"fraction", "1.5", 0, false},
		{"garbage", "soon", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := ParseRetryAfter(tt.value, now)
			assert.Equal(t, tt.wantOK, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

// FuzzParse: any header values parse without a panic into waits of at
// most a day and counts of at least -1.
func FuzzParse(f *testing.F) {
	f.Add("1", `"default";q=100;w=60`, `"default";r=0;t=2`, "20", "0", "0.037")
	f.Add("Tue, 24 Nov 2026 22:00:00 GMT", `x;q=;w=-1`, `;;;=`, "-1", "9999999999999999999", "1e308")
	f.Add("Tue, 01 Nov 2100 0:00:00 GMT", "", "", "", "", "") // a one-digit hour: decades ahead
	f.Fuzz(func(t *testing.T, retryAfter, policy, state, limit, remaining, reset string) {
		h := http.Header{"Retry-After": {retryAfter}, "Ratelimit-Policy": {policy}, "Ratelimit": {state},
			"X-Ratelimit-Limit": {limit}, "X-Ratelimit-Remaining": {remaining}, "X-Ratelimit-Reset": {reset}}
		rl, found := Parse(h, time.Now())
		if !found {
			t.Fatal("headers present, none found")
		}
		for _, d := range []time.Duration{rl.Reset, rl.RetryAfter, rl.Window, rl.NamedWait()} {
			if d < 0 || d > MaxNamedWait {
				t.Fatalf("wait %v out of bounds in %+v", d, rl)
			}
		}
		if rl.Limit < -1 || rl.Remaining < -1 || rl.Rate() < 0 {
			t.Fatalf("bad counts in %+v", rl)
		}
	})
}

// FuzzParseRetryAfter: any value reads as a wait within 0 and a day, or
// as none; delay seconds read as themselves up to a day.
func FuzzParseRetryAfter(f *testing.F) {
	for _, v := range []string{"0", "1", "120", "-1", "86401", "Tue, 01 Nov 2100 0:00:00 GMT",
		"Tuesday, 24-Nov-26 22:00:00 GMT", "Tue Nov 24 22:00:00 2026", "soon", ""} {
		f.Add(v)
	}
	now := time.Date(2026, 11, 24, 22, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, v string) {
		d, ok := ParseRetryAfter(v, now)
		if d < 0 || d > MaxNamedWait || !ok && d != 0 {
			t.Fatalf("%q: %v, %t", v, d, ok)
		}
	})
}
