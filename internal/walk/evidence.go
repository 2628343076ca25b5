package walk

import "strings"

// evidence is what the pages have shown of the server: their counts, and
// what those are worth; a post one page held twice; and the named outcomes
// the walk has seen the cause of.
type evidence struct {
	firstCount  int  // count of the first page
	counted     bool // a page was answered: firstCount is known
	lastCount   int  // count of the last page
	placedCount int  // count of the last page placed
	// placedAnswered is the answer number of the last page placed.
	placedAnswered uint64
	// trust is what the pages' counts have shown themselves to be.
	trust countTrust
	// fell is set once a page's count fell below the one before.
	fell bool
	// twice is the first post a page held twice, at two places;
	// twiceOnLast is set while the last page yielded held a post twice: a
	// checkpoint between the two copies is followed by the second.
	twice       string
	twiceOnLast bool
	// presumed is set while the last page placed yielded posts after an
	// older post than the anchor, the anchor taken for removed: until a
	// page is placed by its anchor, a checkpoint may stand before it
	// (see [ResumeMayRepeat]).
	presumed bool
	// outcomes is what the walk could not vouch for, as it saw it.
	outcomes Outcomes
}

// noteAnswer takes what any answer shows, whatever it is for: a count that
// measures nothing (the server's counts say nothing), and one post in two
// places of one answer (the post that belongs in one of them is missing).
func (e *evidence) noteAnswer(page *Page) {
	if measuresNothing(page) {
		e.trust = countNone
	}
	if id := sentTwice(page); id != "" && e.twice == "" {
		e.twice = strings.Clone(id)
		e.outcomes |= PostSentTwice
	}
}

// countFell reports whether a page's count, one that could be the size
// of the list, fell below the last page's.
func (e *evidence) countFell(page *Page) bool {
	return page.Count < e.lastCount && measures(page)
}

// countTrust grades what a walk has learned of the pages' count.
type countTrust int

const (
	// countHolds: every count so far could be the list's size.
	countHolds countTrust = iota
	// countShort: the walk read past a page's count. The count is stale
	// or cached, or the walk was misplaced by a server that ignores skip:
	// it no longer places pages or credits posts added behind, but a walk
	// that ends short of it is still incomplete.
	countShort
	// countNone: a count measured nothing (0 or less under posts, or the
	// page's own length under a next link), whatever the walk's positions.
	// Only such a count excuses a walk that ends short of it.
	countNone
)

// countLied reports whether a page showed its count is not the list's size.
func (e *evidence) countLied() bool { return e.trust != countHolds }

// gradeCount lowers the trust in the count by what a committed page showed
// of it, the list going on at reached: that the walk read past it (see
// [countTrust]). A count that measures nothing is graded as any answer
// comes ([Machine.Take]).
func (e *evidence) gradeCount(reached int, page *Page) {
	if reached > page.Count && len(page.IDs) > 0 { // an empty page from past the end reads nothing past it
		e.trust = max(e.trust, countShort)
	}
}

// measuresNothing reports whether a page's count is no size of a list: 0
// or less under posts, or the page's own length under a next link. Any
// answer shows it, placed or not.
func measuresNothing(page *Page) bool {
	return page.Count <= 0 && len(page.IDs) > 0 || page.Next.Present && page.Count == len(page.IDs)
}

// believedCount is the last page's count, or -1 once a page showed the
// count is not the size of the list.
func (e *evidence) believedCount() int {
	if e.countLied() {
		return -1
	}
	return e.lastCount
}
