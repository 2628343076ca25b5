package ugc

import (
	"errors"
	"fmt"
	"time"
)

// WalkSummary is what a walk did, for a job that reports or checks it after
// the loop: see [WithSummary].
type WalkSummary struct {
	// Pages is the number of pages yielded (each with at least one new post,
	// and the first page always).
	Pages int
	// Requests is the number of page requests sent, re-reads included, and
	// Retries the attempts among them that failed and were tried again.
	Requests, Retries int
	// Posts is the number of posts yielded.
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
	// Reanchors counts pages whose posts were not where they were asked
	// for (posts added or removed before them, or a wrong page from a
	// cache) and the re-reads that found the walk's place again.
	Reanchors int
	// Repeats counts posts dropped because they were already yielded.
	Repeats int
	// Deviations are the first maxSummaryDeviations (100) of what the
	// tolerant reader forgave on the walk's pages (see [Page.Deviations]),
	// and DeviationCount the number of all of them.
	Deviations     []Deviation
	DeviationCount int
	// Shortfall is how many posts fewer than the last count (less the skip
	// the walk started at) the walk yielded, when it reached the end of the
	// list. Up to the number of posts the list gained while it was walked
	// (added behind the walk, they are not owed) it is only reported here;
	// beyond, it is an error ([ErrIncomplete]).
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
}

// addThrottling writes into s the throttling of a walk, from the Client's
// counters at its start and at its end ([Client.throttleStats]).
func (s *WalkSummary) addThrottling(start, end throttleStats) {
	s.Throttles = int(end.throttles - start.throttles)
	s.Pauses = int(end.pauses - start.pauses)
	s.QuotaWait = end.waited - start.waited
	s.FinalRate = end.rate
}

// maxSummaryDeviations is how many deviations a WalkSummary keeps.
const maxSummaryDeviations = 100

// WithSummary makes the iterator write what the walk did into s when the
// loop ends, however it ends (the end of the list, an error, or a break):
//
//	var sum ugc.WalkSummary
//	for post, err := range client.AllPosts(ctx, params, ugc.WithSummary(&sum)) {
//		...
//	}
//	log.Printf("%d posts in %d requests, %d re-anchors", sum.Posts, sum.Requests, sum.Reanchors)
//
// s must not be read while the loop runs.
func WithSummary(s *WalkSummary) IterOption {
	return iterOptionFunc(func(c *iterConfig) { c.summary = s })
}

// ErrIncomplete matches an [*IncompleteError].
var ErrIncomplete = errors.New("ugc: the walk ended short of the list's count")

// IncompleteError ends a walk that reached the end of the list (a null next
// or an empty page) with fewer posts than the list's count said, by more
// than the list gained while it was walked, or that found no posts at all
// where an unchanged count says they are: the server ended the list early
// or served pages from the wrong place, and the posts it left out were
// never seen.
type IncompleteError struct {
	Endpoint string
	Count    int // the count of the last page
	Skip     int // where the walk started
	Posts    int // posts yielded
}

// Error says how many posts the count promised and how many came.
func (e *IncompleteError) Error() string {
	msg := fmt.Sprintf("ugc: %s ended after %d posts, but its count is %d", e.Endpoint, e.Posts, e.Count)
	if e.Skip > 0 {
		msg += fmt.Sprintf(" (the walk started at skip %d)", e.Skip)
	}
	return msg
}

// Is reports whether target is [ErrIncomplete].
func (e *IncompleteError) Is(target error) bool { return target == ErrIncomplete }
