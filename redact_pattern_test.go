package ugc

import (
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEchoMatchesThePattern: wherever a generated text is searched, the
// echo matcher ends the longest echo where the expression's anchored
// longest match ends, or finds none where it finds none. The keys mix
// letters with every character an encoding treats apart (%, 2, 5, c, u, a
// backslash, "/", `"`, "+", a space), characters of two, three and four
// bytes, and an invalid byte; the texts glue echoes of them (each character in a form
// picked at random, escapes nested, hex in either case), pieces of echoes,
// near misses and noise of the same characters. 300 keys of 10 texts
// (10,000 with UGC_TEST_HEAVY=1).
func TestEchoMatchesThePattern(t *testing.T) {
	t.Parallel()
	keys := heavyOr(10000, 300)
	rng := rand.New(rand.NewPCG(25, 11))
	matched := 0
	for range keys {
		key := echoTestKey(rng)
		anchored := longestEcho(key)
		e := newEcho(key)
		for range 10 {
			text := echoTestText(key, rng)
			search := e.search(text, acceptEvery)
			for i := range len(text) + 1 {
				want := expressionEnd(anchored, text, i)
				if want >= 0 {
					matched++
				}
				require.Equal(t, want, search.at(i), "key %q, text %q, at %d", key, text, i)
			}
		}
	}
	assert.Greater(t, matched, keys*10, "echoes found: the texts hold them")
}

// TestAnEchoMadeAmbiguousIsLeftToThePattern: texts made to be ambiguous
// for a key of many backslashes or "%" (long runs of backslashes, which
// each of the key's may take any part of; "%25" nested deep) take the
// matcher more than echoSteps steps at some places; there the compiled
// expression decides. At every place the end is the expression's.
func TestAnEchoMadeAmbiguousIsLeftToThePattern(t *testing.T) {
	t.Parallel()
	fellBack := 0
	for _, c := range []struct{ key, text string }{
		{"a" + strings.Repeat(`\\`, 12) + "b", "a" + strings.Repeat(`\\`, 100) + "c"},
		{"a" + strings.Repeat(`\\`, 12) + "b", "a" + strings.Repeat(`\\`, 100) + "b"},
		{strings.Repeat(`\\"`, 6), strings.Repeat(strings.Repeat(`\\`, 30)+`"`, 6)},
		{strings.Repeat("%", 12) + "x", strings.Repeat("%25", 100) + "x"},
		{strings.Repeat(`\\`, 12) + "%2", strings.Repeat(`\\`, 100) + "%252"}, // the first reading ends after "%2"
	} {
		anchored := longestEcho(c.key)
		search := newEcho(c.key).search(c.text, acceptEvery)
		for i := range len(c.text) + 1 {
			require.Equal(t, expressionEnd(anchored, c.text, i), search.at(i), "key %q, at %d", c.key, i)
			if search.steps > echoSteps {
				fellBack++
			}
		}
	}
	assert.Positive(t, fellBack, "places where the texts took the matcher past echoSteps")
}

// FuzzEchoMatchesThePattern holds the echo matcher to the expression on
// any key and text, at every place of the text.
func FuzzEchoMatchesThePattern(f *testing.F) {
	f.Add(`k/+ "\%25c`, `%252F%5cu002b\\\"k%2f+%20`)
	f.Add("sk_live_4eC39HqLyjWDarjtT1zdp7dc", "sk_live_4eC39HqLyjWDarjtT1zdp7dc")
	f.Add("é世😀\xff", `%C3%a9\u4e16%F0%9F%98%80\xff`)
	f.Fuzz(func(t *testing.T, key, text string) {
		if key == "" || len(key) > 64 || len(text) > 512 {
			t.Skip()
		}
		anchored := longestEcho(key)
		search := newEcho(key).search(text, acceptEvery)
		for i := range len(text) + 1 {
			if got, want := search.at(i), expressionEnd(anchored, text, i); got != want {
				t.Fatalf("key %q, text %q, at %d: the matcher ends at %d, the expression at %d", key, text, i, got, want)
			}
		}
	})
}

// heavyOr returns full under UGC_TEST_HEAVY=1 (as .ci/run sets), and
// light otherwise: the internal tests' twin of package ugc_test's.
func heavyOr[T any](full, light T) T {
	if os.Getenv("UGC_TEST_HEAVY") != "" {
		return full
	}
	return light
}

// longestEcho is the expression of an echo of key, anchored, preferring
// the longest.
func longestEcho(key string) *regexp.Regexp {
	re := regexp.MustCompile("^" + echoPattern(key))
	re.Longest()
	return re
}

// expressionEnd returns where the echo that the anchored expression finds
// at text[i] ends, or -1.
func expressionEnd(anchored *regexp.Regexp, text string, i int) int {
	if loc := anchored.FindStringIndex(text[i:]); loc != nil {
		return i + loc[1]
	}
	return -1
}

// acceptEvery takes every echo, as the expression does.
func acceptEvery(start, end int) bool { return true }

// echoTestRunes are the characters of the generated keys and noise.
var echoTestRunes = []rune("aZ09%25cCuUbB\\/\"+ =é世😀\uFFFD")

// echoTestKey is a key of 1 to 12 characters of echoTestRunes, now and
// then with an invalid byte.
func echoTestKey(rng *rand.Rand) string {
	var b strings.Builder
	for range 1 + rng.IntN(12) {
		if rng.IntN(20) == 0 {
			b.WriteByte(0xff)
			continue
		}
		b.WriteRune(echoTestRunes[rng.IntN(len(echoTestRunes))])
	}
	return b.String()
}

// echoTestText glues echoes of key, pieces of them and noise.
func echoTestText(key string, rng *rand.Rand) string {
	var b strings.Builder
	for range 1 + rng.IntN(4) {
		var e strings.Builder
		for _, r := range key {
			writeEchoForm(&e, r, rng)
		}
		s := e.String()
		if rng.IntN(3) == 0 && len(s) > 1 { // a piece of an echo only
			i := rng.IntN(len(s))
			s = s[i : i+1+rng.IntN(len(s)-i)]
		}
		b.WriteString(s)
		for range rng.IntN(3) {
			b.WriteRune(echoTestRunes[rng.IntN(len(echoTestRunes))])
		}
	}
	return b.String()
}

// writeEchoForm writes r in a form picked at random: as it is (a
// backslash also as a run of them), URL-encoded (nested up to twice),
// \uXXXX behind a backslash in any of its forms, the short escape of "/",
// `"` or a backslash, "+" as a space and a space as "+"; or, one time in
// ten, a near miss: an escape a digit short or wrong, a \u of a character
// past U+FFFF, a backslash alone.
func writeEchoForm(b *strings.Builder, r rune, rng *rand.Rand) {
	hex := func(v uint32, n int) string {
		h := fmt.Sprintf("%0*x", n, v)
		if rng.IntN(2) == 0 {
			h = strings.ToUpper(h)
		}
		return h
	}
	url := func(c byte) string { return "%" + strings.Repeat("25", rng.IntN(3)) + hex(uint32(c), 2) }
	backslash := func() string {
		if rng.IntN(3) == 0 {
			return url('\\')
		}
		return strings.Repeat(`\`, 1+rng.IntN(3))
	}
	if rng.IntN(10) == 0 {
		f := url(byte(r))
		switch rng.IntN(4) {
		case 0:
			f = f[:len(f)-1]
		case 1:
			f = f[:len(f)-1] + hex(uint32(rng.IntN(16)), 1)
		case 2:
			f = backslash() + "u" + hex(uint32(r)&0xFFFF, 4)
		default:
			f = backslash()
		}
		b.WriteString(f)
		return
	}
	switch rng.IntN(5) {
	case 0:
		if r == '\\' {
			b.WriteString(backslash())
			return
		}
		b.WriteRune(r)
	case 1:
		var enc [utf8.UTFMax]byte
		for _, c := range enc[:utf8.EncodeRune(enc[:], r)] {
			b.WriteString(url(c))
		}
	case 2:
		if r > 0xFFFF {
			b.WriteRune(r)
			return
		}
		b.WriteString(backslash() + []string{"u", "U"}[rng.IntN(2)] + hex(uint32(r), 4))
	case 3:
		if strings.ContainsRune(`/"\`, r) {
			b.WriteString(backslash())
		}
		b.WriteRune(r)
	default:
		switch r {
		case '+':
			b.WriteString([]string{" ", url(' ')}[rng.IntN(2)])
		case ' ':
			b.WriteString([]string{"+", url('+')}[rng.IntN(2)])
		default:
			b.WriteRune(r)
		}
	}
}

// TestEveryMixOfFormsIsMasked: a key of 12 to 31 printable characters,
// rich in those the encodings treat apart (at either end too), echoed with
// each character in a form picked at random from all the masker knows
// (URL-encoded up to three times, \uXXXX behind a backslash as it is,
// quoted again or URL-encoded, the short escapes, "+" for a space and a
// space for "+"), in an error body, is masked whole. The masker that took
// the expression's first reading of an echo left 245 of these 10,000
// echoes shown. 2,000 keys of 5 echoes (20,000 with UGC_TEST_HEAVY=1).
func TestEveryMixOfFormsIsMasked(t *testing.T) {
	t.Parallel()
	keys := heavyOr(20000, 2000)
	const alphabet = `abcXYZ0125%cu\/"+ =-_.~:`
	rng := rand.New(rand.NewPCG(43, 7))
	forms := map[rune]*regexp.Regexp{}
	for range keys {
		var b []byte
		for range 12 + rng.IntN(20) {
			b = append(b, alphabet[rng.IntN(len(alphabet))])
		}
		key := string(b)
		m := newMasker(key)
		for range 5 {
			var e strings.Builder
			for _, r := range key {
				writeValidEchoForm(&e, r, rng, forms)
			}
			body := `{"message":"bad key ` + e.String() + `!"}`
			assert.Equal(t, `{"message":"bad key `+redacted+`!"}`, m.mask(body), "key %q", key)
		}
	}
}

// writeValidEchoForm writes r in a form the masker knows, picked at random
// (writeEchoForm without its near misses): one that charPattern(r), in
// forms, matches whole.
func writeValidEchoForm(b *strings.Builder, r rune, rng *rand.Rand, forms map[rune]*regexp.Regexp) {
	if forms[r] == nil {
		forms[r] = regexp.MustCompile(`^(?:` + charPattern(r) + `)$`)
	}
	for {
		var f strings.Builder
		writeEchoForm(&f, r, rng)
		if s := f.String(); forms[r].MatchString(s) {
			b.WriteString(s)
			return
		}
	}
}
