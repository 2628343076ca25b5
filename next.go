package ugc

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// resolveNext reads the next link of a page answered for the request u: a
// relative reference is resolved against u (RFC 3986), then it must be on
// the client's origin, for the same endpoint as u, and advance skip. nil
// means the page has no next link.
func (c *Client) resolveNext(u *url.URL, next string) (*url.URL, error) {
	if next == "" {
		return nil, nil
	}
	ref, err := url.Parse(next)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadNext, err)
	}
	n, err := c.checkNext(u.ResolveReference(ref))
	if err != nil {
		return nil, err
	}
	if want, got := pathSegments(u), pathSegments(n); !slices.Equal(want, got) {
		return nil, fmt.Errorf("%w: next URL is for %s, not %s: %s", ErrBadNext, n.Path, u.Path, segmentDiff(want, got))
	}
	from, _ := positionOf(u) // a request's own position: the SDK wrote it
	to, err := positionOf(n)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%w: next URL's %w", ErrBadNext, err)
	case to.skip <= from.skip:
		return nil, fmt.Errorf("%w: next URL does not advance skip (%d after %d)", ErrBadNext, to.skip, from.skip)
	}
	return n, nil
}

// parseNext reads a next URL saved from an earlier page: it must be
// absolute, on the client's origin and under its base path, for a list
// endpoint.
func (c *Client) parseNext(next string) (*url.URL, error) {
	u, err := url.Parse(next)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadNext, err)
	}
	if !u.IsAbs() || u.Host == "" {
		return nil, fmt.Errorf("%w: next URL %q is not absolute", ErrBadNext, u.Redacted())
	}
	return c.checkNext(u)
}

// checkNext checks that an absolute next URL is on the client's origin and
// names a list endpoint under its base path. Paths are compared by their
// decoded segments, so "summer%3a2024" and "summer:2024" are the same.
func (c *Client) checkNext(u *url.URL) (*url.URL, error) {
	if !sameOrigin(u, c.base) {
		return nil, fmt.Errorf("%w: next URL is on %s://%s, not the client's origin %s://%s; the API key is only sent there", ErrBadNext, u.Scheme, u.Host, c.base.Scheme, c.base.Host)
	}
	base := pathSegments(c.base)
	segs := pathSegments(u)
	rest, under := segs, len(segs) > len(base) && slices.Equal(segs[:len(base)], base)
	if under {
		rest = segs[len(base):]
	}
	switch {
	case under && len(rest) == 2 && rest[0] == "v1" && (rest[1] == "posts" || rest[1] == "inbox"):
	case under && len(rest) == 4 && rest[0] == "v1" && rest[1] == "galleries" && rest[2] != "" && rest[3] == "posts":
	default:
		return nil, fmt.Errorf("%w: next URL path %q is not a list endpoint under %q", ErrBadNext, u.Path, c.base.Path)
	}
	u.Fragment, u.RawFragment = "", ""
	return u, nil
}

// pathSegments returns the decoded segments of u's path, without the
// leading empty one: "/v1/galleries/a%2Fb/posts" is [v1 galleries a/b posts].
// A segment that does not decode is kept as it is written.
func pathSegments(u *url.URL) []string {
	escaped := strings.TrimPrefix(u.EscapedPath(), "/")
	if escaped == "" {
		return nil
	}
	segs := strings.Split(escaped, "/")
	for i, s := range segs {
		if d, err := url.PathUnescape(s); err == nil {
			segs[i] = d
		}
	}
	return segs
}

// segmentDiff says where two paths' segments first differ.
func segmentDiff(want, got []string) string {
	for i := range min(len(want), len(got)) {
		if want[i] != got[i] {
			return fmt.Sprintf("segment %d is %q, not %q", i+1, got[i], want[i])
		}
	}
	return fmt.Sprintf("%d segments, not %d", len(got), len(want))
}

// withParam returns a copy of u whose query parameter key is value; the
// other parameters keep their order and their escaping. Only the first of a
// repeated key counts, as on the server; the others are dropped.
func withParam(u *url.URL, key string, value int) *url.URL {
	return replaceParam(u, key, key+"="+strconv.Itoa(value))
}

// withoutParam returns a copy of u without the query parameter key.
func withoutParam(u *url.URL, key string) *url.URL {
	return replaceParam(u, key, "")
}

// replaceParam returns a copy of u whose pairs of key are replaced by pair,
// in the first one's place (at the end when u has none), or dropped when
// pair is "".
func replaceParam(u *url.URL, key, pair string) *url.URL {
	out := *u
	rest := u.RawQuery
	var b strings.Builder
	b.Grow(len(rest) + len(pair) + 1)
	replaced := pair == ""
	for rest != "" {
		var p string
		p, rest, _ = strings.Cut(rest, "&")
		if k, _, _ := strings.Cut(p, "="); k == key || strings.ContainsAny(k, "%+") && unescapeQuery(k) == key {
			if replaced {
				continue
			}
			p, replaced = pair, true
		}
		if b.Len() > 0 {
			b.WriteByte('&')
		}
		b.WriteString(p)
	}
	if !replaced {
		if b.Len() > 0 {
			b.WriteByte('&')
		}
		b.WriteString(pair)
	}
	out.RawQuery = b.String()
	return &out
}

func wantsLabels(u *url.URL) bool {
	return slices.Contains(strings.Split(queryValue(u.RawQuery, "include"), ","), string(IncludeLabels))
}

// queryValue returns the first value of key in a raw query, as url.Values'
// Get would, without building the map: it runs once per page.
func queryValue(rawQuery, key string) string {
	v, _ := queryLookup(rawQuery, key)
	return v
}

// queryLookup returns the first value of key in a raw query, and whether
// the query names key at all.
func queryLookup(rawQuery, key string) (string, bool) {
	pair, ok := rawPair(rawQuery, key)
	_, v, _ := strings.Cut(pair, "=")
	return unescapeQuery(v), ok
}

func unescapeQuery(s string) string {
	if !strings.ContainsAny(s, "%+") {
		return s
	}
	u, err := url.QueryUnescape(s)
	if err != nil {
		return ""
	}
	return u
}

// absoluteNext resolves a relative next link against the URL of the request
// that returned it, so that a page's Next can be saved and followed later.
// A link that does not parse is left as it is, for the walk to refuse.
func absoluteNext(u *url.URL, next string) string {
	ref, err := url.Parse(next)
	if next == "" || err != nil || ref.IsAbs() {
		return next
	}
	return u.ResolveReference(ref).String()
}

// callerKeys are the query parameters the caller owns: a next link supplies
// only the position (skip, limit).
var callerKeys = []string{"filter", "market", "include"}

// checkQuery compares the query of a next link with the walk's first
// request's: a parameter the caller owns (filter, market, include) that the
// link leaves out is restored (dropped reports it); one that the link names
// with another value is refused.
func checkQuery(first, next *url.URL) (dropped []string, err error) {
	for _, key := range callerKeys {
		want := queryValue(first.RawQuery, key)
		got, named := queryLookup(next.RawQuery, key)
		switch {
		case got == want:
		case !named:
			dropped = append(dropped, key)
		case key == "filter" && sameFilter(want, got):
		default:
			return dropped, fmt.Errorf("%w: next URL asks for %s=%q, but the walk's is %q", ErrBadNext, key, got, want)
		}
	}
	return dropped, nil
}

// sameFilter reports whether two raw filters say the same (written apart,
// such as with other spacing).
func sameFilter(a, b string) bool {
	fa, errA := ParseFilter(a)
	fb, errB := ParseFilter(b)
	return errA == nil && errB == nil && fa.String() == fb.String()
}

// withCallerQuery returns the next link of a page answered for u with the
// caller's parameters it leaves out restored from u, as u wrote them, and
// which it restored: a job that pages by hand with [Client.NextPage] keeps
// its filter, market and include whatever the server writes into next. A
// link that names one of them with another value is returned as it is (a
// walk refuses it), as is one that does not parse.
func withCallerQuery(u *url.URL, next string) (string, []string) {
	n, err := url.Parse(next)
	if next == "" || err != nil {
		return next, nil
	}
	var restored []string
	for _, key := range callerKeys {
		pair, ok := rawPair(u.RawQuery, key)
		if _, named := queryLookup(n.RawQuery, key); !ok || named {
			continue
		}
		if n.RawQuery != "" {
			n.RawQuery += "&"
		}
		n.RawQuery += pair
		restored = append(restored, key)
	}
	if restored == nil {
		return next, nil
	}
	return n.String(), restored
}

// rawPair returns the first key=value pair of key in a raw query, as
// written (the key may be escaped).
func rawPair(rawQuery, key string) (string, bool) {
	for rawQuery != "" {
		var pair string
		pair, rawQuery, _ = strings.Cut(rawQuery, "&")
		if k, _, _ := strings.Cut(pair, "="); k == key || strings.ContainsAny(k, "%+") && unescapeQuery(k) == key {
			return pair, true
		}
	}
	return "", false
}
