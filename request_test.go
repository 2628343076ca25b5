package ugc_test

// Tests of the requests the client sends, with gock. gock swaps global state
// (http.DefaultTransport, its mock registry), so no test here is parallel.
//
// What works with gock: hand the client an *http.Client that
// gock.InterceptClient has wrapped, through ugc.WithHTTPClient. The client
// copies that *http.Client when it is built, so the wrapping must happen
// before NewClient, and RestoreClient afterwards does not undo the copy.
// Without WithHTTPClient, the client picks up gock's transport only if
// gock.New (or gock.Intercept) ran before NewClient; see
// TestGockInterceptsDefaultTransport.

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/h2non/gock.v1"

	ugc "github.com/ugcposts/ugc-go"
)

const (
	// canaryKey must never appear in an error, a log line or a formatted value.
	canaryKey = "canary-KEY-123"
	// gockHost and gockBase: a base URL with a path prefix, so code that
	// builds absolute paths fails.
	gockHost = "https://api.example.test"
	gockBase = gockHost + "/prefix"
)

// exact anchors a literal for gock's regular-expression matchers.
func exact(s string) string { return "^" + regexp.QuoteMeta(s) + "$" }

// gockRecorder records every request gock sees, matched or not.
type gockRecorder struct {
	mu   sync.Mutex
	reqs []*http.Request
}

func (r *gockRecorder) requests() []*http.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*http.Request(nil), r.reqs...)
}

// newGockClient returns a client whose requests go to gock, and a recorder
// of those requests. gock is switched on (so no request can reach the
// network even with no mock registered) and fully reset when the test ends.
// Retries are immediate and few, so an unmatched request fails fast.
func newGockClient(t *testing.T, opts ...ugc.Option) (*ugc.Client, *gockRecorder) {
	t.Helper()
	gock.OffAll()
	gock.Intercept()
	rec := &gockRecorder{}
	gock.Observe(func(req *http.Request, _ gock.Mock) {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		rec.reqs = append(rec.reqs, req)
	})
	hc := &http.Client{}
	gock.InterceptClient(hc)
	t.Cleanup(func() {
		gock.RestoreClient(hc)
		gock.Observe(nil)
		gock.OffAll()
	})
	all := append([]ugc.Option{ugc.WithHTTPClient(hc), ugc.WithRetryWait(0, 0), ugc.WithRetryMax(1)}, opts...)
	c, err := ugc.NewClient(gockBase, canaryKey, all...)
	require.NoError(t, err)
	return c, rec
}

// assertGockDone checks that every registered mock was used and no request
// went unmatched.
func assertGockDone(t *testing.T) {
	t.Helper()
	assert.True(t, gock.IsDone(), "pending gock mocks: %d", len(gock.Pending()))
	assert.False(t, gock.HasUnmatchedRequest(), "unmatched requests: %v", gock.GetUnmatchedRequests())
}

// mockPage registers one GET of path (under the base URL's prefix) that
// checks the headers every request must carry and replies with a golden page.
func mockPage(path, page string) *gock.Request {
	req := gock.New(gockHost).
		Get(exact("/prefix"+path)).
		MatchHeader("x-api-key", exact(canaryKey)).
		MatchHeader("User-Agent", exact("ugc-go/"+ugc.Version)).
		MatchHeader("Accept", exact("application/json"))
	req.Reply(http.StatusOK).SetHeader("Content-Type", "application/json").File("testdata/pages/" + page)
	return req
}

func TestRequestPostsAllParams(t *testing.T) {
	c, rec := newGockClient(t)
	mockPage("/v1/posts", "full_post.json").
		MatchParam("limit", exact("10")).
		MatchParam("skip", exact("20")).
		MatchParam("market", exact("de-DE")).
		MatchParam("include", exact("labels")).
		MatchParam("filter", exact(`[{"type":"label","operator":"OR","values":["`+labelA+`","`+labelB+`"]},{"type":"label","operator":"AND","values":["`+labelC+`"]}]`))

	page, err := c.Posts(context.Background(), &ugc.PostsParams{
		Limit:   10,
		Skip:    20,
		Market:  "de-DE",
		Filter:  ugc.Filter{ugc.AnyLabel(labelA, labelB), ugc.AllLabels(labelC)},
		Include: []ugc.Include{ugc.IncludeLabels},
	})
	require.NoError(t, err)
	assertGockDone(t)

	reqs := rec.requests()
	require.Len(t, reqs, 1)
	r := reqs[0]
	assert.Equal(t, http.MethodGet, r.Method)
	assert.Equal(t, "api.example.test", r.URL.Host)
	assert.Equal(t, "/prefix/v1/posts", r.URL.EscapedPath())
	assert.Equal(t,
		"filter=%5B%7B%22type%22%3A%22label%22%2C%22operator%22%3A%22OR%22%2C%22values%22%3A%5B%22"+labelA+"%22%2C%22"+labelB+"%22%5D%7D%2C"+
			"%7B%22type%22%3A%22label%22%2C%22operator%22%3A%22AND%22%2C%22values%22%3A%5B%22"+labelC+"%22%5D%7D%5D"+
			"&include=labels&limit=10&market=de-DE&skip=20",
		r.URL.RawQuery)
	assert.Nil(t, r.Body, "a GET has no body")

	require.Len(t, page.Nodes, 1)
	assert.Equal(t, 42, page.Count)
	assert.Len(t, page.Nodes[0].Labels, 2)
}

// TestRequestQueries pins the exact query string of each call for the
// parameters that matter: defaults, skip 0 omitted, limit 0 sent as 25.
func TestRequestQueries(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name      string
		path      string
		call      func(*ugc.Client) (*ugc.Page, error)
		wantQuery string
	}{
		{"posts nil params", "/v1/posts", func(c *ugc.Client) (*ugc.Page, error) { return c.Posts(ctx, nil) }, "limit=25"},
		{"posts zero params", "/v1/posts", func(c *ugc.Client) (*ugc.Page, error) { return c.Posts(ctx, &ugc.PostsParams{}) }, "limit=25"},
		{"posts limit 1 skip 0", "/v1/posts", func(c *ugc.Client) (*ugc.Page, error) { return c.Posts(ctx, &ugc.PostsParams{Limit: 1}) }, "limit=1"},
		{"posts limit 25 skip 1", "/v1/posts", func(c *ugc.Client) (*ugc.Page, error) {
			return c.Posts(ctx, &ugc.PostsParams{Limit: 25, Skip: 1})
		}, "limit=25&skip=1"},
		{"posts empty filter sends none", "/v1/posts", func(c *ugc.Client) (*ugc.Page, error) {
			return c.Posts(ctx, &ugc.PostsParams{Filter: ugc.Filter{}, Include: []ugc.Include{}})
		}, "limit=25"},
		{"posts market is escaped", "/v1/posts", func(c *ugc.Client) (*ugc.Page, error) {
			return c.Posts(ctx, &ugc.PostsParams{Limit: 2, Market: "fr&x=1"})
		}, "limit=2&market=fr%26x%3D1"},
		{"gallery nil params", "/v1/galleries/abc123/posts", func(c *ugc.Client) (*ugc.Page, error) { return c.GalleryPosts(ctx, "abc123", nil) }, "limit=25"},
		{"gallery all params", "/v1/galleries/abc123/posts", func(c *ugc.Client) (*ugc.Page, error) {
			return c.GalleryPosts(ctx, "abc123", &ugc.GalleryPostsParams{Limit: 3, Skip: 6, Market: "mk1"})
		}, "limit=3&market=mk1&skip=6"},
		{"inbox nil params", "/v1/inbox", func(c *ugc.Client) (*ugc.Page, error) { return c.Inbox(ctx, nil) }, "limit=25"},
		{"inbox sends only limit and skip", "/v1/inbox", func(c *ugc.Client) (*ugc.Page, error) {
			return c.Inbox(ctx, &ugc.InboxParams{Limit: 5, Skip: 10})
		}, "limit=5&skip=10"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, rec := newGockClient(t)
			mockPage(tt.path, "minimal_post.json")
			page, err := tt.call(c)
			require.NoError(t, err)
			assertGockDone(t)
			require.Len(t, rec.requests(), 1)
			r := rec.requests()[0]
			assert.Equal(t, http.MethodGet, r.Method)
			assert.Equal(t, "/prefix"+tt.path, r.URL.EscapedPath())
			assert.Equal(t, tt.wantQuery, r.URL.RawQuery)
			assert.Equal(t, 1, page.Count)
		})
	}
}

func TestRequestUserAgentSuffix(t *testing.T) {
	c, _ := newGockClient(t, ugc.WithUserAgent("  my-app/1.2  "))
	gock.New(gockHost).Get(exact("/prefix/v1/inbox")).
		MatchHeader("User-Agent", exact("ugc-go/"+ugc.Version+" my-app/1.2")).
		Reply(http.StatusOK).File("testdata/pages/empty_page.json")
	_, err := c.Inbox(context.Background(), nil)
	require.NoError(t, err)
	assertGockDone(t)
}

func TestRequestGalleryIDEscaping(t *testing.T) {
	tests := []struct {
		id, wantPath string
	}{
		{"a/b", "/prefix/v1/galleries/a%2Fb/posts"},
		{"a?b#c", "/prefix/v1/galleries/a%3Fb%23c/posts"},
		{"%2F", "/prefix/v1/galleries/%252F/posts"},
		{"ü", "/prefix/v1/galleries/%C3%BC/posts"},
		{"...", "/prefix/v1/galleries/.../posts"},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			c, rec := newGockClient(t)
			gock.New(gockHost).Get(".*").Reply(http.StatusOK).File("testdata/pages/empty_page.json")
			_, err := c.GalleryPosts(context.Background(), tt.id, &ugc.GalleryPostsParams{Limit: 1})
			require.NoError(t, err)
			assertGockDone(t)
			require.Len(t, rec.requests(), 1)
			r := rec.requests()[0]
			assert.Equal(t, tt.wantPath, r.URL.EscapedPath())
			assert.Equal(t, "/prefix/v1/galleries/"+tt.id+"/posts", r.URL.Path)
			assert.Equal(t, "limit=1", r.URL.RawQuery)
		})
	}
}

// TestRequestBadInputSendsNothing checks that bad input is refused before
// any request: gock, intercepting with no mock, records nothing.
func TestRequestBadInputSendsNothing(t *testing.T) {
	var nilCtx context.Context // a nil context, as a careless caller passes it
	ctx := context.Background()
	tests := []struct {
		name    string
		call    func(*ugc.Client) (*ugc.Page, error)
		wantMsg string
		want    error // ErrInvalidParams: the caller's input; ErrMisuse: the program's
	}{
		{"posts limit -1", func(c *ugc.Client) (*ugc.Page, error) { return c.Posts(ctx, &ugc.PostsParams{Limit: -1}) }, "limit -1", ugc.ErrMisuse},
		{"posts with a nil Option", func(c *ugc.Client) (*ugc.Page, error) { return c.Posts(ctx, nil, nil) }, "nil Option", ugc.ErrMisuse},
		{"posts with the key header", func(c *ugc.Client) (*ugc.Page, error) {
			return c.Posts(ctx, nil, ugc.WithHeader("X-API-KEY", "other"))
		}, "x-api-key", ugc.ErrMisuse},
		{"posts with negative call retries", func(c *ugc.Client) (*ugc.Page, error) { return c.Posts(ctx, nil, ugc.WithRetryMax(-1)) }, "negative", ugc.ErrMisuse},
		{"posts skip -1", func(c *ugc.Client) (*ugc.Page, error) { return c.Posts(ctx, &ugc.PostsParams{Skip: -1}) }, "skip -1", ugc.ErrMisuse},
		{"posts include foo", func(c *ugc.Client) (*ugc.Page, error) {
			return c.Posts(ctx, &ugc.PostsParams{Include: []ugc.Include{"foo"}})
		}, `include "foo"`, ugc.ErrMisuse},
		{"posts include empty", func(c *ugc.Client) (*ugc.Page, error) {
			return c.Posts(ctx, &ugc.PostsParams{Include: []ugc.Include{""}})
		}, `include ""`, ugc.ErrMisuse},
		{"posts invalid filter", func(c *ugc.Client) (*ugc.Page, error) {
			return c.Posts(ctx, &ugc.PostsParams{Filter: ugc.Filter{ugc.AnyLabel("not-an-id")}})
		}, `Filter value "not-an-id" is not a valid ID`, ugc.ErrInvalidParams},
		{"posts nil ctx", func(c *ugc.Client) (*ugc.Page, error) { return c.Posts(nilCtx, nil) }, "nil context", ugc.ErrMisuse},
		{"gallery empty ID", func(c *ugc.Client) (*ugc.Page, error) { return c.GalleryPosts(ctx, "", nil) }, "empty gallery ID", ugc.ErrInvalidParams},
		{"gallery .", func(c *ugc.Client) (*ugc.Page, error) { return c.GalleryPosts(ctx, ".", nil) }, `"."`, ugc.ErrInvalidParams},
		{"gallery ..", func(c *ugc.Client) (*ugc.Page, error) { return c.GalleryPosts(ctx, "..", nil) }, `".."`, ugc.ErrInvalidParams},
		{"gallery newline", func(c *ugc.Client) (*ugc.Page, error) { return c.GalleryPosts(ctx, "\n", nil) }, `"\n"`, ugc.ErrInvalidParams},
		{"gallery skip -1", func(c *ugc.Client) (*ugc.Page, error) {
			return c.GalleryPosts(ctx, "abc", &ugc.GalleryPostsParams{Skip: -1})
		}, "skip -1", ugc.ErrMisuse},
		{"gallery nil ctx", func(c *ugc.Client) (*ugc.Page, error) { return c.GalleryPosts(nilCtx, "abc", nil) }, "nil context", ugc.ErrMisuse},
		{"inbox limit -1", func(c *ugc.Client) (*ugc.Page, error) { return c.Inbox(ctx, &ugc.InboxParams{Limit: -1}) }, "limit -1", ugc.ErrMisuse},
		{"inbox skip -1", func(c *ugc.Client) (*ugc.Page, error) { return c.Inbox(ctx, &ugc.InboxParams{Skip: -1}) }, "skip -1", ugc.ErrMisuse},
		{"inbox nil ctx", func(c *ugc.Client) (*ugc.Page, error) { return c.Inbox(nilCtx, nil) }, "nil context", ugc.ErrMisuse},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, rec := newGockClient(t)
			var page *ugc.Page
			var err error
			require.NotPanics(t, func() { page, err = tt.call(c) })
			require.Error(t, err)
			assert.Nil(t, page)
			assert.ErrorIs(t, err, tt.want)
			other := ugc.ErrMisuse
			if tt.want == ugc.ErrMisuse { //nolint:errorlint // which sentinel the row names
				other = ugc.ErrInvalidParams
			}
			assert.NotErrorIs(t, err, other, "one sentinel, never both")
			assert.Contains(t, err.Error(), tt.wantMsg)
			assert.NotContains(t, err.Error(), canaryKey)
			assert.Empty(t, rec.requests(), "no request may be sent")
			assertGockDone(t)
		})
	}
}

func TestRequestInvalidFilterIsFilterError(t *testing.T) {
	c, rec := newGockClient(t)
	_, err := c.Posts(context.Background(), &ugc.PostsParams{Filter: ugc.Filter{{Operator: "NOR", LabelIDs: []string{labelA}}}})
	var fe *ugc.FilterError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "Filter operator NOR is not supported", fe.Message)
	assert.Empty(t, rec.requests())
}

// TestGockInterceptsDefaultTransport shows the other way gock works: with no
// WithHTTPClient, a client built after gock.New uses gock's transport.
func TestGockInterceptsDefaultTransport(t *testing.T) {
	gock.OffAll()
	t.Cleanup(gock.OffAll)
	gock.New(gockHost).Get(exact("/prefix/v1/inbox")).
		MatchHeader("x-api-key", exact(canaryKey)).
		Reply(http.StatusOK).File("testdata/pages/minimal_post.json")
	c, err := ugc.NewClient(gockBase, canaryKey, ugc.WithRetryWait(0, 0), ugc.WithRetryMax(1))
	require.NoError(t, err)
	page, err := c.Inbox(context.Background(), &ugc.InboxParams{Limit: 1})
	require.NoError(t, err)
	assert.Equal(t, 1, page.Count)
	assertGockDone(t)
}

func TestNewClientAccepts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, base string
		opts       []ugc.Option
		wantBase   string
	}{
		{"https with prefix", "https://api.example.test/prefix", nil, "https://api.example.test/prefix"},
		{"trailing slash trimmed", "https://api.example.test/prefix/", nil, "https://api.example.test/prefix"},
		{"surrounding spaces trimmed", " https://api.example.test ", nil, "https://api.example.test"},
		{"http loopback IPv4 with port", "http://127.0.0.1:1", nil, "http://127.0.0.1:1"},
		{"http localhost", "http://localhost", nil, "http://localhost"},
		{"http loopback IPv6", "http://[::1]:8080", nil, "http://[::1]:8080"},
		{"plain http with WithInsecureHTTP", "http://example.com", []ugc.Option{ugc.WithInsecureHTTP()}, "http://example.com"},
		{"all options", "https://api.example.test", []ugc.Option{
			ugc.WithHTTPClient(&http.Client{}), ugc.WithRetryMax(0), ugc.WithRetryWait(0, 0), ugc.WithAttemptTimeout(0),
			ugc.WithLogger(slog.New(slog.DiscardHandler)), ugc.WithUserAgent("x/1"), ugc.WithMaxResponseBytes(1),
		}, "https://api.example.test"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := ugc.NewClient(tt.base, canaryKey, tt.opts...)
			require.NoError(t, err)
			assert.Equal(t, tt.wantBase, c.BaseURL().String())
		})
	}
}

func TestNewClientErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, base, key string
		opts            []ugc.Option
		wantInErr       string
	}{
		{"empty key", gockBase, "", nil, "empty API key"},
		{"blank key", gockBase, "  \t", nil, "empty API key"},
		{"key with newline", gockBase, canaryKey + "\n", nil, "control character"},
		{"empty URL", "", canaryKey, nil, "absolute"},
		{"relative URL", "/v1", canaryKey, nil, "absolute"},
		{"host without scheme", "api.example.test", canaryKey, nil, "absolute"},
		{"ftp", "ftp://x", canaryKey, nil, "scheme https"},
		{"no host", "https://", canaryKey, nil, "no host"},
		{"plain http to a remote host", "http://example.com", canaryKey, nil, "WithInsecureHTTP"},
		{"plain http to a private address", "http://10.0.0.1", canaryKey, nil, "WithInsecureHTTP"},
		{"query", "https://api.example.test/prefix?x=1", canaryKey, nil, "query or fragment"},
		{"empty query", "https://api.example.test/prefix?", canaryKey, nil, "query or fragment"},
		{"fragment", "https://api.example.test/prefix#frag", canaryKey, nil, "query or fragment"},
		{"user info", "https://user:secret@api.example.test", canaryKey, nil, "user info"},
		{"port out of range", "https://api.example.test:99999", canaryKey, nil, "port"},
		{"port zero", "https://api.example.test:0", canaryKey, nil, "port"},
		{"malformed", "https://api.example.test/%zz", canaryKey, nil, "malformed"},
		{"negative retry", gockBase, canaryKey, []ugc.Option{ugc.WithRetryMax(-1)}, "WithRetryMax"},
		{"min wait above max", gockBase, canaryKey, []ugc.Option{ugc.WithRetryWait(2, 1)}, "WithRetryWait"},
		{"negative wait", gockBase, canaryKey, []ugc.Option{ugc.WithRetryWait(-1, 0)}, "WithRetryWait"},
		{"nil http client", gockBase, canaryKey, []ugc.Option{ugc.WithHTTPClient(nil)}, "WithHTTPClient"},
		{"nil logger", gockBase, canaryKey, []ugc.Option{ugc.WithLogger(nil)}, "WithLogger"},
		{"negative attempt timeout", gockBase, canaryKey, []ugc.Option{ugc.WithAttemptTimeout(-1)}, "WithAttemptTimeout"},
		{"zero max body", gockBase, canaryKey, []ugc.Option{ugc.WithMaxResponseBytes(0)}, "WithMaxResponseBytes"},
		{"user agent with line break", gockBase, canaryKey, []ugc.Option{ugc.WithUserAgent("a\r\nX-Evil: 1")}, "WithUserAgent"},
		{"nil option", gockBase, canaryKey, []ugc.Option{nil}, "nil Option"},
		// Callers swap the two strings; the key must not come back in the error.
		{"key and URL swapped", canaryKey, gockBase, nil, "absolute"},
		{"key in the URL's query", gockBase + "?x-api-key=" + canaryKey, canaryKey, nil, "query"},
		{"key as the URL's password", "https://u:" + canaryKey + "@api.example.test", canaryKey, nil, "user info"},
		{"key in a malformed URL", "https://api.example.test/" + canaryKey + "%zz", canaryKey, nil, "malformed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := ugc.NewClient(tt.base, tt.key, tt.opts...)
			require.Error(t, err)
			assert.Nil(t, c)
			assert.Contains(t, err.Error(), tt.wantInErr)
			assert.True(t, strings.HasPrefix(err.Error(), "ugc: NewClient: "), err.Error())
			assert.NotContains(t, err.Error(), canaryKey)
			assert.NotContains(t, strings.ToLower(err.Error()), strings.ToLower(canaryKey))
		})
	}
}

func TestClientFormatHidesKey(t *testing.T) {
	t.Parallel()
	c, err := ugc.NewClient(gockBase, canaryKey)
	require.NoError(t, err)
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x"} {
		s := fmt.Sprintf(verb, c)
		assert.NotContains(t, s, canaryKey, verb)
		assert.NotContains(t, s, "63616e617279", verb+": hex of the key") // hex("canary")
		assert.Contains(t, s, "api.example.test", verb)
	}
}
