package walk

// phase is what a walk is doing: the one value that says which request it
// waits for, and how the answer is taken.
type phase uint8

const (
	// reading: the walk goes on from its anchor, with the requests
	// foreseen after it in flight.
	reading phase = iota
	// readingOn: the walk reads past an end that the count, or posts seen
	// beyond it, contradict: one page at a time.
	readingOn
	// rereading: a page that could not be believed is asked again.
	rereading
	// searching: a read goes where the posts seen say the anchor is, or a
	// page is read again to be placed anew.
	searching
	// checkingEdge: the node before a page's anchor is asked (see
	// [Machine.checkEdge]).
	checkingEdge
	// probing: where a first page that is also the last began is asked
	// (see [pageProbe]).
	probing
	// ended: the walk is over.
	ended
)

// pending is what a walk waits for in a phase other than reading: the
// request, the reads its page's placement took so far, whether no page was
// placed before, and what the phase keeps of the page it is about.
type pending struct {
	req           Request
	reads         int
	nothingPlaced bool
	// doubted is a page read again's first placement.
	doubted placement
	// probe is the page a probe or an edge check is for, and the search's
	// state.
	probe *pageProbe
}

// await makes the walk wait for p.req in phase ph.
func (m *Machine) await(ph phase, p pending) { m.phase, m.pending = ph, p }
