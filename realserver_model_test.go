package ugc_test

import (
	"fmt"
	"hash/fnv"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/internal/walk/walkmodel"
)

// This file serves the generated servers of package walkmodel (the model
// the machine's property in internal/walk drives too) over HTTP: a plain
// httptest handler (not ugctest, which follows the contract) serving one
// list of posts on the posts, gallery or inbox endpoint, with what HTTP
// adds to the model drawn from streams of its own: the endpoint, the
// caller's query (filter, market, include), the labels posts carry, nodes
// that are not posts and not null, next links of every form and escaping,
// and IDs that differ only in invalid UTF-8. A modelCase is what was
// drawn; a modelServer serves it, one independent session (its own copy
// of the list, its own request count) per walk, under a base path of its
// own.

// modelAPIKey is the key every model server checks in x-api-key.
const modelAPIKey = "model-key-0123456789"

// modelLabelIDs are the labels posts carry and filters name.
var modelLabelIDs = []string{
	"aaaaaaaaaaaaaaaaaaaaaaa1", "bbbbbbbbbbbbbbbbbbbbbbb2",
	"ccccccccccccccccccccccc3", "ddddddddddddddddddddddd4",
}

// modelGalleryIDs are the shortIds a gallery case walks; some need escaping.
var modelGalleryIDs = []string{"summer", "summer:2024", "a b", "été", "x+y", "a/b"}

// modelMarkets are the markets a case may localize with.
var modelMarkets = []string{"de-DE", "fr", "mkt 7"}

// labelsOf are the labels a post carries: each of modelLabelIDs with a
// chance of two in five, drawn from a hash of its ID, so that a post
// inserted during a walk carries labels as one of the list does.
func labelsOf(id string) []string {
	h := fnv.New64a()
	h.Write([]byte(id))
	sum := h.Sum64()
	var out []string
	for i, l := range modelLabelIDs {
		if (sum>>(8*i))&0xff < 102 {
			out = append(out, l)
		}
	}
	return out
}

// oddNode marks a node that is not a post and is not null: its raw JSON,
// after a NUL byte (walkmodel.IsPost reads it as not a post).
func oddNode(raw string) string { return "\x00" + raw }

// rawNode is the JSON of a node that is not a post.
func rawNode(e string) string {
	if e == walkmodel.NonPost {
		return "null"
	}
	return e[1:]
}

// modelQuery is what the caller asks for beyond the position.
type modelQuery struct {
	filter  ugc.Filter
	market  string
	include bool
}

func (q modelQuery) String() string {
	var parts []string
	if len(q.filter) > 0 {
		parts = append(parts, "filter="+q.filter.String())
	}
	if q.market != "" {
		parts = append(parts, "market="+q.market)
	}
	if q.include {
		parts = append(parts, "include=labels")
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ",")
}

// matches reports whether a post with labels matches every element of f.
func filterMatches(f ugc.Filter, labels []string) bool {
	for _, el := range f {
		hit := 0
		for _, id := range el.LabelIDs {
			if slices.Contains(labels, id) {
				hit++
			}
		}
		switch el.Operator {
		case ugc.OperatorAnd:
			if hit != len(el.LabelIDs) {
				return false
			}
		default:
			if hit == 0 {
				return false
			}
		}
	}
	return true
}

// nextForm is how a next link names its target.
type nextForm int

const (
	nextFormAbsolute     nextForm = iota // http://host/base/v1/posts?...
	nextFormPathAbsolute                 // /base/v1/posts?...
	nextFormPathRelative                 // posts?...
	nextFormQueryOnly                    // ?...
)

var nextFormNames = [...]string{"absolute", "path-absolute", "path-relative", "query-only"}

// nextEscape is how a next link escapes what it carries.
type nextEscape int

const (
	nextEscapeAsSent    nextEscape = iota // the request's query, skip and limit replaced
	nextEscapeReencoded                   // url.Values.Encode: sorted, %2C, %5B, %3A
	nextEscapeReordered                   // the request's pairs in reverse order
	nextEscapeLoose                       // [ ] , : { } left raw, only " % & + space escaped
	nextEscapePath                        // the path's last variable segment percent-encoded byte by byte
)

var nextEscapeNames = [...]string{"as-sent", "reencoded", "reordered", "loose", "path-encoded"}

// modelCase is one generated server (walkmodel's), and what HTTP adds:
// the endpoint and the query a caller walks it with, and how its next
// links and its nodes are written.
type modelCase struct {
	*walkmodel.Case
	endpoint string // "posts", "gallery" or "inbox"
	gallery  string
	query    modelQuery

	nextForms      []nextForm
	nextEscapes    []nextEscape
	skipLimitOnly  float64 // chance that a next link carries only skip and limit
	oddOut         int     // nodes that are not posts and not null
	invalidIDPairs int     // pairs of posts whose IDs differ only in invalid UTF-8 bytes
}

// newModelCase draws a case from seed: walkmodel's server, and what HTTP
// adds to it, each from a stream of its own.
func newModelCase(seed uint64) *modelCase {
	base, _ := walkmodel.NewCase(seed)
	c := &modelCase{Case: base}
	rng := rand.New(rand.NewPCG(seed, 0x16))
	switch rng.IntN(5) {
	case 0:
		c.endpoint = "gallery"
		c.gallery = modelGalleryIDs[rng.IntN(len(modelGalleryIDs))]
	case 1:
		c.endpoint = "inbox"
	default:
		c.endpoint = "posts"
	}
	if c.endpoint == "posts" {
		switch rng.IntN(6) {
		case 0, 1, 2:
		case 3:
			c.query.filter = ugc.Filter{ugc.AnyLabel(pickLabels(rng, 1+rng.IntN(2))...)}
		case 4:
			c.query.filter = ugc.Filter{ugc.AllLabels(pickLabels(rng, 1+rng.IntN(2))...)}
		default:
			c.query.filter = ugc.Filter{ugc.AnyLabel(pickLabels(rng, 2)...), ugc.AnyLabel(pickLabels(rng, 3)...)}
		}
		c.query.include = rng.IntN(2) == 0
	}
	if c.endpoint != "inbox" && rng.IntN(2) == 0 {
		c.query.market = modelMarkets[rng.IntN(len(modelMarkets))]
	}
	c.drawNext(rng)
	c.drawOddNodes(rand.New(rand.NewPCG(seed, 0x6f64)))
	c.drawInvalidIDs(rand.New(rand.NewPCG(seed, 0x6964)))
	return c
}

// drawNext draws how the case's next links are written.
func (c *modelCase) drawNext(rng *rand.Rand) {
	for range rng.IntN(3) + 1 {
		c.nextForms = append(c.nextForms, nextForm(rng.IntN(len(nextFormNames))))
	}
	for range rng.IntN(3) + 1 {
		c.nextEscapes = append(c.nextEscapes, nextEscape(rng.IntN(len(nextEscapeNames))))
	}
	switch rng.IntN(4) {
	case 0:
		c.skipLimitOnly = 1
	case 1:
		c.skipLimitOnly = 0.5
	}
}

// drawOddNodes writes some of the nodes that are not posts as something
// else than null: a string, a number, an array, an object without an id.
func (c *modelCase) drawOddNodes(rng *rand.Rand) {
	for i, e := range c.Entries {
		if e == walkmodel.NonPost && rng.IntN(10) < 2 {
			c.Entries[i] = oddNode([]string{`"unresolved"`, `42`, `[]`, `{}`, `{"createdAt":"2024-01-01T00:00:00Z"}`}[rng.IntN(5)])
			c.oddOut++
		}
	}
}

// drawInvalidIDs makes, in a tenth of the cases, one or two pairs of
// posts whose IDs differ only in a byte that is not UTF-8.
func (c *modelCase) drawInvalidIDs(rng *rand.Rand) {
	var at []int
	for i, e := range c.Entries {
		if walkmodel.IsPost(e) {
			at = append(at, i)
		}
	}
	if len(at) < 2 || rng.IntN(10) != 0 {
		return
	}
	c.invalidIDPairs = 1 + rng.IntN(2)
	used := map[int]bool{}
	for range c.invalidIDPairs {
		k := rng.IntN(len(at) - 1)
		if used[k] || used[k+1] {
			continue // pairs do not overlap: the IDs stay unique
		}
		used[k], used[k+1] = true, true
		first, second := at[k], at[k+1]
		id := c.Entries[first]
		c.Entries[first], c.Entries[second] = id+"\xff", id+"\xfe"
	}
}

// keeps reports whether a post matches the caller's query.
func (c *modelCase) keeps(id string) bool { return filterMatches(c.query.filter, labelsOf(id)) }

// view is the list as the caller's query sees it: the nodes that are not
// posts, and the posts its filter matches.
func (c *modelCase) view() []string {
	var out []string
	for _, e := range c.Entries {
		if !walkmodel.IsPost(e) || c.keeps(e) {
			out = append(out, e)
		}
	}
	return out
}

func pickLabels(rng *rand.Rand, n int) []string {
	perm := rng.Perm(len(modelLabelIDs))[:n]
	out := make([]string, n)
	for i, p := range perm {
		out[i] = modelLabelIDs[p]
	}
	return out
}

// benign reports whether the case is one a walk must complete: an
// unchanging list, however its count, its next links, its skip and its
// pages misbehave. A next that is null a page early is not benign: the
// walk may read on or end with an error.
func (c *modelCase) benign() bool { return c.Benign() }

// oddBeforeLastPost is how many nodes that are not posts come before the
// last post the caller's query matches: a walk that yields that post has
// passed them all.
func (c *modelCase) oddBeforeLastPost() int {
	odd, passed := 0, 0
	for i, e := range c.view() {
		switch {
		case i < c.StartSkip: // passed over by the caller's skip, not by the walk
		case !walkmodel.IsPost(e):
			odd++
		default:
			passed = odd
		}
	}
	return passed
}

// queryDroppable reports whether a next with only skip and limit drops
// something of the caller's query.
func (c *modelCase) queryDroppable() bool {
	return len(c.query.filter) > 0 || c.query.market != "" || c.query.include
}

// String is the case in one line: the dimensions drawn.
func (c *modelCase) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s endpoint=%s", c.Case, c.endpoint)
	if c.gallery != "" {
		fmt.Fprintf(&b, ":%q", c.gallery)
	}
	var forms, escapes []string
	for _, f := range c.nextForms {
		forms = append(forms, nextFormNames[f])
	}
	for _, e := range c.nextEscapes {
		escapes = append(escapes, nextEscapeNames[e])
	}
	fmt.Fprintf(&b, " query=%s odd=%d invalidIDPairs=%d next=%s/%s skipLimitOnly=%v benign=%v",
		c.query, c.oddOut, c.invalidIDPairs, strings.Join(forms, "|"), strings.Join(escapes, "|"), c.skipLimitOnly, c.benign())
	return b.String()
}

// modelServer serves a modelCase, one session per walk.
type modelServer struct {
	c    *modelCase
	host string // scheme and host

	mu       sync.Mutex
	sessions map[string]*modelSession
}

// modelSession is one walk's server: walkmodel's session, under a lock
// (the handler runs on many goroutines), and what was served.
type modelSession struct {
	mu     sync.Mutex
	name   string
	rng    *rand.Rand // how next links are written
	s      *walkmodel.Session
	budget int
	facts  modelFacts
}

// modelFacts is what a session's server did, for the property's checks.
type modelFacts struct {
	pagesServed        int
	countLiedOnAll     bool // every page's count disagreed with the list served
	firstNextDropped   bool // the first page's next (non-null) carried only skip and limit, dropping the caller's query
	wrongQueryRequests int  // requests that came without the caller's query (or with another)
	lastWrongQuery     string
	earlyLastPage      bool            // a page without next began before where it was asked
	touched            map[string]bool // posts inserted, removed or moved (they need not come)
	lost               map[string]bool // posts the server sent another in place of (they cannot come)
	everCanonical      map[string]int  // how many posts of ever have each canonical ID
	ever               map[string]bool // every post the list held during the walk
}

func newModelServer(t *testing.T, c *modelCase) *modelServer {
	t.Helper()
	s := &modelServer{c: c, sessions: map[string]*modelSession{}}
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	s.host = hs.URL
	return s
}

// session opens a session named name (a path segment) and returns it with
// the base URL to give ugc.NewClient. A session's randomness depends only
// on the case's seed and its name.
func (s *modelServer) session(name string) (*modelSession, string) {
	h := fnv.New64a()
	h.Write([]byte(name))
	stream := h.Sum64()
	sess := &modelSession{
		name: name, rng: rand.New(rand.NewPCG(s.c.Seed, stream^0x6e78)),
		s:     walkmodel.NewSession(s.c.Case, stream),
		facts: modelFacts{countLiedOnAll: true, ever: map[string]bool{}},
	}
	pages := len(s.c.Entries)/max(min(s.c.Limit, s.c.PageCapOr(25)), 1) + 1
	sess.budget = 12*pages + 60
	for _, e := range s.c.Entries {
		if walkmodel.IsPost(e) {
			sess.facts.ever[e] = true
		}
	}
	s.mu.Lock()
	s.sessions[name] = sess
	s.mu.Unlock()
	return sess, s.host + "/" + name
}

func modelError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprint(w, strconv.Quote(msg))
}

func (s *modelServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("x-api-key") != modelAPIKey {
		modelError(w, http.StatusUnauthorized, "No valid API key provided")
		return
	}
	segs := strings.Split(strings.TrimPrefix(r.URL.EscapedPath(), "/"), "/")
	for i, sg := range segs {
		if d, err := url.PathUnescape(sg); err == nil {
			segs[i] = d
		}
	}
	if len(segs) < 3 || segs[1] != "v1" {
		modelError(w, http.StatusNotFound, "no such endpoint")
		return
	}
	s.mu.Lock()
	sess := s.sessions[segs[0]]
	s.mu.Unlock()
	c := s.c
	rest := segs[2:]
	var ok bool
	switch c.endpoint {
	case "posts":
		ok = len(rest) == 1 && rest[0] == "posts"
	case "inbox":
		ok = len(rest) == 1 && rest[0] == "inbox"
	case "gallery":
		ok = len(rest) == 3 && rest[0] == "galleries" && rest[1] == c.gallery && rest[2] == "posts"
	}
	if sess == nil || !ok {
		modelError(w, http.StatusNotFound, "no such list: "+r.URL.EscapedPath())
		return
	}

	q := r.URL.Query()
	var filter ugc.Filter
	if raw, present := q["filter"]; present && c.endpoint == "posts" {
		f, err := ugc.ParseFilter(raw[0])
		if err != nil {
			modelError(w, http.StatusBadRequest, err.Error())
			return
		}
		filter = f
	}
	include := false
	if inc, present := q["include"]; present && c.endpoint == "posts" {
		if inc[0] != "labels" {
			modelError(w, http.StatusBadRequest, "include "+inc[0]+" is not supported")
			return
		}
		include = true
	}
	market := ""
	if c.endpoint != "inbox" {
		market = q.Get("market")
	}
	limit, err := strconv.Atoi(q.Get("limit"))
	if err != nil || limit < 1 || limit > ugc.MaxLimit {
		limit = ugc.MaxLimit
	}
	skip, _ := strconv.Atoi(q.Get("skip"))
	skip = max(skip, 0)

	sess.serve(w, c, s.host, modelRequest{r: r, filter: filter, market: market, include: include, limit: limit, skip: skip})
}

// modelRequest is what a request asks of a list, as the server read it.
type modelRequest struct {
	r           *http.Request
	filter      ugc.Filter
	market      string
	include     bool
	limit, skip int
}

// serve answers one request of the session.
func (s *modelSession) serve(w http.ResponseWriter, c *modelCase, host string, req modelRequest) {
	body, ok := s.answer(c, host, req)
	if !ok {
		modelError(w, http.StatusBadRequest, "model server: request budget spent (the walk loops)")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(body))
}

// answer builds the body of the answer to req under the session's lock, so
// that a change of the list and a page never interleave; ok is false past
// the session's request budget.
func (s *modelSession) answer(c *modelCase, host string, req modelRequest) (body string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.facts.pagesServed >= s.budget {
		return "", false
	}
	if req.filter.String() != c.query.filter.String() || req.market != c.query.market || req.include != c.query.include {
		s.facts.wrongQueryRequests++
		s.facts.lastWrongQuery = req.r.URL.RawQuery
	}
	// The list as this request sees it: filtered only when it asks.
	s.s.Keep = nil
	if len(req.filter) > 0 {
		s.s.Keep = func(id string) bool { return filterMatches(req.filter, labelsOf(id)) }
	}
	a := s.s.Answer(req.skip, req.limit)
	if a.From < req.skip && !a.Next {
		s.facts.earlyLastPage = true
	}
	s.facts.pagesServed++
	if a.Count == a.Seen {
		s.facts.countLiedOnAll = false
	}
	if *modelTrace {
		fmt.Printf("model: #%d skip=%d limit=%d -> from=%d nodes=%d [%s] count=%d next=%v@%d list=%d\n",
			a.Number, req.skip, req.limit, a.From, len(a.Nodes), layout(a.Nodes), a.Count, a.Next, a.NextSkip, a.Seen)
	}
	var b strings.Builder
	b.WriteString(`{"count":`)
	b.WriteString(strconv.Itoa(a.Count))
	b.WriteString(`,"next":`)
	if a.Next {
		next, dropped := s.nextLink(c, host, req.r, a.NextSkip, req.limit)
		if s.facts.pagesServed == 1 && dropped && c.queryDroppable() {
			s.facts.firstNextDropped = true
		}
		b.WriteString(strconv.Quote(next))
	} else {
		b.WriteString("null")
	}
	b.WriteString(`,"nodes":[`)
	for i, e := range a.Nodes {
		if i > 0 {
			b.WriteByte(',')
		}
		if !walkmodel.IsPost(e) {
			b.WriteString(rawNode(e))
			continue
		}
		writeModelPost(&b, e, req.market, req.include)
	}
	b.WriteString("]}")
	return b.String(), true
}

// layout shows a page's nodes for -model-trace: post IDs, and runs of
// nodes that are not posts as -×n.
func layout(nodes []string) string {
	var parts []string
	run := 0
	flush := func() {
		if run > 0 {
			parts = append(parts, fmt.Sprintf("-×%d", run))
			run = 0
		}
	}
	for _, e := range nodes {
		if !walkmodel.IsPost(e) {
			run++
			continue
		}
		flush()
		parts = append(parts, e)
	}
	flush()
	return strings.Join(parts, " ")
}

// nextLink writes the next link of a page, in one of the case's forms and
// escapings; dropped reports whether it carries only skip and limit.
func (s *modelSession) nextLink(c *modelCase, host string, r *http.Request, skip, limit int) (string, bool) {
	form := c.nextForms[s.rng.IntN(len(c.nextForms))]
	esc := c.nextEscapes[s.rng.IntN(len(c.nextEscapes))]
	dropped := s.rng.Float64() < c.skipLimitOnly

	type pair struct{ k, v string } // raw, as escaped in the request
	var pairs []pair
	if !dropped {
		for p := range strings.SplitSeq(r.URL.RawQuery, "&") {
			if p == "" {
				continue
			}
			k, v, _ := strings.Cut(p, "=")
			if dk, _ := url.QueryUnescape(k); dk == "skip" || dk == "limit" {
				continue
			}
			pairs = append(pairs, pair{k, v})
		}
	}
	pairs = append(pairs, pair{"skip", strconv.Itoa(skip)}, pair{"limit", strconv.Itoa(limit)})

	var query string
	switch esc {
	case nextEscapeReencoded:
		vals := url.Values{}
		for _, p := range pairs {
			k, _ := url.QueryUnescape(p.k)
			v, _ := url.QueryUnescape(p.v)
			vals.Add(k, v)
		}
		query = vals.Encode()
	case nextEscapeReordered:
		slices.Reverse(pairs)
		query = joinPairs(pairs, func(p pair) string { return p.k + "=" + p.v })
	case nextEscapeLoose:
		query = joinPairs(pairs, func(p pair) string {
			v, _ := url.QueryUnescape(p.v)
			return p.k + "=" + looseEscape(v)
		})
	default:
		query = joinPairs(pairs, func(p pair) string { return p.k + "=" + p.v })
	}

	path := r.URL.EscapedPath()
	if esc == nextEscapePath {
		segs := strings.Split(path, "/")
		i := len(segs) - 1 // posts, inbox
		if c.endpoint == "gallery" {
			i = len(segs) - 2 // the shortId
		}
		d, _ := url.PathUnescape(segs[i])
		var b strings.Builder
		for _, ch := range []byte(d) {
			fmt.Fprintf(&b, "%%%02X", ch)
		}
		segs[i] = b.String()
		path = strings.Join(segs, "/")
	}
	switch form {
	case nextFormPathAbsolute:
		return path + "?" + query, dropped
	case nextFormPathRelative:
		return path[strings.LastIndex(path, "/")+1:] + "?" + query, dropped
	case nextFormQueryOnly:
		return "?" + query, dropped
	}
	return host + path + "?" + query, dropped
}

func joinPairs[P any](pairs []P, f func(P) string) string {
	out := make([]string, len(pairs))
	for i, p := range pairs {
		out[i] = f(p)
	}
	return strings.Join(out, "&")
}

// looseEscape escapes only what a query value cannot hold raw.
func looseEscape(v string) string {
	var b strings.Builder
	for _, ch := range []byte(v) {
		switch {
		case ch == '"' || ch == '%' || ch == '&' || ch == '+' || ch == '#' || ch == ' ' || ch < 0x21 || ch >= 0x7f:
			fmt.Fprintf(&b, "%%%02X", ch)
		default:
			b.WriteByte(ch)
		}
	}
	return b.String()
}

// writeModelPost writes a post as the server would for a request with
// market and include: the comment tells which labels the post carries and
// which market it was localized for, so a walk that drops its query shows.
func writeModelPost(b *strings.Builder, id string, market string, include bool) {
	labels := labelsOf(id)
	// The ID goes out as its raw bytes (invalid UTF-8 too, as a server that
	// does not check its strings sends it); model IDs need no escaping.
	fmt.Fprintf(b, `{"id":"%s","createdAt":"2024-01-02T03:04:05Z","media":{"location":"https://cdn.example/%s.jpg"},"taggedProducts":[],"comment":%s`,
		id, url.PathEscape(id), strconv.Quote("labels="+strings.Join(labels, ",")+";market="+market))
	if include {
		b.WriteString(`,"labels":[`)
		for i, l := range labels {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(b, `{"id":%q,"name":null}`, l)
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
}

// appendPost adds a post at the end of the session's list, as between two
// runs of a job.
func (s *modelSession) appendPost(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.s.Append(id)
	s.facts.ever[id] = true
}

// required returns the posts a complete walk of the session must yield:
// those of the initial list that match the caller's query, past its skip,
// never removed or moved, and not one the server sent another in place of.
// Call it after the walk.
func (s *modelSession) required(c *modelCase) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for i, e := range c.view() {
		if walkmodel.IsPost(e) && !s.s.Touched[e] && !s.s.Lost[e] && i >= c.StartSkip {
			out = append(out, e)
		}
	}
	return out
}

// snapshot returns, under the lock, what the server did so far.
func (s *modelSession) snapshot() modelFacts {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.facts
	out.ever = maps.Clone(s.facts.ever)
	out.touched = maps.Clone(s.s.Touched)
	out.lost = maps.Clone(s.s.Lost)
	for id := range out.touched {
		out.ever[id] = true // inserted posts among them
	}
	out.everCanonical = map[string]int{}
	for id := range out.ever {
		out.everCanonical[canonicalID(id)]++
	}
	return out
}
