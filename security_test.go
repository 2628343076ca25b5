package ugc_test

// The API key stays home: it is sent only to the base URL's origin, and no
// formatted value, error or log line ever shows it. request_test.go covers
// fmt of a *Client and NewClient's errors; retry_test.go one cross-origin
// redirect and the log of one call; pagination_test.go next links to
// another origin. This file covers the rest.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
)

// secretKey is the canary: no output of the SDK may contain it.
const secretKey = "canary-7f3a9c-SECRET"

// assertNoKey checks s, case-insensitively, for the key and for its
// hexadecimal form (what %x of a string holding it would print).
func assertNoKey(t *testing.T, s string, msgAndArgs ...any) {
	t.Helper()
	lower := strings.ToLower(s)
	assert.NotContains(t, lower, strings.ToLower(secretKey), msgAndArgs...)
	assert.NotContains(t, lower, fmt.Sprintf("%x", secretKey), msgAndArgs...)
}

func TestClientValueAndOptionsNeverFormatTheKey(t *testing.T) {
	t.Parallel()
	opts := []ugc.Option{ugc.WithRetryMax(2), ugc.WithRetryWait(0, 0), ugc.WithUserAgent("soak/1"), ugc.WithInsecureHTTP()}
	c, err := ugc.NewClient("https://api.example.test/prefix", secretKey, opts...)
	require.NoError(t, err)
	// The Client value, not the pointer: it has no Format method of its
	// own, so fmt prints its fields. Reached through reflect because vet
	// rightly objects to copying a struct holding a sync.Pool.
	value := reflect.ValueOf(c).Elem().Interface()
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x"} {
		assertNoKey(t, fmt.Sprintf(verb, c), "*Client with "+verb)
		assertNoKey(t, fmt.Sprintf(verb, value), "Client with "+verb)
		assertNoKey(t, fmt.Sprintf(verb, opts), "options with "+verb)
	}
	assert.Contains(t, fmt.Sprintf("%v", c), "api.example.test", "the control: the client prints something")
}

// keySeer is a loopback server that records every request it gets and the
// key it carried.
type keySeer struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []string // "path key"
}

func newKeySeer(t *testing.T, h http.HandlerFunc) *keySeer {
	t.Helper()
	s := &keySeer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.reqs = append(s.reqs, r.URL.Path+" "+r.Header.Get("x-api-key"))
		s.mu.Unlock()
		if h != nil {
			h(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *keySeer) seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.reqs...)
}

// localhostURL names the same server by "localhost": another origin for
// the client, though the same socket.
func localhostURL(t *testing.T, s *httptest.Server) string {
	t.Helper()
	u := strings.Replace(s.URL, "127.0.0.1", "localhost", 1)
	require.NotEqual(t, s.URL, u)
	return u
}

// pageJSON is a one-post page with the given next URL ("" for null). It
// runs in server handlers, so it reports with assert.
func pageJSON(t *testing.T, id, next string) []byte {
	b, err := ugc.Page{Count: 2, Next: next, Nodes: []ugc.Post{testPost(id)}}.MarshalJSON()
	assert.NoError(t, err)
	return b
}

func TestErrorsNeverHoldTheKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// B is another origin; it must never be called, with or without a key.
	b := newKeySeer(t, nil)
	bURL := localhostURL(t, b.Server)

	tests := []struct {
		name string
		err  func(t *testing.T) error
		want any // a sentinel for errors.Is, or a pointer for errors.As
	}{
		{"APIError 400", func(t *testing.T) error {
			c := ugctest.NewServer(t, ugctest.WithAPIKey(secretKey)).Client()
			_, err := c.Posts(ctx, &ugc.PostsParams{Market: "nowhere"})
			return err
		}, ugc.ErrBadRequest},
		{"APIError 401", func(t *testing.T) error {
			srv := ugctest.NewServer(t)
			c, err := ugc.NewClient(srv.URL, secretKey)
			require.NoError(t, err)
			_, err = c.Posts(ctx, nil)
			return err
		}, ugc.ErrUnauthorized},
		{"APIError 500", func(t *testing.T) error {
			srv := ugctest.NewServer(t, ugctest.WithAPIKey(secretKey))
			srv.FailNext(2, ugctest.InternalError())
			_, err := srv.Client(ugc.WithRetryMax(1)).Inbox(ctx, nil)
			return err
		}, ugc.ErrServer},
		{"DecodeError of a truncated body", func(t *testing.T) error {
			srv := ugctest.NewServer(t, ugctest.WithAPIKey(secretKey))
			srv.FailNext(1, ugctest.TruncateBody())
			_, err := srv.Client(ugc.WithRetryMax(0)).GalleryPosts(ctx, "summer", nil)
			return err
		}, new(*ugc.DecodeError)},
		{"DecodeError of an oversized body", func(t *testing.T) error {
			srv := ugctest.NewServer(t, ugctest.WithAPIKey(secretKey))
			_, err := srv.Client(ugc.WithMaxResponseBytes(100)).Posts(ctx, nil)
			return err
		}, new(*ugc.DecodeError)},
		{"FilterError", func(t *testing.T) error {
			srv := ugctest.NewServer(t, ugctest.WithAPIKey(secretKey))
			_, err := srv.Client().Posts(ctx, &ugc.PostsParams{Filter: ugc.Filter{ugc.AnyLabel("not-an-id")}})
			return err
		}, new(*ugc.FilterError)},
		{"ErrBadNext: a next link to another origin", func(t *testing.T) error {
			srv := ugctest.NewServer(t, ugctest.WithAPIKey(secretKey))
			_, err := srv.Client().NextPage(ctx, bURL+"/v1/posts?limit=25&skip=25")
			return err
		}, ugc.ErrBadNext},
		{"DriftError", func(t *testing.T) error {
			srv := ugctest.NewServer(t, ugctest.WithAPIKey(secretKey), ugctest.WithDataset(ugctest.Generate(30, 8)))
			extra := ugctest.Generate(31, 9).Materialize().Posts[30:]
			for _, err := range srv.Client().AllPosts(ctx, &ugc.PostsParams{Limit: 10}, ugc.WithDrift(ugc.DriftFail), ugc.WithReadAhead(0)) {
				if err != nil {
					return err
				}
				if extra != nil {
					srv.InsertPosts(0, extra...)
					extra = nil
				}
			}
			return nil
		}, ugc.ErrDrift},
		{"transport error: connection refused", func(t *testing.T) error {
			closed := httptest.NewServer(http.NotFoundHandler())
			closed.Close()
			c, err := ugc.NewClient(closed.URL, secretKey, ugc.WithRetryMax(1), ugc.WithRetryWait(0, 0))
			require.NoError(t, err)
			_, err = c.Posts(ctx, &ugc.PostsParams{Market: "de-de"})
			return err
		}, nil},
		{"refused redirect", func(t *testing.T) error {
			a := newKeySeer(t, func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, bURL+r.URL.RequestURI(), http.StatusFound)
			})
			c, err := ugc.NewClient(a.URL, secretKey, ugc.WithRetryWait(0, 0))
			require.NoError(t, err)
			_, err = c.Posts(ctx, nil)
			return err
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.err(t)
			require.Error(t, err)
			switch want := tt.want.(type) {
			case error:
				assert.ErrorIs(t, err, want)
			case nil:
			default:
				assert.ErrorAs(t, err, want)
			}
			for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q"} {
				assertNoKey(t, fmt.Sprintf(verb, err), verb+": "+err.Error())
			}
		})
	}
	t.Cleanup(func() { assert.Empty(t, b.seen(), "the other origin got requests") })
}

func TestDebugLogOfAWalkWithRetriesNeverHoldsTheKey(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&lockedWriter{mu: &mu, w: &buf}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv := ugctest.NewServer(t, ugctest.WithAPIKey(secretKey), ugctest.WithDataset(ugctest.Generate(500, 5)))
	srv.FailFraction(0.2, 5, ugctest.InternalError(), ugctest.RateLimit("0"), ugctest.DropConnection(), ugctest.TruncateBody())
	c := srv.Client(ugc.WithLogger(logger), ugc.WithRetryMax(10))
	for _, mode := range [][]ugc.Option{{ugc.WithReadAhead(0)}, {ugc.WithReadAhead(4)}} {
		ids, err := collectIDs(c.AllPosts(context.Background(), &ugc.PostsParams{Limit: 20, Market: "fr-fr"}, mode...))
		require.NoError(t, err)
		require.Len(t, ids, 500)
	}
	srv.ClearFaults()
	srv.FailNext(11, ugctest.InternalError())
	_, err := c.Inbox(context.Background(), nil) // fails after its 10 retries
	require.ErrorIs(t, err, ugc.ErrServer)

	mu.Lock()
	out := buf.String()
	mu.Unlock()
	require.Contains(t, out, "ugc: attempt failed, retrying", "the log saw retries")
	require.Contains(t, out, "/v1/posts")
	assertNoKey(t, out)
}

// lockedWriter serialises writes from the goroutines of a parallel walk.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestRedirectsNeverCarryTheKeyToAnotherOrigin: A is the API on
// 127.0.0.1:portA; B is localhost:portB, or 127.0.0.1:portB. A redirect
// (of any kind, direct or after a same-origin hop, absolute or
// scheme-relative) that leaves A's origin is refused, not retried, and B
// never gets a request. A redirect within A's origin is followed with the
// key.
func TestRedirectsNeverCarryTheKeyToAnotherOrigin(t *testing.T) {
	t.Parallel()
	b := newKeySeer(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write(pageJSON(t, "from-b", ""))
	})
	bLocalhost := localhostURL(t, b.Server) // another host
	bSameHost := b.URL                      // same host, another port
	bHostPort := strings.TrimPrefix(bLocalhost, "http://")

	a := newKeySeer(t, func(w http.ResponseWriter, r *http.Request) {
		to := r.URL.Query().Get("to")
		switch {
		case r.URL.Path == "/v1/hop":
			http.Redirect(w, r, to, http.StatusFound)
		case r.URL.Path == "/v1/posts" && to == "":
			_, _ = w.Write(pageJSON(t, "from-a", ""))
		default:
			status := http.StatusFound
			if s := r.URL.Query().Get("status"); s != "" {
				_, _ = fmt.Sscan(s, &status)
			}
			http.Redirect(w, r, to, status)
		}
	})
	ctx := context.Background()
	c, err := ugc.NewClient(a.URL, secretKey, ugc.WithRetryWait(0, 0), ugc.WithRetryMax(3))
	require.NoError(t, err)

	refused := []struct {
		name      string
		to        string
		status    string
		wantAHits int
	}{
		{"301 to localhost", bLocalhost + "/v1/posts", "301", 1},
		{"302 to localhost", bLocalhost + "/v1/posts", "302", 1},
		{"303 to localhost", bLocalhost + "/v1/posts", "303", 1},
		{"307 to localhost", bLocalhost + "/v1/posts", "307", 1},
		{"308 to localhost", bLocalhost + "/v1/posts", "308", 1},
		{"302 to the same host on another port", bSameHost + "/v1/posts", "302", 1},
		{"scheme-relative", "//" + bHostPort + "/v1/posts", "302", 1},
		{"https on the same host and port", "https://" + strings.TrimPrefix(a.URL, "http://") + "/v1/posts", "302", 1},
		{"chain A to A to B", a.URL + "/v1/hop?to=" + bLocalhost + "/v1/posts", "302", 2},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			before := len(a.seen())
			// NextPage, because the params structs cannot carry the test
			// server's own "to" and "status" parameters.
			page, err := c.NextPage(ctx, a.URL+"/v1/posts?limit=1&to="+url.QueryEscape(tt.to)+"&status="+tt.status)
			assert.Nil(t, page)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "redirect to another origin refused")
			assertNoKey(t, err.Error())
			hits := a.seen()[before:]
			assert.Len(t, hits, tt.wantAHits, "A's requests: refused, not retried")
			for _, h := range hits {
				assert.True(t, strings.HasSuffix(h, " "+secretKey), "A gets the key: %q", h)
			}
		})
	}

	t.Run("same-origin redirect is followed with the key", func(t *testing.T) {
		before := len(a.seen())
		page, err := c.NextPage(ctx, a.URL+"/v1/posts?limit=1&to="+url.QueryEscape(a.URL+"/v1/posts?limit=1"))
		require.NoError(t, err)
		require.Len(t, page.Nodes, 1)
		assert.Equal(t, "from-a", page.Nodes[0].ID)
		assert.Equal(t, []string{"/v1/posts " + secretKey, "/v1/posts " + secretKey}, a.seen()[before:])
	})

	t.Run("a redirect mid-walk ends the walk with one error", func(t *testing.T) {
		w := newKeySeer(t, func(rw http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("skip") == "" {
				_, _ = rw.Write(pageJSON(t, "p1", "http://"+r.Host+"/v1/posts?limit=1&skip=1"))
				return
			}
			http.Redirect(rw, r, bLocalhost+"/v1/posts?limit=1&skip=1", http.StatusTemporaryRedirect)
		})
		wc, err := ugc.NewClient(w.URL, secretKey, ugc.WithRetryWait(0, 0))
		require.NoError(t, err)
		for _, mode := range iterModes {
			var ids []string
			var errs []error
			for p, err := range wc.AllPosts(ctx, &ugc.PostsParams{Limit: 1}, mode.opts...) {
				if err != nil {
					errs = append(errs, err)
					continue
				}
				ids = append(ids, p.ID)
			}
			assert.Equal(t, []string{"p1"}, ids, mode.name)
			if assert.Len(t, errs, 1, mode.name) {
				assert.Contains(t, errs[0].Error(), "redirect to another origin refused")
				assertNoKey(t, errs[0].Error())
			}
		}
	})

	t.Cleanup(func() { assert.Empty(t, b.seen(), "B got requests") })
}

// TestPlainHTTPOnlyToLoopback: http:// sends the key in clear text, so it
// is accepted only for loopback hosts, unless WithInsecureHTTP says
// otherwise. request_test.go has the common forms; these are the edges.
func TestPlainHTTPOnlyToLoopback(t *testing.T) {
	t.Parallel()
	tests := []struct {
		base     string
		loopback bool
	}{
		{"http://127.0.0.1:8080", true},
		{"http://127.0.0.2", true}, // all of 127.0.0.0/8
		{"http://127.255.255.254:1", true},
		{"http://localhost:8080/prefix", true},
		{"http://LocalHost", true},
		{"http://[::1]", true},
		{"http://[0:0:0:0:0:0:0:1]:9", true},
		{"http://[::ffff:127.0.0.1]", true}, // IPv4-mapped loopback
		{"http://0.0.0.0", false},           // unspecified, not loopback
		{"http://[::]", false},
		{"http://localhost.evil.example", false},
		{"http://127.0.0.1.nip.io", false},
		{"http://evil.example/localhost", false},
		{"http://2130706433", false}, // 127.0.0.1 as a decimal, not an IP literal Go parses
		{"http://127.1", false},
		{"http://192.168.1.10", false},
		{"http://[fe80::1]", false},
	}
	for _, tt := range tests {
		t.Run(tt.base, func(t *testing.T) {
			t.Parallel()
			c, err := ugc.NewClient(tt.base, secretKey)
			if tt.loopback {
				require.NoError(t, err)
				assert.Equal(t, "http", c.BaseURL().Scheme)
			} else {
				require.Error(t, err)
				assert.Contains(t, err.Error(), "WithInsecureHTTP")
				assertNoKey(t, err.Error())
			}
			c, err = ugc.NewClient(tt.base, secretKey, ugc.WithInsecureHTTP())
			require.NoError(t, err, "WithInsecureHTTP accepts any host")
			assert.Equal(t, "http", c.BaseURL().Scheme)
		})
	}
}

// TestEchoedKeyIsRedacted: a server or proxy that echoes the key in an error
// body does not make it reach the error.
func TestEchoedKeyIsRedacted(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status int
		body   string
	}{
		{http.StatusUnauthorized, `"Invalid key ` + secretKey + `"`},
		{http.StatusOK, `<html>key=` + secretKey + `</html>`},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(tc.status)
			_, _ = io.WriteString(w, tc.body)
		}))
		t.Cleanup(srv.Close)
		c, err := ugc.NewClient(srv.URL, secretKey, ugc.WithRetryMax(0))
		require.NoError(t, err)
		_, err = c.Posts(context.Background(), nil)
		require.Error(t, err)
		assert.NotContains(t, err.Error(), secretKey)
		assert.Contains(t, err.Error(), "[redacted]")
		var apiErr *ugc.APIError
		if errors.As(err, &apiErr) {
			assert.NotContains(t, string(apiErr.Body), secretKey)
			assert.NotContains(t, apiErr.Message, secretKey)
		}
	}
}
