package ugc

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wordAlphabet and the separators build the generated messages and keys of
// the token tests.
const wordAlphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"

var messageSeparators = []string{" ", ", ", ".", ": ", "/", "=", `"`, "-", "(", ")", "'", "\t", "?", "&"}

// tokenMask is the reference: s with every maximal run of word characters
// that equals key replaced, but for the SDK's signature "ugc: ". (key is
// all word characters.)
func tokenMask(s, key string) string {
	var b strings.Builder
	for s != "" {
		i := strings.IndexFunc(s, func(r rune) bool { return !isWordRune(r) })
		if i == 0 {
			b.WriteByte(s[0])
			s = s[1:]
			continue
		}
		if i < 0 {
			i = len(s)
		}
		if s[:i] == key && !strings.HasPrefix(s[i:], ": ") || s[:i] == key && key != "ugc" {
			b.WriteString(redacted)
		} else {
			b.WriteString(s[:i])
		}
		s = s[i:]
	}
	return b.String()
}

// randomMessage is words of the HTTP status texts and random words, some
// the key itself, joined by random separators.
func randomMessage(rng *rand.Rand, key string) string {
	var words []string
	for code := 100; code < 600; code++ {
		words = append(words, strings.Fields(http.StatusText(code))...)
	}
	var b strings.Builder
	for i := range 3 + rng.IntN(12) {
		if i > 0 {
			b.WriteString(messageSeparators[rng.IntN(len(messageSeparators))])
		}
		switch rng.IntN(6) {
		case 0:
			b.WriteString(key)
		case 1:
			b.WriteString(randomWord(rng, 1, 8))
		default:
			b.WriteString(words[rng.IntN(len(words))])
		}
	}
	return b.String()
}

func randomWord(rng *rand.Rand, minLen, maxLen int) string {
	b := make([]byte, minLen+rng.IntN(maxLen-minLen+1))
	for i := range b {
		b[i] = wordAlphabet[rng.IntN(len(wordAlphabet))]
	}
	return string(b)
}

// TestShortKeysAreMaskedOnlyAsTokens: for generated keys of one to four
// word characters (a test key such as "a", "k" or "ugc") and generated
// messages, the key is masked exactly where it stands as a word of its
// own, never inside another word: "500 Internal Server Error" stays whole.
func TestShortKeysAreMaskedOnlyAsTokens(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(26, 4))
	fixed := []string{"a", "k", "ugc", "e", "in", "Error"}
	keys := append([]string{}, fixed...)
	for range 200 {
		keys = append(keys, randomWord(rng, 1, 4))
	}
	for i, key := range keys {
		m := newMasker(key)
		for range 20 {
			msg := randomMessage(rng, key)
			require.Equal(t, tokenMask(msg, key), m.mask(msg), "key %q", key)
		}
		for code := 100; code < 600 && i < len(fixed); code++ {
			msg := fmt.Sprintf("%d %s: Something went wrong", code, http.StatusText(code))
			require.Equal(t, tokenMask(msg, key), m.mask(msg), "key %q", key)
		}
	}
}

// TestTheClientsMessagesStayReadableWithAShortKey: the case, end to
// end: with a key of "a", "k" or "ugc", a 500's error reads as the server
// and the status say, and an echo of the key as a word is still masked.
func TestTheClientsMessagesStayReadableWithAShortKey(t *testing.T) {
	t.Parallel()
	for _, key := range []string{"a", "k", "ugc"} {
		rt := transportFunc(reply(http.StatusInternalServerError, `"Something went wrong"`))
		c, err := NewClient(retryTestBase, key, WithHTTPClient(&http.Client{Transport: rt}), WithRetryMax(0))
		require.NoError(t, err)
		_, err = c.Posts(context.Background(), nil)
		require.Error(t, err)
		assert.Equal(t, "ugc: GET /prefix/v1/posts: 500 Internal Server Error: Something went wrong", err.Error(), "key %q", key)

		rt = transportFunc(reply(http.StatusUnauthorized, `"bad key: `+key+`, try again"`))
		c, err = NewClient(retryTestBase, key, WithHTTPClient(&http.Client{Transport: rt}), WithRetryMax(0))
		require.NoError(t, err)
		_, err = c.Posts(context.Background(), nil)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "Unauthorized: bad key: [redacted], try again", "key %q", key)
	}
}

// separatorForms are characters that end a word, in the encodings an echo
// may stand in: as they are, URL-encoded once or twice, JSON-escaped, and
// JSON's short escapes.
var separatorForms = []string{" ", "=", "%3D", "%3d", "%253D", `\u003d`, `\u0020`, `%5Cu0020`, `\n`, `\t`, `\"`, "&", "/", "%2F", "+", "%20", ":", "\u00a0"}

// wordForms are word characters in the same encodings.
var wordForms = []string{"x", "7", "_", "%78", "%2578", `\u0078`, `\u0058`, "é"}

// TestKeysAreMaskedAsTokensInEveryEncoding: generated keys that begin and
// end with a letter, in every form the masker knows (leakForms), are masked
// between separators in every encoding, and left as they are when glued to
// a word character, in any encoding, on either side.
func TestKeysAreMaskedAsTokensInEveryEncoding(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(26, 5))
	for range 40 {
		key := randomLeakKey(rng)
		m := newMasker(key)
		for form, echo := range leakForms(key) {
			for range 4 {
				before := separatorForms[rng.IntN(len(separatorForms))]
				after := separatorForms[rng.IntN(len(separatorForms))]
				text := "bad key" + before + echo + after + "end"
				out := m.mask(text)
				require.NotContains(t, out, echo, "key %q as %s between %q and %q", key, form, before, after)
				require.NotContains(t, out, key, "key %q as %s between %q and %q", key, form, before, after)
				require.Contains(t, out, redacted)

				glue := wordForms[rng.IntN(len(wordForms))]
				for _, glued := range []string{"bad key" + before + glue + echo + after, "bad key" + before + echo + glue + after} {
					require.Equal(t, glued, m.mask(glued), "key %q as %s glued to %q: part of another word", key, form, glue)
				}
			}
		}
	}
}
