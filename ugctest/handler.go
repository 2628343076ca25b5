package ugctest

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/textproto"
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
	rules     ruleSet
	log       requestLog
	control   bool                  // serve the control API
	quota     atomic.Pointer[quota] // nil: no quota

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
	h := &Handler{key: []byte(apiKey), basePath: c.basePath, onRequest: c.onRequest, data: st, control: c.control}
	if q := c.quota; q != nil {
		if err := h.SetQuota(q.RPS, q.Burst); err != nil {
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

// AddRule installs a fault rule and returns its ID; rules are tried in
// the order they were added (see [Rule]). It returns an error, installing
// nothing, for a rule that cannot work: an unknown endpoint or fault kind,
// a bad path pattern, a negative count, a fraction outside 0..1. Safe to
// call while the handler serves.
func (h *Handler) AddRule(r Rule) (int, error) {
	id, err := h.rules.add(r)
	if err != nil {
		return 0, fmt.Errorf("ugctest: AddRule: %w", err)
	}
	return id, nil
}

// RemoveRule uninstalls the rule with the given ID and reports whether it
// was installed.
func (h *Handler) RemoveRule(id int) bool { return h.rules.remove(id) }

// Rules returns the installed rules with their counts, in the order they
// are tried.
func (h *Handler) Rules() []RuleStatus { return h.rules.statuses() }

// FailNext makes the next n requests fail with f, after any failures
// already queued: a [Rule] that fires n times on any request. It returns
// an error for a negative n or a fault that cannot work.
func (h *Handler) FailNext(n int, f Fault) error {
	if n < 0 {
		return fmt.Errorf("ugctest: FailNext: negative count %d", n)
	}
	if n == 0 {
		return f.check()
	}
	if _, err := h.rules.add(Rule{Name: "FailNext", Times: n, Fault: f}); err != nil {
		return fmt.Errorf("ugctest: FailNext: %w", err)
	}
	return nil
}

// FailFraction makes each later request fail with probability p (0 to 1),
// with a fault drawn from faults. The draws come from a generator seeded
// with seed, one per request in arrival order, so the same sequence of
// requests fails the same way each run. It replaces the previous
// FailFraction; rules come first (a request one of them fires on takes no
// draw). p = 0 turns it off. It returns an error for p outside 0..1, no
// faults with p > 0, or a fault that cannot work.
func (h *Handler) FailFraction(p float64, seed uint64, faults ...Fault) error {
	if err := h.rules.setFraction(p, seed, faults); err != nil {
		return fmt.Errorf("ugctest: FailFraction: %w", err)
	}
	return nil
}

// ClearFaults uninstalls every rule, FailNext's and FailFraction's included.
func (h *Handler) ClearFaults() { h.rules.clear() }

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

// ServeHTTP answers one request: latency, then the fault of the first rule
// that fires, if any, then the API.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	if route, ok := h.controlRequest(r); ok {
		h.serveControl(w, r, route)
		return
	}
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
	}
	if fault.Kind == FaultStall {
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
		rec := Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), RawQuery: r.URL.RawQuery, Header: loggedHeader(r.Header),
			KeyValid: keyValid, Status: resp.status, Fault: fault.Kind, Rule: ruleName, OverQuota: !quota.allowed, Arrived: start, Duration: time.Since(start)}
		h.log.add(rec)
		if h.onRequest != nil {
			h.onRequest(rec)
		}
	}
	if q != nil {
		q.setHeaders(w.Header(), quota)
	}
	write(w, resp, fault)
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

// route maps an escaped path to an endpoint; gallery is the decoded
// shortId. Each segment is decoded on its own, so "/v1/%70osts" is the
// posts list and a shortId may hold an escaped "/".
func (h *Handler) route(escaped string) (kind int, gallery string) {
	rest, ok := strings.CutPrefix(escaped, h.basePath)
	if !ok {
		return routeNone, ""
	}
	var seg [5]string
	n := 0
	for s := range strings.SplitSeq(rest, "/") {
		if n == len(seg) {
			return routeNone, ""
		}
		u, err := url.PathUnescape(s)
		if err != nil {
			return routeNone, ""
		}
		seg[n] = u
		n++
	}
	if seg[0] != "" || seg[1] != "v1" {
		return routeNone, ""
	}
	switch {
	case n == 3 && seg[2] == "posts":
		return routePosts, ""
	case n == 3 && seg[2] == "inbox":
		return routeInbox, ""
	case n == 5 && seg[2] == "galleries" && seg[3] != "" && seg[4] == "posts":
		return routeGallery, seg[3]
	}
	return routeNone, ""
}

// serve answers the API request: auth, route, method, parameters, page
// (shaped by the fault shape).
func (h *Handler) serve(dst []byte, r *http.Request, keyValid bool, shape Fault) response {
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
	return h.servePage(dst, r, q, kind, gallery, p, shape)
}

// servePage answers a list request whose parameters are checked: the list
// (a gallery, the inbox, the posts filtered or not), the page of it that
// shape plans (the contract's, or a misbehaving server's), then its JSON.
func (h *Handler) servePage(dst []byte, r *http.Request, q url.Values, kind int, gallery string, p pageRequest, shape Fault) response {
	h.data.mu.RLock()
	defer h.data.mu.RUnlock()
	var (
		refs   []ref
		base   int            // the position in the list of refs[0]
		filter compiledFilter // nil: the list is not filtered
		total  int
		err    error
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
		if len(p.filter) > 0 {
			filter = h.data.compile(p.filter)
			_, total = h.data.filtered(filter, 0, 0)
		}
	}
	pg := planPage(total, p.skip, p.limit, shape)
	if filter != nil { // refs is the page alone
		refs, _ = h.data.filtered(filter, pg.from, pg.len())
		base = pg.from
	}
	dst = append(dst, `{"count":`...)
	dst = strconv.AppendInt(dst, int64(total), 10)
	dst = append(dst, `,"next":`...)
	if pg.next >= 0 {
		dst = appendJSONString(dst, h.nextURL(r, q, kind, gallery, pg.next, p.limit, pg.nextForm))
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"nodes":[`...)
	for k := range pg.len() {
		if k > 0 {
			dst = append(dst, ',')
		}
		if dst, err = h.appendNode(dst, kind, refs, pg.at(k)-base, p, pg.at(k) == pg.odd); err != nil {
			return errorResponse(dst[:0], http.StatusInternalServerError, MsgInternal)
		}
	}
	dst = append(dst, "]}"...)
	return response{status: http.StatusOK, body: dst}
}

// appendNode appends the item at index i of the list: an inbox post, or
// the post refs[i] localized and labelled as p asks; odd sends it with an
// odd member (FaultOddPost).
func (h *Handler) appendNode(dst []byte, kind int, refs []ref, i int, p pageRequest, odd bool) ([]byte, error) {
	start := len(dst)
	var err error
	if kind == routeInbox {
		dst = append(dst, h.data.inbox[i]...)
	} else if dst, err = h.data.appendPost(dst, refs[i], p.market, p.labels); err != nil {
		return dst, err
	}
	if odd {
		return makeOdd(dst, start)
	}
	return dst, nil
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

// nextURL is the URL of the page after the one that ends at skip: the
// request's scheme, host, base path and query, with skip and limit set,
// written in the form a fault asks for (a zero Fault: absolute).
func (h *Handler) nextURL(r *http.Request, q url.Values, kind int, gallery string, skip, limit int, form Fault) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
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
	return nextOrigin(scheme, host, form) + escapedPath(h.basePath, kind, gallery, form) + "?" + next.Encode()
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
