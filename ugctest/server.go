package ugctest

import (
	"crypto/rand"
	"encoding/hex"
	"net/http/httptest"
	"testing"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/internal/servertimeouts"
)

// Server is a fake API server on a loopback port for one test, started by
// [NewServer] and closed when the test ends. Its [Handler] methods inject
// faults, change data and read the request log; the Server's own versions
// of those that can fail report the failure to the test instead of
// returning it.
type Server struct {
	*Handler
	// URL is the base URL, base path included: the posts list is
	// URL + "/v1/posts".
	URL string
	// APIKey is the key the server accepts.
	APIKey string

	t   testing.TB
	srv *httptest.Server
}

// NewServer starts a fake server for t with the options given (by default
// [DefaultDataset] and a random API key) and closes it with t.Cleanup. It
// calls t.Fatal if the dataset is invalid.
func NewServer(t testing.TB, opts ...Option) *Server {
	t.Helper()
	c := newConfig(opts)
	key := c.apiKey
	if key == "" {
		var b [16]byte
		_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
		key = "ugctest-" + hex.EncodeToString(b[:])
	}
	h, err := NewHandler(c.dataset, key, opts...)
	if err != nil {
		t.Fatalf("ugctest.NewServer: %v", err)
	}
	srv := httptest.NewUnstartedServer(h)
	servertimeouts.Set(srv.Config)
	srv.Start()
	s := &Server{Handler: h, URL: srv.URL + h.basePath, APIKey: key, t: t, srv: srv}
	t.Cleanup(s.reportUnfiredRules)
	t.Cleanup(srv.Close)
	return s
}

// reportUnfiredRules fails the test for each line of [Handler.NeverFired].
func (s *Server) reportUnfiredRules() {
	s.t.Helper()
	for _, line := range s.NeverFired() {
		s.t.Errorf("ugctest: %s; remove it, or mark it Optional", line)
	}
}

// AddRule installs a fault rule (see [Handler.AddRule]) and returns its ID;
// a rule that cannot work fails the test. When the test ends, a rule still
// installed that never fired fails it too, unless the rule is Optional.
func (s *Server) AddRule(r Rule) int {
	s.t.Helper()
	id, err := s.Handler.AddRule(r)
	if err != nil {
		s.t.Errorf("%v", err)
	}
	return id
}

// Client returns a client for the server that reads pages strictly
// (ugc.WithStrictDecoding: the fake follows the contract to the letter, so
// any deviation is a bug on one side) with retries that do not wait
// (ugc.WithRetryWait(0, 0)), followed by opts. It calls t.Fatal if the
// client cannot be built.
func (s *Server) Client(opts ...ugc.Option) *ugc.Client {
	s.t.Helper()
	all := append([]ugc.Option{ugc.WithStrictDecoding(), ugc.WithRetryWait(0, 0)}, opts...)
	c, err := ugc.NewClient(s.URL, s.APIKey, all...)
	if err != nil {
		s.t.Fatalf("ugctest: Server.Client: %v", err)
	}
	return c
}

// CloseClientConnections closes every open connection to the server, as a
// load balancer restart would.
func (s *Server) CloseClientConnections() { s.srv.CloseClientConnections() }

// FailNext makes the next n requests fail with f (see [Handler.FailNext]);
// a bad argument fails the test, and so does a failure that never happened
// by the end of the test.
func (s *Server) FailNext(n int, f Fault) {
	s.t.Helper()
	if err := s.Handler.FailNext(n, f); err != nil {
		s.t.Errorf("%v", err)
	}
}

// FailFraction makes a deterministic fraction p of later requests fail (see
// [Handler.FailFraction]); a bad argument fails the test.
func (s *Server) FailFraction(p float64, seed uint64, faults ...Fault) {
	s.t.Helper()
	if err := s.Handler.FailFraction(p, seed, faults...); err != nil {
		s.t.Errorf("%v", err)
	}
}

// InsertPosts inserts approved posts at position at (see
// [Handler.InsertPosts]); a duplicate or invalid post fails the test.
func (s *Server) InsertPosts(at int, posts ...Post) {
	s.t.Helper()
	if err := s.Handler.InsertPosts(at, posts...); err != nil {
		s.t.Errorf("ugctest: InsertPosts: %v", err)
	}
}

// MovePost moves an approved post to position to (see [Handler.MovePost]);
// an ID that is not present fails the test.
func (s *Server) MovePost(id string, to int) {
	s.t.Helper()
	if err := s.Handler.MovePost(id, to); err != nil {
		s.t.Errorf("ugctest: MovePost: %v", err)
	}
}

// RemovePosts removes approved posts by ID (see [Handler.RemovePosts]); an
// ID that is not present fails the test.
func (s *Server) RemovePosts(ids ...string) {
	s.t.Helper()
	if err := s.Handler.RemovePosts(ids...); err != nil {
		s.t.Errorf("ugctest: RemovePosts: %v", err)
	}
}
