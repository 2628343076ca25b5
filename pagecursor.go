package ugc

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net/url"
	"strconv"
)

// A cursor is the position of a single call's next page in a form a
// service can hand to its own callers and take back: an opaque, stable,
// URL-safe string (base64url, about 22 characters) that round-trips, and
// that holds neither the upstream host nor the API key. It is bound to its
// list: the endpoint, the gallery and the caller's query (filter, market,
// include). The call that takes it back names the list itself, with its
// own params, and a cursor for another list, or one altered, is refused
// before any request:
//
//	page, err := client.GalleryPosts(ctx, gallery, params, ugc.WithCursor(r.FormValue("cursor")))
//	...
//	next, err := page.Cursor() // "" after the last page
//
// It is not a secret and not signed with one: what a caller can choose by
// forging one is a position in the list the service already serves it.
// Its layout is version 1, list kind, skip and limit (uvarints; limit 0
// where the next link names none), and the first 12 bytes of a SHA-256
// over the list and the position. It holds the position the next link
// names, exactly: a limit above the contract's 25 (a server with a larger
// cap), a skip beyond 2³¹, a skip written "10.0".

// ErrBadCursor matches a cursor that [WithCursor] refuses; it also matches
// [ErrInvalidParams].
var ErrBadCursor = errors.New("ugc: cursor refused")

const (
	cursorVersion = 1
	cursorTagLen  = 12
)

// cursorError is a cursor refused, and why.
type cursorError struct{ reason string }

// Error says why the cursor was refused.
func (e *cursorError) Error() string { return "ugc: cursor refused: " + e.reason }

// Is matches [ErrBadCursor] and [ErrInvalidParams].
func (e *cursorError) Is(target error) bool {
	return target == ErrBadCursor || target == ErrInvalidParams
}

// Cursor returns the position of the next page, for a service to hand its
// caller and take back with [WithCursor]; "" on the last page. It shows no
// host and is bound to its list, but is checksummed, not signed: anyone can
// forge a position, so never use one for authorisation. On a walk's page it is
// an error matching [ErrMisuse] (save [Page.Checkpoint] there). A Next no
// cursor could ask for (not a list's, or a skip or limit that is not a
// whole number) is an error that says which part, and quotes nothing of the
// link: a server wrote it, and it may hold anything, the key included.
func (p *Page) Cursor() (string, error) {
	if p.Next == "" {
		return "", nil
	}
	if p.Checkpoint != (Checkpoint{}) {
		return "", misused(errors.New("ugc: Page.Cursor: a walk's page; resume a walk from its Checkpoint with ResumeFrom"))
	}
	u, err := url.Parse(p.Next)
	if err != nil {
		return "", errors.New("ugc: Page.Cursor: next link does not parse")
	}
	l, ok := listOf(u)
	if !ok {
		return "", errors.New("ugc: Page.Cursor: next link's path is not a list endpoint")
	}
	pos, err := positionOf(u)
	if err != nil {
		var pe *positionError
		errors.As(err, &pe)
		return "", fmt.Errorf("ugc: Page.Cursor: next link's %s is not a whole number of posts: no cursor can ask for its page", pe.field)
	}
	b := []byte{cursorVersion, l.kind}
	b = binary.AppendUvarint(b, uint64(pos.skip))
	b = binary.AppendUvarint(b, uint64(pos.limit))
	b = append(b, l.tag(pos)...)
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// WithCursor makes a single call fetch the page at cursor (from [Page.Cursor])
// of the list the call names; "" asks for the page the params say. A cursor
// for another list, altered, or not a cursor matches [ErrBadCursor] and
// [ErrInvalidParams], before any request. Cursors are checksummed, not signed:
// anyone can forge a position, so never use one for authorisation.
//
// Given to: a call. A walk resumes from a [Checkpoint] ([ResumeFrom]).
func WithCursor(cursor string) Option {
	return func(s *settings) error {
		switch {
		case s.call != nil:
			s.call.cursor = cursor
			return nil
		case s.walk != nil:
			return errors.New("WithCursor belongs to one call (Posts, GalleryPosts, Inbox); a walk resumes from a Checkpoint with ResumeFrom")
		}
		return errors.New("WithCursor belongs to one call, not to a Client")
	}
}

// atCursor returns the URL of a single call u moved to the position of the
// cursor among opts, if any, once the cursor is shown to be for u's list.
// Options that are not valid are left for the call to report.
func (c *Client) atCursor(u *url.URL, opts []Option) (*url.URL, error) {
	cfg, err := c.newCallConfig(opts)
	if err != nil || cfg.cursor == "" {
		return u, nil
	}
	pos, err := readCursor(cfg.cursor, u)
	if err != nil {
		return nil, err
	}
	return withPosition(u, pos), nil
}

// readCursor returns the position a cursor holds, when it is for u's list.
func readCursor(cursor string, u *url.URL) (position, error) {
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil || len(b) < 2+2+cursorTagLen {
		return position{}, &cursorError{"not a cursor of this SDK (Page.Cursor makes them)"}
	}
	if b[0] != cursorVersion {
		return position{}, &cursorError{fmt.Sprintf("cursor of an unknown version %d", b[0])}
	}
	l, _ := listOf(u)
	if b[1] != l.kind {
		return position{}, &cursorError{fmt.Sprintf("the cursor is for %s, not %s", listName(b[1]), listName(l.kind))}
	}
	rest := b[2:]
	s, n := binary.Uvarint(rest)
	rest = rest[max(n, 0):]
	lim, m := binary.Uvarint(rest)
	rest = rest[max(m, 0):]
	if n <= 0 || m <= 0 || len(rest) != cursorTagLen {
		return position{}, &cursorError{"the cursor was altered"}
	}
	if s > math.MaxInt || lim > math.MaxInt {
		return position{}, &cursorError{"the cursor's position is larger than this platform's int"}
	}
	pos := position{skip: int(s), limit: int(lim)}
	if subtle.ConstantTimeCompare(rest, l.tag(pos)) != 1 {
		return position{}, &cursorError{fmt.Sprintf("the cursor is for another %s (filter, market or include), or was altered", listNoun(l.kind))}
	}
	return pos, nil
}

// cursorList is what a cursor is bound to: a list endpoint, its gallery,
// and the caller's query.
type cursorList struct {
	kind    byte // 'p' posts, 'g' a gallery's posts, 'i' the inbox
	gallery string
	query   [3]string // callerKeys' values, the filter in its canonical form
}

// listOf reads the list of u from the end of its path, whatever the base
// path before it: /v1/posts, /v1/inbox or /v1/galleries/{id}/posts.
func listOf(u *url.URL) (cursorList, bool) {
	var l cursorList
	segs := pathSegments(u)
	n := len(segs)
	switch { // a gallery first: its ID may be "v1"
	case n >= 4 && segs[n-4] == "v1" && segs[n-3] == "galleries" && segs[n-1] == "posts":
		l.kind, l.gallery = 'g', segs[n-2]
	case n >= 2 && segs[n-2] == "v1" && segs[n-1] == "posts":
		l.kind = 'p'
	case n >= 2 && segs[n-2] == "v1" && segs[n-1] == "inbox":
		l.kind = 'i'
	default:
		return l, false
	}
	for i, key := range callerKeys {
		l.query[i] = queryValue(u.RawQuery, key)
	}
	if f, err := ParseFilter(l.query[0]); l.query[0] != "" && err == nil {
		l.query[0] = f.String()
	}
	return l, true
}

// tag is the first cursorTagLen bytes of a SHA-256 over the list and a
// position in it.
func (l cursorList) tag(pos position) []byte {
	h := sha256.New()
	h.Write([]byte("ugc-go cursor v1"))
	for _, field := range []string{string(l.kind), l.gallery, l.query[0], l.query[1], l.query[2], strconv.Itoa(pos.skip), strconv.Itoa(pos.limit)} {
		h.Write(binary.AppendUvarint(nil, uint64(len(field))))
		h.Write([]byte(field))
	}
	return h.Sum(nil)[:cursorTagLen]
}

// listName names a list kind in an error, with its endpoint.
func listName(kind byte) string {
	switch kind {
	case 'p':
		return "the posts list (/v1/posts)"
	case 'g':
		return "a gallery's posts (/v1/galleries/{id}/posts)"
	case 'i':
		return "the inbox (/v1/inbox)"
	}
	return "an unknown list"
}

// listNoun is what differs between two lists of one kind.
func listNoun(kind byte) string {
	if kind == 'g' {
		return "gallery"
	}
	return "query"
}
