package ugc

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"sync/atomic"
)

// maxRereads bounds the reads one page's placement may take, each aimed at
// where the posts already seen say the anchor is.
const maxRereads = 12

// walk is one iteration over a list. Each answer is placed by the cursor
// (which posts are new: those after the last one yielded), its new posts
// are yielded, and the plan says what to ask for next. Sequential, prefetch
// and parallel walks differ only in how many requests the window keeps in
// flight; every walk ends through the same judgement (see [walk.judge]).
type walk struct {
	c      *Client
	cfg    iterConfig
	labels bool
	cur    *cursor
	plan   plan
	sum    WalkSummary
	start  int // skip of the first request
	// stale counts pages in a row that did not move the walk on, readOn
	// the reads in a row past an end that the count contradicts.
	stale, readOn int
	// dropped counts the nodes left out because they could not be posts.
	dropped int
	retries atomic.Int64
	// out is the last page yielded, and outAt where each of its posts
	// stands in the list: the checkpoint of a loop that breaks in its
	// middle.
	out   *Page
	outAt []int
	// logged counts the log lines of each kind of event, so that only the
	// first of a kind is a warning.
	logged [eventKinds]int
	// throttled is the Client's throttling when the walk began.
	throttled throttleStats
}

// run walks the list, yielding the pages of new posts, then, if the list
// did not end as it should, the error that says why. Every request it sent
// has ended when it returns.
func (w *walk) run(ctx context.Context, yield func(*Page, error) bool) {
	win := newWindow(ctx, w.plan.ahead == 0, w.cfg.readAhead == 1, w.get)
	defer win.close()
	defer w.finishSummary()
	for {
		w.request(win)
		req, page, err := win.receive()
		var out *Page
		var v verdict
		if err == nil {
			out, v, err = w.step(win.ctx, req, page)
		}
		if err == nil && v.more && w.plan.ahead > 0 {
			w.request(win) // in flight while the caller handles the page
		}
		if err == nil {
			err = ctx.Err()
		}
		if err != nil {
			yield(nil, w.c.maskErr(err))
			return
		}
		if out != nil && !w.yieldPage(out, yield) {
			return
		}
		if !v.more {
			if err := w.endErr(v); err != nil {
				yield(nil, w.c.maskErr(err))
			}
			return
		}
	}
}

// yieldPage hands a page of new posts to the caller, and reports whether
// the caller wants more.
func (w *walk) yieldPage(out *Page, yield func(*Page, error) bool) bool {
	w.record(event{kind: evPage, page: out})
	return yield(out, nil)
}

// request puts in flight the request that goes on from where the cursor
// stands, and the requests foreseen after it as far as the walk reads
// ahead. Requests in flight that are not those are cancelled, not awaited.
func (w *walk) request(win *window) {
	want := w.plan.following(w.cur)
	if head, ok := win.oldest(); !ok || !sameRequest(head, want) {
		win.cancelAll()
		w.send(win, want)
	}
	for win.pending() <= w.plan.ahead && w.stale == 0 && w.readOn == 0 { // nothing foreseen while the walk is unsure of the next page
		next, ok := w.plan.foreseen(win.last(), w.cur.believedCount())
		if !ok {
			return
		}
		w.send(win, next)
	}
}

func sameRequest(a, b pageRequest) bool {
	return a.skip == b.skip && a.limit == b.limit && a.blind == b.blind && a.u.RawQuery == b.u.RawQuery && a.u.Path == b.u.Path
}

// verdict is what a page says of the list after it: whether it goes on,
// and a next link refused, to report once the page is yielded.
type verdict struct {
	more    bool
	refused error
}

// step takes the answer to req: it places it (reading again until it can),
// commits its new posts and judges whether the list goes on. It returns the
// page of new posts to yield (nil when there are none, but for the first).
func (w *walk) step(ctx context.Context, req pageRequest, page *Page) (*Page, verdict, error) {
	first := !w.cur.counted
	req, page, p, err := w.place(ctx, req, page)
	if err != nil {
		return nil, verdict{}, err
	}
	next, refused := w.checkNext(ctx, req, page)
	skip, p, err := w.begin(ctx, req, page, p, next)
	if err != nil {
		return nil, verdict{}, err
	}
	end := skip + sentNodes(page)
	before := w.cur.pos
	fresh := before - skip // the first node as sent that the walk had not read
	if p.start >= 0 {
		fresh = before - p.start
	}
	devs := deviationsOf(page, p.from, fresh) // before commit drops repeats from the page
	nodes, repeats := w.cur.commit(page, p, skip, end)
	w.plan.learn(req, page)
	if w.cur.byID && next != nil {
		w.plan.followNext(next)
	}
	w.record(event{kind: evPosts, n: len(nodes)}, event{kind: evRepeats, n: repeats})
	if p.unverified {
		w.record(event{kind: evUnverified, ctx: ctx, req: req, page: page})
	}
	// Progress is new posts, or nodes that could not be posts, or posts
	// before a checkpoint's, passed over: a page of repeats alone does not
	// move the walk on.
	progress := len(nodes) > 0 || w.cur.pos > before && (sentNodes(page) > len(page.Nodes) || p.passed)
	v, err := w.judge(ctx, req, page, next, refused, progress)
	w.record(event{kind: evDeviations, devs: devs})
	if err != nil || len(nodes) == 0 && !first {
		return nil, v, err
	}
	out := &Page{Count: page.Count, Nodes: nodes, Deviations: devs}
	w.out, w.outAt = out, w.positions(w.outAt[:0], skip, page, p.from, nodes)
	out.Checkpoint = w.checkpoint(len(nodes))
	if v.more {
		out.Next = w.nextURL()
	}
	return out, v, nil
}

// judge decides, after a page is committed, whether the list goes on: the
// one end judgement of every walk. An empty page or a null next ends it; a
// next link goes on. An end that the count contradicts is read on from
// where the posts ended, twice at most, before it is believed (a server
// that ends the list early, or sends one page short, loses no post); a
// count that disagrees with where the list ends is recorded, never a
// reason to stop. Two pages in a row that do not move the walk on end it
// as stalled.
func (w *walk) judge(ctx context.Context, req pageRequest, page *Page, next *url.URL, refused error, progress bool) (verdict, error) {
	w.checkCount(ctx, req, page, next)
	if refused != nil {
		return verdict{refused: refused}, nil
	}
	if progress {
		w.stale, w.readOn = 0, 0
	}
	ends := sentNodes(page) == 0 || next == nil
	switch {
	case ends && sentNodes(page) > 0 && w.cur.pos < page.Count && !w.cur.byID && w.readOn < 2:
		w.readOn++
		w.plan.readOn(page) // from where the posts ended, not again at the anchor
		w.record(event{kind: evNextCorrected, ctx: ctx, req: req, page: page, msg: "ugc: a page ended the list before its count; reading on"})
		return verdict{more: true}, nil
	case ends:
		return verdict{}, nil
	case !progress:
		if w.stale++; w.stale >= 2 {
			return verdict{}, fmt.Errorf("%w: 2 pages in a row did not move the walk on (%s, skip %d); the server may ignore skip", ErrStalled, req.u.Path, req.skip)
		}
	}
	return verdict{more: true}, nil
}

// checkCount records a page whose count disagrees with where the list
// ends: one that says the list is done while next goes on, a negative one,
// or one that differs from where a page without next ended.
func (w *walk) checkCount(ctx context.Context, req pageRequest, page *Page, next *url.URL) {
	if page.Count < 0 || next != nil && w.cur.pos >= page.Count || next == nil && w.cur.pos != page.Count {
		w.record(event{kind: evCountMismatch, ctx: ctx, req: req, page: page})
	}
}

// checkNext reads the next link of a placed page: nil at the end of the
// list; refused (an error to report after the page) when it leads
// elsewhere or names another query than the walk's. What it forgave (a
// query left out, a short page, a skip that does not match the posts) is
// recorded.
func (w *walk) checkNext(ctx context.Context, req pageRequest, page *Page) (*url.URL, error) {
	next, err := w.c.resolveNext(req.u, page.Next)
	if err != nil || next == nil {
		return nil, err
	}
	dropped, err := w.plan.checkQuery(next)
	if err != nil {
		return nil, err
	}
	if len(dropped) > 0 {
		w.record(event{kind: evQueryRestored, ctx: ctx, req: req, page: page, msg: fmt.Sprintf("ugc: next link left out %v; the walk sends the caller's", dropped)})
	}
	if sentNodes(page) < req.limit {
		w.record(event{kind: evShortPage, ctx: ctx, req: req, page: page})
	}
	if s, end := skipOf(next), req.skip+sentNodes(page); s != end && !w.cur.byID {
		w.record(event{kind: evNextCorrected, ctx: ctx, req: req, page: page,
			msg: fmt.Sprintf("ugc: next link skips to %d, but the posts received end at %d; reading from there", s, end)})
	}
	return next, nil
}

// place places an answer by the cursor, reading again until it can: a page
// that cannot be placed is read again where the posts it holds say the
// anchor is (see [cursor.seek]); a suspect one (see [placement]), or one
// that began elsewhere than asked with a next link that agrees, is read
// once more before it is believed (see [walk.settle]). It returns the
// request and page that were placed.
func (w *walk) place(ctx context.Context, req pageRequest, page *Page) (pageRequest, *Page, placement, error) {
	for reads := 1; ; reads++ {
		p, err := w.cur.place(req, page)
		switch {
		case err != nil:
			return req, nil, p, err
		case p.placed && !doubtful(page, p):
			if p.moved {
				w.record(event{kind: evReanchor, ctx: ctx, req: req, page: page, msg: "ugc: page re-anchored: the list changed or the page was not the one asked for"})
			}
			return req, page, p, nil
		case reads > maxRereads:
			return req, nil, p, w.lost(page, reads)
		case p.placed:
			again, p2, err := w.readAgain(ctx, req)
			if err != nil || p2.placed && p2.moved && p2.start == p.start && p.start >= 0 {
				return w.settle(ctx, req, again, p2, err)
			}
			page = again // answered right, or elsewhere again: placed anew
		default:
			if req, page, err = w.seek(ctx, req, page, reads); err != nil {
				return req, nil, p, err
			}
		}
	}
}

// readAgain reads a suspect page once more, and places the answer.
func (w *walk) readAgain(ctx context.Context, req pageRequest) (*Page, placement, error) {
	w.record(event{kind: evReanchor})
	again, err := w.reread(ctx, req)
	if err != nil {
		return nil, placement{}, err
	}
	p, err := w.cur.place(req, again)
	return again, p, err
}

// seek reads where a page that could not be placed says the anchor is.
func (w *walk) seek(ctx context.Context, req pageRequest, page *Page, reads int) (pageRequest, *Page, error) {
	w.record(event{kind: evReanchor})
	skip := w.cur.seek(req.skip, w.plan.anchoredLimit(), reads, page)
	if skip < 0 {
		return req, nil, w.lost(page, reads)
	}
	req = w.plan.request(skip, w.plan.anchoredLimit())
	req.seek = true
	page, err := w.reread(ctx, req)
	return req, page, err
}

// settle takes a page that was twice away from where it was asked, in the
// same way. A server whose next link goes on from where such a page really
// began does not answer skip where asked (it rounds skip to its own pages,
// or ignores it): from then on the walk follows its next links as sent
// (see [walk.followNext]). Otherwise the page is taken as the answer to a
// request where it began (as its anchor shows); the anchor of the page
// after it checks it, but the walk can no longer vouch for its own
// completeness. Where it began is where it was asked when the list moved
// under the walk, or where the anchor shows when the server answered from
// elsewhere: the page is taken to begin at the earlier of the two, so that
// the walk reads on from no further than where it ended, unless from there
// it would only ask for the same page again.
func (w *walk) settle(ctx context.Context, req pageRequest, page *Page, p placement, err error) (pageRequest, *Page, placement, error) {
	switch {
	case err != nil:
		return req, nil, p, err
	case keepsItsOwnCount(page, p):
		return w.followNext(ctx, req, page)
	}
	w.record(event{kind: evUnverified, ctx: ctx, req: req, page: page, msg: "ugc: a page twice away from where it was asked: taken from where it began"})
	asked := req.skip
	req.skip = min(asked, p.start) // the list moved, or the server answered elsewhere: never past either
	if endsAtAnchor(page, p) && req.skip+sentNodes(page) <= w.cur.pos {
		req.skip = max(asked, p.start) // from the earlier, the walk would ask for this page again
	}
	return req, page, p, nil
}

// followNext takes a page that began elsewhere than asked, twice, and
// whose next link goes on from where it really ended. From then on the
// walk follows the server's next links as sent and places pages by the
// posts they hold.
func (w *walk) followNext(ctx context.Context, req pageRequest, page *Page) (pageRequest, *Page, placement, error) {
	w.cur.byID, w.cur.placed = true, page.Count // changes of count are judged from here on
	w.record(event{kind: evFollowNext, ctx: ctx, req: req, page: page, msg: "ugc: the server does not answer skip where asked; following its next links as sent"})
	p, err := w.cur.place(req, page)
	return req, page, p, err
}

// endsAtAnchor reports whether a placed page's last node as sent is the
// anchor: nothing after it is new.
func endsAtAnchor(page *Page, p placement) bool {
	return p.from > 0 && p.from == len(page.Nodes) && sentIndexes(page)(p.from-1) == sentNodes(page)-1
}

// doubtful reports whether a placed page is read again before it is
// believed: a suspect one, or one that began elsewhere than asked with a
// next link that agrees (a server that does not answer skip where asked).
func doubtful(page *Page, p placement) bool {
	return p.suspect || p.moved && keepsItsOwnCount(page, p)
}

// keepsItsOwnCount reports whether a page's next link goes on from where
// the page really began, as its anchor showed, plus the nodes it holds.
func keepsItsOwnCount(page *Page, p placement) bool {
	if p.start < 0 || page.Next == "" || p.start+sentNodes(page) == 0 {
		return false
	}
	next, err := url.Parse(page.Next)
	return err == nil && skipOf(next) == p.start+sentNodes(page)
}

// reread sends one request on the walk's own goroutine.
func (w *walk) reread(ctx context.Context, req pageRequest) (*Page, error) {
	w.record(event{kind: evRequest})
	return w.get(ctx, req.u, attemptHooks{})
}

// lost is the error of a page that could not be placed after reads reads.
func (w *walk) lost(page *Page, reads int) error {
	if sentNodes(page) == 0 && page.Count == w.cur.count {
		// Nothing at all where the unchanged count says posts are: the
		// server ends the list early.
		return &IncompleteError{Endpoint: w.cur.endpoint, Count: page.Count, Skip: w.start, Posts: w.sum.Posts}
	}
	if w.cur.seeking {
		return w.cur.driftError(fmt.Sprintf("post %s of the checkpoint is no longer in the list", w.cur.anchor), "")
	}
	return &DriftError{Endpoint: w.cur.endpoint, CountBefore: w.cur.count, CountAfter: page.Count,
		Reason: fmt.Sprintf("post %s could not be found again after %d reads", w.cur.anchor, reads)}
}

// endErr is the error, if any, that follows the last page: a refused next
// link, a checkpoint's post never found, or a count the posts yielded fall
// short of.
func (w *walk) endErr(v verdict) error {
	switch {
	case v.refused != nil:
		return v.refused
	case w.cur.seeking:
		return w.cur.driftError(fmt.Sprintf("post %s of the checkpoint is no longer in the list", w.cur.anchor), "")
	}
	return w.shortfall()
}

// shortfall compares, at the end of the list, the posts yielded with the
// count, and records the difference. A walk whose every page was placed by
// its anchor has read the list without a gap from its start to an end it
// read twice: a count above what it found is the count's error, recorded,
// not the walk's. A walk that read pages blind or followed next links as
// sent cannot vouch for itself: a shortfall beyond the posts added behind
// it (not owed) is [ErrIncomplete], unless the count was seen to measure
// nothing (0, -1, the page's own length): then it is only recorded. Nodes
// dropped because they could not be posts were reported as deviations and
// are not a shortfall.
func (w *walk) shortfall() error {
	shortfall := w.cur.last - w.start - w.dropped - w.sum.Posts
	w.record(event{kind: evShortfall, n: shortfall})
	if shortfall <= w.cur.behind || w.sum.Unverified == 0 && !w.cur.byID || w.cur.trust == countNone {
		return nil
	}
	return &IncompleteError{Endpoint: w.cur.endpoint, Count: w.cur.last, Skip: w.start, Posts: w.sum.Posts}
}

func (w *walk) send(win *window, r pageRequest) {
	w.record(event{kind: evRequest})
	win.send(r)
}

func (w *walk) get(ctx context.Context, u *url.URL, hooks attemptHooks) (*Page, error) {
	hooks.retry = w.retried
	return w.c.getPage(ctx, u, w.labels, w.cfg.call, hooks)
}

// retried counts an attempt that will be retried; requests in flight call
// it from their goroutines.
func (w *walk) retried() { w.retries.Add(1) }

// positions appends to at where each post of nodes (the page's posts from
// index from on, repeats left out) stands in the list.
func (w *walk) positions(at []int, skip int, page *Page, from int, nodes []Post) []int {
	sent := sentIndexes(page)
	for i := from; i < len(page.Nodes) && len(at) < len(nodes); i++ {
		if page.Nodes[i].ID == nodes[len(at)].ID {
			at = append(at, skip+sent(i))
		}
	}
	return at
}

// checkpoint is where the walk stands once the first n posts of the last
// page yielded were handed out: a resumed walk starts at the last of them,
// by which it places its first page.
func (w *walk) checkpoint(n int) Checkpoint {
	if w.out == nil || n == 0 || n > len(w.outAt) {
		at := w.cur.pos
		if w.cur.anchor != "" {
			at = w.cur.anchorAt + 1
		}
		return Checkpoint{URL: w.requestURL(at), After: w.cur.anchor}
	}
	return Checkpoint{URL: w.requestURL(w.outAt[n-1] + 1), After: w.out.Nodes[n-1].ID}
}

// requestURL is the URL of the walk's request at pos: a checkpoint's, just
// after its post, whatever the walk follows.
func (w *walk) requestURL(pos int) string { return w.plan.request(pos, w.plan.limit).u.String() }

// nextURL is where the walk goes on, as a page's Next: the next link it
// follows when it follows the server's, else its request where the list
// goes on.
func (w *walk) nextURL() string {
	if w.cur.byID {
		return w.plan.following(w.cur).u.String()
	}
	return w.requestURL(w.cur.pos)
}

// deviationsOf returns the deviations of a page that concern its new posts
// (nodes[from:]) or the nodes it dropped from the sent index fresh on,
// where the page reaches past what the walk had read: the anchor's, and
// nodes dropped from pages read before, were reported with those pages.
func deviationsOf(page *Page, from, fresh int) []Deviation {
	if from == 0 && fresh <= 0 || len(page.Deviations) == 0 {
		return page.Deviations
	}
	var out []Deviation
	for _, d := range page.Deviations {
		if d.Dropped && d.Index >= fresh || !d.Dropped && !slices.ContainsFunc(page.Nodes[:from], func(p Post) bool { return p.ID == d.PostID }) {
			out = append(out, d)
		}
	}
	return out
}

// pageStart is where a placed page begins in the list: where it was asked,
// unless the walk follows next links as sent (the link after it, or on the
// last page its anchor, says where it began: a server that rounds skip
// serves from elsewhere than asked), or the page was read blind and its
// next link says it began before (a server that rounds skip down to its
// own pages), never at or before the anchor it does not hold. A next link
// further on than the page's end says nothing of where it began (a server
// that writes next as skip plus limit under a short page): the walk never
// skips what it was not sent.
func (w *walk) pageStart(req pageRequest, page *Page, p placement, next *url.URL) int {
	switch {
	case w.cur.byID && next != nil:
		return skipOf(next) - sentNodes(page)
	case w.cur.byID && p.start >= 0:
		return p.start // the last page: where its anchor shows
	case w.cur.anchor == "" && next != nil: // no post to place it by
		return min(req.skip, max(skipOf(next)-sentNodes(page), 0))
	case p.unverified && next != nil:
		return min(req.skip, max(skipOf(next)-sentNodes(page), w.cur.anchorAt+1))
	}
	return req.skip
}

// begin returns where a placed page begins in the list (see
// [walk.pageStart] and [walk.lastPageStart]), and its placement. A page
// begun earlier than asked, with no post yielded to place it by, leaves out
// what stands before where the walk was asked to go on (read already, or
// not asked for), and nothing on it vouches for where it began.
func (w *walk) begin(ctx context.Context, req pageRequest, page *Page, p placement, next *url.URL) (int, placement, error) {
	skip := w.pageStart(req, page, p, next)
	if w.cur.anchor == "" && next == nil && req.skip > 0 && page.Count != req.skip+sentNodes(page) {
		var err error
		if skip, err = w.lastPageStart(ctx, req, page); err != nil {
			return 0, p, err
		}
	}
	if skip < req.skip && w.cur.anchor == "" {
		p.from, p.unverified = postsFrom(page, req.skip-skip), true
	}
	return skip, p, nil
}

// lastPageStart finds where a page with no post yielded before it and no
// next link after it began, when its count does not confirm that it began
// where asked: a server that rounds skip down to its own pages, or ignores
// it once, serves posts before the skip too, and no link says so. The page
// is asked again a skip earlier. Where that answer holds one of the
// page's posts at another index, the two answers place the page (for a
// server that honours skip: where asked). Where it holds it at the same
// index, the server answered both skips from one place: it does not
// honour skip there, and the page began at the smallest skip answered
// from that place, found by halving (a server rounds skip down, so every
// skip from there to the one asked is). With no post in common, the page
// stands before the skip when the earlier answer ends the list (it is left
// out), and began where asked otherwise.
func (w *walk) lastPageStart(ctx context.Context, req pageRequest, page *Page) (int, error) {
	if len(page.Nodes) == 0 {
		return req.skip, nil // no post to place it by, and none to yield
	}
	ask := func(skip int) (*Page, error) {
		w.record(event{kind: evReanchor})
		return w.reread(ctx, w.plan.request(skip, req.limit))
	}
	earlier, err := ask(req.skip - 1)
	if err != nil {
		return 0, err
	}
	i, j, ok := postInCommon(page, earlier)
	switch {
	case !ok && earlier.Next == "" && sentNodes(earlier) < req.limit:
		return max(req.skip-sentNodes(page), 0), nil // the list ends before the skip: all of it stands before
	case !ok:
		return req.skip, nil
	case i != j:
		return min(max(req.skip-1+j-i, 0), req.skip), nil // placed by the earlier answer
	}
	lo, hi := 0, req.skip-1 // hi answers from where the page began
	for lo < hi {
		mid := lo + (hi-lo)/2
		answer, err := ask(mid)
		if err != nil {
			return 0, err
		}
		if i, j, ok := postInCommon(page, answer); ok && i == j {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo, nil
}

// postInCommon returns where the first of page's posts that other holds
// stands in each, as sent.
func postInCommon(page, other *Page) (i, j int, ok bool) {
	inOther := make(map[string]int, len(other.Nodes))
	sentOther := sentIndexes(other)
	for k, post := range other.Nodes {
		if _, dup := inOther[post.ID]; !dup && post.ID != "" {
			inOther[post.ID] = sentOther(k)
		}
	}
	sent := sentIndexes(page)
	for k, post := range page.Nodes {
		if j, ok := inOther[post.ID]; ok {
			return sent(k), j, true
		}
	}
	return 0, 0, false
}

// postsFrom returns the index in page.Nodes of the first post at the sent
// index i or after it.
func postsFrom(page *Page, i int) int {
	sent := sentIndexes(page)
	for k := range page.Nodes {
		if sent(k) >= i {
			return k
		}
	}
	return len(page.Nodes)
}
