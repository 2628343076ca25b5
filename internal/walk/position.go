package walk

// position is where a walk stands in the list: the last post yielded (the
// anchor, by which the next page is placed), where it stands and where the
// list goes on after the last page placed, how far the walk has read, and
// what it has yielded. Positions count nodes as the server sent them,
// nodes that could not be posts included: a run of them moves the walk on
// like posts do.
type position struct {
	anchor   string // ID of the last post yielded; "" before the first
	anchorAt int    // where the anchor stands in the list, as the last page showed
	reached  int    // where the list goes on after the last page placed
	furthest int    // the furthest position read
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
	// yielded counts the posts yielded, dropped the nodes passed over that
	// could not be posts.
	yielded, dropped int
	// handed is where each post of the last page yielded stands in the
	// list, and its ID: the checkpoint of a loop that breaks in its middle.
	handed []handedPost
}

// handedPost is a post of the last page yielded, and where it stands.
type handedPost struct {
	at int
	id string
}
