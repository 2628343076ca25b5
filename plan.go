package ugc

import (
	"fmt"
	"net/url"
)

// plan decides what a walk asks for: the request that goes on from where
// the cursor stands, and, when the walk reads ahead, the requests foreseen
// after it.
//
// Every request is the caller's own (filter, market and include as the
// caller asked) at a position: a next link supplies only where the list
// goes on. A request starts at the anchor, the last post yielded, so that
// its answer shows whether the list moved since the page before, and asks
// for one post more to still bring a full page of new ones.
type plan struct {
	query *url.URL // the walk's first request: its query goes on every request
	limit int      // the caller's page size
	ahead int      // requests in flight beyond the one the walk waits for
	// served is the most nodes the server sends for a page, as its last
	// pages with a next link showed: fewer than asked, on a server that
	// caps pages lower.
	served int
	// byNext is set when the walk follows the server's next links as sent
	// (a server that does not answer skip where asked): the next request.
	byNext *pageRequest
}

func newPlan(first *url.URL, ahead int) plan {
	limit := limitOf(first)
	return plan{query: first, limit: limit, ahead: ahead, served: MaxLimit}
}

// request is the walk's query at skip, for limit posts.
func (p *plan) request(skip, limit int) pageRequest {
	return pageRequest{u: withParam(withParam(p.query, "skip", skip), "limit", limit), skip: skip, limit: limit}
}

// anchoredLimit is the limit of a request that starts at the anchor.
func (p *plan) anchoredLimit() int { return min(p.limit+1, MaxLimit) }

// following returns the request that goes on from where cur stands: at the
// anchor when a page from there still reaches past the last page's end,
// else (nodes that are not posts, or pages of one post, stand between)
// where the list goes on.
func (p *plan) following(cur *cursor) pageRequest {
	switch {
	case !cur.counted && cur.anchor == "": // the first request: the caller's, exactly as built
		return pageRequest{u: p.query, skip: skipOf(p.query), limit: p.limit}
	case p.byNext != nil:
		return *p.byNext
	}
	if cur.anchor != "" && cur.pos-cur.anchorAt < min(p.anchoredLimit(), p.served) {
		return p.request(max(cur.anchorAt, 0), p.anchoredLimit())
	}
	r := p.request(cur.pos, p.limit)
	r.blind = cur.anchor != ""
	return r
}

// foreseen returns the request that follows after, as if after's page will
// be full, and whether there is one: none past count, the end of the list
// (-1 when the count cannot be believed), and none while the walk follows
// next links as sent.
func (p *plan) foreseen(after pageRequest, count int) (pageRequest, bool) {
	n := min(after.limit, p.served)
	switch {
	case p.byNext != nil:
		return pageRequest{}, false // a server that misbehaves is read one page at a time
	case count >= 0 && after.skip+n >= count:
		return pageRequest{}, false
	case n > 1:
		return p.request(after.skip+n-1, p.anchoredLimit()), true
	}
	r := p.request(after.skip+n, p.limit)
	r.blind = true
	return r, true
}

// learn takes what a page shows of the server: how many nodes it sends for
// a page.
func (p *plan) learn(req pageRequest, page *Page) {
	switch n := sentNodes(page); {
	case page.Next == "" || n == 0:
	case n < req.limit:
		p.served = n // a server that caps pages lower than asked
	default:
		p.served = max(p.served, n)
	}
}

// readOn takes a page that ended the list before its count as a sign that
// the server sends no more than that page's nodes a page: the request
// that reads on starts where its posts ended, since one from the anchor
// would bring the same page again.
func (p *plan) readOn(page *Page) {
	if n := sentNodes(page); n > 0 {
		p.served = min(p.served, n)
	}
}

// followNext makes the walk follow next links as the server sends them,
// with the caller's query, from next on.
func (p *plan) followNext(next *url.URL) {
	r := p.request(skipOf(next), limitOf(next))
	p.byNext = &r
}

// checkQuery compares the query of a next link with the walk's: a
// parameter the caller owns (filter, market, include) that the link leaves
// out is restored (dropped reports it); one that the link names with
// another value is refused.
func (p *plan) checkQuery(next *url.URL) (dropped []string, err error) {
	for _, key := range callerKeys {
		want := queryValue(p.query.RawQuery, key)
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
