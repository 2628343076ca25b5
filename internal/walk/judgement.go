package walk

// judgement is what the end judgement remembers between pages: pages in a
// row that did not move the walk on, answers in a row that did not, and
// the reads past an end that the count contradicts.
type judgement struct {
	// stale counts pages in a row that did not move the walk on, but the
	// first search's page among them (searchedBack).
	stale        int
	searchedBack bool
	// readsOn counts the reads in a row past an end that the count
	// contradicts; readPastEnd is set once the walk has read past such an
	// end: the server's null next is then no proof that the list ends.
	readsOn     int
	readPastEnd bool
	// endDenied is set when a read past such an end brought posts, after
	// any the walk remembers, on a page it could not place or believe (see
	// [Machine.denyEnd]): an end is then contradicted by posts seen beyond
	// it, whatever the count says, until a page read on from the anchor,
	// where asked, shows where the list ends.
	endDenied bool
	// endAt is where the last end read on from stood; endsAgain counts
	// the ends short of it read on from since the walk last moved on.
	endAt, endsAgain int
	// idle counts the answers taken since the walk last moved on; at
	// idleBound (maxIdle) the walk ends as stalled.
	idle, idleBound int
}
