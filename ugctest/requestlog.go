package ugctest

import (
	"net/http"
	"net/url"
	"sync"
	"time"
)

// Request is one request as the handler saw it, for tests to assert on.
// In JSON (the control API's request log) Duration is in nanoseconds.
type Request struct {
	// ID is the request ID the answer carried in its X-Request-Id header
	// ("ugcfake-1", "ugcfake-2", ... in the order requests arrived), which
	// ugc's RequestID methods read: a test finds here the request an error
	// came from. A fault that sets the header (Respond with
	// WithHeader("X-Request-Id", ...)) sends its own instead, and ID is
	// that one: always the ID the client saw.
	ID string `json:"id"`
	// Method is the HTTP method, such as "GET".
	Method string `json:"method"`
	// Path is the decoded request path, base path included.
	Path string `json:"path"`
	// Query is the parsed query string, and RawQuery the query as sent.
	Query    url.Values `json:"query"`
	RawQuery string     `json:"rawQuery"`
	// Header holds the request headers, with the x-api-key value replaced
	// by "[redacted]": a test can assert the User-Agent or a request ID its
	// code propagates, never the key.
	Header http.Header `json:"header"`
	// KeyValid reports whether the x-api-key header held the server's key.
	KeyValid bool `json:"keyValid"`
	// Status is the status sent; 0 when an injected fault dropped the
	// connection. A truncated body logs the status of the full answer.
	Status int `json:"status"`
	// Fault is the injected fault, or 0 (no fault), and Rule the name of
	// the rule that injected it (see [RuleStatus.String]).
	Fault FaultKind `json:"fault,omitempty"`
	Rule  string    `json:"rule,omitempty"`
	// OverQuota reports a request refused with 429 by the quota (see
	// [WithQuota]).
	OverQuota bool `json:"overQuota,omitempty"`
	// Arrived is when the request arrived, by the server's clock.
	Arrived time.Time `json:"arrived"`
	// Duration is the time from arrival to the decision on the answer,
	// injected latency and stalls included.
	Duration time.Duration `json:"duration"`
}

// requestLog is a bounded log of requests, safe for concurrent use.
type requestLog struct {
	mu    sync.Mutex
	limit int
	reqs  []Request
}

func (l *requestLog) add(r Request) {
	if l.limit == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.limit > 0 && len(l.reqs) >= l.limit {
		n := copy(l.reqs, l.reqs[len(l.reqs)-l.limit+1:])
		l.reqs = l.reqs[:n]
	}
	l.reqs = append(l.reqs, r)
}

func (l *requestLog) snapshot() []Request {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]Request, len(l.reqs))
	copy(out, l.reqs)
	return out
}

func (l *requestLog) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reqs = nil
}

// loggedHeader copies a request's headers for the log, without the key.
func loggedHeader(h http.Header) http.Header {
	out := h.Clone()
	delete(out, kitHeader) // the test kit's own, not the code under test's
	if _, ok := out["X-Api-Key"]; ok {
		out["X-Api-Key"] = []string{"[redacted]"}
	}
	return out
}

// Requests returns a copy of the request log, oldest first.
func (h *Handler) Requests() []Request { return h.log.snapshot() }

// ResetRequests empties the request log.
func (h *Handler) ResetRequests() { h.log.reset() }
