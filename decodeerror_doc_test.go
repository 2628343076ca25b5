package ugc

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDecodeErrorIsWhatItsDocSays pins DecodeError's documentation: what
// it lists is an error in every mode; what it says the tolerant reader
// forgives is a deviation on the page, and an error only when strict.
func TestDecodeErrorIsWhatItsDocSays(t *testing.T) {
	t.Parallel()
	const post = `{"id":"p1","createdAt":"2024-01-02T03:04:05Z","media":{"location":"m"},"taggedProducts":[]}`
	page := func(nodes string) string { return `{"count":1,"next":null,"nodes":[` + nodes + `]}` }
	errorsInEveryMode := map[string]string{
		"not JSON (HTML)":     `<html><body>maintenance</body></html>`,
		"cut short JSON":      page(post)[:40],
		"count missing":       `{"next":null,"nodes":[]}`,
		"next missing":        `{"count":0,"nodes":[]}`,
		"nodes missing":       `{"count":0,"next":null}`,
		"nodes null":          `{"count":0,"next":null,"nodes":null}`,
		"nodes of other type": `{"count":0,"next":null,"nodes":{}}`,
		"count of other type": `{"count":{},"next":null,"nodes":[]}`,
		"over the size cap":   page(post + strings.Repeat(" ", 600)),
	}
	forgiven := map[string]string{
		"a post's createdAt missing":         page(strings.Replace(post, `"createdAt":"2024-01-02T03:04:05Z",`, "", 1)),
		"a post's taggedProducts null":       page(strings.Replace(post, `"taggedProducts":[]`, `"taggedProducts":null`, 1)),
		"a post's media of another type":     page(strings.Replace(post, `{"location":"m"}`, `"m"`, 1)),
		"a boolean sent as a string":         page(strings.Replace(post, `"id":"p1"`, `"id":"p1","fromSocial":"true"`, 1)),
		"a timestamp in another form":        page(strings.Replace(post, `2024-01-02T03:04:05Z`, `2024-01-02 03:04:05`, 1)),
		"a node that is not a post (a null)": page(post + `,null`),
	}
	call := func(strict bool, body string) (*Page, error) {
		opts := []Option{WithMaxResponseBytes(512), WithRetryMax(0)}
		if strict {
			opts = append(opts, WithStrictDecoding())
		}
		c := newScriptedClient(t, &scripted{steps: []func(*http.Request) (*http.Response, error){reply(http.StatusOK, body)}}, opts...)
		return c.Posts(context.Background(), nil)
	}
	for name, body := range errorsInEveryMode {
		for _, strict := range []bool{false, true} {
			_, err := call(strict, body)
			var decErr *DecodeError
			assert.True(t, errors.As(err, &decErr), "%s (strict %v): %v", name, strict, err)
		}
	}
	for name, body := range forgiven {
		p, err := call(false, body)
		if assert.NoError(t, err, name) {
			assert.NotEmpty(t, p.Deviations, "%s: forgiven, and said", name)
		}
		_, err = call(true, body)
		var decErr *DecodeError
		require.True(t, errors.As(err, &decErr), "%s (strict): %v", name, err)
	}
}
