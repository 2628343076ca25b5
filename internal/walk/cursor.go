package walk

// cursor knows where a walk stands in the list: the last post yielded (the
// anchor, by which the next page is placed), where it and the end of the
// last page stand, and what the pages' counts have shown. Positions count
// nodes as the server sent them, nodes that could not be posts included: a
// run of them moves the walk on like posts do.
type cursor struct {
	failOnChange bool
	anchor       string // ID of the last post yielded; "" before the first
	anchorAt     int    // where the anchor stands in the list, as the last page showed
	pos          int    // where the list goes on after the last page placed
	count        int    // count of the first page
	counted      bool   // a page was answered: count is known
	last         int    // count of the last page
	placed       int    // count of the last page placed
	// placedAnswered is the answer number of the last page placed.
	placedAnswered uint64
	// behind is how many posts were added behind the walk, as pages showed
	// it: a post yielded found further on than asked, by no more than the
	// count rose since the last page placed (on a resumed walk's first
	// page, by as much as it moved), less what pages settled from before
	// where they were asked showed of its positions running ahead (see
	// [Machine.settle]). Those posts are not owed to the walk; no other
	// shortfall is excused.
	behind int
	// seeking is set on a walk resumed after a post whose place is not
	// known: pages are passed over until it shows.
	seeking bool
	// byID is set once the server has shown it does not answer skip where
	// asked: pages are then placed by the posts they hold, not by where
	// they were asked for. A count that changes then is a change of the
	// list that cannot be placed, unless the count was seen to lie, when
	// it tells nothing.
	byID bool
	// trust is what the pages' counts have shown themselves to be.
	trust countTrust
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
func (c *cursor) countLied() bool { return c.trust != countHolds }

// gradeCount lowers the trust in the count by what a committed page showed
// of it: that the walk read past it (see [countTrust]). A count that
// measures nothing is graded as any answer comes ([Machine.Take]).
func (c *cursor) gradeCount(page *Page) {
	if c.pos > page.Count && len(page.IDs) > 0 { // an empty page from past the end reads nothing past it
		c.trust = max(c.trust, countShort)
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
func (c *cursor) believedCount() int {
	if c.countLied() {
		return -1
	}
	return c.last
}
