package ugc

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// position is where a request stands in its list, as its URL says: skip,
// and limit, 0 when the URL names none (the server's page size).
type position struct{ skip, limit int }

// positionOf reads the position of u: skip and limit, each absent or a
// whole number (see [wholeNumber]), a limit at least 1. A value that is
// neither (an empty one too) is an error that says why: never taken for 0,
// which would ask for the list's first page again.
func positionOf(u *url.URL) (position, error) {
	var p position
	var err error
	if s, named := queryLookup(u.RawQuery, "skip"); named {
		if p.skip, err = wholeNumber(s); err != nil {
			return p, &positionError{"skip", err}
		}
	}
	if s, named := queryLookup(u.RawQuery, "limit"); named {
		if p.limit, err = wholeNumber(s); err != nil {
			return p, &positionError{"limit", err}
		}
		if p.limit == 0 {
			return p, &positionError{"limit", errors.New("0 asks for no post")}
		}
	}
	return p, nil
}

// positionError is a URL's skip or limit (field) that no position holds;
// err quotes its value, which a server wrote and may hold anything.
type positionError struct {
	field string
	err   error
}

func (e *positionError) Error() string { return e.field + " " + e.err.Error() }

// limitOr is the position's limit, or def when the URL names none.
func (p position) limitOr(def int) int {
	if p.limit == 0 {
		return def
	}
	return p.limit
}

// maxExponent bounds the exponent [wholeNumber] reads: no int has more
// digits than this.
const maxExponent = 40

// wholeNumber reads a whole number as a server may write it in a next
// link: an integer ("3000000000"), or a decimal whose fraction is zeros or
// whose exponent makes it whole ("10.0", "1e3", "2.5E1"), as servers that
// keep numbers as floating point write them. Anything else is an error
// that says why: a fraction ("10.5"), a sign, junk, or a number larger
// than an int holds.
func wholeNumber(s string) (int, error) {
	mantissa, exp, ok := strings.Cut(strings.ToLower(s), "e")
	intPart, frac, _ := strings.Cut(mantissa, ".")
	if !digitsOnly(intPart) || !digitsOnly(frac) || intPart+frac == "" {
		if strings.HasPrefix(s, "-") {
			return 0, fmt.Errorf("%q is negative", s)
		}
		return 0, fmt.Errorf("%q is not a whole number", s)
	}
	shift := 0
	if ok {
		n, err := strconv.Atoi(exp)
		if err != nil {
			return 0, fmt.Errorf("%q is not a whole number", s)
		}
		shift = n
	}
	digits := strings.TrimLeft(intPart+frac, "0")
	if digits == "" {
		return 0, nil
	}
	shift -= len(frac)
	switch {
	case shift < -len(digits) || shift < 0 && strings.Trim(digits[len(digits)+shift:], "0") != "":
		return 0, fmt.Errorf("%q is not a whole number", s)
	case shift < 0:
		digits = digits[:len(digits)+shift]
	case shift > maxExponent:
		return 0, fmt.Errorf("%q is larger than this platform's int", s)
	case shift > 0:
		digits += strings.Repeat("0", shift)
	}
	n, err := strconv.Atoi(digits)
	if err != nil {
		return 0, fmt.Errorf("%q is larger than this platform's int", s)
	}
	return n, nil
}

// digitsOnly reports whether s holds only the digits 0 to 9.
func digitsOnly(s string) bool {
	return strings.Trim(s, "0123456789") == ""
}

// withPosition returns a copy of u at position p: its skip, and its limit,
// or none when p names none.
func withPosition(u *url.URL, p position) *url.URL {
	out := withParam(u, "skip", p.skip)
	if p.limit == 0 {
		return withoutParam(out, "limit")
	}
	return withParam(out, "limit", p.limit)
}
