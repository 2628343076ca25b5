package walk

import "slices"

// Page is an answer as read.
type Page struct {
	Count int
	// IDs are the nodes as sent: each post's ID, "" for a node that could
	// not be a post (it holds a place in the list all the same).
	IDs  []string
	Next Next
	// Answered orders the walk's answers as they came: one numbered lower
	// came before one numbered higher; 0 when not known.
	Answered uint64
}

// Next is a page's next link, as the shell read it.
type Next struct {
	// Present is false for a null next.
	Present bool
	// Skip and Limit are the link's position.
	Skip, Limit int
	// Refused is set on a link the shell refused (another origin,
	// endpoint or query): the walk ends after the page, with the shell's
	// error.
	Refused bool
}

// sentTwice returns the ID of a post a page holds twice, or "".
func sentTwice(page *Page) string {
	for i, id := range page.IDs {
		if id != "" && slices.Contains(page.IDs[i+1:], id) {
			return id
		}
	}
	return ""
}

// hasNonPost reports whether a page holds a node that could not be a post.
func hasNonPost(page *Page) bool {
	for _, id := range page.IDs {
		if id == "" {
			return true
		}
	}
	return false
}

// previousPost returns the index of the last post before index i, or -1.
func previousPost(page *Page, i int) int {
	for i--; i >= 0; i-- {
		if page.IDs[i] != "" {
			return i
		}
	}
	return -1
}

// postsAfter counts the posts of a page after index i.
func postsAfter(page *Page, i int) int {
	n := 0
	for _, id := range page.IDs[i+1:] {
		if id != "" {
			n++
		}
	}
	return n
}

// nonPostsFrom counts the nodes of a page from index i on that could not
// be posts.
func nonPostsFrom(page *Page, i int) int {
	n := 0
	for _, id := range page.IDs[min(max(i, 0), len(page.IDs)):] {
		if id == "" {
			n++
		}
	}
	return n
}

// measures reports whether a page's count could be the size of the list:
// not 0 or less, nor the page's own length under a next link.
func measures(page *Page) bool {
	return page.Count > 0 && !(page.Next.Present && page.Count == len(page.IDs))
}
