package ugc

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"sync/atomic"

	"github.com/ugcposts/ugc-go/internal/walk"
)

// walker is the shell around one walk's machine (package internal/walk,
// which holds every decision and says what the walk promises): it sends the
// requests the machine wants, in the window of requests in flight, hands
// it each answer as read, yields the posts it says are new, and writes the
// summary from the events it reports. Sequential, prefetch and parallel
// walks differ only in how many requests the window keeps in flight.
type walker struct {
	c      *Client
	cfg    iterConfig
	m      *walk.Machine
	labels bool
	// query is the walk's first request as built (the caller's, or the
	// checkpoint's): its query goes on every request. limit is its page
	// size.
	query *url.URL
	limit int
	wants []walk.Request
	// taken is the last answer taken that was not a probe, the page the
	// machine's steps index; refused is why its next link was refused.
	taken   answerPage
	refused error
	// probeIDs and probeNode are the buffers of a probe's answer.
	probeIDs  []string
	probeNode []int
	// handed is how many posts the last page yielded held: the checkpoint
	// of a loop that breaks in its middle stands among them. before and
	// after are the checkpoints around that page: where the caller stands
	// having taken none of its posts, or all. A page the walk has read
	// but not yielded moves neither.
	handed        int
	before, after Checkpoint
	sum           WalkSummary
	retries       atomic.Int64
	// logged counts the log lines of each kind of event, so that only the
	// first of a kind is a warning.
	logged [eventKinds]int
	// throttled is the Client's throttling when the walk began.
	throttled throttleStats
}

// answerPage is an answer as the SDK read it, and as the machine sees it.
type answerPage struct {
	page *Page
	seen walk.Page
	// node maps an index among the nodes as sent to page.Nodes (-1: a
	// node that could not be a post).
	node []int
}

// run walks the list, yielding the pages of new posts, then, if the list
// did not end as it should, the error that says why. Every request it sent
// has ended when it returns.
func (w *walker) run(ctx context.Context, yield func(*Page, error) bool) {
	win := newWindow(ctx, w.cfg.readAhead, &w.c.readAheads, w.get)
	defer win.close()
	defer w.finishSummary()
	w.after = w.checkpoint(0) // where the walk starts
	for {
		req, page, answered, err := w.next(win)
		if err != nil {
			yield(nil, w.c.maskErr(err))
			return
		}
		step := w.take(ctx, req, page, answered)
		if !step.Placed && step.End == nil {
			continue // the machine asked for another read first
		}
		if step.End == nil {
			w.request(win) // in flight while the caller handles the page
		}
		if err := ctx.Err(); err != nil {
			yield(nil, err)
			return
		}
		var devs []Deviation
		if step.Placed {
			devs = deviationsOf(w.taken.page, step.From, step.Fresh)
			w.record(event{kind: evDeviations, devs: devs})
		}
		if step.Emit && !w.yieldPage(step, devs, yield) {
			return
		}
		if step.Placed {
			// The caller has its posts: the walk keeps nothing of the page
			// (its posts, nor their IDs, which share the page's text) while
			// it waits for the next.
			w.taken.page = nil
			clear(w.taken.seen.IDs)
		}
		if step.End != nil {
			if err := w.endErr(step.End); err != nil {
				yield(nil, w.c.maskErr(err))
			}
			return
		}
	}
}

// next puts in flight what the machine wants and waits for the answer it
// expects first, numbered in the order the answers came.
func (w *walker) next(win *window) (walk.Request, *Page, uint64, error) {
	head := w.request(win)
	page, answered, err := win.receive(head)
	return head, page, answered, err
}

// request makes the requests in flight those the machine wants, and
// returns the one it expects first.
func (w *walker) request(win *window) walk.Request {
	var hold bool
	w.wants, hold = w.m.Wants(w.wants)
	for range win.sync(w.wants, hold, w.url) {
		w.record(event{kind: evRequest})
	}
	return w.wants[0]
}

// take hands an answer to the machine and records what it reports.
func (w *walker) take(ctx context.Context, req walk.Request, page *Page, answered uint64) walk.Step {
	a := w.read(ctx, req, page)
	a.seen.Answered = answered
	if req.Purpose != walk.Probe {
		w.taken = a
	}
	step := w.m.Take(req, &a.seen)
	for _, e := range step.Events {
		w.record(event{kind: machineEvents[e.Kind], n: e.N, ctx: ctx, req: req, m: e, msg: e.Msg})
	}
	return step
}

// read turns a page into what the machine sees: the nodes as sent, by ID,
// and the next link, checked (another origin, endpoint or query is
// refused, for the walk to end after the page; a query left out is
// restored).
func (w *walker) read(ctx context.Context, req walk.Request, page *Page) answerPage {
	// A probe's answer is read into buffers of its own: the page it probes
	// for is still the one the machine's steps index.
	a := answerPage{page: page, seen: walk.Page{Count: page.Count}}
	ids, node := w.taken.seen.IDs, w.taken.node
	if req.Purpose == walk.Probe {
		ids, node = w.probeIDs, w.probeNode
	}
	n := sentNodes(page)
	a.seen.IDs, a.node = slices.Grow(ids[:0], n)[:n], slices.Grow(node[:0], n)[:n]
	if req.Purpose == walk.Probe {
		w.probeIDs, w.probeNode = a.seen.IDs, a.node
	}
	if n == len(page.Nodes) {
		for i, p := range page.Nodes {
			a.seen.IDs[i], a.node[i] = p.ID, i
		}
	} else {
		clear(a.seen.IDs)
		for i := range a.node {
			a.node[i] = -1
		}
		sent := sentIndexes(page)
		for i, p := range page.Nodes {
			a.seen.IDs[sent(i)], a.node[sent(i)] = p.ID, i
		}
	}
	u := w.url(req)
	next, err := w.c.resolveNext(u, page.Next)
	if err == nil && next != nil {
		var dropped []string
		if dropped, err = checkQuery(w.query, next); err == nil && len(dropped) > 0 {
			w.record(event{kind: evQueryRestored, ctx: ctx, req: req, page: page,
				msg: fmt.Sprintf("ugc: next link left out %v; the walk sends the caller's", dropped)})
		}
	}
	switch {
	case err != nil:
		a.seen.Next.Refused = true
		if req.Purpose != walk.Probe {
			w.refused = err
		}
	case next != nil:
		pos, _ := positionOf(next) // resolveNext read it
		a.seen.Next = walk.Next{Present: true, Skip: pos.skip, Limit: pos.limitOr(MaxLimit)}
	}
	return a
}

// yieldPage hands a page of new posts to the caller, and reports whether
// the caller wants more.
func (w *walker) yieldPage(step walk.Step, devs []Deviation, yield func(*Page, error) bool) bool {
	a := w.taken
	var nodes []Post
	if n := len(step.Yield); n > 0 {
		if from, last := a.node[step.Yield[0]], a.node[step.Yield[n-1]]; last-from+1 == n {
			nodes = a.page.Nodes[from : last+1] // a run of the page's posts: no copy
		} else {
			nodes = make([]Post, 0, n) // repeats left out between them
			for _, i := range step.Yield {
				nodes = append(nodes, a.page.Nodes[a.node[i]])
			}
		}
	}
	out := &Page{Count: a.page.Count, Nodes: nodes, Deviations: devs}
	w.handed = len(nodes)
	out.Checkpoint = w.checkpoint(len(nodes))
	w.before, w.after = w.after, out.Checkpoint
	if step.End == nil {
		out.Next = w.url(w.m.Resume()).String()
	}
	w.record(event{kind: evPage, page: out}, event{kind: evPosts, n: len(nodes)})
	return yield(out, nil)
}

// endErr is the error, if any, of how the walk ended.
func (w *walker) endErr(e *walk.End) error {
	path := w.query.Path
	switch e.Kind {
	case walk.EndRefused:
		return w.refused
	case walk.EndStalled:
		return fmt.Errorf("%w: %s, %s", ErrStalled, path, e.Reason)
	case walk.EndIncomplete:
		return &IncompleteError{Endpoint: path, Count: e.CountAtEnd, Skip: e.Skip, Posts: e.Posts}
	case walk.EndDrift:
		return &DriftError{Endpoint: path, CountBefore: e.CountAtStart, CountAfter: e.CountAtEnd, RepeatedID: e.RepeatedID, Reason: e.Reason}
	}
	return nil
}

// get sends one request of the walk.
func (w *walker) get(ctx context.Context, u *url.URL, hooks attemptHooks) (*Page, error) {
	hooks.retry = w.retried
	return w.c.getPage(ctx, u, w.labels, w.cfg.call, hooks)
}

// retried counts an attempt that will be retried; requests in flight call
// it from their goroutines.
func (w *walker) retried() { w.retries.Add(1) }

// url is the URL of a request: the walk's first as built, or its query at
// the request's position.
func (w *walker) url(r walk.Request) *url.URL {
	if r.First {
		return w.query
	}
	return withParam(withParam(w.query, "skip", r.Skip), "limit", r.Limit)
}

// checkpoint is where the walk stands once the first n posts of the last
// page yielded were handed out: a resumed walk starts at the last of them,
// by which it places its first page.
func (w *walker) checkpoint(n int) Checkpoint {
	skip, after := w.m.Checkpoint(n)
	return Checkpoint{URL: withPosition(w.query, position{skip: skip, limit: w.limit}).String(), After: after}
}

// deviationsOf returns the deviations of a page that concern its new posts
// (from the index as sent from on) or the nodes it dropped from the index
// fresh on, where the page reaches past what the walk had read: the
// anchor's, and nodes dropped from pages read before, were reported with
// those pages.
func deviationsOf(page *Page, from, fresh int) []Deviation {
	if from <= 0 && fresh <= 0 || len(page.Deviations) == 0 {
		return page.Deviations
	}
	var out []Deviation
	for _, d := range page.Deviations {
		if d.Index < 0 || d.Dropped && d.Index >= fresh || !d.Dropped && d.Index >= from {
			out = append(out, d)
		}
	}
	return out
}

// sentIndexes returns the function that gives, for the index of a post in
// page.Nodes, its index among the nodes as sent: nodes dropped because they
// could not be posts are not in Nodes, but they held a place in the list.
func sentIndexes(page *Page) func(i int) int {
	var dropped []int
	for _, d := range page.Deviations {
		if d.Dropped {
			dropped = append(dropped, d.Index)
		}
	}
	if len(dropped) == 0 {
		return func(i int) int { return i }
	}
	return func(i int) int {
		at := i
		for _, d := range dropped { // in the order sent
			if d <= at {
				at++
			}
		}
		return at
	}
}
