package ugc

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var timestampCases = flag.Int("timestamp.cases", 20000, "random instants TestTimestampEveryFormRoundTrips writes in a random form")

// TestTimestampForms: each form ISO 8601 and PostgreSQL's text output
// allow, read to its exact instant, with the deviation note it earns (""
// for a form the contract allows).
func TestTimestampForms(t *testing.T) {
	t.Parallel()
	at := func(y int, mo time.Month, d, h, mi, s, ns int) time.Time {
		return time.Date(y, mo, d, h, mi, s, ns, time.UTC)
	}
	base := at(2024, time.May, 1, 10, 15, 0, 0) // 2024-05-01 is a Wednesday, day 122, week 18
	tests := []struct {
		in   string
		want time.Time
		note string // "" for the contract's forms
	}{
		// RFC 3339, the common case.
		{"2024-05-01T10:15:00Z", base, ""},
		{"2024-05-01T10:15:00.123456789Z", base.Add(123456789), ""},
		{"2024-05-01T12:15:00+02:00", base, ""},
		{"2024-05-01T05:45:00-04:30", base, ""},
		{"2024-05-01t10:15:00z", base, ""}, // RFC 3339 §5.6 allows lower case
		{"2024-05-01T10:15:00-00:00", base, ""},
		// PostgreSQL's text output of timestamptz.
		{"2024-05-01 12:15:00.123456+02", base.Add(123456 * time.Microsecond), ""},
		{"2024-05-01 12:15:00+02", base, ""},
		{"2024-05-01 10:15:00+00", base, ""},
		{"2024-05-01 15:45:00+05:30", base, ""},
		{"2024-05-01T12:15:00+02", base, ""},
		// Basic format.
		{"20240501T101500Z", base, ""},
		{"20240501T121500+0200", base, ""},
		{"20240501T121500+02", base, ""},
		{"20240501T101500.5Z", base.Add(500 * time.Millisecond), ""},
		// Reduced precision.
		{"2024-05-01T10:15Z", base, ""},
		{"2024-05-01T10Z", at(2024, time.May, 1, 10, 0, 0, 0), ""},
		{"20240501T1015Z", base, ""},
		{"20240501T10Z", at(2024, time.May, 1, 10, 0, 0, 0), ""},
		// Fractions of the smallest unit given, dot or comma, any length.
		{"2024-05-01T10.25Z", base, ""},
		{"2024-05-01T10,25Z", base, ""},
		{"2024-05-01T10:15.5Z", base.Add(30 * time.Second), ""},
		{"2024-05-01T10:15:00,25Z", base.Add(250 * time.Millisecond), ""},
		{"2024-05-01T10:15:00.1234567891234Z", base.Add(123456789), ""},     // cut to the nanosecond
		{"2024-05-01T10:15:00.000000000999Z", base, ""},                     // under a nanosecond
		{"2024-05-01T10.5Z", at(2024, time.May, 1, 10, 30, 0, 0), ""},       // half an hour
		{"2024-05-01T10:00.001Z", at(2024, time.May, 1, 10, 0, 0, 6e7), ""}, // a thousandth of a minute
		// Ordinal and week dates.
		{"2024-122T10:15:00Z", base, ""},
		{"2024122T101500Z", base, ""},
		{"2024-W18-3T10:15:00Z", base, ""},
		{"2024W183T101500Z", base, ""},
		{"2020-W53-7T00:00:00Z", at(2021, time.January, 3, 0, 0, 0, 0), ""},   // week 53 ends in the next year
		{"2025-W01-1T00:00:00Z", at(2024, time.December, 30, 0, 0, 0, 0), ""}, // week 1 starts in the year before
		{"2024-366T00:00Z", at(2024, time.December, 31, 0, 0, 0, 0), ""},
		// End of day and leap second.
		{"2024-05-01T24:00:00Z", at(2024, time.May, 2, 0, 0, 0, 0), ""},
		{"2024-05-01T24:00Z", at(2024, time.May, 2, 0, 0, 0, 0), ""},
		{"2024-12-31T24:00:00Z", at(2025, time.January, 1, 0, 0, 0, 0), ""},
		{"2016-12-31T23:59:60Z", at(2017, time.January, 1, 0, 0, 0, 0), ""},
		{"2016-12-31T23:59:60.5Z", at(2017, time.January, 1, 0, 0, 0, 5e8), ""},
		{"2017-01-01T00:59:60+01:00", at(2017, time.January, 1, 0, 0, 0, 0), ""},
		// Forms the contract does not allow: read, and noted.
		{"2024-05-01T10:15:00", base, " (no zone: read as UTC)"},
		{"2024-05-01 10:15:00.250", base.Add(250 * time.Millisecond), " (no zone: read as UTC)"},
		{"20240501T1015", base, " (no zone: read as UTC)"},
		{"2024-05-01", at(2024, time.May, 1, 0, 0, 0, 0), " (a date alone: read as midnight UTC)"},
		{"20240501", at(2024, time.May, 1, 0, 0, 0, 0), " (a date alone: read as midnight UTC)"},
		{"2024-W18-3", at(2024, time.May, 1, 0, 0, 0, 0), " (a date alone: read as midnight UTC)"},
		{"2024-122", at(2024, time.May, 1, 0, 0, 0, 0), " (a date alone: read as midnight UTC)"},
		{"2024-05-01T12:15:00+0200", base, " (basic and extended formats mixed)"},
		{"20240501T10:15:00Z", base, " (basic and extended formats mixed)"},
		{"2024-05-01T1:15:00Z", at(2024, time.May, 1, 1, 15, 0, 0), " (not ISO 8601: read as Go's time.Parse reads RFC 3339)"},
		{"2024-05-01T10:15:00+02:60", at(2024, time.May, 1, 7, 15, 0, 0), " (not ISO 8601: read as Go's time.Parse reads RFC 3339)"},
		{"2024-05-01T1015:00Z", base, " (basic and extended formats mixed)"},
		{" 2024-05-01T10:15:00Z ", base, " (spaces around it)"},
	}
	for _, tt := range tests {
		got, note, ok := readTimestamp(tt.in)
		if assert.True(t, ok, "%q", tt.in) {
			assert.True(t, tt.want.Equal(got), "%q: got %v, want %v", tt.in, got, tt.want)
			assert.Equal(t, tt.note, note, "%q", tt.in)
		}
	}
}

// TestTimestampRefused: what is no timestamp, or no valid one, is refused.
func TestTimestampRefused(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"", "yesterday", "2024", "2024-05", "202405", "2024-13-01T00:00Z", "2024-02-30T00:00Z", "2023-02-29",
		"2023-366", "2024-000", "2024-W54-1", "2024-W53-1", "2024-W18-8", "2024-W18-0", "2024-05-01T25:00Z",
		"2024-05-01T24:00:01Z", "2024-05-01T24.5Z", "2024-05-01T10:60Z", "2024-05-01T10:15:61Z", "2024-05-01T10:15:00+24",
		"2024-05-01T10:15:00+2", "2024-05-01T10:15:00+02:", "2024-05-01T10:15:00.Z",
		"2024-05-01T10:15:00.5.5Z", "2024-05-01T", "2024-05-01X10:15Z", "2024-0501", "2024-05-01T10:15:00ZZ",
		"infinity", "2024-05-01T10:15:00 UTC",
	} {
		got, _, ok := readTimestamp(in)
		assert.False(t, ok, "%q read as %v", in, got)
	}
}

// TestTimestampEveryFormRoundTrips: random instants, written in a random
// one of ISO 8601's forms (date: calendar, ordinal or week; basic or
// extended; separator T, t or space; precision hour, minute, second or
// fraction; zone Z, ±hh, ±hhmm or ±hh:mm), read back to the same instant
// (to the precision written) and as the contract's form. Run more with
// -timestamp.cases.
func TestTimestampEveryFormRoundTrips(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(17, 4))
	for i := range *timestampCases {
		instant := time.Unix(rng.Int64N(253402300799), rng.Int64N(1e9)).UTC() // years 1970 to 9999
		offset := (rng.IntN(2*24*60-1) - (24*60 - 1))                         // minutes, ±23:59
		if rng.IntN(4) == 0 {
			offset = offset / 60 * 60 // whole hours, for the ±hh zone
		}
		s, want := writeISO8601(rng, instant, offset)
		got, form, ok := parseTimestamp(s)
		require.True(t, ok, "case %d: %q", i, s)
		assert.Equal(t, stampISO, form, "case %d: %q", i, s)
		assert.True(t, want.Equal(got), "case %d: %q read as %v, want %v", i, s, got, want)
	}
}

// writeISO8601 writes instant in a random ISO 8601 form with a zone of
// offset minutes (offsets not whole hours are never written as ±hh), and
// returns the instant as written (cut to the precision chosen).
func writeISO8601(rng *rand.Rand, instant time.Time, offset int) (string, time.Time) {
	basic := rng.IntN(2) == 0
	sep := func(ext string) string {
		if basic {
			return ""
		}
		return ext
	}
	local := instant.In(time.FixedZone("", offset*60))
	var b strings.Builder
	switch rng.IntN(3) {
	case 0:
		fmt.Fprintf(&b, "%04d%s%02d%s%02d", local.Year(), sep("-"), int(local.Month()), sep("-"), local.Day())
	case 1:
		fmt.Fprintf(&b, "%04d%s%03d", local.Year(), sep("-"), local.YearDay())
	default:
		y, w := local.ISOWeek()
		fmt.Fprintf(&b, "%04d%sW%02d%s%d", y, sep("-"), w, sep("-"), isoWeekday(local.Weekday()))
	}
	b.WriteString([]string{"T", "t", " "}[rng.IntN(3)])
	dot := []string{".", ","}[rng.IntN(2)]
	digits := 1 + rng.IntN(6) // num below stays within int64
	midnight := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, local.Location())
	since := local.Sub(midnight)
	var unit time.Duration
	switch rng.IntN(4) {
	case 0:
		fmt.Fprintf(&b, "%02d", local.Hour())
		unit = time.Hour
	case 1:
		fmt.Fprintf(&b, "%02d%s%02d", local.Hour(), sep(":"), local.Minute())
		unit = time.Minute
	case 2:
		fmt.Fprintf(&b, "%02d%s%02d%s%02d", local.Hour(), sep(":"), local.Minute(), sep(":"), local.Second())
		unit = time.Second
	default:
		fmt.Fprintf(&b, "%02d%s%02d%s%02d%s%09d", local.Hour(), sep(":"), local.Minute(), sep(":"), local.Second(), dot, local.Nanosecond())
		unit = time.Nanosecond
		digits = 0
	}
	want := midnight.Add(since.Truncate(unit))
	if unit > time.Second && rng.IntN(2) == 0 {
		// A fraction of the last unit, to digits places: exact in
		// nanoseconds when unit times 10^-digits is whole.
		rest := since - since.Truncate(unit)
		scale := int64(1)
		for range digits {
			scale *= 10
		}
		num := int64(rest) * scale / int64(unit)
		fmt.Fprintf(&b, "%s%0*d", dot, digits, num)
		want = want.Add(time.Duration(num * int64(unit) / scale))
	}
	abs, sign := offset, "+"
	if offset < 0 {
		abs, sign = -offset, "-"
	}
	switch {
	case offset == 0 && rng.IntN(2) == 0:
		b.WriteString([]string{"Z", "z"}[rng.IntN(2)])
	case abs%60 == 0 && rng.IntN(2) == 0:
		fmt.Fprintf(&b, "%s%02d", sign, abs/60)
	default:
		fmt.Fprintf(&b, "%s%02d%s%02d", sign, abs/60, sep(":"), abs%60)
	}
	return b.String(), want
}

// FuzzTimestamp: the reader never panics, and wherever time.Parse reads s
// as RFC 3339 the reader reads the same instant; so does the ISO 8601
// parser itself, wherever both read it.
//
//	go test -run '^$' -fuzz '^FuzzTimestamp$' -fuzztime 5m .
func FuzzTimestamp(f *testing.F) {
	for _, s := range []string{"2024-05-01T10:15:00Z", "2024-05-01 12:15:00.123456+02", "2024-W18-3T10:15Z", "2024-122T10.5Z",
		"20240501T101500,5+0200", "2016-12-31T23:59:60Z", "2024-05-01T24:00Z", "2024-05-01T1:00:00+24:00", "0000-01-01T00:00:00Z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, _, ok := readTimestamp(s)
		iso, _, isoOK := parseTimestamp(s)
		want, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return
		}
		require.True(t, ok, "time.Parse reads %q as %v", s, want)
		assert.True(t, want.Equal(got), "%q: %v, time.Parse %v", s, got, want)
		if isoOK {
			assert.True(t, want.Equal(iso), "%q: ISO 8601 %v, time.Parse %v", s, iso, want)
		}
	})
}

// BenchmarkTimestamp: an RFC 3339 timestamp stays on the standard library's
// fast path; the other forms cost no allocation.
//
//	go test -run '^$' -bench Timestamp -benchtime 1s -count 3 .
func BenchmarkTimestamp(b *testing.B) {
	for _, s := range []string{"2024-05-01T10:15:00Z", "2024-05-01T10:15:00.123+02:00", "2024-05-01 12:15:00.123456+02", "20240501T101500Z", "2024-W18-3T10:15:00Z"} {
		b.Run(s, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, ok := readTimestamp(s); !ok {
					b.Fatal(s)
				}
			}
		})
	}
	b.Run("stdlib RFC3339", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := time.Parse(time.RFC3339Nano, "2024-05-01T10:15:00Z"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
