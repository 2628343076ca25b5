package ugc

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/ugcposts/ugc-go/internal/walk"
)

// WalkSummary is what a walk did, for a job that reports or checks it after
// the loop: see [WithSummary]. Each field that counts something the walk
// forgave or repaired has a log line at Warn (the first of its kind in a
// walk; the others at Debug) when the client has a logger.
type WalkSummary struct {
	// Pages is the number of pages yielded (each with at least one new post,
	// and the first page always).
	Pages int
	// Requests is the number of page requests sent, re-reads and requests
	// cancelled because the walk no longer needed them included, and
	// Retries the attempts among them that failed and were tried again.
	Requests, Retries int
	// Posts is the number of posts handed to the caller.
	Posts int
	// CountAtStart and CountAtEnd are the count of the first and of the
	// last page.
	CountAtStart, CountAtEnd int
	// ShortPages counts pages that held fewer posts than their limit while
	// giving a next link; the walk read on (the contract says such a page
	// ends the list, but following next is its first rule).
	ShortPages int
	// NextCorrected counts next links whose skip did not match the posts
	// received (a server that advances by the limit on a short page), and
	// null ones on a page that ended the list before its count; the walk
	// read from where the posts ended instead.
	NextCorrected int
	// QueryRestored counts next links that left out a parameter of the
	// caller's query (filter, market, include): the walk sent the
	// caller's own, as on every request.
	QueryRestored int
	// CountMismatches counts pages whose count disagreed with where the
	// list ends: a count that said the list was done while the next link
	// went on (0 or -1 for "not computed", a stale or per-page count), a
	// negative one, or one that differed from the posts found at the end.
	// The walk followed next; the count decided nothing.
	CountMismatches int
	// Reanchors counts pages whose posts were not where they were asked
	// for (posts added or removed before them, or a wrong page from a
	// cache) and the re-reads that found the walk's place again.
	Reanchors int
	// Unverified counts pages whose place the walk could not check: read
	// without the anchor (after a run of nodes that could not be posts
	// longer than a page, or from a server that sends one post a page), or
	// answered twice alike away from where they were asked while the count
	// stood. A walk with such pages cannot vouch for its own completeness:
	// a shortfall at its end is [ErrIncomplete].
	Unverified int
	// Repeats counts posts dropped because they were already yielded.
	Repeats int
	// Deviations are the first maxSummaryDeviations (100) of what the
	// tolerant reader forgave on the walk's pages (see [Page.Deviations]),
	// and DeviationCount the number of all of them.
	Deviations     []Deviation
	DeviationCount int
	// Outcomes names what the walk could not vouch for, when it saw a
	// server misbehave in a way no client can check from outside: for
	// example "followed-next" when the server did not answer skip where
	// asked and the walk followed its next links as sent. The names and
	// what each lifts of the walk's promise are the documentation of
	// package github.com/ugcposts/ugc-go/internal/walk. nil: none, and
	// the walk vouches for every post.
	Outcomes []string
	// Shortfall is how many posts fewer than the last count (less the skip
	// the walk started at and the nodes that could not be posts) the walk
	// yielded, when it reached the end of the list. Up to the number of
	// posts the list gained while it was walked (added behind the walk,
	// they are not owed) it is only reported here; beyond, it is an error
	// ([ErrIncomplete]).
	Shortfall int
	// Rate limits (issue 18). These are the Client's, over the time of
	// the walk: a Client shared with other calls counts theirs too.
	//
	// Throttles counts the 429 and 503 answers.
	Throttles int
	// Pauses counts the client-wide pauses started: a throttle's named
	// wait, or the reset of a quota an answer showed used up.
	Pauses int
	// QuotaWait is the time attempts waited for their turn: pauses, the
	// configured or adaptive rate, the cap on requests in flight. Attempts
	// in flight together wait together, so it may exceed the walk's time.
	QuotaWait time.Duration
	// FinalRate is the rate, in requests per second, the Client allowed
	// itself at the end of the walk: the lower of [WithRateLimit]'s and
	// the adaptive rate; 0 when neither applied.
	FinalRate float64

	// Checkpoint is where the walk stands after the last post handed to
	// the caller: give it to [ResumeFrom] to go on from there, exactly,
	// even after the last page (the resumed walk then yields only posts
	// added since).
	Checkpoint Checkpoint
}

// addThrottling writes into s the throttling of a walk, from the Client's
// counters at its start and at its end ([Client.throttleStats]).
func (s *WalkSummary) addThrottling(start, end throttleStats) {
	s.Throttles = int(end.throttles - start.throttles)
	s.Pauses = int(end.pauses - start.pauses)
	s.QuotaWait = end.waited - start.waited
	s.FinalRate = end.rate
}

// Checkpoint is where a walk stands, to resume it later with [ResumeFrom]:
// a batch job saves the one of each page ([Page.Checkpoint]) or of the
// summary ([WalkSummary.Checkpoint]), as JSON or as its two strings.
type Checkpoint struct {
	// URL is the walk's request (the caller's query) just after the last
	// post handed out.
	URL string `json:"url"`
	// After is the ID of that post, by which the resumed walk places its
	// first page: it neither repeats nor skips a post when posts were
	// added or removed between the two runs. "" before the first post.
	After string `json:"after"`
}

// eventKind is what happened in a walk that its summary counts.
type eventKind int

const (
	evRequest eventKind = iota
	evPage
	evPosts
	evRepeats
	evDeviations
	evShortPage
	evNextCorrected
	evQueryRestored
	evCountMismatch
	evReanchor
	evFollowNext
	evUnverified
	evShortfall
	evHandedOut
	eventKinds
)

// machineEvents maps what the walk's machine reports to the summary's
// kinds.
var machineEvents = [...]eventKind{
	walk.EventRepeats: evRepeats, walk.EventShortPage: evShortPage, walk.EventNextCorrected: evNextCorrected,
	walk.EventCountMismatch: evCountMismatch, walk.EventReanchor: evReanchor, walk.EventFollowNext: evFollowNext,
	walk.EventUnverified: evUnverified, walk.EventShortfall: evShortfall,
}

// eventMessages are the log lines of what the walk forgave or repaired, by
// default.
var eventMessages = [eventKinds]string{
	evShortPage:     "ugc: a page shorter than its limit gave a next link; reading on",
	evCountMismatch: "ugc: the count disagrees with where the list ends; following next",
	evUnverified:    "ugc: a page read without the anchor: nothing on it shows it came from where it was asked",
}

// event is one thing a walk records: its kind, a number (posts, repeats),
// and for a log line the request and page it concerns (a machine's event
// about a page, or a page as read).
type event struct {
	kind eventKind
	n    int
	ctx  context.Context
	req  walk.Request
	m    walk.Event
	page *Page
	devs []Deviation
	msg  string
}

// record writes events into the walk's summary, and logs those that say
// what the walk forgave or repaired: the one place the summary is written.
// Nothing the walk decides reads it.
func (w *walker) record(events ...event) {
	s := &w.sum
	for _, e := range events {
		switch e.kind {
		case evDeviations:
			w.noteDeviations(e.devs)
		case evFollowNext:
		case evShortfall:
			s.Shortfall = max(e.n, 0)
		case evHandedOut:
			// The caller stopped after e.n posts of the last page.
			s.Posts -= w.handed - e.n
			s.Checkpoint = w.checkpoint(e.n)
		case evPosts, evRepeats:
			*s.tally(e.kind) += e.n
		default:
			*s.tally(e.kind)++
		}
		w.logEvent(e)
	}
}

// tally is the field of s that counts events of kind k.
func (s *WalkSummary) tally(k eventKind) *int {
	return [eventKinds]*int{
		evRequest: &s.Requests, evPage: &s.Pages, evPosts: &s.Posts, evRepeats: &s.Repeats,
		evShortPage: &s.ShortPages, evNextCorrected: &s.NextCorrected, evQueryRestored: &s.QueryRestored,
		evCountMismatch: &s.CountMismatches, evReanchor: &s.Reanchors, evUnverified: &s.Unverified,
	}[k]
}

// logEvent logs an event that says what the walk forgave or repaired: the
// first of its kind at Warn, the others at Debug.
func (w *walker) logEvent(e event) {
	msg := e.msg
	if msg == "" {
		msg = eventMessages[e.kind]
	}
	var posts, count int
	switch {
	case e.page != nil:
		posts, count = len(e.page.Nodes), e.page.Count
	case e.m.OfPage:
		posts, count = e.m.Nodes, e.m.Count
	default:
		return
	}
	if w.c.logger == nil || msg == "" || e.kind == evPage {
		return
	}
	level := slog.LevelDebug
	if w.logged[e.kind] == 0 {
		level = slog.LevelWarn
	}
	w.logged[e.kind]++
	w.c.logger.LogAttrs(e.ctx, level, msg, slog.String("endpoint", w.query.Path), slog.Int("skip", e.req.Skip),
		slog.Int("posts", posts), slog.Int("count", count))
}

// noteDeviations adds what the tolerant reader forgave on a page to the
// summary: the first maxSummaryDeviations, and the count of all.
func (w *walker) noteDeviations(devs []Deviation) {
	for _, d := range devs {
		w.sum.DeviationCount++
		if len(w.sum.Deviations) < maxSummaryDeviations {
			w.sum.Deviations = append(w.sum.Deviations, d)
		}
	}
}

// finishSummary completes the summary when the walk ends, and hands it to
// the caller's WithSummary.
func (w *walker) finishSummary() {
	w.sum.CountAtStart, w.sum.CountAtEnd = w.m.Counts()
	w.sum.CountAtStart = max(w.sum.CountAtStart, 0)
	w.sum.Outcomes = outcomeNames(w.m.Outcomes())
	w.sum.Retries = int(w.retries.Load())
	w.sum.addThrottling(w.throttled, w.c.throttleStats())
	if w.sum.Checkpoint == (Checkpoint{}) {
		w.sum.Checkpoint = w.checkpoint(w.handed)
	}
	if w.cfg.summary != nil {
		*w.cfg.summary = w.sum
	}
}

// outcomeNames names the outcomes of a walk, nil for none.
func outcomeNames(o walk.Outcomes) []string {
	if o == 0 {
		return nil
	}
	return strings.Split(o.String(), ",")
}

// maxSummaryDeviations is how many deviations a WalkSummary keeps.
const maxSummaryDeviations = 100
