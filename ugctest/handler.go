package ugctest

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ugcposts/ugc-go"
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
	faults    faults
	log       requestLog

	panicHook func() // tests: called while serving, to check recovery
}

// Messages of the error bodies, each sent as a JSON string.
const (
	MsgUnauthorized     = "No valid API key provided"
	MsgInternal         = "Something went wrong"
	MsgTooManyRequests  = "Too many requests"
	MsgNotFound         = "Not found"
	MsgMethodNotAllowed = "Method not allowed"
	MsgGalleryNotFound  = "Gallery not found"
	MsgLimit            = "limit must be an integer of at least 1"
	MsgSkip             = "skip must be an integer of at least 0"
	MsgIncludeEmpty     = "include must not be empty"
)

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
	h := &Handler{key: []byte(apiKey), basePath: c.basePath, onRequest: c.onRequest, data: st}
	h.latency.Store(int64(c.latency))
	h.log.limit = c.logLimit
	return h, nil
}

// BasePath returns the path prefix the handler serves under ("" for none).
func (h *Handler) BasePath() string { return h.basePath }

// SetLatency changes the delay added to every response (0 for none).
func (h *Handler) SetLatency(d time.Duration) { h.latency.Store(int64(d)) }

// FailNext makes the next n requests fail with f, after any failures
// already queued. It returns an error for a negative n or an unknown kind.
func (h *Handler) FailNext(n int, f Fault) error { return h.faults.failNext(n, f) }

// FailFraction makes each later request fail with probability p (0 to 1),
// with a fault drawn from faults. The draws come from a generator seeded
// with seed, one per request in arrival order, so the same sequence of
// requests fails the same way each run. Queued FailNext faults come first
// and take no draw. p = 0 turns it off. It returns an error for p outside
// 0..1, no faults with p > 0, or an unknown kind.
func (h *Handler) FailFraction(p float64, seed uint64, faults ...Fault) error {
	return h.faults.failFraction(p, seed, faults)
}

// ClearFaults drops queued faults and turns FailFraction off.
func (h *Handler) ClearFaults() { h.faults.clear() }

// InsertPosts inserts approved posts at position at of the stored order
// (clamped to 0..count), as if they were approved while a client pages.
// It returns an error, changing nothing, for a post ID already present or a
// post missing a required field.
func (h *Handler) InsertPosts(at int, posts ...Post) error { return h.data.insert(at, posts) }

// RemovePosts removes approved posts by ID from the stored order and from
// every gallery. It returns an error, changing nothing, for an ID that is
// not present.
func (h *Handler) RemovePosts(ids ...string) error { return h.data.remove(ids) }

// MovePost moves an approved post to position to of the stored order
// (clamped to the list), as a server does when a post's sort key changes:
// a walk under way then sees the order change. It returns an error for an
// ID that is not present.
func (h *Handler) MovePost(id string, to int) error { return h.data.move(id, to) }

// ShufflePosts permutes the stored order of the approved posts,
// deterministically for a seed: every walk under way sees its order change.
func (h *Handler) ShufflePosts(seed uint64) { h.data.shuffle(seed) }

// Requests returns a copy of the request log, oldest first.
func (h *Handler) Requests() []Request { return h.log.snapshot() }

// ResetRequests empties the request log.
func (h *Handler) ResetRequests() { h.log.reset() }

// response is an answer decided but not yet written.
type response struct {
	status     int
	body       []byte
	retryAfter string
}

var bodyPool = sync.Pool{New: func() any { b := make([]byte, 0, 32<<10); return &b }}

// ServeHTTP answers one request: latency, then an injected fault if one is
// due, then the API.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	if d := time.Duration(h.latency.Load()); d > 0 {
		wait(r, d)
	}
	fault, faulty := h.faults.next()
	if faulty && fault.Kind == FaultStall {
		wait(r, fault.Stall)
	}
	bp := bodyPool.Get().(*[]byte)
	defer func() {
		if cap(*bp) <= 1<<20 {
			bodyPool.Put(bp)
		}
	}()
	keyValid := subtle.ConstantTimeCompare([]byte(r.Header.Get("x-api-key")), h.key) == 1
	var resp response
	switch {
	case faulty && fault.Kind == FaultInternalError:
		resp = errorResponse((*bp)[:0], http.StatusInternalServerError, MsgInternal)
	case faulty && fault.Kind == FaultRateLimit:
		resp = errorResponse((*bp)[:0], http.StatusTooManyRequests, MsgTooManyRequests)
		resp.retryAfter = fault.RetryAfter
	case faulty && fault.Kind == FaultDropConnection:
		resp.status = 0
	default:
		resp = h.serveSafely((*bp)[:0], r, keyValid)
	}
	*bp = resp.body[:0]
	rec := Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), RawQuery: r.URL.RawQuery, Header: loggedHeader(r.Header),
		KeyValid: keyValid, Status: resp.status, Duration: time.Since(start)}
	if faulty {
		rec.Fault = fault.Kind
	}
	h.log.add(rec)
	if h.onRequest != nil {
		h.onRequest(rec)
	}
	if faulty && fault.Kind == FaultDropConnection {
		dropConnection(w)
		return
	}
	hdr := w.Header()
	hdr["Content-Type"] = []string{"application/json"}
	hdr["Content-Length"] = []string{strconv.Itoa(len(resp.body))}
	if resp.status == http.StatusMethodNotAllowed {
		hdr["Allow"] = []string{http.MethodGet}
	}
	if resp.retryAfter != "" {
		hdr["Retry-After"] = []string{resp.retryAfter}
	}
	w.WriteHeader(resp.status)
	if faulty && fault.Kind == FaultTruncateBody {
		_, _ = w.Write(resp.body[:len(resp.body)/2])
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		panic(http.ErrAbortHandler) // the server closes the connection mid-body
	}
	_, _ = w.Write(resp.body)
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

// serveSafely answers the API request, turning a panic into a 500.
func (h *Handler) serveSafely(dst []byte, r *http.Request, keyValid bool) (resp response) {
	defer func() {
		if v := recover(); v != nil {
			resp = errorResponse(dst[:0], http.StatusInternalServerError, MsgInternal)
		}
	}()
	return h.serve(dst, r, keyValid)
}

// errorResponse is status with msg as a JSON string.
func errorResponse(dst []byte, status int, msg string) response {
	return response{status: status, body: appendJSONString(dst, msg)}
}

// endpoint kinds.
const (
	routeNone = iota
	routePosts
	routeGallery
	routeInbox
)

// route maps an escaped path to an endpoint; gallery is the decoded shortId.
func (h *Handler) route(escaped string) (kind int, gallery string) {
	rest, ok := strings.CutPrefix(escaped, h.basePath)
	if !ok {
		return routeNone, ""
	}
	switch rest {
	case "/v1/posts":
		return routePosts, ""
	case "/v1/inbox":
		return routeInbox, ""
	}
	seg, ok := strings.CutPrefix(rest, "/v1/galleries/")
	if !ok {
		return routeNone, ""
	}
	seg, ok = strings.CutSuffix(seg, "/posts")
	if !ok || seg == "" || strings.Contains(seg, "/") {
		return routeNone, ""
	}
	id, err := url.PathUnescape(seg)
	if err != nil {
		return routeNone, ""
	}
	return routeGallery, id
}

// serve answers the API request: auth, route, method, parameters, page.
func (h *Handler) serve(dst []byte, r *http.Request, keyValid bool) response {
	if h.panicHook != nil {
		h.panicHook()
	}
	if !keyValid {
		return errorResponse(dst, http.StatusUnauthorized, MsgUnauthorized)
	}
	kind, gallery := h.route(r.URL.EscapedPath())
	if kind == routeNone {
		return errorResponse(dst, http.StatusNotFound, MsgNotFound)
	}
	if r.Method != http.MethodGet {
		return errorResponse(dst, http.StatusMethodNotAllowed, MsgMethodNotAllowed)
	}
	q, msg := parseQuery(r.URL.RawQuery)
	if msg != "" {
		return errorResponse(dst, http.StatusBadRequest, msg)
	}
	limit, skip, msg := pagingParams(q)
	if msg != "" {
		return errorResponse(dst, http.StatusBadRequest, msg)
	}
	p := pageRequest{limit: limit, skip: skip, market: -1}
	if kind != routeInbox {
		if kind == routePosts {
			if p.labels, msg = includeParam(q); msg != "" {
				return errorResponse(dst, http.StatusBadRequest, msg)
			}
			f, err := parseFilter(q.Get("filter"))
			if err != nil {
				var fe *ugc.FilterError
				if errors.As(err, &fe) {
					return errorResponse(dst, http.StatusBadRequest, fe.Message)
				}
				return errorResponse(dst, http.StatusBadRequest, err.Error())
			}
			p.filter = f
		}
		if m := q.Get("market"); m != "" {
			mi, ok := h.data.market(m)
			if !ok {
				return errorResponse(dst, http.StatusBadRequest, "Market "+m+" not found")
			}
			p.market = mi
		}
	}
	h.data.mu.RLock()
	defer h.data.mu.RUnlock()
	var (
		refs  []ref
		base  int // the position in the list of refs[0]
		total int
		err   error
	)
	switch kind {
	case routeInbox:
		total = len(h.data.inbox)
	case routeGallery:
		refs, err = h.data.galleryRefs(gallery)
		if err != nil {
			return errorResponse(dst, http.StatusNotFound, MsgGalleryNotFound)
		}
		total = len(refs)
	case routePosts:
		refs, total = h.data.order, len(h.data.order)
		if len(p.filter) > 0 { // refs is then the page alone
			refs, total = h.data.filtered(h.data.compile(p.filter), p.skip, p.limit)
			base = min(p.skip, total)
		}
	}
	from := min(p.skip, total)
	to := min(from+p.limit, total)
	dst = append(dst, `{"count":`...)
	dst = strconv.AppendInt(dst, int64(total), 10)
	dst = append(dst, `,"next":`...)
	if to < total {
		dst = appendJSONString(dst, h.nextURL(r, q, kind, gallery, to, p.limit))
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"nodes":[`...)
	for i := from; i < to; i++ {
		if i > from {
			dst = append(dst, ',')
		}
		if kind == routeInbox {
			dst = append(dst, h.data.inbox[i]...)
			continue
		}
		dst, err = h.data.appendPost(dst, refs[i-base], p.market, p.labels)
		if err != nil {
			return errorResponse(dst[:0], http.StatusInternalServerError, MsgInternal)
		}
	}
	dst = append(dst, "]}"...)
	return response{status: http.StatusOK, body: dst}
}

// pageRequest is a list request's checked parameters.
type pageRequest struct {
	limit, skip int
	market      int // -1: none
	labels      bool
	filter      ugc.Filter
}

// pagingParams reads limit (default and cap 25) and skip (default 0); msg
// is the 400 message for a bad one.
func pagingParams(q url.Values) (limit, skip int, msg string) {
	limit = ugc.MaxLimit
	if vs, ok := q["limit"]; ok {
		n, err := strconv.Atoi(vs[0])
		switch {
		case err != nil && errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(vs[0], "-"):
			n = ugc.MaxLimit
		case err != nil || n < 1:
			return 0, 0, MsgLimit
		}
		limit = min(n, ugc.MaxLimit)
	}
	if vs, ok := q["skip"]; ok {
		n, err := strconv.Atoi(vs[0])
		switch {
		case err != nil && errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(vs[0], "-"):
			n = int(^uint(0) >> 1)
		case err != nil || n < 0:
			return 0, 0, MsgSkip
		}
		skip = n
	}
	return limit, skip, ""
}

// includeParam reads include: absent is false, every comma-separated value
// must be "labels".
func includeParam(q url.Values) (labels bool, msg string) {
	vs, ok := q["include"]
	if !ok {
		return false, ""
	}
	for _, v := range strings.Split(vs[0], ",") {
		v = strings.TrimSpace(v)
		switch v {
		case "":
			return false, MsgIncludeEmpty
		case string(ugc.IncludeLabels):
			labels = true
		default:
			return false, "Include " + v + " is not supported"
		}
	}
	return labels, ""
}

// nextURL is the absolute URL of the page after the one that ends at skip:
// the request's scheme, host, base path and query, with skip and limit set.
func (h *Handler) nextURL(r *http.Request, q url.Values, kind int, gallery string, skip, limit int) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	path := h.basePath
	switch kind {
	case routePosts:
		path += "/v1/posts"
	case routeInbox:
		path += "/v1/inbox"
	case routeGallery:
		path += "/v1/galleries/" + url.PathEscape(gallery) + "/posts"
	}
	next := make(url.Values, len(q)+2)
	for k, v := range q {
		next[k] = v
	}
	next["skip"] = []string{strconv.Itoa(skip)}
	next["limit"] = []string{strconv.Itoa(limit)}
	host := r.Host
	if host == "" { // an HTTP/1.0 request without Host: the address it reached
		if addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
			host = addr.String()
		}
	}
	return scheme + "://" + host + path + "?" + next.Encode()
}

// Bounds on what one request may cost.
const (
	maxQueryParams  = 1000     // parameters in the query string
	maxFilterBytes  = 64 << 10 // length of the filter parameter, URL-decoded
	maxFilterValues = 1000     // label IDs in the filter, all elements together
)

// parseFilter reads the filter parameter by [ugc.ParseFilter], within the
// bounds above: a filter longer than maxFilterBytes is refused before it is
// parsed, so a huge one costs nothing; one with more than maxFilterValues
// values after (parsing at most 64 KiB is cheap, and the server's own
// messages come first). Either is a [*ugc.FilterError].
func parseFilter(raw string) (ugc.Filter, error) {
	if len(raw) > maxFilterBytes {
		return nil, &ugc.FilterError{Message: fmt.Sprintf("Filter is longer than %d bytes", maxFilterBytes)}
	}
	f, err := ugc.ParseFilter(raw)
	if err != nil {
		return nil, err
	}
	n := 0
	for _, el := range f {
		n += len(el.LabelIDs)
	}
	if n > maxFilterValues {
		return nil, &ugc.FilterError{Message: fmt.Sprintf("Filter has more than %d values", maxFilterValues)}
	}
	return f, nil
}

// parseQuery reads a query string, or says why it cannot: a bad escape, a
// ";" separator or too many parameters is a 400, never a query silently
// cut short (a filter with a bad escape would otherwise return the whole
// unfiltered list, and a client that encodes it wrongly pass its tests).
func parseQuery(raw string) (url.Values, string) {
	if strings.Count(raw, "&") >= maxQueryParams {
		return nil, fmt.Sprintf("Query has more than %d parameters", maxQueryParams)
	}
	q, err := url.ParseQuery(raw)
	if err != nil {
		return nil, "Query string is not valid: " + err.Error()
	}
	return q, ""
}

// appendJSONString appends s as a JSON string, without HTML escaping (as
// JavaScript's JSON.stringify writes it).
func appendJSONString(dst []byte, s string) []byte {
	buf := bytes.NewBuffer(dst)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	b := buf.Bytes()
	return b[:len(b)-1]
}

// market returns the index of the market with the given ID (any case) or
// shortId (exact).
func (s *store) market(v string) (int, bool) {
	if i, ok := s.marketBy[v]; ok {
		return i, true
	}
	i, ok := s.marketBy[strings.ToLower(v)]
	if ok && !ugc.IsID(v) {
		return 0, false // a lower-cased shortId is not the shortId
	}
	return i, ok
}
