package ugc_test

// Error answers through gock; not parallel (see request_test.go).

import (
	"context"
	"errors"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/h2non/gock.v1"

	ugc "github.com/ugcposts/ugc-go"
)

var statusSentinels = []error{ugc.ErrBadRequest, ugc.ErrUnauthorized, ugc.ErrNotFound, ugc.ErrRateLimited, ugc.ErrServer, ugc.ErrInvalidParams, ugc.ErrMisuse}

// TestAPIErrors sends each error status the API (or a proxy in front of it)
// may answer, and checks the *APIError and the one sentinel it matches.
func TestAPIErrors(t *testing.T) {
	const retryMax = 2
	tests := []struct {
		name        string
		status      int
		body        string
		wantTries   int // requests the client makes
		wantMessage string
		wantIs      error
	}{
		{"400 filter message", http.StatusBadRequest, `"Filter type tag is not supported"`, 1, "Filter type tag is not supported", ugc.ErrBadRequest},
		{"400 include message", http.StatusBadRequest, `"Include foo is not supported"`, 1, "Include foo is not supported", ugc.ErrBadRequest},
		{"401 no valid key", http.StatusUnauthorized, `"No valid API key provided"`, 1, "No valid API key provided", ugc.ErrUnauthorized},
		{"404", http.StatusNotFound, `"Gallery not found"`, 1, "Gallery not found", ugc.ErrNotFound},
		{"429 after retries", http.StatusTooManyRequests, `"Too many requests"`, retryMax + 1, "Too many requests", ugc.ErrRateLimited},
		{"500 after retries", http.StatusInternalServerError, `"Something went wrong"`, retryMax + 1, "Something went wrong", ugc.ErrServer},
		{"501 not retried", http.StatusNotImplemented, `"Not implemented"`, 1, "Not implemented", ugc.ErrServer},
		{"503 after retries", http.StatusServiceUnavailable, `"Unavailable"`, retryMax + 1, "Unavailable", ugc.ErrServer},
		{"JSON string with escapes", http.StatusBadRequest, `"Filter value \"x\" is not a valid ID"`, 1, `Filter value "x" is not a valid ID`, ugc.ErrBadRequest},
		{"HTML page from a proxy", http.StatusBadGateway, "<html>\n<head><title>502 Bad Gateway</title></head>\n</html>\n", retryMax + 1,
			"unexpected body: <html> <head><title>502 Bad Gateway</title></head> </html> ", ugc.ErrServer},
		{"empty body", http.StatusForbidden, ``, 1, "(empty body)", nil},
		{"JSON object", http.StatusBadRequest, `{"error":"bad","code":40}`, 1, `unexpected body: {"error":"bad","code":40}`, ugc.ErrBadRequest},
		{"JSON null", http.StatusUnauthorized, `null`, 1, "unexpected body: null", ugc.ErrUnauthorized},
		{"empty JSON string", http.StatusBadRequest, `""`, 1, `unexpected body: ""`, ugc.ErrBadRequest},
		{"whitespace only", http.StatusNotFound, " \r\n", 1, "(empty body)", ugc.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, rec := newGockClient(t, ugc.WithRetryMax(retryMax))
			gock.New(gockHost).Get(exact("/prefix/v1/posts")).
				Times(tt.wantTries).
				Reply(tt.status).BodyString(tt.body)

			page, err := c.Posts(context.Background(), &ugc.PostsParams{Limit: 5})
			require.Error(t, err)
			assert.Nil(t, page)
			assertGockDone(t)
			assert.Len(t, rec.requests(), tt.wantTries)

			var apiErr *ugc.APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, http.MethodGet, apiErr.Method)
			assert.Equal(t, "/prefix/v1/posts", apiErr.Endpoint)
			assert.Equal(t, tt.status, apiErr.StatusCode)
			assert.Equal(t, tt.wantMessage, apiErr.Message)
			assert.Equal(t, []byte(tt.body), apiErr.Body)
			want := "ugc: GET /prefix/v1/posts: " + strconv.Itoa(tt.status) + " " + http.StatusText(tt.status) + ": " + tt.wantMessage
			if tt.wantTries > 1 {
				want += " (after " + strconv.Itoa(tt.wantTries) + " attempts)"
			}
			assert.Equal(t, want, err.Error())
			assert.Equal(t, tt.wantTries, apiErr.Attempts)
			assert.NotContains(t, err.Error(), "giving up")
			assert.NotContains(t, err.Error(), canaryKey)
			for _, s := range statusSentinels {
				assert.Equal(t, s == tt.wantIs, errors.Is(err, s), "errors.Is(err, %v)", s)
			}
		})
	}
}

func TestAPIErrorLongBodyIsSnippet(t *testing.T) {
	c, _ := newGockClient(t, ugc.WithRetryMax(0))
	body := "<!DOCTYPE html>\n<html><body>" + strings.Repeat("<p>Service temporarily unavailable.</p>\r\n", 60) + "</body></html>"
	gock.New(gockHost).Get(exact("/prefix/v1/inbox")).Reply(http.StatusBadGateway).BodyString(body)

	_, err := c.Inbox(context.Background(), nil)
	var apiErr *ugc.APIError
	require.ErrorAs(t, err, &apiErr)
	assertGockDone(t)
	assert.Equal(t, []byte(body), apiErr.Body, "Body keeps the whole body")
	assert.True(t, strings.HasPrefix(apiErr.Message, "unexpected body: <!DOCTYPE html> <html><body><p>Service"), apiErr.Message)
	assert.LessOrEqual(t, len(apiErr.Message), len("unexpected body: ")+120, "the message quotes a short snippet")
	assert.NotContains(t, apiErr.Message, "\n")
	assert.NotContains(t, apiErr.Message, "\r")
}

// TestDecodeErrors: a 200 whose body is not a valid page is a *DecodeError
// naming the endpoint, the status and the start of the body.
func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name      string
		file      string
		body      string // when file is ""
		include   bool
		wantInErr string
		retried   bool // JSON cut short is retried like a body cut short
	}{
		{name: "truncated JSON", file: "invalid_truncated.json", wantInErr: "unexpected end of JSON input", retried: true},
		{name: "HTML page", file: "invalid_html.html", wantInErr: "invalid JSON at offset 0"},
		{name: "nodes null", file: "invalid_nodes_null.json", wantInErr: "nodes: required field is missing"},
		{name: "post without id", file: "invalid_post_missing_id.json", wantInErr: "nodes[0].id"},
		{name: "count a string", file: "invalid_count_string.json", wantInErr: "count"},
		{name: "empty body", body: "", wantInErr: "unexpected end of JSON input", retried: true},
		{name: "JSON string", body: `"ok"`, wantInErr: "a page must be a JSON object"},
		{name: "labels asked for, absent", file: "minimal_post.json", include: true, wantInErr: "nodes[0].labels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Strict: a post that deviates is an error too.
			c, rec := newGockClient(t, ugc.WithRetryMax(2), ugc.WithStrictDecoding())
			body := tt.body
			if tt.file != "" {
				b, err := os.ReadFile("testdata/pages/" + tt.file)
				require.NoError(t, err)
				body = string(b)
			}
			attempts := 1
			if tt.retried {
				attempts = 3
			}
			gock.New(gockHost).Get(exact("/prefix/v1/posts")).Times(attempts).Reply(http.StatusOK).BodyString(body)

			params := &ugc.PostsParams{Limit: 2}
			if tt.include {
				params.Include = []ugc.Include{ugc.IncludeLabels}
			}
			page, err := c.Posts(context.Background(), params)
			require.Error(t, err)
			assert.Nil(t, page, "no page is returned in part")
			assertGockDone(t)
			assert.Len(t, rec.requests(), attempts, "a malformed 200 is not retried, one cut short is")

			var de *ugc.DecodeError
			require.ErrorAs(t, err, &de)
			assert.Equal(t, http.MethodGet, de.Method)
			assert.Equal(t, "/prefix/v1/posts", de.Endpoint)
			assert.Equal(t, http.StatusOK, de.StatusCode)
			want := body
			if len(want) > 120 {
				want = want[:120]
			}
			want = strings.NewReplacer("\n", " ", "\r", " ", "\t", " ").Replace(want)
			assert.Equal(t, want, de.Snippet)
			assert.Contains(t, err.Error(), "ugc: GET /prefix/v1/posts: 200: invalid response: ")
			assert.Contains(t, err.Error(), tt.wantInErr)
			assert.NotContains(t, err.Error(), canaryKey)
			var apiErr *ugc.APIError
			assert.False(t, errors.As(err, &apiErr), "a 200 is not an APIError")
		})
	}
}

func TestContextEndsReturnCtxErrAsIs(t *testing.T) {
	t.Run("cancelled before the call", func(t *testing.T) {
		c, rec := newGockClient(t)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := c.Posts(ctx, nil)
		assert.Equal(t, context.Canceled, err) //nolint:errorlint // the very value is promised
		assert.ErrorIs(t, err, context.Canceled)
		assert.Empty(t, rec.requests(), "no request with a dead context")
		assertGockDone(t)
	})
	t.Run("cancelled while the request is in flight", func(t *testing.T) {
		c, rec := newGockClient(t, ugc.WithRetryMax(3))
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		gock.New(gockHost).Get(exact("/prefix/v1/posts")).
			AddMatcher(func(*http.Request, *gock.Request) (bool, error) { cancel(); return true, nil }).
			Reply(http.StatusInternalServerError).BodyString(`"Something went wrong"`)
		_, err := c.Posts(ctx, nil)
		assert.Equal(t, context.Canceled, err) //nolint:errorlint // the very value is promised
		assert.Len(t, rec.requests(), 1, "no retry after the context ended")
		assertGockDone(t)
	})
	t.Run("deadline passed", func(t *testing.T) {
		c, _ := newGockClient(t)
		ctx, cancel := context.WithDeadline(context.Background(), time.Unix(0, 0))
		defer cancel()
		_, err := c.Inbox(ctx, nil)
		assert.Equal(t, context.DeadlineExceeded, err) //nolint:errorlint // the very value is promised
	})
}

func TestConnectionErrorNamesEndpointNotKey(t *testing.T) {
	c, rec := newGockClient(t, ugc.WithRetryMax(1))
	gock.New(gockHost).Get(exact("/prefix/v1/galleries/g1/posts")).Times(2).
		ReplyError(errors.New("connection reset by peer"))
	_, err := c.GalleryPosts(context.Background(), "g1", nil)
	require.Error(t, err)
	assertGockDone(t)
	assert.Len(t, rec.requests(), 2)
	assert.Contains(t, err.Error(), "ugc: GET /prefix/v1/galleries/g1/posts: ")
	assert.Contains(t, err.Error(), "connection reset by peer")
	assert.NotContains(t, err.Error(), canaryKey)
	for _, s := range statusSentinels {
		assert.NotErrorIs(t, err, s)
	}
}

func TestFinalRateLimitKeepsHeadersRetryAfterAndAttempts(t *testing.T) {
	c, _ := newGockClient(t, ugc.WithRetryMax(2), ugc.WithRetryWait(0, 0))
	gock.New(gockHost).Get(exact("/prefix/v1/posts")).Times(3).
		Reply(http.StatusTooManyRequests).
		SetHeader("Retry-After", "0").
		SetHeader("X-Request-Id", "req-9f2").
		SetHeader("X-Echo", canaryKey).
		BodyString(`"Too many requests"`)

	_, err := c.Posts(context.Background(), nil)
	assertGockDone(t)
	var apiErr *ugc.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.ErrorIs(t, err, ugc.ErrRateLimited)
	assert.Equal(t, 3, apiErr.Attempts)
	assert.Equal(t, time.Duration(0), apiErr.RetryAfter)
	assert.Equal(t, "req-9f2", apiErr.RequestID())
	assert.Equal(t, "[redacted]", apiErr.Header.Get("X-Echo"))
	assert.Equal(t, "ugc: GET /prefix/v1/posts: 429 Too Many Requests (request ID req-9f2): Too many requests (after 3 attempts)", err.Error())
}

func TestRetryAfterOfAFinalAnswer(t *testing.T) {
	c, _ := newGockClient(t, ugc.WithRetryMax(0))
	gock.New(gockHost).Get(exact("/prefix/v1/posts")).
		Reply(http.StatusServiceUnavailable).SetHeader("Retry-After", "120").SetHeader("CF-Ray", "8a1b-AMS").BodyString(`"Unavailable"`)
	_, err := c.Posts(context.Background(), nil)
	var apiErr *ugc.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 2*time.Minute, apiErr.RetryAfter, "a handler can pass it on to its own caller")
	assert.Equal(t, "8a1b-AMS", apiErr.RequestID())
	assert.Equal(t, 1, apiErr.Attempts)
}

// expiringCtx is a context whose deadline passes when expire is called, so a
// test can end a call between two attempts without waiting for a clock.
type expiringCtx struct {
	context.Context
	done chan struct{}
	once sync.Once
}

func (c *expiringCtx) expire()               { c.once.Do(func() { close(c.done) }) }
func (c *expiringCtx) Done() <-chan struct{} { return c.done }
func (c *expiringCtx) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

func TestDeadlineDuringRetriesKeepsTheLastError(t *testing.T) {
	ctx := &expiringCtx{Context: context.Background(), done: make(chan struct{})}
	attempts := 0
	c, _ := newGockClient(t, ugc.WithRetryMax(4), ugc.WithRetryWait(time.Hour, time.Hour),
		ugc.WithAttemptObserver(func(context.Context, ugc.AttemptInfo) {
			attempts++
			ctx.expire() // the deadline passes while the client waits to retry
		}))
	gock.New(gockHost).Get(exact("/prefix/v1/posts")).Reply(http.StatusInternalServerError).
		SetHeader("X-Request-Id", "req-1").BodyString(`"Something went wrong"`)

	_, err := c.Posts(ctx, nil)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	var apiErr *ugc.APIError
	require.ErrorAs(t, err, &apiErr, "the last attempt's error is kept")
	assert.Equal(t, http.StatusInternalServerError, apiErr.StatusCode)
	assert.Equal(t, "req-1", apiErr.RequestID())
	assert.Equal(t, 1, attempts)
	assert.Equal(t, "ugc: GET /prefix/v1/posts: context deadline exceeded during retries; last: 500 Internal Server Error (request ID req-1): Something went wrong", err.Error())
}

func TestLimitAboveMaxIsCapped(t *testing.T) {
	for _, limit := range []int{26, 100, 1 << 30} {
		c, rec := newGockClient(t)
		gock.New(gockHost).Get(exact("/prefix/v1/posts")).MatchParam("limit", exact("25")).Reply(200).BodyString(`{"count":0,"next":null,"nodes":[]}`)
		gock.New(gockHost).Get(exact("/prefix/v1/galleries/g/posts")).MatchParam("limit", exact("25")).Reply(200).BodyString(`{"count":0,"next":null,"nodes":[]}`)
		_, err := c.Posts(context.Background(), &ugc.PostsParams{Limit: limit})
		require.NoError(t, err, limit)
		_, err = c.GalleryPosts(context.Background(), "g", &ugc.GalleryPostsParams{Limit: limit})
		require.NoError(t, err, limit)
		assertGockDone(t)
		assert.Len(t, rec.requests(), 2)
	}
}

func TestGalleryIDWithASpaceIsEscapedAndSent(t *testing.T) {
	c, rec := newGockClient(t)
	gock.New(gockHost).Get("/prefix/v1/galleries/.+/posts").Reply(200).BodyString(`{"count":0,"next":null,"nodes":[]}`)
	_, err := c.GalleryPosts(context.Background(), "summer sale/2025", nil)
	require.NoError(t, err)
	require.Len(t, rec.requests(), 1)
	assert.Equal(t, "/prefix/v1/galleries/summer%20sale%2F2025/posts", rec.requests()[0].URL.EscapedPath())
}

// TestGockAfterNewClient: a client built with no WithHTTPClient before
// gock.New still reaches gock's interception, and after gock.Off the
// network again.
func TestGockAfterNewClient(t *testing.T) {
	defer gock.OffAll()
	c, err := ugc.NewClient(gockBase, canaryKey, ugc.WithRetryMax(0))
	require.NoError(t, err)
	gock.New(gockHost).Get(exact("/prefix/v1/inbox")).Reply(200).BodyString(`{"count":0,"next":null,"nodes":[]}`)
	page, err := c.Inbox(context.Background(), nil)
	require.NoError(t, err)
	assert.Equal(t, 0, page.Count)
	assert.True(t, gock.IsDone())
}
