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
// [NewServer] and closed when the test ends. The methods of its [Handler]
// inject faults, change data and read the request log. Those that return
// an error (AddRule, FailNext, FailFraction, InsertPosts, RemovePosts,
// MovePost) also fail the test with it, so a test may call them without
// checking; and when the test ends, a rule still installed that never
// fired fails it too, unless the rule is Optional.
type Server struct {
	*Handler
	// URL is the base URL, base path included: the posts list is
	// URL + "/v1/posts".
	URL string
	// APIKey is the key the server accepts.
	APIKey string

	t     testing.TB
	srv   *httptest.Server
	clock *kitClock // the kit clients' (see kit.go)
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
	h.tb = t
	s := &Server{Handler: h, URL: srv.URL + h.basePath, APIKey: key, t: t, srv: srv, clock: newKitClock(h)}
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

// Client returns a client for the server that reads pages strictly
// (ugc.WithStrictDecoding: the fake follows the contract to the letter, so
// any deviation is a bug on one side) with retries that do not wait
// (ugc.WithRetryWait(0, 0)), followed by opts. The wait a fault's 429
// names costs milliseconds, while what the client reports is in the time
// the fault named (a test of a 429 path runs in well under 100 ms). So
// does a stall, with one exception: a stall that would outlast an attempt
// with a second or less left (a caller's short deadline, a short
// WithAttemptTimeout) is waited out in real time, until that deadline, as
// in production. A quota the server has runs by the wall clock (see the
// package documentation, "Test kit"). It calls t.Fatal if the client
// cannot be built.
func (s *Server) Client(opts ...ugc.Option) *ugc.Client {
	s.t.Helper()
	all := append([]ugc.Option{s.kitOption(), ugc.WithStrictDecoding(), ugc.WithRetryWait(0, 0)}, opts...)
	c, err := ugc.NewClient(s.URL, s.APIKey, all...)
	if err != nil {
		s.t.Fatalf("ugctest: Server.Client: %v", err)
	}
	return c
}

// CloseClientConnections closes every open connection to the server, as a
// load balancer restart would.
func (s *Server) CloseClientConnections() { s.srv.CloseClientConnections() }

// failTest returns err and, when h serves a [Server], fails its test with
// it: a test whose setup went wrong tests less than it says.
func (h *Handler) failTest(err error) error {
	if err != nil && h.tb != nil {
		h.tb.Helper()
		h.tb.Errorf("%v", err)
	}
	return err
}
