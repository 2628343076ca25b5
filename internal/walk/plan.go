package walk

// plan decides what a walk asks for: the request that goes on from where
// the cursor stands, and, when the walk reads ahead, the requests foreseen
// after it. A request starts at the node before the anchor, the last post
// yielded (or at the anchor: see [plan.overlap]), so that its answer shows
// whether the list moved since the page before, and asks for as many more
// to still bring a full page of new ones.
type plan struct {
	limit int // the caller's page size
	ahead int // requests in flight beyond the one the walk waits for
	// served is the most nodes the server sends for a page, as its last
	// pages with a next link showed: fewer than asked, on a server that
	// caps pages lower.
	served int
	// follows is set once the server has shown it does not answer skip
	// where asked: the walk follows its next links as sent, and pages are
	// placed by the posts they hold, not by where they were asked for. A
	// count that changes then is a change of the list that cannot be
	// placed, unless the count was seen to lie, when it tells nothing.
	// byNext is the next request, the last next link.
	follows bool
	byNext  *Request
}

func newPlan(limit, ahead int) plan {
	return plan{limit: max(limit, 1), ahead: ahead, served: MaxLimit}
}

// at is the walk's request at skip, for limit posts.
func (p *plan) at(skip, limit int) Request { return Request{Skip: skip, Limit: limit} }

// overlap is how many nodes a request that goes on from the anchor reads
// again: the anchor and the node before it, where the limit leaves room
// for both (a post sent twice in place of the one after the anchor then
// shows on one page when changes the count does not show moved the anchor
// back by one: see the package documentation); the anchor alone at the
// largest limits, so that a page
// still brings a full page of new posts, and on a server that sends two
// nodes a page or fewer.
func (p *plan) overlap() int {
	if p.limit+2 <= MaxLimit && p.served > 2 {
		return 2
	}
	return 1
}

// anchoredLimit is the limit of a request that goes on from the anchor.
func (p *plan) anchoredLimit() int { return min(p.limit+p.overlap(), MaxLimit) }

// following returns the request that goes on from where cur stands: at the
// node before the anchor (see [plan.overlap]), or at the anchor, when a
// page from there still reaches past the last page's end; else (nodes that
// are not posts, or pages of one post, stand between) a blind read where
// the list goes on, from as many of the nodes before it as the overlap.
func (p *plan) following(cur *position, first bool) Request {
	switch {
	case first && cur.anchor == "": // the first request: the caller's, exactly as built
		return Request{Skip: cur.reached, Limit: p.limit, First: true}
	case p.byNext != nil:
		return *p.byNext
	case cur.anchor == "":
		return p.at(cur.reached, p.limit)
	}
	reach := min(p.anchoredLimit(), p.served)
	for _, start := range [...]int{cur.anchorAt - p.overlap() + 1, cur.anchorAt} {
		if start = max(start, 0); cur.reached-start < reach {
			return p.at(start, p.anchoredLimit())
		}
	}
	// Nodes that are not posts follow the anchor further than a page
	// reaches: the read starts as many of them back as the overlap, so
	// that posts removed behind the walk, which move the list back, show
	// where one of them stood, not before the page.
	back := min(p.overlap(), cur.reached-cur.anchorAt-1)
	if p.served <= back+1 {
		back = 0 // pages of one node: the read would bring only what the walk read
	}
	r := p.at(cur.reached-back, min(p.limit+back, MaxLimit))
	r.Blind = true
	return r
}

// foreseen returns the request that follows after, as if after's page will
// be full, and whether there is one: none past count, the end of the list
// (-1 when the count cannot be believed), and none while the walk follows
// next links as sent.
func (p *plan) foreseen(after Request, count int) (Request, bool) {
	n := min(after.Limit, p.served)
	switch {
	case p.byNext != nil:
		return Request{}, false // a server that misbehaves is read one page at a time
	case count >= 0 && after.Skip+n >= count:
		return Request{}, false
	case n > 1 && n >= p.overlap():
		return p.at(after.Skip+n-p.overlap(), p.anchoredLimit()), true
	}
	r := p.at(after.Skip+n, p.limit)
	r.Blind = true
	return r, true
}

// learn takes what a page shows of the server: how many nodes it sends for
// a page.
func (p *plan) learn(req Request, page *Page) {
	switch n := len(page.IDs); {
	case !page.Next.Present || n == 0:
	case n < req.Limit:
		p.served = n // a server that caps pages lower than asked
	default:
		p.served = max(p.served, n)
	}
}

// readOn takes a page that ended the list before its count, the list
// going on at reached after it. A page shorter than asked is a sign that
// the server sends no more than that page's nodes a page: the request that
// reads on starts where its posts ended, since one from the anchor would
// bring the same page again. A page as long as asked says nothing of that:
// the walk reads on from the anchor, which checks where the list went on.
// A walk that follows next links reads on from where the server's own
// positions put the page's end.
func (p *plan) readOn(req Request, page *Page, reached int) {
	if n := len(page.IDs); n > 0 && n < req.Limit {
		p.served = min(p.served, n)
	}
	if p.follows {
		p.followNext(Next{Skip: reached, Limit: req.Limit})
	}
}

// followNext makes the walk follow next links as the server sends them,
// from next on.
func (p *plan) followNext(next Next) {
	r := p.at(next.Skip, next.Limit)
	p.byNext = &r
}
