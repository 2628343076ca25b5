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
)

// This file is a generated model of a real server: a plain httptest handler
// (not ugctest, which follows the contract) serving one list of posts on
// the posts, gallery and inbox endpoints, whose ways of bending the
// contract are drawn from a seed. A modelCase is what was drawn; a
// modelServer serves it, one independent session (its own copy of the list,
// its own request count) per walk, under a base path of its own.

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

// modelEntry is one node of the list: a post (id set) or a node the server
// sends in a post's place (odd: its raw JSON, such as null).
type modelEntry struct {
	id     string
	labels []string
	odd    string
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

// countMode is how a page's count is written.
type countMode int

const (
	countTrue       countMode = iota // the length of the list served
	countZero                        // 0: "not computed"
	countMinusOne                    // -1
	countStaleLower                  // a cached total, lower than the list
	countPageLength                  // the page's own length
	countHigher                      // more than the list holds
	countChanging                    // one of the above, drawn per page
)

var countModeNames = [...]string{"true", "zero", "-1", "stale-lower", "page-length", "higher", "changing"}

func (m countMode) String() string { return countModeNames[m] }

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

// skipMode is how the server reads skip.
type skipMode int

const (
	skipHonoured    skipMode = iota
	skipIgnoredOnce          // one request (ignoreAt) is served from 0
	skipRounded              // served from skip rounded down to a multiple of roundTo
)

// mutationKind is a change of the list during a walk.
type mutationKind int

const (
	mutInsert mutationKind = iota
	mutRemove
	mutMove
)

// modelMutation changes the list before request atRequest of a session is
// answered: ahead of the furthest position served so far, or behind it.
type modelMutation struct {
	atRequest int
	kind      mutationKind
	// ahead: the change is ahead of the furthest position served (for a
	// move, the post comes from there and goes behind it), else behind.
	ahead bool
}

func (m modelMutation) String() string {
	side := "behind"
	if m.ahead {
		side = "ahead"
	}
	return fmt.Sprintf("%s-%s@%d", [...]string{"insert", "remove", "move"}[m.kind], side, m.atRequest)
}

// modelCase is one generated server and the query a caller walks it with.
type modelCase struct {
	seed     uint64
	endpoint string // "posts", "gallery" or "inbox"
	gallery  string
	limit    int
	query    modelQuery
	entries  []modelEntry

	count            countMode
	staleBy, highBy  int
	nextForms        []nextForm
	nextEscapes      []nextEscape
	skipLimitOnly    float64 // chance that a next link carries only skip and limit
	earlyNull        bool    // next is null one page before the last (count then tells the truth)
	startSkip        int     // the caller's skip: nodes of the view passed over
	skip             skipMode
	ignoreAt         int
	roundTo          int
	pageCap          int // 0: pages of the limit asked
	nullRuns, oddOut int // how many runs of null nodes, non-object nodes the list holds
	invalidIDPairs   int // pairs of posts whose IDs differ only in invalid UTF-8 bytes
	mutations        []modelMutation
}

// newModelCase draws a case from seed.
func newModelCase(seed uint64) *modelCase {
	rng := rand.New(rand.NewPCG(seed, 0x16))
	c := &modelCase{seed: seed}
	switch rng.IntN(5) {
	case 0:
		c.endpoint = "gallery"
		c.gallery = modelGalleryIDs[rng.IntN(len(modelGalleryIDs))]
	case 1:
		c.endpoint = "inbox"
	default:
		c.endpoint = "posts"
	}
	switch r := rng.IntN(10); {
	case r < 2:
		c.limit = 1 + rng.IntN(9)
	default:
		c.limit = 10 + rng.IntN(16)
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

	// The list: posts, a few runs of nulls, a few nodes that are not objects.
	n := rng.IntN(131)
	if rng.IntN(10) == 0 {
		n = rng.IntN(4)
	}
	for i := range n {
		c.entries = append(c.entries, modelEntry{id: fmt.Sprintf("p%03d", i), labels: randomLabels(rng)})
	}
	if n > 0 && rng.IntN(10) < 3 {
		c.nullRuns = 1 + rng.IntN(2)
		for range c.nullRuns {
			at, run := rng.IntN(len(c.entries)+1), 1+rng.IntN(35)
			c.entries = slices.Insert(c.entries, at, slices.Repeat([]modelEntry{{odd: "null"}}, run)...)
		}
	}
	if n > 0 && rng.IntN(10) < 2 {
		c.oddOut = 1 + rng.IntN(2)
		for range c.oddOut {
			odd := []string{`"unresolved"`, `42`, `[]`, `{}`, `{"createdAt":"2024-01-01T00:00:00Z"}`}[rng.IntN(5)]
			c.entries = slices.Insert(c.entries, rng.IntN(len(c.entries)+1), modelEntry{odd: odd})
		}
	}

	c.count = countMode(rng.IntN(int(countChanging) + 1))
	c.staleBy, c.highBy = 1+rng.IntN(max(len(c.entries), 1)), 1+rng.IntN(30)

	forms := rng.IntN(3) + 1
	for range forms {
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
	c.earlyNull = rng.IntN(8) == 0

	switch rng.IntN(6) {
	case 0:
		c.skip, c.ignoreAt = skipIgnoredOnce, 2+rng.IntN(4)
	case 1:
		c.skip, c.roundTo = skipRounded, c.limit
	case 2:
		c.skip, c.roundTo = skipRounded, 10
	}
	if rng.IntN(5) == 0 {
		c.pageCap = 10
		if rng.IntN(2) == 0 {
			c.pageCap = 3 + rng.IntN(12)
		}
	}
	if c.skip == skipRounded {
		// A server that rounds skip to a page boundary serves whole
		// pages: a boundary longer than its pages could not be walked
		// even by following next verbatim (asked 5, served 0 to 4, next
		// 5 again).
		c.roundTo = min(c.roundTo, c.limit, c.pageCapOr(ugc.MaxLimit))
	}

	if rng.IntN(20) < 7 {
		for range 1 + rng.IntN(4) {
			c.mutations = append(c.mutations, modelMutation{
				atRequest: 2 + rng.IntN(8), kind: mutationKind(rng.IntN(3)), ahead: rng.IntN(2) == 0,
			})
		}
	}

	// Drawn from a stream of its own, so that adding it left every other
	// dimension of a seed as it was.
	ids := rand.New(rand.NewPCG(seed, 0x6964))
	if n >= 2 && ids.IntN(10) == 0 {
		c.invalidIDPairs = 1 + ids.IntN(2)
		var at []int
		for i, e := range c.entries {
			if e.id != "" {
				at = append(at, i)
			}
		}
		used := map[int]bool{}
		for range c.invalidIDPairs {
			k := ids.IntN(len(at) - 1)
			if used[k] || used[k+1] {
				continue // pairs do not overlap: the IDs stay unique
			}
			used[k], used[k+1] = true, true
			first, second := at[k], at[k+1]
			base := c.entries[first].id
			// Two IDs that differ only in a byte that is not UTF-8.
			c.entries[first].id, c.entries[second].id = base+"\xff", base+"\xfe"
		}
	}

	// The caller's own skip, on an unchanging list (under changes, which
	// posts it passes over is a matter of timing). A stream of its own too.
	if starts := rand.New(rand.NewPCG(seed, 0x736b)); c.benign() && starts.IntN(4) == 0 {
		c.startSkip = 1 + starts.IntN(len(c.view())+2)
	}
	return c
}

// view is the list as the caller's query sees it: the nodes that are not
// posts, and the posts its filter matches.
func (c *modelCase) view() []modelEntry {
	var out []modelEntry
	for _, e := range c.entries {
		if e.id == "" || filterMatches(c.query.filter, e.labels) {
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

func randomLabels(rng *rand.Rand) []string {
	var out []string
	for _, id := range modelLabelIDs {
		if rng.IntN(10) < 4 {
			out = append(out, id)
		}
	}
	return out
}

// benign reports whether the case is one a walk must complete without
// error (issue 16 items 1, 2, 4, 5): an unchanging list, whatever its count
// says, however next is written (skip and limit only included), with skip
// rounded to a page, ignored once, pages capped, and runs of nodes that are
// not posts. A next that is null a page early is not benign: the walk may
// read on or end with an error.
func (c *modelCase) benign() bool {
	return len(c.mutations) == 0 && !c.earlyNull
}

// oddBeforeLastPost is how many nodes that are not posts come before the
// last post the caller's query matches: a walk that yields that post has
// passed them all.
func (c *modelCase) oddBeforeLastPost() int {
	odd, passed := 0, 0
	for i, e := range c.view() {
		switch {
		case i < c.startSkip: // passed over by the caller's skip, not by the walk
		case e.id == "":
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
	fmt.Fprintf(&b, "seed=%d endpoint=%s", c.seed, c.endpoint)
	if c.gallery != "" {
		fmt.Fprintf(&b, ":%q", c.gallery)
	}
	posts := 0
	for _, e := range c.entries {
		if e.id != "" {
			posts++
		}
	}
	fmt.Fprintf(&b, " limit=%d query=%s nodes=%d(posts=%d nullRuns=%d odd=%d invalidIDPairs=%d) count=%s", c.limit, c.query, len(c.entries), posts, c.nullRuns, c.oddOut, c.invalidIDPairs, c.count)
	switch c.count {
	case countStaleLower:
		fmt.Fprintf(&b, "(-%d)", c.staleBy)
	case countHigher:
		fmt.Fprintf(&b, "(+%d)", c.highBy)
	}
	var forms, escapes []string
	for _, f := range c.nextForms {
		forms = append(forms, nextFormNames[f])
	}
	for _, e := range c.nextEscapes {
		escapes = append(escapes, nextEscapeNames[e])
	}
	fmt.Fprintf(&b, " next=%s/%s skipLimitOnly=%v earlyNull=%v", strings.Join(forms, "|"), strings.Join(escapes, "|"), c.skipLimitOnly, c.earlyNull)
	switch c.skip {
	case skipHonoured:
		b.WriteString(" skip=honoured")
	case skipIgnoredOnce:
		fmt.Fprintf(&b, " skip=ignored-once@%d", c.ignoreAt)
	case skipRounded:
		fmt.Fprintf(&b, " skip=rounded-to-%d", c.roundTo)
	}
	if c.pageCap > 0 {
		fmt.Fprintf(&b, " pageCap=%d", c.pageCap)
	}
	if c.startSkip > 0 {
		fmt.Fprintf(&b, " startSkip=%d", c.startSkip)
	}
	if len(c.mutations) > 0 {
		var ms []string
		for _, m := range c.mutations {
			ms = append(ms, m.String())
		}
		fmt.Fprintf(&b, " mutations=%s", strings.Join(ms, ","))
	}
	fmt.Fprintf(&b, " benign=%v", c.benign())
	return b.String()
}

// modelServer serves a modelCase, one session per walk.
type modelServer struct {
	c    *modelCase
	host string // scheme and host

	mu       sync.Mutex
	sessions map[string]*modelSession
}

// modelSession is one walk's view of the server: its own list, changed by
// the case's mutations as its requests arrive, and what was served.
type modelSession struct {
	mu     sync.Mutex // the handler runs on many goroutines
	name   string
	rng    *rand.Rand
	list   []modelEntry
	budget int

	requests    int
	furthest    int             // the furthest position served so far
	touched     map[string]bool // posts inserted, removed, moved or passed by a move (they need not come)
	insertSeq   int             // posts inserted so far, for their IDs
	ignoredDone bool            // the skip ignored once was ignored
	facts       modelFacts
}

// modelFacts is what a session's server did, for the property's checks.
type modelFacts struct {
	pagesServed        int
	countLiedOnAll     bool // every page's count disagreed with the list served
	firstNextDropped   bool // the first page's next (non-null) carried only skip and limit, dropping the caller's query
	wrongQueryRequests int  // requests that came without the caller's query (or with another)
	lastWrongQuery     string
	earlyLastPage      bool                  // a page without next began before where it was asked
	touched            map[string]bool       // posts inserted, removed or moved (they need not come)
	everCanonical      map[string]int        // how many posts of ever have each canonical ID
	ever               map[string]modelEntry // every post the list held during the walk
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
	sess := &modelSession{
		name: name, rng: rand.New(rand.NewPCG(s.c.seed, h.Sum64())),
		list: slices.Clone(s.c.entries), touched: map[string]bool{},
		facts: modelFacts{countLiedOnAll: true, ever: map[string]modelEntry{}},
	}
	pages := len(s.c.entries)/max(min(s.c.limit, s.c.pageCapOr(25)), 1) + 1
	sess.budget = 12*pages + 60
	for _, e := range sess.list {
		if e.id != "" {
			sess.facts.ever[e.id] = e
		}
	}
	s.mu.Lock()
	s.sessions[name] = sess
	s.mu.Unlock()
	return sess, s.host + "/" + name
}

func (c *modelCase) pageCapOr(d int) int {
	if c.pageCap > 0 {
		return c.pageCap
	}
	return d
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
	r, filter, market, include, limit, skip := req.r, req.filter, req.market, req.include, req.limit, req.skip
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests++
	n := s.requests
	if n > s.budget {
		return "", false
	}
	for _, m := range c.mutations {
		if m.atRequest == n {
			s.mutate(m)
		}
	}
	if filter.String() != c.query.filter.String() ||
		market != c.query.market || include != c.query.include {
		s.facts.wrongQueryRequests++
		s.facts.lastWrongQuery = r.URL.RawQuery
	}

	// The list as this request sees it: filtered only when it asks.
	view := s.list
	if len(filter) > 0 {
		view = nil
		for _, e := range s.list {
			if e.id == "" || filterMatches(filter, e.labels) {
				view = append(view, e)
			}
		}
	}
	served := limit
	if c.pageCap > 0 {
		served = min(served, c.pageCap)
	}
	from := skip
	nextFrom := -1 // where next starts: from + len(nodes) unless set
	switch c.skip {
	case skipIgnoredOnce:
		if !s.ignoredDone && n >= c.ignoreAt && skip > 0 {
			s.ignoredDone = true
			from = 0
			nextFrom = skip // next written from the skip asked
		}
	case skipRounded:
		from = skip - skip%c.roundTo
	}
	from = min(from, len(view))
	nodes := view[from:min(from+served, len(view))]
	end := from + len(nodes)
	if nextFrom < 0 {
		nextFrom = end
	} else {
		nextFrom += len(nodes)
	}
	s.furthest = max(s.furthest, end)

	hasNext := len(nodes) > 0 && end < len(view)
	early := false
	if hasNext && c.earlyNull && end+served >= len(view) {
		hasNext, early = false, true
	}

	if from < skip && !hasNext {
		s.facts.earlyLastPage = true
	}
	count := s.count(c, len(view), len(nodes))
	if early {
		count = max(count, len(view)) // a null next the count contradicts: the walk can tell
	}
	s.facts.pagesServed++
	if count == len(view) {
		s.facts.countLiedOnAll = false
	}

	if *modelTrace {
		fmt.Printf("model: #%d skip=%d limit=%d -> from=%d nodes=%d [%s] count=%d next=%v@%d list=%d\n",
			n, skip, limit, from, len(nodes), layout(nodes), count, hasNext, nextFrom, len(view))
	}
	var b strings.Builder
	b.WriteString(`{"count":`)
	b.WriteString(strconv.Itoa(count))
	b.WriteString(`,"next":`)
	if hasNext {
		next, dropped := s.nextLink(c, host, r, nextFrom, limit)
		if s.facts.pagesServed == 1 && dropped && c.queryDroppable() {
			s.facts.firstNextDropped = true
		}
		b.WriteString(strconv.Quote(next))
	} else {
		b.WriteString("null")
	}
	b.WriteString(`,"nodes":[`)
	for i, e := range nodes {
		if i > 0 {
			b.WriteByte(',')
		}
		if e.id == "" {
			b.WriteString(e.odd)
			continue
		}
		writeModelPost(&b, e, market, include)
	}
	b.WriteString("]}")
	return b.String(), true
}

// firstID is the ID of the first post of nodes, for a trace.
// layout shows a page's nodes for -model-trace: post IDs, and runs of
// nodes that are not posts as -×n.
func layout(nodes []modelEntry) string {
	var parts []string
	run := 0
	flush := func() {
		if run > 0 {
			parts = append(parts, fmt.Sprintf("-×%d", run))
			run = 0
		}
	}
	for _, e := range nodes {
		if e.id == "" {
			run++
			continue
		}
		flush()
		parts = append(parts, e.id)
	}
	flush()
	return strings.Join(parts, " ")
}

// count writes a page's count as the case says.
func (s *modelSession) count(c *modelCase, listLen, pageLen int) int {
	mode := c.count
	if mode == countChanging {
		mode = countMode(s.rng.IntN(int(countChanging)))
	}
	switch mode {
	case countZero:
		return 0
	case countMinusOne:
		return -1
	case countStaleLower:
		return max(listLen-c.staleBy, 0)
	case countPageLength:
		return pageLen
	case countHigher:
		return listLen + c.highBy
	}
	return listLen
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

// mutate applies one change to the list.
func (s *modelSession) mutate(m modelMutation) {
	cut := min(s.furthest, len(s.list))
	side := func(ahead bool) (lo, hi int) {
		if ahead {
			return cut, len(s.list)
		}
		return 0, cut
	}
	pickPost := func(ahead bool) int {
		lo, hi := side(ahead)
		var at []int
		for i := lo; i < hi; i++ {
			if s.list[i].id != "" && !s.touched[s.list[i].id] {
				at = append(at, i)
			}
		}
		if len(at) == 0 {
			return -1
		}
		return at[s.rng.IntN(len(at))]
	}
	switch m.kind {
	case mutInsert:
		lo, hi := side(m.ahead)
		s.insertSeq++
		e := modelEntry{id: fmt.Sprintf("n%s-%02d", s.name, s.insertSeq), labels: randomLabels(s.rng)}
		s.list = slices.Insert(s.list, lo+s.rng.IntN(hi-lo+1), e)
		s.facts.ever[e.id] = e
		s.touched[e.id] = true
	case mutRemove:
		if i := pickPost(m.ahead); i >= 0 {
			s.touched[s.list[i].id] = true
			s.list = slices.Delete(s.list, i, i+1)
		}
	case mutMove:
		if i := pickPost(m.ahead); i >= 0 {
			e := s.list[i]
			s.touched[e.id] = true
			s.list = slices.Delete(s.list, i, i+1)
			lo, hi := side(!m.ahead)
			hi = min(hi, len(s.list))
			lo = min(lo, hi)
			j := lo + s.rng.IntN(hi-lo+1)
			// The posts it passes change their order with it: they do not
			// keep their place in the order either.
			for _, p := range s.list[min(i, j):max(i, j)] {
				if p.id != "" {
					s.touched[p.id] = true
				}
			}
			s.list = slices.Insert(s.list, j, e)
		}
	}
}

// writeModelPost writes a post as the server would for a request with
// market and include: the comment tells which labels the post carries and
// which market it was localized for, so a walk that drops its query shows.
func writeModelPost(b *strings.Builder, e modelEntry, market string, include bool) {
	// The ID goes out as its raw bytes (invalid UTF-8 too, as a server that
	// does not check its strings sends it); model IDs need no escaping.
	fmt.Fprintf(b, `{"id":"%s","createdAt":"2024-01-02T03:04:05Z","media":{"location":"https://cdn.example/%s.jpg"},"taggedProducts":[],"comment":%s`,
		e.id, url.PathEscape(e.id), strconv.Quote("labels="+strings.Join(e.labels, ",")+";market="+market))
	if include {
		b.WriteString(`,"labels":[`)
		for i, l := range e.labels {
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
	e := modelEntry{id: id, labels: []string{modelLabelIDs[0]}}
	s.list = append(s.list, e)
	s.facts.ever[id] = e
}

// required returns the posts a complete walk of the session must yield:
// those of the initial list that match the caller's query and were never
// removed or moved. Call it after the walk.
func (s *modelSession) required(c *modelCase) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for i, e := range c.view() {
		if e.id != "" && !s.touched[e.id] && i >= c.startSkip {
			out = append(out, e.id)
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
	out.touched = maps.Clone(s.touched)
	out.everCanonical = map[string]int{}
	for id := range s.facts.ever {
		out.everCanonical[canonicalID(id)]++
	}
	return out
}
