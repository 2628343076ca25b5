package ugc

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// commentPage is a page of one post whose comment is the JSON string raw.
func commentPage(raw string) []byte {
	return []byte(`{"count":1,"next":null,"nodes":[{"id":"p1","createdAt":"2024-05-01T12:00:00Z","media":{"location":"m"},"taggedProducts":[],"comment":` + raw + `}]}`)
}

// TestAReplacedStringIsADeviation: a string the reader had to change
// (invalid UTF-8, a \u escape of a surrogate that is not half of a pair) is
// kept as encoding/json reads it, with U+FFFD, and recorded as a deviation
// that says what was replaced and where; a string that holds U+FFFD as sent
// (raw or escaped), a surrogate pair, or other escapes is no deviation.
func TestAReplacedStringIsADeviation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, raw, kept string }{
		{"invalid UTF-8", "\"caf\xff\"", `U+FFFD in place of invalid UTF-8 (byte 0xff at byte 3)`},
		{"invalid UTF-8 and escapes", "\"\\n\xe9t\xe9\"", `U+FFFD in place of invalid UTF-8 (byte 0xe9 at byte 2)`},
		{"a lone high surrogate", `"\ud800"`, `U+FFFD in place of a lone surrogate (\ud800 at byte 0)`},
		{"a lone low surrogate", `"ab\uDC00"`, `U+FFFD in place of a lone surrogate (\udc00 at byte 2)`},
		{"a high surrogate before another escape", `"\ud83d\u0041"`, `U+FFFD in place of a lone surrogate (\ud83d at byte 0)`},
		{"a pair cut by a letter", `"\ud83dx\ude00"`, `U+FFFD in place of a lone surrogate (\ud83d at byte 0)`},
		{"both", "\"\\udfff\xc3\"", `U+FFFD in place of invalid UTF-8 (byte 0xc3 at byte 6) and a lone surrogate (\udfff at byte 0)`},
		{"a surrogate pair", `"\ud83d\ude00 smile"`, ""},
		{"U+FFFD sent as it is", "\"\xef\xbf\xbd\"", ""},
		{"U+FFFD sent escaped", `"\ufffd"`, ""},
		{"escapes", `"a\n\"b\\\/\u00e9"`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			page, err := decodePage(commentPage(tc.raw), false, nil)
			require.NoError(t, err)
			var want string
			require.NoError(t, json.Unmarshal([]byte(tc.raw), &want))
			require.Len(t, page.Nodes, 1)
			assert.Equal(t, want, page.Nodes[0].Comment, "kept as encoding/json reads it")
			if tc.kept == "" {
				assert.Empty(t, page.Deviations)
				return
			}
			require.Len(t, page.Deviations, 1)
			d := page.Deviations[0]
			assert.Equal(t, "nodes[0].comment", d.Path)
			assert.Equal(t, "p1", d.PostID)
			assert.Equal(t, tc.kept, d.Kept)
		})
	}
	t.Run("in the envelope", func(t *testing.T) {
		t.Parallel()
		page, err := decodePage([]byte(`{"count":0,"next":"https://h/v1/posts?skip=\ud800","nodes":[]}`), false, nil)
		require.NoError(t, err)
		require.Len(t, page.Deviations, 1)
		assert.Equal(t, -1, page.Deviations[0].Index)
		assert.Equal(t, "next", page.Deviations[0].Path)
	})
	t.Run("not in a member's name, which is not kept", func(t *testing.T) {
		t.Parallel()
		page, err := decodePage([]byte(`{"count":0,"next":null,"nodes":[],"\ud800":1}`), false, nil)
		require.NoError(t, err)
		assert.Empty(t, page.Deviations)
	})
}

// stringPiece is a piece of a generated JSON string, and whether the
// reader must replace something in it.
type stringPiece struct {
	raw      string
	replaced bool
}

var stringPieces = []stringPiece{
	{"plain text ", false}, {"é", false}, {"🌅", false}, {`\u00e9`, false}, {`\ud83c\udf05`, false},
	{"\xef\xbf\xbd", false}, {`\ufffd`, false}, {`\n`, false}, {`\"`, false}, {`\\`, false},
	{"\xff", true}, {"\xc3", true}, {"\xed\xa0\x80", true}, {`\ud800.`, true}, {`\udc00`, true}, {`\uDBFF\u0041`, true},
}

// TestReplacedStringsAreFoundInGeneratedStrings: over generated strings of
// pieces read as sent and pieces that must be replaced, the reader records
// a deviation exactly when a piece of the second kind is in the string,
// and always keeps what encoding/json keeps.
func TestReplacedStringsAreFoundInGeneratedStrings(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(26, 12))
	for range 2000 {
		var b strings.Builder
		replaced := false
		for range rng.IntN(6) {
			p := stringPieces[rng.IntN(len(stringPieces))]
			b.WriteString(p.raw)
			replaced = replaced || p.replaced
		}
		raw := `"` + b.String() + `"`
		page, err := decodePage(commentPage(raw), false, nil)
		require.NoError(t, err, raw)
		var want string
		require.NoError(t, json.Unmarshal([]byte(raw), &want))
		require.Equal(t, want, page.Nodes[0].Comment, "%q", raw)
		require.Equal(t, replaced, len(page.Deviations) == 1, "%q: %v", raw, page.Deviations)
	}
}
