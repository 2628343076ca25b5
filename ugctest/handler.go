package ugctest

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Handler is the fake Content Posts Read API as an [http.Handler]: mount it
// anywhere, or let [NewServer] run it. It is safe for concurrent use; its
// faults, drift helpers and request log may be used while it serves.
type Handler struct {
	key       []byte
	basePath  string
	latency   atomic.Int64 // time.Duration
	onRequest func(Request)
	data      *store
	rules     ruleSet
	log       requestLog
	control   bool                  // serve the control API
	tb        testing.TB            // a Server's test, failed by an error of a setup method; nil for none
	quota     atomic.Pointer[quota] // nil: no quota

	panicHook func() // tests: called while serving, to check recovery

	requestIDs atomic.Uint64 // the answers' request IDs so far
}

// NewHandler returns a handler serving ds (nil: the [WithDataset] option,
// else [DefaultDataset]) that accepts apiKey (empty: the [WithAPIKey]
// option). The lists of ds are copied. It returns an error for an empty key
// or a dataset that breaks the contract: a post without id, createdAt or
// media.location, a tagged product without id, title or handle, a duplicate
// post ID, an inbox post without uploadedBy.email, a label or market ID that
// is not 24 hexadecimal characters, a duplicate label, market or gallery.
func NewHandler(ds *Dataset, apiKey string, opts ...Option) (*Handler, error) {
	c := newConfig(opts)
	if ds == nil {
		ds = c.dataset
	}
	if ds == nil {
		ds = DefaultDataset()
	}
	if apiKey == "" {
		apiKey = c.apiKey
	}
	if apiKey == "" {
		return nil, errors.New("ugctest: NewHandler: empty API key")
	}
	st, err := newStore(ds)
	if err != nil {
		return nil, fmt.Errorf("ugctest: NewHandler: invalid dataset: %w", err)
	}
	h := &Handler{key: []byte(apiKey), basePath: c.basePath, onRequest: c.onRequest, data: st, control: c.control}
	if q := c.quota; q != nil {
		if err := h.SetQuotaConfig(*q); err != nil {
			return nil, fmt.Errorf("ugctest: NewHandler: %w: %w", errQuotaOption, err)
		}
	}
	h.latency.Store(int64(c.latency))
	h.log.limit = c.logLimit
	return h, nil
}

// BasePath returns the path prefix the handler serves under ("" for none).
func (h *Handler) BasePath() string { return h.basePath }

// SetLatency changes the delay added to every response (0 for none).
func (h *Handler) SetLatency(d time.Duration) { h.latency.Store(int64(d)) }

// response is an answer decided but not yet written.
type response struct {
	status     int
	body       []byte
	retryAfter string
}

var bodyPool = sync.Pool{New: func() any { b := make([]byte, 0, 32<<10); return &b }}

// ServeHTTP answers one request: latency, then the fault of the first rule
// that fires, if any, then the API.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	if route, ok := h.controlRequest(r); ok {
		h.serveControl(w, r, route)
		return
	}
	id := h.nextRequestID()
	w.Header()[requestIDHeader] = []string{id} // a Respond fault's own header replaces it
	if d := time.Duration(h.latency.Load()); d > 0 {
		wait(r, d)
	}
	keyValid := subtle.ConstantTimeCompare([]byte(r.Header.Get("x-api-key")), h.key) == 1
	var (
		fault    Fault
		ruleName string
	)
	if h.rules.active.Load() {
		in := h.incoming(r, keyValid)
		fault, ruleName = h.rules.decide(&in)
		id = fault.requestID(id)
	}
	var stalled time.Duration // a kit request's stall, answered at once
	switch {
	case fault.Kind == FaultStall && kitStall(r):
		stalled = fault.Stall
	case fault.Kind == FaultStall:
		wait(r, fault.Stall)
	}
	var (
		q     *quota
		quota = quotaState{allowed: true}
	)
	if fault.Kind == 0 {
		if q = h.quota.Load(); q != nil {
			quota = q.take(r.Header.Get("x-api-key"), time.Now())
		}
	}
	bp := bodyPool.Get().(*[]byte)
	defer func() {
		if cap(*bp) <= 1<<20 {
			bodyPool.Put(bp)
		}
	}()
	var resp response
	if quota.allowed {
		resp = h.answer((*bp)[:0], r, keyValid, fault)
	} else {
		resp = errorResponse((*bp)[:0], http.StatusTooManyRequests, MsgTooManyRequests)
	}
	*bp = resp.body[:0]
	if h.log.limit != 0 || h.onRequest != nil { // the record costs a parse of the query and a copy of the headers
		h.record(Request{ID: id, Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), RawQuery: r.URL.RawQuery, Header: loggedHeader(r.Header),
			KeyValid: keyValid, Status: resp.status, Fault: fault.Kind, Rule: ruleName, OverQuota: !quota.allowed, Arrived: start, Duration: time.Since(start)})
	}
	if q != nil {
		q.setHeaders(w.Header(), quota)
	}
	kitHeaders(w.Header(), r, fault, stalled)
	write(w, resp, fault)
}

// record adds rec to the request log and hands it to the WithRequestHook
// hook, if any.
func (h *Handler) record(rec Request) {
	h.log.add(rec)
	if h.onRequest != nil {
		h.onRequest(rec)
	}
}

// incoming is what rules match r on.
func (h *Handler) incoming(r *http.Request, keyValid bool) incoming {
	in := incoming{rawQuery: r.URL.RawQuery, keyValid: keyValid}
	in.path, _ = strings.CutPrefix(r.URL.Path, h.basePath)
	switch kind, _ := h.route(r.URL.EscapedPath()); kind {
	case routePosts:
		in.endpoint = EndpointPosts
	case routeGallery:
		in.endpoint = EndpointGallery
	case routeInbox:
		in.endpoint = EndpointInbox
	}
	return in
}

// answer decides the answer to r, with fault f (a zero Fault: none).
func (h *Handler) answer(dst []byte, r *http.Request, keyValid bool, f Fault) response {
	switch f.Kind {
	case FaultInternalError:
		return errorResponse(dst, http.StatusInternalServerError, MsgInternal)
	case FaultRateLimit:
		resp := errorResponse(dst, http.StatusTooManyRequests, MsgTooManyRequests)
		resp.retryAfter = f.RetryAfter
		return resp

	case FaultDropConnection:
		return response{body: dst}
	case FaultRespond:
		return response{status: f.Status, body: append(dst, f.Body...)}
	}
	if !f.Kind.shapesPage() {
		f = Fault{}
	}
	return h.serveSafely(dst, r, keyValid, f)
}

// write sends resp, as fault f has it sent.
func write(w http.ResponseWriter, resp response, f Fault) {
	if f.Kind == FaultDropConnection {
		dropConnection(w)
		return
	}
	body := resp.body
	switch {
	case resp.status == http.StatusNoContent || resp.status == http.StatusNotModified:
		body = nil // a Respond fault's: these statuses carry no body
	case f.Kind == FaultCutJSON:
		body = body[:len(body)/2]
	}
	hdr := w.Header()
	hdr["Content-Type"] = []string{"application/json"}
	hdr["Content-Length"] = []string{strconv.Itoa(len(body))}
	if resp.status == http.StatusMethodNotAllowed {
		hdr["Allow"] = []string{http.MethodGet}
	}
	if resp.retryAfter != "" {
		hdr["Retry-After"] = []string{resp.retryAfter}
	}
	for k, vs := range f.Header {
		hdr[textproto.CanonicalMIMEHeaderKey(k)] = vs
	}
	w.WriteHeader(resp.status)
	if f.Kind == FaultTruncateBody {
		_, _ = w.Write(body[:len(body)/2])
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		panic(http.ErrAbortHandler) // the server closes the connection mid-body
	}
	_, _ = w.Write(body)
}

// wait sleeps d or until the request's context ends.
func wait(r *http.Request, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.Context().Done():
	}
}

// dropConnection closes the connection without a response.
func dropConnection(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			_ = conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
}

// serveSafely answers the API request, its page shaped by the fault
// shape, turning a panic into a 500.
func (h *Handler) serveSafely(dst []byte, r *http.Request, keyValid bool, shape Fault) (resp response) {
	defer func() {
		if v := recover(); v != nil {
			resp = errorResponse(dst[:0], http.StatusInternalServerError, MsgInternal)
		}
	}()
	return h.serve(dst, r, keyValid, shape)
}
