package ugc

import (
	"math/bits"
	"strings"
	"sync/atomic"
	"time"
)

// This file reads ISO 8601 date-times: the contract's "ISO 8601 timestamp".

// readTimestamp reads a timestamp sent as a JSON string (s, unquoted). An
// RFC 3339 timestamp is read by the standard library, so the value is
// exactly encoding/json's (its location too); any other ISO 8601 form by
// parseTimestamp; what time.Parse alone reads as RFC 3339 (a one-digit
// hour, an offset of +24:00) last. note is "" for a form the contract
// allows, else what a deviation says after the instant. ok is false when s
// is no timestamp at all.
func readTimestamp(s string) (t time.Time, note string, ok bool) {
	if rfc3339Shape(s) {
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t, "", true
		}
	}
	if t, form, ok := parseTimestamp(s); ok {
		return t, form.note(), true
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, " (not ISO 8601: read as Go's time.Parse reads RFC 3339)", true
	}
	if trimmed := strings.TrimSpace(s); trimmed != s && trimmed != "" {
		if t, note, ok := readTimestamp(trimmed); ok {
			return t, note + " (spaces around it)", true
		}
	}
	return time.Time{}, "", false
}

// rfc3339Shape reports whether s has the separators of an RFC 3339
// timestamp where they belong: a cheap test before the standard library's
// parser, whose slow path for other forms costs an error value.
func rfc3339Shape(s string) bool {
	n := len(s)
	if n < len("2006-01-02T15:04:05Z") || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' {
		return false
	}
	// time.Parse also reads offsets of +24:00 and +02:60, which ISO 8601
	// does not allow: those are left to the last resort.
	return s[n-1] == 'Z' || s[n-3] == ':' && (s[n-6] == '+' || s[n-6] == '-') && s[n-5:n-3] < "24" && s[n-2:] < "60"
}

// stampForm says how far a timestamp the reader read is from the contract's
// form: a complete date and time with a zone.
type stampForm uint8

const (
	// stampISO is a date, a time and a zone: what the contract allows,
	// in any of ISO 8601's forms (calendar, ordinal or week date; basic or
	// extended; reduced precision; a fraction of the last unit; 24:00; a
	// leap second), with T, t or a space between date and time (RFC 3339
	// §5.6 allows the last two, and PostgreSQL prints the space).
	stampISO stampForm = iota
	// stampNoZone is a date and time without a zone, read as UTC.
	stampNoZone
	// stampDateOnly is a date alone, read as its midnight in UTC.
	stampDateOnly
	// stampMixed mixes the basic and extended formats (20240501T10:15Z,
	// 2024-05-01T10:15:00+0200): ISO 8601 asks for one format per value.
	stampMixed
)

// note is what a deviation says about a timestamp read in form f, after
// the instant; "" for the contract's form.
func (f stampForm) note() string {
	switch f {
	case stampNoZone:
		return " (no zone: read as UTC)"
	case stampDateOnly:
		return " (a date alone: read as midnight UTC)"
	case stampMixed:
		return " (basic and extended formats mixed)"
	}
	return ""
}

// format is ISO 8601's basic (no separators) or extended (with - and :)
// format; formatAny is a part that looks the same in both (hh, ±hh).
type format uint8

const (
	formatAny format = iota
	formatBasic
	formatExtended
)

// stampParser reads one timestamp from s, left to right.
type stampParser struct {
	s      string
	i      int
	format format // the format of the parts read so far
	mixed  bool   // a part in the other format
}

// parseTimestamp reads s as an ISO 8601 date-time, or a date alone. ok is
// false for anything else. A value without a zone is read as UTC; a
// fraction beyond the nanosecond is cut, as time.Parse cuts it.
func parseTimestamp(s string) (t time.Time, form stampForm, ok bool) {
	p := stampParser{s: s}
	year, yday, ok := p.date()
	if !ok {
		return time.Time{}, 0, false
	}
	if p.i == len(s) {
		return time.Date(year, time.January, yday, 0, 0, 0, 0, time.UTC), stampDateOnly, !p.mixed
	}
	if c := s[p.i]; c != 'T' && c != 't' && c != ' ' {
		return time.Time{}, 0, false
	}
	p.i++
	hour, nsec, ok := p.clock()
	if !ok {
		return time.Time{}, 0, false
	}
	zone, hasZone, ok := p.zone()
	if !ok || p.i != len(s) {
		return time.Time{}, 0, false
	}
	form = stampISO
	switch {
	case p.mixed:
		form = stampMixed
	case !hasZone:
		form = stampNoZone
	}
	sec, ns := nsec/int64(time.Second), nsec%int64(time.Second)
	return time.Date(year, time.January, yday, hour, 0, int(sec), int(ns), zone), form, true
}

// part notes that a part in format f was read: a value keeps to one format.
func (p *stampParser) part(f format) {
	switch {
	case f == formatAny:
	case p.format == formatAny:
		p.format = f
	case p.format != f:
		p.mixed = true
	}
}

// digits reads exactly n decimal digits.
func (p *stampParser) digits(n int) (int, bool) {
	if p.i+n > len(p.s) {
		return 0, false
	}
	v := 0
	for _, c := range []byte(p.s[p.i : p.i+n]) {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	p.i += n
	return v, true
}

// run counts the digits from the parser's position.
func (p *stampParser) run() int {
	n := 0
	for p.i+n < len(p.s) && '0' <= p.s[p.i+n] && p.s[p.i+n] <= '9' {
		n++
	}
	return n
}

// eat consumes c if it comes next.
func (p *stampParser) eat(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// date reads a complete date: calendar (2024-05-01, 20240501), ordinal
// (2024-122, 2024122) or week (2024-W18-3, 2024W183). It returns the year
// and the day of that year (1 for January 1; the week date's may fall in
// the year before or after, which time.Date normalizes).
func (p *stampParser) date() (year, yday int, ok bool) {
	if year, ok = p.digits(4); !ok {
		return 0, 0, false
	}
	f := formatBasic
	if p.eat('-') {
		f = formatExtended
	}
	p.part(f)
	if p.eat('W') {
		return p.weekDate(year, f)
	}
	switch p.run() {
	case 3: // ordinal
		yday, _ = p.digits(3)
		return year, yday, 1 <= yday && yday <= daysInYear(year)
	case 2, 4: // calendar: MM-DD or MMDD
		month, _ := p.digits(2)
		if f == formatExtended && !p.eat('-') {
			return 0, 0, false
		}
		day, ok := p.digits(2)
		if !ok || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, time.Month(month)) {
			return 0, 0, false
		}
		return year, time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC).YearDay(), true
	}
	return 0, 0, false
}

// weekDate reads the rest of a week date after its W: the week and the day
// of the week (1 Monday … 7 Sunday). Week 1 holds the year's first Thursday.
func (p *stampParser) weekDate(year int, f format) (int, int, bool) {
	week, ok := p.digits(2)
	if !ok || f == formatExtended && !p.eat('-') {
		return 0, 0, false
	}
	wday, ok := p.digits(1)
	if !ok || week < 1 || week > weeksInYear(year) || wday < 1 || wday > 7 {
		return 0, 0, false
	}
	jan4 := isoWeekday(time.Date(year, time.January, 4, 0, 0, 0, 0, time.UTC).Weekday())
	return year, 4 - (jan4 - 1) + (week-1)*7 + (wday - 1), true
}

// clock reads a time of day: hh, hh:mm or hh:mm:ss (hhmm, hhmmss in the
// basic format), the last with an optional fraction after a dot or a
// comma. It returns the hour and the nanoseconds after it: 24:00 is the
// end of the day (hour 24, which time.Date carries to the next day) and a
// second of 60, a leap second, is read as the next second.
func (p *stampParser) clock() (hour int, nsec int64, ok bool) {
	if hour, ok = p.digits(2); !ok {
		return 0, 0, false
	}
	unit := int64(time.Hour)
	minute, more := p.unit(&unit, time.Minute)
	second := 0
	if more {
		second, _ = p.unit(&unit, time.Second)
	}
	frac, ok := p.fraction(unit)
	if !ok || hour > 24 || minute > 59 || second > 60 {
		return 0, 0, false
	}
	if hour == 24 && (minute != 0 || second != 0 || frac != 0) {
		return 0, 0, false
	}
	return hour, int64(minute)*int64(time.Minute) + int64(second)*int64(time.Second) + frac, true
}

// unit reads the next, smaller unit of a time (minutes after the hour,
// seconds after the minutes), with its ':' in the extended format, and sets
// *unit to it. ok is false when there is none.
func (p *stampParser) unit(unit *int64, next time.Duration) (int, bool) {
	start := p.i
	f := formatBasic
	if p.eat(':') {
		f = formatExtended
	}
	v, ok := p.digits(2)
	if !ok {
		p.i = start
		return 0, false
	}
	p.part(f)
	*unit = int64(next)
	return v, true
}

// fraction reads an optional decimal fraction of unit nanoseconds, after a
// dot or a comma, cut to the nanosecond.
func (p *stampParser) fraction(unit int64) (int64, bool) {
	if p.i >= len(p.s) || p.s[p.i] != '.' && p.s[p.i] != ',' {
		return 0, true
	}
	p.i++
	n := p.run()
	if n == 0 {
		return 0, false
	}
	// num/den is the fraction, to 18 digits: far below a nanosecond of
	// an hour.
	var num, den uint64 = 0, 1
	for _, c := range []byte(p.s[p.i : p.i+min(n, 18)]) {
		num, den = num*10+uint64(c-'0'), den*10
	}
	p.i += n
	hi, lo := bits.Mul64(num, uint64(unit))
	q, _ := bits.Div64(hi, lo, den) // hi < den, as num < den
	return int64(q), true
}

// zone reads an optional zone: Z (or z), ±hh, ±hhmm or ±hh:mm. It returns
// the location for it, and whether there was one.
func (p *stampParser) zone() (*time.Location, bool, bool) {
	if p.i == len(p.s) {
		return time.UTC, false, true
	}
	switch p.s[p.i] {
	case 'Z', 'z':
		p.i++
		return time.UTC, true, true
	case '+', '-':
	default:
		return nil, false, false
	}
	sign := 1
	if p.s[p.i] == '-' {
		sign = -1
	}
	p.i++
	hours, ok := p.digits(2)
	if !ok {
		return nil, false, false
	}
	var minutes int
	if p.i < len(p.s) {
		f := formatBasic
		if p.eat(':') {
			f = formatExtended
		}
		if minutes, ok = p.digits(2); !ok {
			return nil, false, false
		}
		p.part(f)
	}
	if hours > 23 || minutes > 59 {
		return nil, false, false
	}
	return zoneAt(sign * (hours*60 + minutes)), true, true
}

// zones holds a location for each offset, in minutes from -23:59 to
// +23:59, made the first time a timestamp names it: a page of posts in
// one zone costs one location, not one per timestamp.
var zones [2*24*60 + 1]atomic.Pointer[time.Location]

// zoneAt returns the location for an offset in minutes east of UTC: UTC
// itself for 0 (so +00 and Z read alike), a fixed zone otherwise.
func zoneAt(minutes int) *time.Location {
	if minutes == 0 {
		return time.UTC
	}
	slot := &zones[minutes+24*60]
	if loc := slot.Load(); loc != nil {
		return loc
	}
	loc := time.FixedZone("", minutes*60)
	slot.Store(loc)
	return loc
}

func isLeap(year int) bool { return year%4 == 0 && (year%100 != 0 || year%400 == 0) }

func daysInYear(year int) int {
	if isLeap(year) {
		return 366
	}
	return 365
}

func daysInMonth(year int, m time.Month) int {
	return time.Date(year, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// isoWeekday numbers the days of the week as ISO 8601 does: Monday 1 …
// Sunday 7.
func isoWeekday(d time.Weekday) int {
	if d == time.Sunday {
		return 7
	}
	return int(d)
}

// weeksInYear is 53 for a year that starts on a Thursday, or a leap year
// that starts on a Wednesday; 52 for the others.
func weeksInYear(year int) int {
	jan1 := time.Date(year, time.January, 1, 0, 0, 0, 0, time.UTC).Weekday()
	if jan1 == time.Thursday || jan1 == time.Wednesday && isLeap(year) {
		return 53
	}
	return 52
}
