package ugc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Fuzz targets. `go test` runs their seed corpora (testdata/pages, the
// filter cases below and testdata/fuzz/<Target>); run one for real with
//
//	go test -run '^$' -fuzz '^FuzzDecodePage$' -fuzztime 5m .

// addPageSeeds adds every golden page of testdata/pages to f.
func addPageSeeds(f *testing.F) {
	files, err := filepath.Glob("testdata/pages/*")
	require.NoError(f, err)
	require.NotEmpty(f, files)
	for _, name := range files {
		b, err := os.ReadFile(name)
		require.NoError(f, err)
		f.Add(b)
	}
}

// FuzzDecodePage: any body decodes to a page or an error, never a panic;
// whatever the tolerant reader reads as a page is valid JSON by
// encoding/json's judgement (after a byte-order mark, which it skips; JSON
// cut short is an error, retried); every post of a page has an id; and a
// page the strict client accepts (no deviation) holds exactly what
// encoding/json reads from the same bytes into the same types.
func FuzzDecodePage(f *testing.F) {
	addPageSeeds(f)
	for _, s := range []string{"\xef\xbb\xbf{\"count\":1,\"next\":null,\"nodes\":[]}", `{"count":2.5e1,"next":null,"nodes":[{"id":"a","id":"b","fromSocial":"t\ru"}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, labels := range []bool{false, true} {
			page, err := decodePage(body, labels, nil)
			if err != nil {
				continue
			}
			require.True(t, json.Valid(bytes.TrimPrefix(body, []byte(byteOrderMark))), "a page is valid JSON")
			for i := range page.Nodes {
				require.NotEmpty(t, page.Nodes[i].ID, "every post has an id")
				require.NotNil(t, page.Nodes[i].TaggedProducts)
			}
			if len(page.Deviations) > 0 {
				continue
			}
			var want struct {
				Count int     `json:"count"`
				Next  *string `json:"next"`
				Nodes []Post  `json:"nodes"`
			}
			err = json.Unmarshal(body, &want)
			var timeErr *time.ParseError
			if errors.As(err, &timeErr) {
				continue // an ISO 8601 timestamp beyond RFC 3339: encoding/json reads only RFC 3339
			}
			require.NoError(t, err, "encoding/json reads what the strict decoder accepts")
			next := ""
			if want.Next != nil {
				next = *want.Next
			}
			assert.Equal(t, want.Count, page.Count)
			assert.Equal(t, next, page.Next)
			assert.Equal(t, want.Nodes, page.Nodes)
		}
	})
}

// FuzzResponse sends any status and body through the whole client: the
// result is a page or an *APIError or a *DecodeError, never a panic, and the
// error never shows the key.
func FuzzResponse(f *testing.F) {
	addPageSeeds(f)
	for _, s := range []string{`"No valid API key provided"`, `"Something went wrong"`, `<html>bad gateway</html>`, ``, `{"message":"x"}`, `"\u0000\ufffd"`} {
		f.Add([]byte(s))
	}
	const key = "fuzz-canary-key"
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, status := range []int{200, 400, 401, 404, 500} {
			rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
				return &http.Response{StatusCode: status, Header: http.Header{}, Body: io.NopCloser(bytes.NewReader(body)), Request: r}, nil
			})
			c, err := NewClient("https://api.example.test/prefix", key, WithHTTPClient(&http.Client{Transport: rt}), WithRetryMax(0))
			require.NoError(t, err)
			page, err := c.Posts(context.Background(), &PostsParams{Include: []Include{IncludeLabels}})
			var apiErr *APIError
			var decErr *DecodeError
			switch {
			case err == nil:
				require.Equal(t, 200, status)
				for i := range page.Nodes {
					require.NotNil(t, page.Nodes[i].Labels, "include=labels: every post has labels")
				}
			case errors.As(err, &apiErr):
				assert.Equal(t, status, apiErr.StatusCode)
				assert.True(t, utf8.ValidString(apiErr.Message))
			case errors.As(err, &decErr):
				assert.Equal(t, 200, status)
				assert.LessOrEqual(t, len(decErr.Snippet), snippetLen)
			default:
				t.Fatalf("unexpected error type %T: %v", err, err)
			}
			if err != nil {
				assert.NotContains(t, err.Error(), key)
			}
		}
	})
}

// FuzzAPIErrorBody: any error body gives a printable, bounded message.
func FuzzAPIErrorBody(f *testing.F) {
	for _, s := range []string{`"No valid API key provided"`, `"Something went wrong"`, `"Filter value \"x\" is not a valid ID"`, `<!DOCTYPE html><html><body>502 Bad Gateway</body></html>`, ``, `null`, `{"error":"x"}`, "\"a\x00b\"", "\xff\xfe"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		e := newAPIError(http.MethodGet, "/v1/posts", &http.Response{StatusCode: 500, Header: http.Header{}}, body, newMasker("fuzz-key"))
		require.True(t, errors.Is(e, ErrServer))
		msg := e.Error()
		assert.True(t, utf8.ValidString(msg))
		var s string
		if json.Unmarshal(body, &s) != nil {
			assert.LessOrEqual(t, len(e.Message), max(maxPlainMessage, len("unexpected body: ")+snippetLen+2*len("\ufffd")))
			assert.False(t, strings.ContainsAny(e.Message, "\n\r\x00"), "a snippet is one printable line")
		}
	})
}

// filterSeeds are filter values across every rule of contract §7.
var filterSeeds = []string{
	``, `[]`, `{}`, `[{`, `abc`, `[] x`, `null`, `[null]`, `[5]`,
	`[{"type":"label","operator":"OR","values":["5f0c1a2b3c4d5e6f7a8b9c0d"]}]`,
	`[{"type":"label","operator":"AND","values":["5f0c1a2b3c4d5e6f7a8b9c0d","5F0C1A2B3C4D5E6F7A8B9C0E"]},{"type":"label","operator":"OR","values":[]}]`,
	`[{"type":"tag","operator":"OR","values":[]}]`, `[{"type":"label","operator":"or","values":[]}]`,
	`[{"operator":"OR","values":[]}]`, `[{"type":"label","values":[]}]`, `[{"type":"label","operator":"OR"}]`,
	`[{"type":"label","operator":"OR","values":"x"}]`, `[{"type":"label","operator":"OR","values":[1,{"a":2}]}]`,
	`[{"type":"","operator":0,"values":false}]`, `[{"type":"label","operator":"OR","values":["zz"]}]`,
}

// filterMessages are the contract's filter messages, as prefixes.
var filterMessages = []string{
	"Unexpected token in JSON at position ", "Filter value \"", "Filter type ", "Filter operator ",
	"Type is required", "Operator is required", "Values is required",
	"Filter param needs to be an array", "Filter values must be an array",
}

// FuzzParseFilter: any raw filter parses to a filter that re-encodes to an
// equal one, or to a *FilterError carrying one of the contract's messages.
func FuzzParseFilter(f *testing.F) {
	for _, s := range filterSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		flt, err := ParseFilter(raw)
		if err != nil {
			var fe *FilterError
			require.ErrorAs(t, err, &fe)
			known := false
			for _, m := range filterMessages {
				known = known || strings.HasPrefix(fe.Message, m)
			}
			assert.True(t, known, "message %q is not one of the contract's", fe.Message)
			assert.ErrorIs(t, err, ErrInvalidParams)
			return
		}
		require.NoError(t, flt.Validate())
		again, err := ParseFilter(flt.String())
		require.NoError(t, err)
		if len(flt) == 0 {
			assert.Empty(t, again)
		} else {
			assert.Equal(t, flt, again)
		}
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
