package pace

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Limit is what one answer said about the client's quota: the fields of
// ugc.RateLimit, which documents them (package ugc converts between the
// two). Limit and Remaining are -1, the others zero, when not sent.
type Limit struct {
	Policy            string
	Limit             int
	Window            time.Duration
	Remaining         int
	Reset, RetryAfter time.Duration
}

// Rate returns the policy's rate in requests per second (Limit ÷ Window),
// or 0 when the answer did not say both.
func (r Limit) Rate() float64 {
	if r.Limit <= 0 || r.Window <= 0 {
		return 0
	}
	return float64(r.Limit) / r.Window.Seconds()
}

// NamedWait is the wait a throttled answer names: its Retry-After, or its
// Reset when nothing remains; 0 when it names none.
func (r Limit) NamedWait() time.Duration {
	if r.RetryAfter > 0 {
		return r.RetryAfter
	}
	if r.Remaining == 0 && r.Reset > 0 {
		return r.Reset
	}
	return 0
}

// MaxNamedWait bounds every wait read from a header, whatever its form
// (seconds, an HTTP date, a Unix time): a server that names a year is
// waited a day at most.
const MaxNamedWait = 24 * time.Hour

// Parse reads the rate-limit headers of h (their canonical keys) at now:
// the IETF fields RateLimit-Policy ("default";q=100;w=60) and RateLimit
// ("default";r=40;t=30), their older draft form RateLimit-Limit,
// -Remaining and -Reset, the common X-RateLimit-Limit, -Remaining and
// -Reset, and Retry-After. Where the IETF fields and the X- ones both say
// something, the IETF fields win, but for a finer X-RateLimit-Reset within
// the same second as theirs. ok is false when h has none of them.
func Parse(h http.Header, now time.Time) (rl Limit, ok bool) {
	rl = Limit{Limit: -1, Remaining: -1}
	// The X- fields first: the IETF ones, read after, win.
	xReset, okX := readFields(h, "X-Ratelimit-", func(v string) time.Duration { return resetValue(v, now) }, &rl)
	_, okDraft := readFields(h, "Ratelimit-", seconds, &rl)
	okIETF := readIETFRateLimit(h, &rl)
	if xReset > 0 && rl.Reset > xReset && rl.Reset-xReset < time.Second {
		rl.Reset = xReset // the IETF fields have whole seconds: the same instant, said less precisely
	}
	okRetry := readRetryAfter(h, now, &rl)
	return rl, okX || okDraft || okIETF || okRetry
}

// readFields reads the fields prefix+"Limit", "Remaining" and "Reset"
// into rl (the common X-RateLimit-*, or the older draft's RateLimit-*),
// the reset by reset, and returns the reset (0 for none) and whether
// there was any.
func readFields(h http.Header, prefix string, reset func(string) time.Duration, rl *Limit) (r time.Duration, ok bool) {
	if v, found := h[prefix+"Limit"]; found {
		ok, rl.Limit = true, leadingInt(v[0])
	}
	if v, found := h[prefix+"Remaining"]; found {
		ok, rl.Remaining = true, leadingInt(v[0])
	}
	if v, found := h[prefix+"Reset"]; found {
		ok, r = true, reset(v[0])
		rl.Reset = r
	}
	return r, ok
}

// readIETFRateLimit reads the IETF RateLimit-Policy and RateLimit fields
// into rl, and reports whether there was either.
func readIETFRateLimit(h http.Header, rl *Limit) (ok bool) {
	if v, found := h["Ratelimit-Policy"]; found {
		ok = true
		name, params := firstItem(v[0])
		rl.Policy = name
		if q, has := params["q"]; has {
			rl.Limit = leadingInt(q)
		}
		if w, has := params["w"]; has {
			rl.Window = seconds(w)
		}
	}
	if v, found := h["Ratelimit"]; found {
		ok = true
		_, params := firstItem(v[0])
		if r, has := params["r"]; has {
			rl.Remaining = leadingInt(r)
		}
		if t, has := params["t"]; has {
			rl.Reset = seconds(t)
		}
	}
	return ok
}

// readRetryAfter reads Retry-After into rl, refined by a reset that names
// the same instant more precisely, and reports whether there was one.
func readRetryAfter(h http.Header, now time.Time, rl *Limit) bool {
	v, found := h["Retry-After"]
	if !found {
		return false
	}
	if d, parsed := ParseRetryAfter(v[0], now); parsed {
		rl.RetryAfter = d
		if rl.Reset > d-time.Second && rl.Reset < d {
			rl.RetryAfter = rl.Reset // the same instant, said in whole seconds
		}
	}
	return true
}

// ParseRetryAfter reads a Retry-After value, seconds or an HTTP date, as a
// wait from now of [MaxNamedWait] at most. A date names an instant to the
// second and comes after its transit: one under a second ahead, or past,
// is a wait of a second. ok is false for a value that is neither.
func ParseRetryAfter(v string, now time.Time) (d time.Duration, ok bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		return time.Duration(min(secs, int64(MaxNamedWait/time.Second))) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return bounded(max(t.Sub(now), time.Second)), true
	}
	return 0, false
}

// bounded returns d within 0 and MaxNamedWait.
func bounded(d time.Duration) time.Duration { return min(max(d, 0), MaxNamedWait) }

// firstItem reads the first member of a structured-field list such as
// `"default";q=100;w=60, "other";q=5`: its name (quotes removed) and its
// parameters.
func firstItem(v string) (string, map[string]string) {
	item, _, _ := strings.Cut(v, ",")
	parts := strings.Split(item, ";")
	params := make(map[string]string, len(parts)-1)
	for _, p := range parts[1:] {
		k, val, _ := strings.Cut(p, "=")
		params[strings.ToLower(strings.TrimSpace(k))] = strings.Trim(strings.TrimSpace(val), `"`)
	}
	return strings.Trim(strings.TrimSpace(parts[0]), `"`), params
}

// leadingInt reads the integer a value starts with ("100", "100, 100;w=60");
// -1 when there is none or it is negative.
func leadingInt(v string) int {
	v = strings.TrimSpace(v)
	end := 0
	for end < len(v) && v[end] >= '0' && v[end] <= '9' {
		end++
	}
	n, err := strconv.Atoi(v[:end])
	if err != nil {
		return -1
	}
	return n
}

// seconds reads a number of seconds, decimals allowed, as a duration
// bounded by MaxNamedWait; 0 when it is not a non-negative number.
func seconds(v string) time.Duration {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || f < 0 || math.IsNaN(f) {
		return 0
	}
	if f >= MaxNamedWait.Seconds() { // before the product: past 292 years it overflows
		return MaxNamedWait
	}
	return time.Duration(f * float64(time.Second))
}

// resetValue reads X-RateLimit-Reset: seconds to wait when below 10⁹, a
// Unix time in seconds when below 10¹², else one in milliseconds;
// decimals are kept.
func resetValue(v string, now time.Time) time.Duration {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	var at time.Time
	switch {
	case f < 1e9:
		return min(time.Duration(f*float64(time.Second)), MaxNamedWait)
	case f < 1e12:
		at = time.Unix(0, int64(f*1e9))
	default:
		at = time.UnixMilli(int64(f))
	}
	return bounded(at.Sub(now))
}
