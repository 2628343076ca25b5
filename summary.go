package ugc

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/ugcposts/ugc-go/internal/walk"
)

// WalkSummary is what a walk did, for a job that reports or checks it
// after the loop (see [WithSummary]). What the walk forgave or repaired is
// also logged, at Warn the first time, with [WithLogger].
type WalkSummary struct {
	// Pages yielded, page Requests sent (re-reads and cancelled ones
	// included), Retries among them, and Posts handed to the caller.
	Pages, Requests, Retries, Posts int
	// CountAtStart and CountAtEnd are the first and the last page's count.
	CountAtStart, CountAtEnd int
	// What the walk forgave or repaired: short pages that gave a next
	// link, next links it corrected or restored the query of, counts
	// that disagreed with the list's end, pages not where asked (and
	// their re-reads), pages it could not place, posts dropped as repeats.
	ShortPages, NextCorrected, QueryRestored, CountMismatches, Reanchors, Unverified, Repeats int
	// Deviations are the first 100 of the pages' [Page.Deviations], and
	// DeviationCount the number of all of them.
	Deviations     []Deviation
	DeviationCount int
	// Outcomes names what the walk could not vouch for, such as
	// "followed-next" (a server that ignored skip); package internal/walk
	// documents each name. nil: the walk vouches for every post.
	Outcomes []string
	// Shortfall is how many posts fewer than the last count the walk
	// yielded at the end of the list; beyond what the list gained during
	// the walk, it is an [ErrIncomplete].
	Shortfall int
	// Throttles (429 and 503 answers), client-wide Pauses started, the
	// QuotaWait of attempts for their turn, and the FinalRate in requests
	// a second the Client allowed itself (0: none). These are the Client's
	// over the walk's time, other calls' included.
	Throttles, Pauses int
	QuotaWait         time.Duration
	FinalRate         float64
	// Checkpoint is where the walk stands after the last post handed out:
	// give it to [ResumeFrom] to go on from there, even after the last page.
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

// Checkpoint is where a walk stands, to resume it with [ResumeFrom]; save
// it as JSON. URL is the walk's next request, After the ID of the last post
// handed out ("" before the first), by which the resumed walk places its
// first page.
type Checkpoint struct {
	URL   string `json:"url"`
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
			s.Checkpoint = w.before
			if e.n > 0 {
				s.Checkpoint = w.checkpoint(e.n)
			}
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
		w.sum.Checkpoint = w.after
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
