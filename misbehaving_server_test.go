package ugc_test

import (
	"fmt"
	"iter"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/ugcposts/ugc-go"
)

// misbehavingServer serves a list of post IDs on every list endpoint
// (posts, inbox, any gallery) under a base path, and bends the contract the
// ways real servers do, one knob each. Set the knobs before the first
// request; the data (ids) may change between requests, under mu, through
// mutate. With no knob set it follows the contract to the letter.
type misbehavingServer struct {
	URL  string // base URL, base path included: give it to ugc.NewClient
	host string // scheme and host, for absolute next URLs
	base string // the base path, such as "/api"

	// pageCap caps the posts of a page below the limit asked (0: no cap).
	pageCap int
	// nextByLimit advances skip in next by the limit asked, not by the
	// posts the page holds.
	nextByLimit bool
	// ignoreSkip serves the first posts whatever skip asks; next still
	// advances from the skip asked.
	ignoreSkip bool
	// nextStyle is how next is written: absolute or a relative reference.
	nextStyle nextStyle
	// endlessNext gives next even when no post remains.
	endlessNext bool
	// countDelta is added to the number of posts to give count.
	countDelta int
	// escapeGallery writes the gallery segment of next; nil writes the
	// request's own escaped path.
	escapeGallery func(id string) string
	// nextFor, when it returns a non-empty string, replaces the next URL of
	// the page asked at skip whose last node stands at last.
	nextFor func(skip, last int) string
	// wrongPage returns by how many pages the answer to request n (from 1)
	// is off the one asked: a cache answering a later (> 0) or earlier
	// (< 0) page. Called under mu.
	wrongPage func(n int) int
	// mutate changes the data before request n (from 1), asked at skip, is
	// answered. Called under mu.
	mutate func(n, skip int, ids []string) []string

	mu       sync.Mutex
	ids      []string
	requests atomic.Int64
}

// nextStyle is how a misbehavingServer writes next.
type nextStyle int

const (
	nextAbsolute     nextStyle = iota // http://host/api/v1/posts?limit=25&skip=25
	nextPathAbsolute                  // /api/v1/posts?limit=25&skip=25
	nextPathRelative                  // posts?limit=25&skip=25
	nextQueryOnly                     // ?limit=25&skip=25
)

func (s nextStyle) String() string {
	return [...]string{"absolute", "path-absolute", "path-relative", "query-only"}[s]
}

// misbehavingRequestLimit ends any walk that loops: past it the server
// answers 400, which is not retried, so a test fails instead of hanging.
const misbehavingRequestLimit = 500

// newMisbehavingServer serves ids under base ("" or a path such as "/api")
// until the test ends.
func newMisbehavingServer(t *testing.T, base string, ids []string) *misbehavingServer {
	t.Helper()
	s := &misbehavingServer{base: base, ids: ids}
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	s.host = hs.URL
	s.URL = hs.URL + base
	return s
}

// client returns a client for s whose retries do not wait.
func (s *misbehavingServer) client(t *testing.T) *ugc.Client {
	t.Helper()
	c, err := ugc.NewClient(s.URL, "misbehaving-key", ugc.WithRetryWait(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (s *misbehavingServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := int(s.requests.Add(1))
	rest, ok := strings.CutPrefix(r.URL.Path, s.base+"/v1/")
	if !ok || n > misbehavingRequestLimit {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `"misbehavingServer: no such endpoint, or too many requests"`)
		return
	}
	q := r.URL.Query()
	limit, err := strconv.Atoi(q.Get("limit"))
	if err != nil || limit < 1 || limit > ugc.MaxLimit {
		limit = ugc.MaxLimit
	}
	skip, _ := strconv.Atoi(q.Get("skip"))
	skip = max(skip, 0)

	s.mu.Lock()
	if s.mutate != nil {
		s.ids = s.mutate(n, skip, s.ids)
	}
	start := skip
	if s.ignoreSkip {
		start = 0
	}
	if s.wrongPage != nil {
		start = max(0, start+s.wrongPage(n)*limit)
	}
	size := limit
	if s.pageCap > 0 {
		size = min(size, s.pageCap)
	}
	lo, hi := min(start, len(s.ids)), min(start+size, len(s.ids))
	nodes := append([]string(nil), s.ids[lo:hi]...)
	total := len(s.ids)
	s.mu.Unlock()

	nextSkip := lo + len(nodes)
	switch {
	case s.ignoreSkip:
		nextSkip = skip + limit
	case s.nextByLimit:
		nextSkip = lo + limit
	}
	next := "null"
	if nextSkip < total || s.endlessNext {
		next = strconv.Quote(s.nextURL(rest, r.URL.EscapedPath(), limit, nextSkip))
	}
	if s.nextFor != nil {
		if u := s.nextFor(skip, lo+len(nodes)-1); u != "" {
			next = strconv.Quote(u)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"count":%d,"next":%s,"nodes":[`, total+s.countDelta, next)
	for i, id := range nodes {
		if i > 0 {
			fmt.Fprint(w, ",")
		}
		fmt.Fprintf(w, `{"id":%q,"createdAt":"2024-05-01T12:00:00Z","media":{"location":"https://cdn.example.com/%s.jpg"},"taggedProducts":[]}`, id, url.PathEscape(id))
	}
	fmt.Fprint(w, "]}")
}

// nextURL writes the next URL in s's style. rest is the decoded path after
// /v1/; escaped is the request's escaped path.
func (s *misbehavingServer) nextURL(rest, escaped string, limit, skip int) string {
	query := fmt.Sprintf("?limit=%d&skip=%d", limit, skip)
	if gallery, ok := strings.CutPrefix(rest, "galleries/"); ok && s.escapeGallery != nil {
		escaped = s.base + "/v1/galleries/" + s.escapeGallery(strings.TrimSuffix(gallery, "/posts")) + "/posts"
	}
	switch s.nextStyle {
	case nextPathAbsolute:
		return escaped + query
	case nextPathRelative:
		return escaped[strings.LastIndex(escaped, "/")+1:] + query
	case nextQueryOnly:
		return query
	}
	return s.host + escaped + query
}

// requestCount is how many requests s has answered.
func (s *misbehavingServer) requestCount() int { return int(s.requests.Load()) }

// postIDs returns n distinct post IDs, "p0000" on.
func postIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("p%04d", i)
	}
	return ids
}

// walked is what a walk yielded: the post IDs in order, the error that
// ended it (nil at the end of the list) and how many things it yielded after
// that error (it must stop at the first).
type walked struct {
	ids      []string
	err      error
	afterErr int
}

// walkAll runs a walk to its end, without breaking at an error, to see that
// the iterator stops by itself.
func walkAll(seq iter.Seq2[ugc.Post, error]) walked {
	var w walked
	for p, err := range seq {
		switch {
		case w.err != nil:
			w.afterErr++
		case err != nil:
			w.err = err
		default:
			w.ids = append(w.ids, p.ID)
		}
	}
	return w
}

// assertIDs checks that got is want, and on failure says where they part
// and how, instead of printing two long lists.
func assertIDs(t *testing.T, want, got []string, msg string, args ...any) bool {
	t.Helper()
	if slices.Equal(want, got) {
		return true
	}
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	wantAt, gotAt := "(end)", "(end)"
	if i < len(want) {
		wantAt = want[i]
	}
	if i < len(got) {
		gotAt = got[i]
	}
	return assert.Fail(t, fmt.Sprintf("%d IDs wanted, %d got; they part at index %d: want %s, got %s", len(want), len(got), i, wantAt, gotAt), fmt.Sprintf(msg, args...))
}
