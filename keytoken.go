package ugc

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The masker hides the key where it stands as a token: not preceded or
// followed by a letter, a digit or "_" that would make it part of a longer
// word. A key of "a" leaves "500 Internal Server Error" as it is, and still
// masks "key=a", "a," or "\"a\"". A neighbour is read as the text means
// it: an escape next to an echo (%3D, %253D, \u003d, \n) is the character
// it stands for, so "%3Dkey" is "=key" and masked. In doubt (an escaped
// byte of a multi-byte character, an escape of an escape), the key is taken
// to stand alone and masked: a mangled word is a lesser harm than a key
// shown. A key that is itself a word of the SDK's messages (such as
// "posts") is masked where that word stands, but for the SDK's name in its
// signature.

// isWordRune reports whether r makes an echo beside it part of a longer
// word.
func isWordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// escapeBefore matches an escape that ends the text: %XX (URL-encoded any
// number of times) or \uXXXX (its backslash as it is, quoted again, or
// URL-encoded); escapeAfter one that begins it.
var (
	escapeBefore = regexp.MustCompile(`(?:%(?:25)*([0-9A-Fa-f]{2})|` + escapeBackslash + `[uU]([0-9A-Fa-f]{4}))$`)
	escapeAfter  = regexp.MustCompile(`^(?:%(?:25)*([0-9A-Fa-f]{2})|` + escapeBackslash + `[uU]([0-9A-Fa-f]{4}))`)
)

// escapedWord reports whether the escape m (the submatches of escapeBefore
// or escapeAfter in s) stands for a character of a word.
func escapedWord(s string, m []int) bool {
	if m[2] >= 0 { // %XX: one byte; a byte of a multi-byte character is taken to stand apart
		b, _ := strconv.ParseUint(s[m[2]:m[3]], 16, 8)
		return b < utf8.RuneSelf && isWordRune(rune(b))
	}
	r, _ := strconv.ParseUint(s[m[4]:m[5]], 16, 16)
	return isWordRune(rune(r))
}

// wordBefore reports whether the text before an echo ends with a character
// of a word, read as the text means it.
func wordBefore(before string) bool {
	if len(before) > 16 {
		before = before[len(before)-16:] // an escape is at most 12 bytes here, %2525...5Cu0041 aside
	}
	if m := escapeBefore.FindStringSubmatchIndex(before); m != nil {
		return escapedWord(before, m)
	}
	r, size := utf8.DecodeLastRuneInString(before)
	if !isWordRune(r) {
		return false
	}
	// A letter after a backslash, as it is or URL-encoded, may be a short
	// escape (\n, \t): in doubt, not a word.
	rest := before[:len(before)-size]
	return !(len(rest) > 0 && rest[len(rest)-1] == '\\' || escapeEndsWithBackslash(rest))
}

// escapeEndsWithBackslash reports whether s ends with a URL-encoded
// backslash.
func escapeEndsWithBackslash(s string) bool {
	m := escapeBefore.FindStringSubmatchIndex(s)
	return m != nil && m[2] >= 0 && (s[m[2]:m[3]] == "5c" || s[m[2]:m[3]] == "5C")
}

// wordAfter reports whether the text after an echo begins with a character
// of a word, read as the text means it.
func wordAfter(after string) bool {
	if after == "" {
		return false
	}
	if after[0] == '%' || after[0] == '\\' {
		m := escapeAfter.FindStringSubmatchIndex(after)
		return m != nil && escapedWord(after, m)
	}
	r, _ := utf8.DecodeRuneInString(after)
	return isWordRune(r)
}

// sdkSignature is how the SDK signs its messages ("ugc: GET /v1/posts:
// ..."): a key of "ugc", a test's, leaves it readable (where the key is
// echoed as "ugc: ", it is not masked; it is the SDK's name).
const sdkSignature = "ugc: "

// standsAlone reports whether the echo s[start:end] is a token of its own:
// where the key begins (ends) with a character of a word, the text before
// (after) it does not go on with one; and it is not the SDK's signature.
func (m *masker) standsAlone(s string, start, end int) bool {
	if strings.HasPrefix(s[start:], sdkSignature) && end-start == len(sdkSignature)-2 {
		return false
	}
	return !(m.wordEdges[0] && wordBefore(s[:start]) || m.wordEdges[1] && wordAfter(s[end:]))
}

// wordEdges says whether the key's first and last characters are those of
// a word: only such an edge can be glued to a word.
func wordEdges(key string) [2]bool {
	first, _ := utf8.DecodeRuneInString(key)
	last, _ := utf8.DecodeLastRuneInString(key)
	return [2]bool{isWordRune(first), isWordRune(last)}
}
