package ugc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"sync/atomic"
)

// ErrStalled matches the error that ends a walk which stopped making
// progress: two pages in a row that brought no post not seen before and
// were not where they were asked for (a server that ignores skip, say).
var ErrStalled = errors.New("ugc: the walk makes no progress")

// maxRereads bounds the reads one page's placement may take, each aimed at
// where the posts already seen say the anchor is.
const maxRereads = 12

// walk is one iteration over a list. Each answer is placed by the cursor
// (which posts are new, after the last one yielded), the new posts are
// yielded, and the next request is the page's next link, moved one post
// back so that the next answer shows the anchor again. Sequential, prefetch
// and parallel walks differ only in how many requests the window keeps in
// flight and who writes them: the next link, or the parallel plan.
type walk struct {
	c      *Client
	cfg    iterConfig
	labels bool
	cur    *cursor
	sum    WalkSummary
	start  int // skip of the first request
	limit  int // limit of the first request: the caller's page size
	// stale counts pages in a row that brought no new post.
	stale int
	// dropped counts the nodes left out because they could not be posts.
	dropped int
	retries atomic.Int64
	// overlap is 1 while each request starts at the anchor, 0 once the
	// server showed it answers one post a page (the anchor alone would
	// fill each page).
	overlap int
}

// run walks the list from first, yielding the pages of new posts. Every
// request it sent has ended when it returns.
func (w *walk) run(ctx context.Context, first pageRequest, yield func(*Page, error) bool) {
	size, chained := 0, false // sequential: the next request is sent after the page is yielded
	switch {
	case w.cfg.concurrency > 1:
		size = w.cfg.concurrency
	case w.cfg.prefetch:
		// The next request is in flight while the page is yielded, and the
		// one after it, foreseen, goes out as soon as the next has its body.
		size, chained = 2, true
	}
	win := newWindow(ctx, size, chained, w.get)
	defer win.close()
	defer w.finishSummary()

	var plan *parallelPlan
	w.send(win, first)
	for isFirst := true; win.pending() > 0; isFirst = false {
		req, page, err := w.receive(win, plan)
		if err != nil {
			yield(nil, err)
			return
		}
		out, next, err := w.step(win.ctx, req, page, isFirst)
		if err != nil {
			yield(nil, err)
			return
		}
		end := out.Next == ""
		plan = w.replan(win, plan, out, next, end)
		// Ask for what comes next: the plan's pages while it has some, then
		// the next link of the last page (before yielding it when a window
		// runs ahead, after it when sequential).
		for plan != nil && !end && !win.full() && !plan.done() {
			w.send(win, plan.next())
		}
		following := !end && plan == nil
		if following && size > 0 {
			w.ahead(win, w.follow(next), out.Count)
		}
		if len(out.Nodes) > 0 || isFirst {
			if err := ctx.Err(); err != nil {
				yield(nil, err)
				return
			}
			w.sum.Pages++
			if !yield(out, nil) {
				return
			}
		}
		if end {
			if err := w.endErr(next); err != nil {
				yield(nil, err)
			}
			return
		}
		if following && size == 0 {
			w.send(win, w.follow(next))
		}
	}
}

// replan keeps, ends or starts a parallel walk's plan after a page. The
// plan runs from a page that brought new posts (the first, or one read
// after a plan ended) up to its count. A page that shows the plan is off
// (pages of one post, or nothing new and not where it was asked for) ends
// it, with the pages in flight.
func (w *walk) replan(win *window, plan *parallelPlan, out *Page, next nextLink, end bool) *parallelPlan {
	if plan != nil && (w.overlap == 0 || len(out.Nodes) == 0 && w.stale > 0) {
		plan = nil
		win.drain()
	}
	if plan != nil && plan.done() && win.pending() == 0 {
		plan = nil
	}
	if plan == nil && w.cfg.concurrency > 1 && w.overlap == 1 && !end && len(out.Nodes) > 0 && win.pending() == 0 {
		plan = newParallelPlan(next, w.cur.pos, out.Count, w.anchoredLimit())
	}
	return plan
}

// step takes one answer: it places it (reading again until it can), yields
// nothing twice, and judges what comes next. It returns the page of new
// posts to yield, with Next set to where the walk goes on ("" at the end),
// and the page's next link as judged.
func (w *walk) step(ctx context.Context, req pageRequest, page *Page, isFirst bool) (*Page, nextLink, error) {
	req, page, p, err := w.place(ctx, req, page)
	if err != nil {
		return nil, nextLink{}, err
	}
	devs := deviationsOf(page, p.from) // before commit drops repeats from the page
	nodes, repeats := w.cur.commit(req.skip, page, p)
	w.sum.Repeats += repeats
	w.sum.Posts += len(nodes)
	out := &Page{Count: page.Count, Nodes: nodes, Deviations: devs}
	w.noteDeviations(out)

	next := w.judgeNext(ctx, req, page)
	switch {
	case len(nodes) > 0:
		w.stale = 0
	case isFirst || len(page.Nodes) == 0:
	case next.u != nil && len(page.Nodes) == 1 && p.from == 1 && w.overlap == 1:
		// The server answers one post a page: a request that starts at
		// the anchor would never bring a new one. Read on without the
		// overlap.
		w.overlap, w.cur.unanchored = 0, true
	case !p.moved && page.Count <= w.cur.pos:
		next.u = nil // nothing new where asked, and the count says the list is done
	default:
		// Nothing new where the count says posts follow: twice in a row
		// is a server that does not move on (it ignores skip, serves
		// pages in another order, ...), whether or not the page was
		// where it was asked for.
		if w.stale++; w.stale >= 2 {
			return nil, nextLink{}, fmt.Errorf("%w: 2 pages in a row brought no new post (%s, skip %d); the server may ignore skip", ErrStalled, req.u.Path, req.skip)
		}
	}
	if next.u != nil && len(page.Nodes) > 0 {
		out.Next = withParam(withParam(next.u, "skip", w.cur.pos), "limit", w.limit).String()
	}
	return out, next, nil
}

// place places an answer by the cursor. One that cannot be placed is read
// again where the posts it holds say the anchor is (see [cursor.seek]),
// until one can; it returns the request and page that were placed.
func (w *walk) place(ctx context.Context, req pageRequest, page *Page) (pageRequest, *Page, placement, error) {
	p, err := w.cur.place(req.skip, page)
	for reads := 1; err == nil && !p.placed; reads++ {
		w.sum.Reanchors++
		skip := w.cur.seek(req.skip, w.anchoredLimit(), reads, page)
		if skip < 0 || reads > maxRereads {
			if len(page.Nodes) == 0 && page.Count == w.cur.count {
				// Nothing at all where the unchanged count says posts
				// are: the server ends the list early.
				return req, nil, p, &IncompleteError{Endpoint: w.cur.endpoint, Count: page.Count, Skip: w.start, Posts: w.sum.Posts}
			}
			return req, nil, p, &DriftError{Endpoint: w.cur.endpoint, CountBefore: w.cur.count, CountAfter: page.Count,
				Reason: fmt.Sprintf("post %s could not be found again after %d reads", w.cur.anchor, reads)}
		}
		req = pageRequest{u: withParam(withParam(req.u, "skip", skip), "limit", w.anchoredLimit()), skip: skip}
		if page, err = w.get(ctx, req.u, nil, nil); err != nil {
			return req, nil, p, err
		}
		w.sum.Requests++
		p, err = w.cur.place(req.skip, page)
	}
	if err == nil && p.suspect {
		// Read a suspect page once more before believing it: a page that
		// was not the one asked for is answered right the second time.
		again, gerr := w.get(ctx, req.u, nil, nil)
		if gerr != nil {
			return req, nil, p, gerr
		}
		w.sum.Requests++
		if p2, perr := w.cur.place(req.skip, again); perr != nil || p2.placed {
			page, p, err = again, p2, perr
		}
	}
	if err == nil && p.moved {
		w.sum.Reanchors++
		w.warn(ctx, "ugc: page re-anchored: the list changed or the page was not the one asked for", req, page)
	}
	return req, page, p, err
}

// judgeNext reads the next link of a placed page, reports what it forgave,
// and returns where the walk goes on (u nil at the end). A page that ends
// the list while the count says more posts follow is read on from where its
// posts ended.
func (w *walk) judgeNext(ctx context.Context, req pageRequest, page *Page) nextLink {
	next, err := w.c.resolveNext(req.u, page.Next)
	short := sentNodes(page) < limitOf(req.u)
	switch {
	case err != nil:
		return nextLink{err: err}
	case len(page.Nodes) == 0:
		return nextLink{}
	case next == nil && w.cur.pos < page.Count:
		// The list ends before its count says: a server that advanced
		// past posts it never sent, or ended early. Read on; an empty
		// answer ends the walk there, and pages that bring nothing new
		// end it as stalled.
		w.sum.NextCorrected++
		w.warn(ctx, "ugc: a page ended the list before its count; reading on", req, page)
		return nextLink{u: withParam(req.u, "skip", w.cur.pos)}
	case next == nil:
		return nextLink{}
	}
	if short {
		w.sum.ShortPages++
		w.warn(ctx, "ugc: a page shorter than its limit gave a next link; reading on", req, page)
	}
	if s := skipOf(next); s != w.cur.pos {
		w.sum.NextCorrected++
		w.warn(ctx, fmt.Sprintf("ugc: next link skips to %d, but the posts received end at %d; reading from there", s, w.cur.pos), req, page)
	}
	return nextLink{u: next}
}

// receive returns the next answer in order: the window's oldest, or in a
// parallel walk whose last page showed a change, first a bridge read of the
// posts between the last one yielded and the page in flight after it (the
// boundary the change broke), one post longer to hold the anchor.
func (w *walk) receive(win *window, plan *parallelPlan) (pageRequest, *Page, error) {
	if plan == nil || w.cur.anchor == "" {
		return win.receive()
	}
	from := w.cur.pos - 1
	gap := win.head().skip - from
	if gap <= 0 {
		return win.receive()
	}
	r := pageRequest{u: withParam(withParam(plan.template, "skip", from), "limit", min(gap+1, w.anchoredLimit())), skip: from}
	w.sum.Requests++
	page, err := w.get(win.ctx, r.u, nil, nil)
	return r, page, err
}

// nextLink is a page's next link as judged: the URL to go on from, or why
// it is refused (reported after the page's posts).
type nextLink struct {
	u   *url.URL
	err error
}

// endErr is the error, if any, that follows the last page: a refused next
// link, or a count the posts yielded fall short of.
func (w *walk) endErr(next nextLink) error {
	if next.err != nil {
		return next.err
	}
	return w.checkCount()
}

// follow returns the request after a page: its next link, moved back one
// post so that the answer starts with the anchor, and one post longer
// (within MaxLimit) so that it still brings a full page of new posts.
func (w *walk) follow(next nextLink) pageRequest {
	skip := max(w.cur.pos-w.overlap, 0)
	return pageRequest{u: withParam(withParam(next.u, "skip", skip), "limit", w.anchoredLimit()), skip: skip}
}

// anchoredLimit is the limit of a request that starts at the anchor.
func (w *walk) anchoredLimit() int { return min(w.limit+w.overlap, MaxLimit) }

func (w *walk) send(win *window, r pageRequest) {
	w.sum.Requests++
	win.send(r)
}

func (w *walk) get(ctx context.Context, u *url.URL, send, read func()) (*Page, error) {
	return w.c.getPage(ctx, u, w.labels, w.cfg.call, attemptHooks{send: send, read: read, retry: w.retried})
}

// retried counts an attempt that will be retried; requests in flight call
// it from their goroutines.
func (w *walk) retried() { w.retries.Add(1) }

// ahead makes want the next request in flight: the one foreseen, if it is
// want, or want sent now. A prefetching walk also foresees the request after
// want, as if want's page will be full, so that it goes out while want's
// page is decoded; a page that proves it wrong costs one request.
func (w *walk) ahead(win *window, want pageRequest, count int) {
	if win.pending() > 0 {
		if head := win.head(); head.skip != want.skip || head.u.RawQuery != want.u.RawQuery || head.u.Path != want.u.Path {
			win.drain()
		}
	}
	if win.pending() == 0 {
		w.send(win, want)
	}
	if w.cfg.concurrency > 1 || win.pending() != 1 {
		return
	}
	if skip := want.skip + limitOf(want.u) - w.overlap; skip+w.overlap < count {
		w.send(win, pageRequest{u: withParam(want.u, "skip", skip), skip: skip})
	}
}

// deviationsOf returns the deviations of a page that concern its new posts
// (nodes[from:]) or its dropped nodes: the anchor's were reported with the
// page before.
func deviationsOf(page *Page, from int) []Deviation {
	if from == 0 || len(page.Deviations) == 0 {
		return page.Deviations
	}
	var out []Deviation
	for _, d := range page.Deviations {
		if d.Dropped || !slices.ContainsFunc(page.Nodes[:from], func(p Post) bool { return p.ID == d.PostID }) {
			out = append(out, d)
		}
	}
	return out
}

// noteDeviations adds what the tolerant reader forgave on a page to the
// summary: the first maxSummaryDeviations, and the count of all.
func (w *walk) noteDeviations(page *Page) {
	for _, d := range page.Deviations {
		w.sum.DeviationCount++
		if d.Dropped {
			w.dropped++
		}
		if len(w.sum.Deviations) < maxSummaryDeviations {
			w.sum.Deviations = append(w.sum.Deviations, d)
		}
	}
}

// checkCount compares, at the end of the list, the posts yielded with the
// count. Posts added behind the walk, as the pages showed them, are not
// owed; any shortfall beyond them is an error (a server that ended the list
// early or served pages from the wrong place).
// Nodes dropped because they could not be posts were reported as deviations
// and are not a shortfall.
func (w *walk) checkCount() error {
	want := w.cur.last - w.start - w.dropped
	if w.sum.Posts >= want {
		return nil
	}
	w.sum.Shortfall = want - w.sum.Posts
	if w.sum.Shortfall <= w.cur.behind {
		return nil
	}
	return &IncompleteError{Endpoint: w.cur.endpoint, Count: w.cur.last, Skip: w.start, Posts: w.sum.Posts}
}

func (w *walk) finishSummary() {
	w.sum.CountAtStart, w.sum.CountAtEnd = max(w.cur.count, 0), w.cur.last
	w.sum.Retries = int(w.retries.Load())
	if w.cfg.summary != nil {
		*w.cfg.summary = w.sum
	}
}

// warn logs what the walk forgave or repaired, when the client has a logger.
func (w *walk) warn(ctx context.Context, msg string, req pageRequest, page *Page) {
	if w.c.logger == nil {
		return
	}
	w.c.logger.LogAttrs(ctx, slog.LevelWarn, msg, slog.String("endpoint", req.u.Path), slog.Int("skip", req.skip),
		slog.Int("posts", len(page.Nodes)), slog.Int("count", page.Count))
}

// parallelPlan writes the requests of a parallel walk: the pages after the
// first, from its next link with only skip changed, each starting one post
// before the end of the one before (the anchor), up to the first page's
// count.
type parallelPlan struct {
	template *url.URL
	skip     int // of the next request
	step     int
	end      int
}

func newParallelPlan(next nextLink, pos, count, limit int) *parallelPlan {
	if next.u == nil || next.err != nil {
		return nil
	}
	return &parallelPlan{template: withParam(next.u, "limit", limit), skip: pos - 1, step: max(limit-1, 1), end: count}
}

func (p *parallelPlan) done() bool { return p.skip+1 >= p.end }

func (p *parallelPlan) next() pageRequest {
	r := pageRequest{u: withParam(p.template, "skip", p.skip), skip: p.skip}
	p.skip += p.step
	return r
}
