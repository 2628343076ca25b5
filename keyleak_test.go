package ugc

// The key in no error, from any layer: a table of where a server or a
// gateway may put the key (the request's path or query, a next link, a
// redirect's Location, a response header, the body), in which encoding
// (raw, URL-encoded with %2F or %2f, once or twice, JSON-escaped, "+" for
// a space and a space for "+"), and which error path follows (a dropped
// connection, a refused redirect, an attempt timeout, the context's end,
// an API error, a decoding error). Every error the client hands out, every
// error it wraps, every log line (JSON and text) and every AttemptInfo is
// rendered every way fmt can, and none may show the key in any encoding.
// Servers are httptest servers, and a raw TCP listener for the dropped
// connection; no case sleeps. The table runs with a fixed key, and with
// random ones too under UGC_TEST_HEAVY=1 (see randomLeakKeys).

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	keyleakKeys = flag.Int("keyleak.keys", randomLeakKeys(), "random keys TestKeyInNoErrorFromAnyLayer runs its table with, besides the fixed one")
	keyleakSeed = flag.Uint64("keyleak.seed", 16, "seed of the random keys of TestKeyInNoErrorFromAnyLayer")
)

// randomLeakKeys is how many random keys TestKeyInNoErrorFromAnyLayer runs
// its table with by default: none (the fixed key's table is 588 cases, 1.2 s
// of CPU), and four with UGC_TEST_HEAVY=1, as .ci/run sets.
func randomLeakKeys() int {
	if os.Getenv("UGC_TEST_HEAVY") != "" {
		return 4
	}
	return 0
}

// leakKey holds "/", "+", a space, `"`, `\` and "=", so that every encoding
// of it differs from the others.
const leakKey = `Lk/9+q w"Z\x=7pR2`

// leakKeyAlphabet is that of the random keys: base64's, with the characters
// each encoding treats differently.
const leakKeyAlphabet = `ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/= "\%`

// randomLeakKey is a key of 14 to 40 characters that starts and ends with a
// letter and holds "/", "+", a space and `"`.
func randomLeakKey(rng *rand.Rand) string {
	b := []byte(`/+ "`)
	for range 10 + rng.IntN(26) {
		b = append(b, leakKeyAlphabet[rng.IntN(len(leakKeyAlphabet))])
	}
	rng.Shuffle(len(b), func(i, j int) { b[i], b[j] = b[j], b[i] })
	return "K" + string(b) + "z"
}

var percentHex = regexp.MustCompile(`%[0-9A-F]{2}`)

// lowerHex writes the %XX escapes of s in lower case: %2f for %2F.
func lowerHex(s string) string { return percentHex.ReplaceAllStringFunc(s, strings.ToLower) }

// leakForms returns key in every encoding a layer may write it in.
func leakForms(key string) map[string]string {
	js, _ := json.Marshal(key)
	jsonForm := string(js[1 : len(js)-1])
	var every, uEsc strings.Builder
	for _, c := range []byte(key) {
		fmt.Fprintf(&every, "%%%02X", c)
		fmt.Fprintf(&uEsc, `\u%04x`, c)
	}
	return map[string]string{
		"raw":              key,
		"query %2F":        url.QueryEscape(key),
		"query %2f":        lowerHex(url.QueryEscape(key)),
		"path %2F":         url.PathEscape(key),
		"path %2f":         lowerHex(url.PathEscape(key)),
		"every byte %XX":   every.String(),
		"every byte %xx":   lowerHex(every.String()),
		"twice %252F":      url.QueryEscape(url.QueryEscape(key)),
		"json":             jsonForm,
		"json \\u":         uEsc.String(),
		"json \\u and \\/": uEsc.String()[:6] + strings.ReplaceAll(jsonForm[1:], "/", `\/`), // keys start with a letter
		"json then query":  url.QueryEscape(jsonForm),
		"+ for space":      strings.ReplaceAll(key, " ", "+"),
		"space for +":      strings.ReplaceAll(key, "+", " "),
	}
}

// placements: where the server puts the echo.
const (
	inPath     = "path"     // GalleryPosts(echo): the request's path
	inQuery    = "query"    // Posts(Market: echo): the request's query
	inNext     = "next"     // a next link, followed with NextPage
	inNextWalk = "nextWalk" // a walk's own query, and its next links
	inLocation = "location" // a redirect's Location
	inHeader   = "header"   // a header of the failing answer
	inBody     = "body"     // the body of the failing answer
)

// error paths: what the failing request meets.
const (
	pathDrop     = "drop"     // the connection closes, before an answer or in its body
	pathRedirect = "redirect" // a redirect to another origin, refused
	pathTimeout  = "timeout"  // the attempt runs over WithAttemptTimeout
	pathCtxEnd   = "ctxEnd"   // an attempt fails and is retried, then the caller's context ends
	pathAPI      = "api"      // a 500 with a JSON string message
	pathDecode   = "decode"   // a 200 whose body is no page
)

var (
	leakPlacements = []string{inPath, inQuery, inNext, inNextWalk, inLocation, inHeader, inBody}
	leakPaths      = []string{pathDrop, pathRedirect, pathTimeout, pathCtxEnd, pathAPI, pathDecode}
)

// leakCase is one row: the key, one of its echoes, where, and what follows.
type leakCase struct {
	key, echo, placement, path string
}

// setup reports whether r is a request before the failing one: the first
// page, whose next link holds the echo, or the request a same-origin
// redirect answers.
func (lc leakCase) setup(r *http.Request, n int64) bool {
	switch lc.placement {
	case inNext, inNextWalk:
		return n == 1
	case inLocation:
		return lc.path != pathRedirect && !strings.Contains(r.URL.RawQuery, "token=")
	}
	return false
}

// leakServer answers a leakCase and records whether the failing request
// reached its handler (Go's server answers 400 itself to a request line
// that an echo with a raw space broke).
type leakServer struct {
	lc      leakCase
	url     string
	cancel  context.CancelFunc // the caller's context, for pathCtxEnd
	reached atomic.Bool
	total   atomic.Int64
	failing atomic.Int64
}

const leakPost = `{"id":"p1","createdAt":"2024-01-02T03:04:05Z","media":{"location":"m"},"taggedProducts":[]}`

func (s *leakServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	lc := s.lc
	if lc.setup(r, s.total.Add(1)) {
		if lc.placement == inLocation {
			w.Header().Set("Location", s.url+"/v1/posts?limit=2&token="+lc.echo)
			w.WriteHeader(http.StatusFound)
			return
		}
		next, _ := json.Marshal(s.url + "/v1/posts?limit=1&skip=1&token=" + lc.echo)
		_, _ = fmt.Fprintf(w, `{"count":3,"next":%s,"nodes":[%s]}`, next, leakPost)
		return
	}
	s.reached.Store(true)
	attempt := s.failing.Add(1)
	if lc.placement == inHeader {
		w.Header().Set("X-Echo", lc.echo)
	}
	// What the answer quotes: the echo itself, or the request as a gateway
	// that echoes it would.
	quote := r.URL.RequestURI()
	if lc.placement == inBody {
		quote = lc.echo
	}
	path := lc.path
	if path == pathCtxEnd && attempt > 1 {
		s.cancel()
		<-r.Context().Done()
		return
	}
	if path == pathCtxEnd { // the first attempt fails, to be retried
		if lc.placement == inHeader || lc.placement == inBody {
			w.Header().Set("Retry-After", "0")
			msg, _ := json.Marshal("busy: " + quote)
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write(msg)
			return
		}
		path = pathDrop
	}
	switch path {
	case pathDrop, pathTimeout:
		if lc.placement == inHeader || lc.placement == inBody {
			// an answer begun, then cut or stalled in its body
			w.Header().Set("Content-Length", "4096")
			_, _ = fmt.Fprintf(w, `<html><p>%s`, quote)
			w.(http.Flusher).Flush()
		}
		if path == pathDrop {
			panic(http.ErrAbortHandler) // the connection closes
		}
		<-r.Context().Done()
	case pathRedirect:
		to := "https://gateway.example.invalid" + r.URL.RequestURI()
		switch lc.placement {
		case inLocation:
			to = "https://gateway.example.invalid/v1/posts?token=" + lc.echo
		case inHeader, inBody:
			to = "https://gateway.example.invalid/v1/posts"
		}
		w.Header().Set("Location", to)
		w.WriteHeader(http.StatusFound)
		_, _ = fmt.Fprintf(w, "moved: %s", quote)
	case pathAPI:
		msg, _ := json.Marshal("Something went wrong: " + quote)
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write(msg)
	case pathDecode:
		_, _ = fmt.Fprintf(w, "<html><body>not found: %s</body></html>", quote)
	}
}

// droppingListener is a raw TCP server that reads each request's head and
// closes the connection without a word.
func droppingListener(t *testing.T, reached *atomic.Bool) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var wg sync.WaitGroup
	t.Cleanup(func() { _ = ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer conn.Close()
				r := bufio.NewReader(conn)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					if line == "\r\n" {
						reached.Store(true)
						return
					}
				}
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

// teeHandler writes each record to every handler: the JSON and the text one.
type teeHandler []slog.Handler

func (h teeHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h teeHandler) Handle(ctx context.Context, r slog.Record) error {
	for _, x := range h {
		if err := x.Handle(ctx, r.Clone()); err != nil {
			return err
		}
	}
	return nil
}
func (h teeHandler) WithAttrs(as []slog.Attr) slog.Handler {
	out := make(teeHandler, len(h))
	for i, x := range h {
		out[i] = x.WithAttrs(as)
	}
	return out
}
func (h teeHandler) WithGroup(name string) slog.Handler {
	out := make(teeHandler, len(h))
	for i, x := range h {
		out[i] = x.WithGroup(name)
	}
	return out
}

// leakOutputs collects everything a case printed.
type leakOutputs struct {
	mu   sync.Mutex
	logs bytes.Buffer
	seen []string // renderings of what the observer saw
}

func (o *leakOutputs) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.logs.Write(p)
}

func (o *leakOutputs) observe(_ context.Context, a AttemptInfo) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.seen = append(o.seen, a.Endpoint, fmt.Sprintf("%+v", a), fmt.Sprintf("%#v", a))
	if a.Err != nil {
		o.seen = append(o.seen, renderAll(a.Err)...)
	}
}

// renderAll renders err, and every error it wraps, every way fmt can, with
// the fields of the SDK's typed errors.
func renderAll(err error) []string {
	var out []string
	var walk func(e error, depth int)
	walk = func(e error, depth int) {
		if e == nil || depth > 40 {
			return
		}
		for _, verb := range []string{"%v", "%+v", "%q", "%#v", "%s", "%x"} {
			out = append(out, fmt.Sprintf(verb, e))
		}
		out = append(out, e.Error())
		switch x := e.(type) {
		case interface{ Unwrap() error }:
			walk(x.Unwrap(), depth+1)
		case interface{ Unwrap() []error }:
			for _, w := range x.Unwrap() {
				walk(w, depth+1)
			}
		}
	}
	walk(err, 0)
	for e := err; e != nil; e = errors.Unwrap(e) { // the single chain, as errors.Unwrap walks it
		out = append(out, fmt.Sprintf("%+v", e))
	}
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		out = append(out, apiErr.Endpoint, apiErr.Message, string(apiErr.Body), fmt.Sprint(apiErr.Header))
	}
	var decErr *DecodeError
	if errors.As(err, &decErr) {
		out = append(out, decErr.Endpoint, decErr.Snippet, fmt.Sprint(decErr.Header))
	}
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		out = append(out, urlErr.URL)
	}
	return out
}

// assertNoLeak checks every output for every form of key.
func assertNoLeak(t *testing.T, key string, outputs []string) {
	t.Helper()
	forms := leakForms(key)
	forms["hex"] = fmt.Sprintf("%x", key)
	for _, s := range outputs {
		for form, f := range forms {
			if strings.Contains(s, f) {
				t.Errorf("the key shows %s in %q", form, s)
				return
			}
		}
	}
}

// run plays the case and returns the error the caller got.
func (lc leakCase) run(t *testing.T, out *leakOutputs) (err error, reached bool) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := &leakServer{lc: lc, cancel: cancel}
	base := ""
	if lc.path == pathDrop && (lc.placement == inPath || lc.placement == inQuery) {
		base = droppingListener(t, &srv.reached)
	} else {
		hs := httptest.NewServer(srv)
		t.Cleanup(hs.Close)
		srv.url, base = hs.URL, hs.URL
	}
	retries, timeout := 0, time.Duration(0)
	switch lc.path {
	case pathCtxEnd:
		retries = 1
	case pathTimeout:
		timeout = 30 * time.Millisecond
	}
	logger := slog.New(teeHandler{
		slog.NewJSONHandler(out, &slog.HandlerOptions{Level: slog.LevelDebug}),
		slog.NewTextHandler(out, &slog.HandlerOptions{Level: slog.LevelDebug}),
	})
	c, err := NewClient(base, lc.key, WithRetryMax(retries), WithRetryWait(0, 0), WithAttemptTimeout(timeout),
		WithLogger(logger), WithAttemptObserver(out.observe))
	require.NoError(t, err)
	switch lc.placement {
	case inPath:
		_, err = c.GalleryPosts(ctx, lc.echo, &GalleryPostsParams{Limit: 2})
	case inQuery:
		_, err = c.Posts(ctx, &PostsParams{Limit: 2, Market: lc.echo})
	case inNext:
		var page *Page
		if page, err = c.Posts(ctx, &PostsParams{Limit: 1}); err == nil {
			_, err = c.NextPage(ctx, page.Next)
		}
	case inNextWalk:
		// The walk sends its own query on every request, not the next
		// link's: the echo rides in the walk's market, and the next link
		// that echoes it too is either not followed as written or refused.
		for _, e := range c.AllPosts(ctx, &PostsParams{Limit: 1, Market: lc.echo}, WithReadAhead(0)) {
			if e != nil {
				err = e // as the walk yields it: through maskErr
				break
			}
		}
	default:
		_, err = c.Posts(ctx, &PostsParams{Limit: 2})
	}
	return err, srv.reached.Load()
}

// checkPath asserts that err is what lc's error path gives, reached
// through the mask with errors.Is and errors.As.
func (lc leakCase) checkPath(t *testing.T, err error) {
	t.Helper()
	var urlErr *url.Error
	var apiErr *APIError
	var decErr *DecodeError
	switch lc.path {
	case pathDrop:
		if lc.placement == inHeader || lc.placement == inBody {
			assert.ErrorAs(t, err, &decErr)
		} else {
			assert.ErrorAs(t, err, &urlErr)
		}
	case pathRedirect:
		assert.ErrorIs(t, err, ErrForeignRedirect)
		assert.ErrorAs(t, err, &urlErr)
	case pathTimeout:
		assert.ErrorIs(t, err, context.DeadlineExceeded)
	case pathCtxEnd:
		assert.ErrorIs(t, err, context.Canceled)
	case pathAPI:
		assert.ErrorIs(t, err, ErrServer)
		assert.ErrorAs(t, err, &apiErr)
	case pathDecode:
		assert.ErrorAs(t, err, &decErr)
	}
}

// echoKept reports whether the case's error (or the log or the observer)
// must hold the echo, masked: the path does not depend on timing, and the
// echo was where the error keeps what it quotes.
func (lc leakCase) echoKept() bool {
	switch {
	case lc.path == pathTimeout:
		return false // whether headers came before the deadline is timing
	case lc.path == pathRedirect:
		return lc.placement != inHeader && lc.placement != inBody // a refused redirect keeps only its Location
	case lc.path == pathCtxEnd && lc.placement == inNextWalk:
		return false // the walk may yield ctx.Err() alone, and log nothing of the attempt before
	}
	return true
}

func TestKeyInNoErrorFromAnyLayer(t *testing.T) {
	t.Parallel()
	keys := []string{leakKey}
	rng := rand.New(rand.NewPCG(*keyleakSeed, 18))
	for range *keyleakKeys {
		keys = append(keys, randomLeakKey(rng))
	}
	cases, unreached := 0, atomic.Int64{}
	for k, key := range keys {
		for form, echo := range leakForms(key) {
			for _, placement := range leakPlacements {
				for _, path := range leakPaths {
					lc := leakCase{key: key, echo: echo, placement: placement, path: path}
					cases++
					t.Run(fmt.Sprintf("key%d/%s/%s/%s", k, placement, path, form), func(t *testing.T) {
						t.Parallel()
						out := &leakOutputs{}
						err, reached := lc.run(t, out)
						require.Error(t, err)
						out.mu.Lock()
						outputs := append(renderAll(err), out.logs.String())
						outputs = append(outputs, out.seen...)
						out.mu.Unlock()
						assertNoLeak(t, key, outputs)
						if !reached {
							unreached.Add(1) // a raw space broke the request line: Go's server answered 400
							return
						}
						lc.checkPath(t, err)
						if lc.echoKept() {
							assert.True(t, strings.Contains(strings.Join(outputs, "\n"), redacted), "the echo reached the error, masked: %q", outputs[0])
						}
					})
				}
			}
		}
	}
	t.Cleanup(func() {
		t.Logf("%d cases over %d keys; %d did not reach their handler", cases, len(keys), unreached.Load())
	})
}

// TestWalkBuiltErrorsPassTheMask: errors the walk builds itself (a next
// link it refuses, quoting its path) hold the key as the server wrote it;
// maskErr, which the walk calls at its yield, leaves none of it and keeps
// ErrBadNext reachable.
func TestWalkBuiltErrorsPassTheMask(t *testing.T) {
	t.Parallel()
	for form, echo := range leakForms(leakKey) {
		t.Run(form, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				next, _ := json.Marshal("/v1/posts/" + echo + "?limit=1&skip=1")
				_, _ = fmt.Fprintf(w, `{"count":3,"next":%s,"nodes":[%s]}`, next, leakPost)
			}))
			t.Cleanup(srv.Close)
			c, err := NewClient(srv.URL, leakKey, WithRetryWait(0, 0))
			require.NoError(t, err)
			var walkErr error
			for _, e := range c.AllPosts(context.Background(), &PostsParams{Limit: 1}) {
				if e != nil {
					walkErr = e
					break
				}
			}
			require.ErrorIs(t, walkErr, ErrBadNext)
			masked := c.maskErr(walkErr)
			assert.ErrorIs(t, masked, ErrBadNext)
			assertNoLeak(t, leakKey, renderAll(masked))
		})
	}
}

// TestPageCursorErrorsQuoteNoNextLink: Page.Cursor, which has no Client
// to mask with, refuses a single call's next link that holds the key, in
// each of its forms, in the path, the skip or the limit, or that does not
// parse, with an error that quotes none of it, and still says which part.
func TestPageCursorErrorsQuoteNoNextLink(t *testing.T) {
	t.Parallel()
	for form, echo := range leakForms(leakKey) {
		for where, next := range map[string]string{
			"path":     "/v1/" + echo + "?skip=1&limit=1",
			"skip":     "/v1/posts?skip=" + echo + "&limit=1",
			"limit":    "/v1/posts?skip=1&limit=" + echo,
			"unparsed": "http://[" + echo + "/v1/posts?skip=%zz" + echo,
		} {
			page := &Page{Count: 3, Next: next}
			cursor, err := page.Cursor()
			require.Error(t, err, "%s in the %s: %q", form, where, cursor)
			assertNoLeak(t, leakKey, renderAll(err))
			if where == "skip" || where == "limit" {
				assert.Contains(t, err.Error(), "next link's "+where, "%s in the %s", form, where)
			}
		}
	}
}

// customLeak is an error type whose unexported field holds the key: no
// copy can mask it, so it becomes a stand-in that keeps its Is.
type customLeak struct{ secret string }

func (e customLeak) Error() string        { return "custom: " + e.secret }
func (e customLeak) Is(target error) bool { return target == ErrUnauthorized }

// TestMaskErrKeepsIdentityAndMasksEveryLayer: maskErr returns a clean error
// as it is, and masks every kind of error the client meets, keeping
// errors.Is and errors.As for every sentinel and type in the chain.
func TestMaskErrKeepsIdentityAndMasksEveryLayer(t *testing.T) {
	t.Parallel()
	m := newMasker(leakKey)
	forms := leakForms(leakKey)
	clean := fmt.Errorf("ugc: GET /v1/posts: %w", &url.Error{Op: "Get", URL: "https://api.test/v1/posts", Err: context.DeadlineExceeded})
	assert.Same(t, clean, m.maskErr(clean), "a clean error keeps its identity")
	assert.Nil(t, m.maskErr(nil))
	for form, echo := range forms {
		u := &url.Error{Op: "Get", URL: "https://api.test/v1/posts?token=" + echo, Err: context.DeadlineExceeded}
		api := &APIError{Method: "GET", Endpoint: "/v1/galleries/" + echo + "/posts", StatusCode: 500, Message: echo, Body: []byte(echo), Header: http.Header{"X-Echo": {echo}}}
		dec := &DecodeError{Method: "GET", Endpoint: "/v1/posts", Snippet: echo, Err: fmt.Errorf("bad %s", echo)}
		tests := []struct {
			name  string
			err   error
			is    []error
			check func(t *testing.T, err error)
		}{
			{"url.Error", u, []error{context.DeadlineExceeded}, func(t *testing.T, err error) {
				var got *url.Error
				require.ErrorAs(t, err, &got)
				assert.True(t, got.Timeout(), "Timeout still reaches the deadline")
			}},
			{"wrapped twice", fmt.Errorf("ugc: GET /v1/posts: after 2 attempts: %w", fmt.Errorf("hop: %w", u)), []error{context.DeadlineExceeded}, nil},
			{"abandoned", abandoned("/v1/posts", context.Canceled, fmt.Errorf("ugc: GET: %w", u)), []error{context.Canceled, context.DeadlineExceeded}, nil},
			{"APIError", api, []error{ErrServer}, func(t *testing.T, err error) {
				var got *APIError
				require.ErrorAs(t, err, &got)
				assert.Equal(t, 500, got.StatusCode)
			}},
			{"DecodeError", dec, nil, func(t *testing.T, err error) {
				var got *DecodeError
				require.ErrorAs(t, err, &got)
			}},
			{"joined", errors.Join(api, ErrBadNext, dec), []error{ErrServer, ErrBadNext}, nil},
			{"DriftError", &DriftError{Endpoint: "/v1/posts/" + echo, RepeatedID: echo, Reason: echo}, []error{ErrDrift}, nil},
			{"FilterError", &FilterError{Message: echo}, []error{ErrInvalidParams}, nil},
			{"custom with an unexported field", fmt.Errorf("x: %w", customLeak{secret: echo}), []error{ErrUnauthorized}, nil},
			{"plain", errors.New("plain " + echo), nil, nil},
		}
		for _, tt := range tests {
			t.Run(form+"/"+tt.name, func(t *testing.T) {
				got := m.maskErr(tt.err)
				assertNoLeak(t, leakKey, renderAll(got))
				assert.Contains(t, fmt.Sprintf("%+v", got)+fmt.Sprintf("%#v", got), redacted)
				for _, target := range tt.is {
					assert.ErrorIs(t, got, target)
				}
				if tt.check != nil {
					tt.check(t, got)
				}
				assert.Equal(t, got.Error(), m.maskErr(got).Error(), "masking twice changes nothing")
			})
		}
	}
}

// TestLogLinesPassTheMask: the client's logger masks every line, whoever
// in the client writes it: message, string attributes, errors, groups and
// values of other kinds.
func TestLogLinesPassTheMask(t *testing.T) {
	t.Parallel()
	m := newMasker(leakKey)
	for form, echo := range leakForms(leakKey) {
		var buf bytes.Buffer
		l := maskedLogger(slog.New(teeHandler{slog.NewJSONHandler(&buf, nil), slog.NewTextHandler(&buf, nil)}), m)
		l.With("pre", echo).WithGroup("g").Warn("walk at "+echo, "endpoint", echo, "err", errors.New(echo),
			slog.Group("inner", "v", echo), "any", struct{ U string }{echo}, "url", &url.URL{Scheme: "https", Host: "h", RawQuery: "t=" + echo})
		assertNoLeak(t, leakKey, []string{buf.String()})
		assert.Contains(t, buf.String(), redacted, form)
	}
}
