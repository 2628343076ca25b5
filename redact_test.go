package ugc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// keyEchoes returns the forms in which a server or proxy may echo key:
// raw, JSON-escaped (Go's, PHP's "\/", every character as \u00XX in either
// case), URL-encoded (query and path escaping, lower-case hex) and a mix.
func keyEchoes(key string, rng *rand.Rand) map[string]string {
	js, _ := json.Marshal(key)
	jsonForm := string(js[1 : len(js)-1])
	var allU, allUUpper, lowerHex, mixed strings.Builder
	for _, c := range []byte(key) {
		fmt.Fprintf(&allU, `\u%04x`, c)
		fmt.Fprintf(&allUUpper, `\u%04X`, c)
		fmt.Fprintf(&lowerHex, "%%%02x", c)
		switch rng.IntN(3) {
		case 0:
			mixed.WriteByte(c)
		case 1:
			fmt.Fprintf(&mixed, "%%%02X", c)
		default:
			fmt.Fprintf(&mixed, `\u%04x`, c)
		}
	}
	return map[string]string{
		"raw":         key,
		"json":        jsonForm,
		"json \\/":    strings.ReplaceAll(jsonForm, "/", `\/`),
		"json \\u":    allU.String(),
		"json \\U":    allUUpper.String(),
		"query":       url.QueryEscape(key),
		"path":        url.PathEscape(key),
		"lower hex":   lowerHex.String(),
		"mixed forms": mixed.String(),
	}
}

// randomKey is a base64-like key, always with "/", "+" and "=".
func randomKey(rng *rand.Rand) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="
	b := []byte("k/+=")
	for range 12 + rng.IntN(30) {
		b = append(b, alphabet[rng.IntN(len(alphabet))])
	}
	rng.Shuffle(len(b), func(i, j int) { b[i], b[j] = b[j], b[i] })
	return string(b)
}

// TestEchoedKeyNeverPrintsInAnyEncoding: for many random keys, a server
// echoes the key in every form, in a JSON error message, a text/plain body,
// an HTML page, a header and an invalid 2xx body. The key (and its JSON
// form) never shows in Error(), any fmt verb, Message, Body, Snippet,
// Header or a log line.
func TestEchoedKeyNeverPrintsInAnyEncoding(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 2026))
	for range 15 {
		key := randomKey(rng)
		for form, echo := range keyEchoes(key, rng) {
			bodies := map[string]struct {
				status int
				body   string
			}{
				"JSON message": {401, `"No valid API key provided: ` + strings.ReplaceAll(echo, `"`, `\"`) + `"`},
				"text/plain":   {401, "bad key " + echo},
				"HTML":         {502, "<html><body>key=" + echo + "</body></html>"},
				"2xx invalid":  {200, `{"count":"` + echo + `"}`},
			}
			for name, b := range bodies {
				var logs bytes.Buffer
				rt := transportFunc(func(r *http.Request) (*http.Response, error) {
					resp, _ := reply(b.status, b.body)(r)
					resp.Header.Set("X-Echo", echo)
					return resp, nil
				})
				c, err := NewClient(retryTestBase, key, WithHTTPClient(&http.Client{Transport: rt}), WithRetryMax(0),
					WithLogger(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
				require.NoError(t, err)
				_, err = c.Posts(context.Background(), nil)
				require.Error(t, err)
				var out []string
				for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q"} {
					out = append(out, fmt.Sprintf(verb, err))
				}
				out = append(out, err.Error(), logs.String())
				if apiErr, ok := err.(*APIError); ok { //nolint:errorlint // the client returns it unwrapped
					out = append(out, apiErr.Message, string(apiErr.Body), fmt.Sprint(apiErr.Header))
				}
				if decErr, ok := err.(*DecodeError); ok { //nolint:errorlint // as above
					out = append(out, decErr.Snippet, fmt.Sprint(decErr.Header))
				}
				for _, s := range out {
					for _, k := range []string{key, keyEchoes(key, rng)["json"], echo} {
						if !strings.Contains(s, k) {
							continue
						}
						t.Fatalf("key %q echoed as %s in a %s body shows in %q", key, form, name, s)
					}
				}
			}
		}
	}
}

func TestPlainTextErrorBodyIsTheMessage(t *testing.T) {
	t.Parallel()
	rt := transportFunc(func(r *http.Request) (*http.Response, error) {
		resp, _ := reply(401, "No valid API key provided")(r)
		resp.Header.Set("Content-Type", "text/plain")
		return resp, nil
	})
	c := newScriptedClient(t, rt)
	_, err := c.Posts(context.Background(), nil)
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, "No valid API key provided", apiErr.Message)
	assert.ErrorIs(t, err, ErrUnauthorized)
}

// FuzzKeyMasking: whatever the key (printable ASCII, as API keys are, of at
// least 12 characters), every echo form of it is masked in a text around it.
func FuzzKeyMasking(f *testing.F) {
	for _, k := range []string{"k/+=abcdefghijkl", "sk_live_4eC39HqLyjWDarjtT1zdp7dc", "a b%2F\\u00/\"<>&+=="} {
		f.Add(k, uint64(1))
	}
	f.Fuzz(func(t *testing.T, key string, seed uint64) {
		if len(key) < 12 || strings.IndexFunc(key, func(r rune) bool { return r < ' ' || r > '~' }) >= 0 {
			t.Skip("not a plausible API key")
		}
		m := newMasker(key)
		rng := rand.New(rand.NewPCG(seed, 11))
		for form, echo := range keyEchoes(key, rng) {
			out := m.mask(`{"message":"bad key ` + echo + `!"}`)
			if strings.Contains(out, key) || strings.Contains(out, echo) {
				t.Fatalf("key %q echoed as %s survives: %q", key, form, out)
			}
		}
	})
}

// BenchmarkMask masks a 1 MiB HTML error body without the key (the common
// case) and with it at the end, for a key whose first letter is rare in the
// body and one whose first letter is its most common: the anchored pattern
// tried only where an echo can begin, against the same pattern searched
// unanchored (the baseline: how the masker searched before).
func BenchmarkMask(b *testing.B) {
	page := strings.Repeat("<tr><td>gateway error</td><td>upstream timed out (110: Connection timed out)</td></tr>\n", (1<<20)/85)
	for _, key := range []struct{ name, key string }{{"rare-first-letter", leakKey}, {"common-first-letter", "e" + leakKey[1:]}} {
		m := newMasker(key.key)
		unanchored := regexp.MustCompile(echoPattern(key.key))
		for _, body := range []struct{ name, text string }{{"clean", page}, {"echo", page + url.QueryEscape(key.key)}} {
			b.Run(key.name+"/"+body.name+"/anchored", func(b *testing.B) {
				b.SetBytes(int64(len(body.text)))
				for b.Loop() {
					_ = m.mask(body.text)
				}
			})
			b.Run(key.name+"/"+body.name+"/unanchored-baseline", func(b *testing.B) {
				b.SetBytes(int64(len(body.text)))
				for b.Loop() {
					_ = unanchored.ReplaceAllLiteralString(body.text, redacted)
				}
			})
		}
	}
}

// TestMaskingFindsWhatTheExpressionFinds: masking texts made of echoes of
// random keys in every form, cut and glued with noise, hides exactly what
// the expression of an echo finds: at each place, from the left, the
// longest echo that stands as a token, where any does. 80 keys of 10
// texts (1,000 with UGC_TEST_HEAVY=1).
func TestMaskingFindsWhatTheExpressionFinds(t *testing.T) {
	t.Parallel()
	keys := heavyOr(1000, 80)
	rng := rand.New(rand.NewPCG(18, 2026))
	for range keys {
		key := randomLeakKey(rng)
		m := newMasker(key)
		var echoes []string
		for _, e := range leakForms(key) {
			echoes = append(echoes, e)
		}
		for range 10 {
			var b strings.Builder
			for range 1 + rng.IntN(6) {
				e := echoes[rng.IntN(len(echoes))]
				if rng.IntN(3) == 0 { // a piece of an echo only
					i := rng.IntN(len(e))
					e = e[i : i+rng.IntN(len(e)-i)+1]
				}
				b.WriteString(e)
				b.WriteString(leakKeyAlphabet[rng.IntN(len(leakKeyAlphabet)):][:1])
			}
			text := b.String()
			require.Equal(t, expressionTokens(m, key, text), m.mask(text), "key %q, text %q", key, text)
		}
	}
}

// expressionTokens masks, from the left, the longest echo at each place
// that stands as a token, by the expression: the anchored longest match,
// then each shorter end the whole expression matches to.
func expressionTokens(m *masker, key, text string) string {
	longest := longestEcho(key)
	whole := regexp.MustCompile("^(?:" + echoPattern(key) + ")$")
	var b strings.Builder
	last := 0
	for i := 0; i < len(text); i++ {
		for end := expressionEnd(longest, text, i); end > i; end-- {
			if whole.MatchString(text[i:end]) && m.standsAlone(text, i, end) {
				b.WriteString(text[last:i] + redacted)
				last, i = end, end-1
				break
			}
		}
	}
	return b.String() + text[last:]
}

// BenchmarkNewMasker is the masker's share of NewClient: compiling the
// pattern for a 32-character key.
func BenchmarkNewMasker(b *testing.B) {
	for b.Loop() {
		_ = newMasker("sk_live_4eC39HqLyjWDarjtT1zdp7dc")
	}
}
