package ugc

import (
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// replacementChar is what encoding/json (and so the reader) puts in place
// of what a string cannot hold: invalid UTF-8, a lone surrogate escape.
const replacementChar = "\uFFFD"

// noteReplaced records a deviation for a string that the reader had to
// change: s is the string as unquoted, raw the JSON string as sent, quotes
// included. Only a string that holds U+FFFD is looked at, so a string that
// was read as sent costs a search for three bytes.
func (d *decoder) noteReplaced(raw []byte, s string) {
	if !strings.Contains(s, replacementChar) {
		return
	}
	if why := replaced(raw); why != "" {
		d.deviate(raw, "U+FFFD in place of "+why)
	}
}

// replaced says what in the JSON string raw (quotes included, escapes
// already checked) is read as U+FFFD: invalid UTF-8, or a \u escape of a
// surrogate that is not half of a pair; "" when nothing is (a U+FFFD sent
// as such).
func replaced(raw []byte) string {
	var invalid, lone string
	body := raw[1 : len(raw)-1]
	for i := 0; i < len(body); {
		switch c := body[i]; {
		case c == '\\' && body[i+1] == 'u':
			r, next, paired := escapedRune(body, i)
			if utf16.IsSurrogate(r) && !paired && lone == "" {
				lone = fmt.Sprintf(`a lone surrogate (\u%04x at byte %d)`, r, i)
			}
			i = next
		case c == '\\':
			i += 2
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(body[i:])
			if r == utf8.RuneError && size == 1 && invalid == "" {
				invalid = fmt.Sprintf("invalid UTF-8 (byte %#02x at byte %d)", c, i)
			}
			i += size
		}
	}
	switch {
	case invalid != "" && lone != "":
		return invalid + " and " + lone
	case invalid != "":
		return invalid
	}
	return lone
}

// escapedRune reads the \u escape at body[i], with the low half that
// follows a high surrogate: paired says the two make one character, next
// is where reading goes on.
func escapedRune(body []byte, i int) (r rune, next int, paired bool) {
	r = hex4(body[i+2 : i+6])
	next = i + 6
	if r >= 0xD800 && r < 0xDC00 && next+6 <= len(body) && body[next] == '\\' && body[next+1] == 'u' {
		if low := hex4(body[next+2 : next+6]); low >= 0xDC00 && low <= 0xDFFF {
			return r, next + 6, true
		}
	}
	return r, next, false
}

// hex4 reads four hexadecimal digits (checked by skipEscape).
func hex4(h []byte) rune {
	var r rune
	for _, c := range h {
		r <<= 4
		switch {
		case c >= 'a':
			r |= rune(c-'a') + 10
		case c >= 'A':
			r |= rune(c-'A') + 10
		default:
			r |= rune(c - '0')
		}
	}
	return r
}
