package ugctest

import "fmt"

// InsertPosts inserts approved posts at position at of the stored order
// (clamped to 0..count), as if they were approved while a client pages.
// It returns an error, changing nothing, for a post ID already present or a
// post missing a required field.
func (h *Handler) InsertPosts(at int, posts ...Post) error {
	if h.tb != nil {
		h.tb.Helper()
	}
	return h.failTest(methodErr("InsertPosts", h.data.insert(at, posts)))
}

// RemovePosts removes approved posts by ID from the stored order and from
// every gallery. It returns an error, changing nothing, for an ID that is
// not present.
func (h *Handler) RemovePosts(ids ...string) error {
	if h.tb != nil {
		h.tb.Helper()
	}
	return h.failTest(methodErr("RemovePosts", h.data.remove(ids)))
}

// MovePost moves an approved post to position to of the stored order
// (clamped to the list), as a server does when a post's sort key changes:
// a walk under way then sees the order change. It returns an error for an
// ID that is not present.
func (h *Handler) MovePost(id string, to int) error {
	if h.tb != nil {
		h.tb.Helper()
	}
	return h.failTest(methodErr("MovePost", h.data.move(id, to)))
}

// ShufflePosts permutes the stored order of the approved posts,
// deterministically for a seed: every walk under way sees its order change.
func (h *Handler) ShufflePosts(seed uint64) { h.data.shuffle(seed) }

// methodErr names the method that returns err, if err is not nil.
func methodErr(method string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("ugctest: %s: %w", method, err)
}
