package walk

// outside is what the walk keeps of a server outside the contract.
type outside struct {
	// nextLag is how far before where the walk has the last page's posts
	// end its next link went on: a server that answers from before where
	// asked (it rounds skip down) while the walk's positions run ahead of
	// its own. An end is judged against the count from the server's
	// position (this, or where the page's anchor shows it began), the
	// lower.
	nextLag int
	// runAhead is how far a resumed walk's positions were seen to run
	// ahead of the server's, by its first page.
	runAhead int
}
