package ugctest

import (
	"context"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/internal/pace"
	"github.com/ugcposts/ugc-go/internal/testkit"
)

// The test kit: the clients [Server.Client] hands out wait no real time
// on a fault. The wait a fault's 429 or 503 names (RateLimit("1"),
// Respond with Retry-After) pauses such a client on a virtual clock,
// which skips the wait at once, and so does the pacing the client learns
// from it; what the client reports (AttemptInfo.Pause, a ThrottleError's
// Wait, a WalkSummary's QuotaWait) is in the time the fault named. A
// stall (Stall) answers such a client's request at once, telling it how
// long the stall was: a stall shorter than the time the attempt has left
// is its answer, one longer ends the attempt as its timeout would (at
// once when more than a second was left, after the wait otherwise, so
// that a caller's short deadline still ends the call as in production).
//
// A quota the test asks for ([WithQuota]) runs by the wall clock, and so
// does the client's pacing while the server has one, and a pause its 429
// names: the point of a quota is its time. A fault's named wait is
// skipped under a quota too: the fake marks the answers its faults give
// a kit client, and the clock skips a pause while the last answer that
// named a wait was a fault's. A wait for an answer (a bucket of one
// token's) is never skipped: it ends when the answer comes. Clients built
// with ugc.NewClient, and requests from anywhere else, wait in real time
// for everything.

// Headers of the test kit, between a kit client and the fake.
const (
	// kitHeader marks the requests of Server.Client's clients.
	kitHeader = "Ugctest-Kit"
	// stalledHeader, on the answer to a kit request a stall fired on,
	// says how long the stall would have held it.
	stalledHeader = "Ugctest-Stalled"
	// faultHeader, on the answer to a kit request a fault gave, names
	// the fault.
	faultHeader = "Ugctest-Fault"
)

// waitedOutStall: a stall that outlasts an attempt with at most this
// left is waited out in real time.
const waitedOutStall = time.Second

// kitOption returns the option that makes a client of s a test kit's.
func (s *Server) kitOption() ugc.Option {
	opt, _ := testkit.ClientOption(testkit.Hooks{
		Clock:     s.clock.virtual,
		Transport: func(next http.RoundTripper) http.RoundTripper { return kitTransport{next: next, clock: s.clock} },
	}).(ugc.Option)
	return opt
}

// kitClock is the clock of a server's kit clients: virtual while the
// server has no quota, and for the pause a fault named.
type kitClock struct {
	virtual *pace.Virtual
	// faultPause: the last answer that named a wait was a fault's.
	faultPause atomic.Bool
}

// newKitClock returns the clock of h's kit clients.
func newKitClock(h *Handler) *kitClock {
	k := &kitClock{}
	k.virtual = pace.NewVirtual(func(w pace.Wait) bool {
		noQuota := h.quota.Load() == nil
		switch w {
		case pace.ForPause:
			return noQuota || k.faultPause.Load()
		case pace.ForRate:
			return noQuota
		}
		return false // an answer is waited for: it comes
	})
	return k
}

// kitTransport marks each request of a kit client, ends an attempt whose
// stall outlasts it as its timeout would, and tells the clock whether a
// wait an answer names is a fault's.
type kitTransport struct {
	next  http.RoundTripper
	clock *kitClock
}

// RoundTrip sends r marked, and reads a stall's answer.
func (k kitTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(kitHeader, "1")
	resp, err := k.next.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	if resp.Header.Get("Retry-After") != "" || resp.StatusCode == http.StatusTooManyRequests {
		k.clock.faultPause.Store(resp.Header.Get(faultHeader) != "")
	}
	stall, perr := time.ParseDuration(resp.Header.Get(stalledHeader))
	deadline, bounded := r.Context().Deadline()
	if perr != nil || !bounded || time.Until(deadline) > stall {
		return resp, nil // answered before the attempt's end
	}
	_ = resp.Body.Close()
	if time.Until(deadline) <= waitedOutStall {
		<-r.Context().Done()
		return nil, r.Context().Err()
	}
	return nil, context.DeadlineExceeded
}

// kitHeaders tells a kit client, on the answer to its request r, the
// stall a fault answered at once, and that a fault gave the answer.
func kitHeaders(h http.Header, r *http.Request, f Fault, stalled time.Duration) {
	if stalled > 0 {
		h[stalledHeader] = []string{stalled.String()}
	}
	if f.Kind != 0 && kitStall(r) {
		h[faultHeader] = []string{f.Kind.String()}
	}
}

// kitStall reports whether a stall fault on r is answered at once: r
// comes from a kit client.
func kitStall(r *http.Request) bool { return r.Header.Get(kitHeader) != "" }
