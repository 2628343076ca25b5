package ugctest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"path"
	"slices"
	"sync"
	"sync/atomic"
)

// Endpoint names a list of the API, for [Rule.Endpoint].
type Endpoint string

// The endpoints a rule can match.
const (
	EndpointPosts   Endpoint = "posts"   // GET /v1/posts
	EndpointGallery Endpoint = "gallery" // GET /v1/galleries/{id}/posts
	EndpointInbox   Endpoint = "inbox"   // GET /v1/inbox
)

// Rule injects a [Fault] into the requests it matches. The zero value of
// each matching field matches everything, and of each counting field fires
// on every request matched:
//
//	// The second and third gallery requests answer 503; posts are untouched.
//	h.AddRule(ugctest.Rule{Endpoint: ugctest.EndpointGallery, After: 1, Times: 2,
//		Fault: ugctest.ErrorResponse(503, "Service unavailable")})
//
// Rules are tried in the order they were added; the first that fires
// decides the request, and the rules after it do not see it. A rule counts
// the requests it matches whether or not it fires on them. Faults that
// shape a list page fire only on requests with a valid key and leave an
// answer that is not a page (a 400, a 404) as it is.
//
// Its JSON form uses the field names in lower camel case, the form the
// control API of cmd/ugcfake reads.
type Rule struct {
	// Name is how reports name the rule; empty names it by its ID.
	Name string `json:"name,omitempty"`

	// Endpoint matches one list; empty matches any path.
	Endpoint Endpoint `json:"endpoint,omitempty"`
	// Path matches the decoded path after the base path with
	// [path.Match], such as "/v1/galleries/summer/posts" or
	// "/v1/galleries/*/posts"; empty matches any.
	Path string `json:"path,omitempty"`
	// Query matches requests that have each of its parameters with one
	// of the values listed (the first value of the request counts); a
	// parameter listed with no values only needs to be present.
	Query url.Values `json:"query,omitempty"`

	// After lets the first After matching requests through.
	After int `json:"after,omitempty"`
	// Every fires on every Every-th matching request after those (0 and
	// 1: each one).
	Every int `json:"every,omitempty"`
	// Fraction fires on a matching request with that probability (0:
	// always), drawn from a generator seeded with Seed, one draw per
	// request that passed After and Every: the same requests fail the same
	// way on every run.
	Fraction float64 `json:"fraction,omitempty"`
	Seed     uint64  `json:"seed,omitempty"`
	// Times is how often the rule fires before it is done (0: no limit).
	Times int `json:"times,omitempty"`

	// Fault is what the rule does.
	Fault Fault `json:"fault"`

	// Optional rules are not reported when they never fire (see
	// [Server.AddRule]).
	Optional bool `json:"optional,omitempty"`
}

// RuleStatus is a rule with what it has done so far.
type RuleStatus struct {
	// ID identifies the rule for [Handler.RemoveRule], and Rule is the
	// rule as it was installed.
	ID   int  `json:"id"`
	Rule Rule `json:"rule"`
	// Matched counts the requests the rule matched, Fired those it
	// injected its fault into.
	Matched int `json:"matched"`
	Fired   int `json:"fired"`
	// Done reports that the rule has fired its Times.
	Done bool `json:"done"`
}

// String names the rule: its Name, or "rule <ID>".
func (s RuleStatus) String() string {
	if s.Rule.Name != "" {
		return s.Rule.Name
	}
	return fmt.Sprintf("rule %d", s.ID)
}

// check returns why r cannot be installed, or nil.
func (r Rule) check() error {
	switch r.Endpoint {
	case "", EndpointPosts, EndpointGallery, EndpointInbox:
	default:
		return fmt.Errorf("unknown endpoint %q (posts, gallery or inbox)", r.Endpoint)
	}
	if _, err := path.Match(r.Path, ""); err != nil {
		return fmt.Errorf("path %q: %w", r.Path, err)
	}
	switch {
	case r.After < 0 || r.Every < 0 || r.Times < 0:
		return errors.New("after, every and times must not be negative")
	case !(r.Fraction >= 0 && r.Fraction <= 1):
		return fmt.Errorf("fraction %v is outside 0..1", r.Fraction)
	}
	if err := r.Fault.check(); err != nil {
		return fmt.Errorf("fault: %w", err)
	}
	return nil
}

// rule is an installed Rule and its counters.
type rule struct {
	RuleStatus
	rng     *rand.Rand
	choices []Fault // FailFraction: the fault is drawn from these
}

// incoming is what rules match a request on.
type incoming struct {
	endpoint Endpoint // "" for a path that is no list
	path     string   // decoded, after the base path
	rawQuery string
	query    url.Values // parsed from rawQuery when a rule first asks
	keyValid bool
}

// param returns the first value of the query parameter k.
func (in *incoming) param(k string) (string, bool) {
	if in.query == nil {
		in.query, _ = url.ParseQuery(in.rawQuery)
	}
	vs, ok := in.query[k]
	if !ok {
		return "", false
	}
	return vs[0], true
}

func (r *rule) matches(in *incoming) bool {
	if r.Rule.Endpoint != "" && r.Rule.Endpoint != in.endpoint {
		return false
	}
	if r.Rule.Path != "" {
		if ok, _ := path.Match(r.Rule.Path, in.path); !ok {
			return false
		}
	}
	for k, want := range r.Rule.Query {
		got, ok := in.param(k)
		if !ok || len(want) > 0 && !slices.Contains(want, got) {
			return false
		}
	}
	return !r.Rule.Fault.Kind.shapesPage() || in.keyValid
}

// fire counts a matching request and reports whether the rule fires on it,
// with the fault to inject.
func (r *rule) fire() (Fault, bool) {
	r.Matched++
	n := r.Matched - r.Rule.After
	if r.Done || n <= 0 || r.Rule.Every > 1 && n%r.Rule.Every != 0 {
		return Fault{}, false
	}
	if r.Rule.Fraction > 0 && r.rng.Float64() >= r.Rule.Fraction {
		return Fault{}, false
	}
	r.Fired++
	r.Done = r.Rule.Times > 0 && r.Fired >= r.Rule.Times
	if len(r.choices) > 0 {
		return r.choices[r.rng.IntN(len(r.choices))], true
	}
	return r.Rule.Fault, true
}

// ruleSet holds a handler's rules. Safe for concurrent use; the handler
// reads active, one atomic load, before it builds what decide matches.
type ruleSet struct {
	mu       sync.Mutex
	active   atomic.Bool
	lastID   int
	rules    []*rule
	fraction *rule // FailFraction's rule, tried after all others
}

func (s *ruleSet) add(r Rule) (int, error) {
	if err := r.check(); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastID++
	s.rules = append(s.rules, s.newRule(r))
	s.active.Store(true)
	return s.lastID, nil
}

func (s *ruleSet) newRule(r Rule) *rule {
	r.Query = cloneValues(r.Query)
	r.Fault.Header = r.Fault.Header.Clone()
	return &rule{RuleStatus: RuleStatus{ID: s.lastID, Rule: r},
		rng: rand.New(rand.NewPCG(r.Seed, r.Seed^0x6a09e667f3bcc909))}
}

func cloneValues(v url.Values) url.Values {
	if v == nil {
		return nil
	}
	out := make(url.Values, len(v))
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}

func (s *ruleSet) remove(id int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, r := range s.rules {
		if r.ID == id {
			s.rules = append(s.rules[:i:i], s.rules[i+1:]...)
			s.active.Store(len(s.rules) > 0 || s.fraction != nil)
			return true
		}
	}
	return false
}

// setFraction replaces FailFraction's rule; p = 0 removes it.
func (s *ruleSet) setFraction(p float64, seed uint64, choices []Fault) error {
	if !(p >= 0 && p <= 1) {
		return fmt.Errorf("fraction %v is outside 0..1", p)
	}
	if p > 0 && len(choices) == 0 {
		return errors.New("no faults to choose from")
	}
	for _, c := range choices {
		if err := c.check(); err != nil {
			return err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fraction = nil
	if p > 0 {
		s.lastID++
		s.fraction = s.newRule(Rule{Name: "FailFraction", Fraction: p, Seed: seed, Fault: choices[0], Optional: true})
		s.fraction.choices = append([]Fault(nil), choices...)
	}
	s.active.Store(len(s.rules) > 0 || s.fraction != nil)
	return nil
}

func (s *ruleSet) clear() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rules, s.fraction = nil, nil
	s.active.Store(false)
}

// statuses returns the installed rules, in the order they are tried.
func (s *ruleSet) statuses() []RuleStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]RuleStatus, 0, len(s.rules)+1)
	for _, r := range s.rules {
		out = append(out, r.RuleStatus)
	}
	if s.fraction != nil {
		out = append(out, s.fraction.RuleStatus)
	}
	return out
}

// decide returns the fault for a request that just arrived (a zero Fault:
// none), and the name of the rule that fired.
func (s *ruleSet) decide(in *incoming) (Fault, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.rules {
		if r.matches(in) {
			if f, ok := r.fire(); ok {
				return f, r.String()
			}
		}
	}
	if r := s.fraction; r != nil {
		if f, ok := r.fire(); ok {
			return f, r.String()
		}
	}
	return Fault{}, ""
}

// AddRule installs a fault rule and returns its ID; rules are tried in
// the order they were added (see [Rule]). It returns an error, installing
// nothing, for a rule that cannot work: an unknown endpoint or fault kind,
// a bad path pattern, a negative count, a fraction outside 0..1. Safe to
// call while the handler serves.
func (h *Handler) AddRule(r Rule) (int, error) {
	if h.tb != nil {
		h.tb.Helper()
	}
	id, err := h.addRule(r)
	return id, h.failTest(err)
}

// addRule is AddRule for the control API, whose caller learns of a bad
// rule from the answer.
func (h *Handler) addRule(r Rule) (int, error) {
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
	if h.tb != nil {
		h.tb.Helper()
	}
	return h.failTest(h.failNext(n, f))
}

func (h *Handler) failNext(n int, f Fault) error {
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
	if h.tb != nil {
		h.tb.Helper()
	}
	if err := h.rules.setFraction(p, seed, faults); err != nil {
		return h.failTest(fmt.Errorf("ugctest: FailFraction: %w", err))
	}
	return nil
}

// ClearFaults uninstalls every rule, FailNext's and FailFraction's included.
func (h *Handler) ClearFaults() { h.rules.clear() }

// NeverFired returns a line for each installed rule that never fired and
// is not Optional, in the order rules are tried: "<rule> (<fault kind>)
// never fired: it matched <n> requests". A test that set up a failure and
// never saw it tests less than it says: a [Server] fails its test with each
// line when the test ends, and cmd/ugcfake logs each when it shuts down.
func (h *Handler) NeverFired() []string {
	var lines []string
	for _, r := range h.Rules() {
		if r.Fired == 0 && !r.Rule.Optional {
			lines = append(lines, fmt.Sprintf("%s (%v) never fired: it matched %d requests", r, r.Rule.Fault.Kind, r.Matched))
		}
	}
	return lines
}
