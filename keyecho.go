package ugc

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// An echo of the key is the key with each of its characters in one of the
// forms the masker knows (see masker): as itself; URL-encoded any number
// of times, byte by byte; JSON-escaped as \uXXXX; for "/", `"` and `\`
// after a backslash; for "+" as a space; a space also as "+"; a backslash
// also as a run of them; and the backslash of an escape as a run of them
// or URL-encoded. echoPattern spells them as a regular expression, the
// specification; the matcher (echo) walks the text with the key instead
// of compiling it, which held about 2 KiB for each character of the key
// (80 KiB for a key of 40) in every Client. TestEchoMatchesThePattern and
// FuzzEchoMatchesThePattern hold the two equal.
//
// Where an echo could end in more than one place (the key "a%2" echoed as
// "a%252" ends after "a%2" or after all of it), the masker takes the
// longest that stands as a token (see keytoken.go): the expression's first
// reading, "a%2", is followed by "5", which would leave "a%252" shown.
// Only a key with a backslash or a "%" has forms that a text can make
// ambiguous over more than a character or two (a run of backslashes
// split between two of them, %2525 read as one "%" or two); what the rest
// of the key can end at, from each place of the text, is remembered while
// an echo is tried, and a try that takes more than echoSteps steps (a text
// made to be ambiguous) is left to the compiled expression, whose longest
// echo is then taken whether it stands as a token or not: in doubt, mask.
type echo struct {
	key []rune
	// pattern is the expression, anchored and preferring the longest
	// echo, compiled for the first try that needs it
	pattern func() *regexp.Regexp
}

// echoSteps bounds the places and forms tried for one echo before the
// compiled expression takes over: an echo of a key with no backslash or
// "%" tries a few for each character of the key.
const echoSteps = 4096

// newEcho returns the matcher of echoes of key; an invalid byte of key is
// matched as utf8.RuneError, as the expression reads it.
func newEcho(key string) *echo {
	return &echo{key: []rune(key), pattern: sync.OnceValue(func() *regexp.Regexp {
		re := regexp.MustCompile("^" + echoPattern(key))
		re.Longest()
		return re
	})}
}

// echoSearch is one search for echoes of the key in one text, which takes
// those that accept takes (given where an echo begins and ends): while an
// echo is tried, the longest end the rest of the key can reach from each
// place it was tried at, and the steps taken.
type echoSearch struct {
	*echo
	s       string
	accept  func(start, end int) bool
	start   int
	longest map[echoPlace]int
	steps   int
	run     [2]int // the run of backslashes found last, from and to
}

// echoPlace is a place of the text where key[k:] was tried.
type echoPlace struct{ k, at int }

// search returns a search for echoes in s that accept takes.
func (e *echo) search(s string, accept func(start, end int) bool) *echoSearch {
	return &echoSearch{echo: e, s: s, accept: accept}
}

// at returns the end of the longest echo that begins at i and that the
// search accepts, or -1 where none does.
func (m *echoSearch) at(i int) int {
	clear(m.longest)
	m.start, m.steps = i, 0
	end := m.rest(0, i)
	if m.steps > echoSteps {
		end = -1
		if loc := m.pattern().FindStringIndex(m.s[i:]); loc != nil {
			end = i + loc[1]
		}
	}
	return end
}

// rest returns the end of the longest echo of key[k:] that begins at i
// and ends where the search accepts, or -1; -1 too once the steps run
// out.
func (m *echoSearch) rest(k, i int) int {
	if k == len(m.key) {
		if m.accept(m.start, i) {
			return i
		}
		return -1
	}
	if end, ok := m.longest[echoPlace{k, i}]; ok {
		return end
	}
	var buf [8]int
	forms := m.appendCharForms(buf[:0], i, m.key[k])
	if m.steps += 1 + len(forms); m.steps > echoSteps {
		return -1
	}
	end := -1
	for _, next := range forms {
		if end = max(end, m.rest(k+1, next)); m.steps > echoSteps {
			return -1
		}
	}
	if m.longest == nil {
		m.longest = map[echoPlace]int{}
	}
	m.longest[echoPlace{k, i}] = end
	return end
}

// echoPattern is the expression of one echo of key, unanchored.
func echoPattern(key string) string {
	var b strings.Builder
	for _, r := range key {
		b.WriteString(charPattern(r))
	}
	return b.String()
}

// escapeBackslash matches the backslash that begins an escape, as it is,
// quoted again (a run of them) or URL-encoded.
const escapeBackslash = `(?:\\+|%(?:25)*5[cC])`

// charPattern matches one character of the key in every form: as it is or
// URL-encoded, JSON-escaped (\u00XX; \/, \" and \\), and for "+" as the
// space that a query parser decodes it to.
func charPattern(r rune) string {
	alts := []string{runePattern(r)}
	if r <= 0xFFFF {
		alts = append(alts, escapeBackslash+"[uU]"+hexPattern(fmt.Sprintf("%04x", r)))
	}
	switch r {
	case '/', '"', '\\': // JSON's short escapes: \/ (PHP's), \", \\; Go's %q writes the last two
		alts = append(alts, escapeBackslash+runePattern(r))
	case '+':
		alts = append(alts, runePattern(' '))
	}
	return "(?:" + strings.Join(alts, "|") + ")"
}

// runePattern matches r as it is or URL-encoded any number of times (%XX,
// %25XX ... for each of its bytes, the hex in either case); a space also as
// "+" (and so as %2B once more encoded); a backslash also as a run of them,
// which is what quoting it again (Go's %q, JSON) makes of it.
func runePattern(r rune) string {
	var b strings.Builder
	b.WriteString("(?:" + regexp.QuoteMeta(string(r)))
	switch r {
	case ' ':
		b.WriteString(`|\+|%(?:25)*2[bB]`)
	case '\\':
		b.WriteString(`+`)
	}
	b.WriteString("|")
	var enc [utf8.UTFMax]byte
	for _, c := range enc[:utf8.EncodeRune(enc[:], r)] {
		b.WriteString("%(?:25)*" + hexPattern(fmt.Sprintf("%02x", c)))
	}
	b.WriteString(")")
	return b.String()
}

// hexPattern matches the hex digits of h in either case.
func hexPattern(h string) string {
	var b strings.Builder
	for _, c := range h {
		if c >= 'a' && c <= 'f' {
			b.WriteString("[" + string(c) + strings.ToUpper(string(c)) + "]")
		} else {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// appendCharForms appends to ends where a form of the key's character r
// that begins at s[i] ends: r in a form of its own; its \uXXXX escape; for
// "/", `"` and `\`, the escape of a backslash before it; for "+", a space.
// An escape's backslash is taken as the whole of a run of them: a part of
// one leaves a backslash next, which no form of "u", "/" or `"` begins
// with, and for a backslash gives only ends the run of its own form gives.
func (m *echoSearch) appendCharForms(ends []int, i int, r rune) []int {
	ends = m.appendRuneForms(ends, i, r)
	var buf [4]int
	escapes := buf[:0]
	if run := m.backslashesEnd(i); run > i {
		escapes = append(escapes, run)
	}
	escapes = appendURLEncodedByte(escapes, m.s, i, '\\')
	if r <= 0xFFFF {
		for _, after := range escapes {
			if j := after + 5; j <= len(m.s) && m.s[after]|0x20 == 'u' && hexIs(m.s[after+1:j], uint32(r), 4) {
				ends = append(ends, j)
			}
		}
	}
	switch r {
	case '/', '"', '\\':
		for _, after := range escapes {
			ends = m.appendRuneForms(ends, after, r)
		}
	case '+':
		ends = m.appendRuneForms(ends, i, ' ')
	}
	return ends
}

// appendRuneForms appends where r, as it is or URL-encoded, ends, from
// s[i]: r itself (a backslash also as a run of them; a space also as "+"
// and %2B), then its UTF-8 bytes each URL-encoded.
func (m *echoSearch) appendRuneForms(ends []int, i int, r rune) []int {
	s := m.s
	if i >= len(s) {
		return ends
	}
	if r == '\\' {
		for end := m.backslashesEnd(i); end > i; end-- {
			ends = append(ends, end)
		}
	} else if got, n := utf8.DecodeRuneInString(s[i:]); got == r {
		ends = append(ends, i+n)
	}
	if r == ' ' {
		if s[i] == '+' {
			ends = append(ends, i+1)
		}
		ends = appendURLEncodedByte(ends, s, i, '+')
	}
	var enc [utf8.UTFMax]byte
	return appendURLEncodedBytes(ends, s, i, enc[:utf8.EncodeRune(enc[:], r)])
}

// backslashesEnd returns where the run of backslashes at s[i] ends (i
// where there is none). The run found last is kept, so a search through a
// long one reads it once.
func (m *echoSearch) backslashesEnd(i int) int {
	if m.run[0] <= i && i < m.run[1] {
		return m.run[1]
	}
	n := i
	for n < len(m.s) && m.s[n] == '\\' {
		n++
	}
	if n > i {
		m.run = [2]int{i, n}
	}
	return n
}

// appendURLEncodedBytes appends where bs, each URL-encoded (see
// appendURLEncodedByte), end, from s[i].
func appendURLEncodedBytes(ends []int, s string, i int, bs []byte) []int {
	if len(bs) == 1 {
		return appendURLEncodedByte(ends, s, i, bs[0])
	}
	var buf [4]int
	for _, next := range appendURLEncodedByte(buf[:0], s, i, bs[0]) {
		ends = appendURLEncodedBytes(ends, s, next, bs[1:])
	}
	return ends
}

// appendURLEncodedByte appends where b, URL-encoded any number of times
// (%XX, %25XX, %2525XX ..., the hex in either case), ends, from s[i].
func appendURLEncodedByte(ends []int, s string, i int, b byte) []int {
	if i >= len(s) || s[i] != '%' {
		return ends
	}
	times := 0
	for j := i + 1; j+2 <= len(s) && s[j:j+2] == "25"; j += 2 {
		times++
	}
	for t := times; t >= 0; t-- {
		if at := i + 1 + 2*t; at+2 <= len(s) && hexIs(s[at:at+2], uint32(b), 2) {
			ends = append(ends, at+2)
		}
	}
	return ends
}

// hexIs reports whether h is v in n hex digits, in either case.
func hexIs(h string, v uint32, n int) bool {
	if len(h) != n {
		return false
	}
	for k := n - 1; k >= 0; k-- {
		c := h[k]
		if 'A' <= c && c <= 'F' {
			c += 'a' - 'A'
		}
		if c != hexDigits[v&0xF] {
			return false
		}
		v >>= 4
	}
	return true
}

const hexDigits = "0123456789abcdef"
