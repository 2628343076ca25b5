package ugc

import (
	"context"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/ugcposts/ugc-go/internal/walk"
)

// window keeps a walk's page requests in flight and hands back the answer
// the walk asks for. Its width is the walk's read-ahead ([WithReadAhead]):
// how many of the requests the walk reads on with may be on the wire at
// once.
//
// A window of width 0 (the sequential walk) runs nothing ahead: a request
// is sent when its answer is asked for, on the caller's goroutine.
// Otherwise each request runs on a goroutine of its own with a context of
// its own, so that one the walk no longer wants is cancelled, not awaited.
// The walk wants one request more than the width: the one beyond it is
// sent once a request on the wire has its body, the width's-th before it
// in the order sent ([flight.awaitNextLeft]). That page is decoded only
// once the request sent after it has left, so that the request travels
// while the page decodes, with no thread of its own. A window of width 1
// (prefetch, the default) thus has one request on the wire at a time, and
// the next leaves as the one before it arrives.
//
// The requests a walk foresees are read-ahead the Client lends: the walks
// of one Client have at most maxReadAheads of them in flight or waiting to
// be taken, together. When thousands of walks run at once, their requests
// queue for the transport's connections, and pages foreseen would only
// wait for their walks, taking memory: a walk that finds no read-ahead
// free sends its next page alone, and tries again with the page after.
//
// A window opens as its answers come, as TCP's slow start does: it keeps
// at most rampStart requests in flight at first, and one more for each
// answer the walk takes, up to all the walk wants. A walk that meets a
// quota at its first requests then has a few in flight when the first
// throttle comes, not its whole read-ahead, each of which would be refused
// and sent again after the pause. It holds about twice as many each round
// trip: without a quota, a walk of read-ahead 16 has it open after three.
type window struct {
	ctx    context.Context
	cancel context.CancelFunc
	get    pageGetter
	width  int
	queue  []*flight // sent and not yet received, oldest first
	// reads are the last width reads sent, oldest first: the next waits
	// for the first of them to have its body.
	reads []*flight
	// open is how many requests may be in flight; the one the walk asks
	// for first is sent whatever it is.
	open int
	// lent counts the Client's read-ahead in flight (see maxReadAheads).
	lent *atomic.Int64
	wg   sync.WaitGroup
	// answers numbers the answers in the order they came (see
	// walk.Page.Answered).
	answers atomic.Uint64
}

// pageGetter sends one page request, calling the hooks the window sets.
type pageGetter func(ctx context.Context, u *url.URL, hooks attemptHooks) (*Page, error)

// flight is one request in flight.
type flight struct {
	req    walk.Request
	u      *url.URL
	cancel context.CancelFunc
	answer chan pageAnswer // buffered: the goroutine never waits for the walk
	// A read's body arrived (read) and its request left or it ended
	// (left); next is the read that waits for its body, if any yet.
	read, left         chan struct{}
	readOnce, leftOnce sync.Once
	next               atomic.Pointer[flight]
	// lent is set on a request foreseen, sent on the Client's read-ahead.
	lent bool
}

type pageAnswer struct {
	page     *Page
	answered uint64
	err      error
}

// rampStart is how many requests a parallel window keeps in flight before
// its first answer.
const rampStart = 4

// maxReadAheads is how many requests the walks of one Client may have in
// flight or waiting to be taken ahead of the page each waits for (see
// [window]): as many as the default transport's connections to a host.
const maxReadAheads = maxConnsPerHost

// newWindow returns a window of width requests on the wire (see
// [window]), its read-ahead counted in lent, the Client's.
func newWindow(parent context.Context, width int, lent *atomic.Int64, get pageGetter) *window {
	ctx, cancel := context.WithCancel(parent)
	return &window{ctx: ctx, cancel: cancel, get: get, width: width, open: rampStart, lent: lent}
}

// borrow takes one of the Client's read-ahead, and reports whether there
// was one free.
func (w *window) borrow() bool {
	if w.lent.Add(1) > maxReadAheads {
		w.lent.Add(-1)
		return false
	}
	return true
}

// done ends f's part in the window: its read-ahead, if it was lent one,
// goes back to the Client.
func (w *window) done(f *flight) {
	if f.lent {
		f.lent = false
		w.lent.Add(-1)
	}
}

// sync makes the requests in flight those of wants, and returns how many
// it sent. While hold is set, only the first of wants is made sure of
// (sent afresh unless in flight) and the others in flight are kept.
// Otherwise a request in flight that is not wanted is cancelled, and those
// wanted that are not in flight are sent, in order.
func (w *window) sync(wants []walk.Request, hold bool, url func(walk.Request) *url.URL) (sent int) {
	if hold {
		wants = wants[:1]
	} else {
		w.queue = slices.DeleteFunc(w.queue, func(f *flight) bool {
			if slices.Contains(wants, f.req) {
				return false
			}
			if f.cancel != nil {
				f.cancel()
			}
			w.done(f)
			return true
		})
	}
	for _, f := range w.queue {
		if f.req == wants[0] {
			w.done(f) // the page the walk waits for is no longer ahead of it
		}
	}
	for i, r := range wants {
		if slices.ContainsFunc(w.queue, func(f *flight) bool { return f.req == r }) {
			continue
		}
		if i > 0 && (len(w.queue) >= w.open || !w.borrow()) {
			break
		}
		w.send(r, url(r), i > 0)
		sent++
	}
	return sent
}

// send puts a request in flight, foreseen on the Client's read-ahead when
// lent is set.
func (w *window) send(r walk.Request, u *url.URL, lent bool) {
	f := &flight{req: r, u: u, lent: lent}
	w.queue = append(w.queue, f)
	if w.width == 0 {
		return
	}
	ctx, cancel := context.WithCancel(w.ctx)
	f.cancel, f.answer = cancel, make(chan pageAnswer, 1)
	var hooks attemptHooks
	if r.Purpose == walk.Read {
		f.read, f.left = make(chan struct{}), make(chan struct{})
		if len(w.reads) == w.width {
			// width reads are sent before it: it leaves once the first
			// of them has its body.
			after := w.reads[0]
			w.reads = slices.Delete(w.reads, 0, 1)
			after.next.Store(f)
			hooks.send = func() {
				select {
				case <-after.read:
				case <-ctx.Done():
				}
			}
		}
		w.reads = append(w.reads, f)
		hooks.left = f.markLeft
		hooks.read = func() {
			f.markRead()
			f.awaitNextLeft(ctx)
		}
	}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		p, err := w.get(ctx, u, hooks)
		answered := w.answers.Add(1)
		if f.read != nil {
			f.markRead() // one that never read a body (an error, a cancel) frees the next too
			f.markLeft()
		}
		f.answer <- pageAnswer{page: p, answered: answered, err: err}
	}()
}

func (f *flight) markRead() { f.readOnce.Do(func() { close(f.read) }) }
func (f *flight) markLeft() { f.leftOnce.Do(func() { close(f.left) }) }

// awaitNextLeft waits, before f's page is decoded, until the read that
// waited for f's body has left, if there is one: the processor that read
// f's body runs that request first.
func (f *flight) awaitNextLeft(ctx context.Context) {
	if n := f.next.Load(); n != nil {
		select {
		case <-n.left:
		case <-ctx.Done():
		}
	}
}

// receive waits for the answer to r, which must be in flight, and
// returns it with its number in the order the answers came.
func (w *window) receive(r walk.Request) (*Page, uint64, error) {
	i := slices.IndexFunc(w.queue, func(f *flight) bool { return f.req == r })
	f := w.queue[i]
	w.queue = slices.Delete(w.queue, i, i+1) // keeps the capacity: no allocation per page
	w.done(f)
	w.open++
	if w.width == 0 {
		p, err := w.get(w.ctx, f.u, attemptHooks{})
		return p, w.answers.Add(1), err
	}
	a := <-f.answer
	f.cancel()
	return a.page, a.answered, a.err
}

// close ends every request in flight and waits for their goroutines.
func (w *window) close() {
	w.cancel()
	for _, f := range w.queue {
		w.done(f)
	}
	w.wg.Wait()
}
