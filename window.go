package ugc

import (
	"context"
	"net/url"
	"sync"
	"sync/atomic"
)

// window keeps the page requests of a walk in flight and hands their
// answers back in the order they were sent. An inline window (the
// sequential walk) runs nothing ahead: a request is sent when its answer is
// asked for, on the caller's goroutine. Otherwise each request runs on a
// goroutine of its own with a context of its own, so that one the walk no
// longer wants is cancelled, not awaited.
//
// A chained window sends each request only once the one before it has its
// body: one request on the wire at a time. The page is decoded once the
// request after it has left (see [window.send]), so that the next request
// travels while the page is decoded.
type window struct {
	ctx      context.Context
	cancel   context.CancelFunc
	get      pageGetter
	inline   bool
	chained  bool
	queue    []*flight // sent and not yet received, oldest first
	lastSent *flight   // chained: the request sent last
	wg       sync.WaitGroup
}

// pageGetter sends one page request, calling the hooks the window sets:
// send when the request is built (it may hold it back), read when its body
// has arrived, decode to decode it.
type pageGetter func(ctx context.Context, u *url.URL, hooks attemptHooks) (*Page, error)

// pageRequest is one page the walk asks for.
type pageRequest struct {
	u     *url.URL
	skip  int
	limit int
	// blind is set on a request that starts after the anchor: nothing on
	// its page can show it came from where it was asked.
	blind bool
	// seek is set on a read that searches for the anchor: an empty page
	// there says nothing of where the list ends.
	seek bool
}

// flight is one request in flight.
type flight struct {
	req    pageRequest
	cancel context.CancelFunc
	answer chan pageAnswer // buffered: the goroutine never waits for the walk
	// A chained flight's body arrived (read) and its request left or it
	// ended (left); next is the flight sent after it, if any yet.
	read, left         chan struct{}
	readOnce, leftOnce sync.Once
	next               atomic.Pointer[flight]
}

func (f *flight) markRead() { f.readOnce.Do(func() { close(f.read) }) }
func (f *flight) markLeft() { f.leftOnce.Do(func() { close(f.left) }) }

// awaitNextLeft waits, before f's page is decoded, until the request sent
// after f has left, if there is one: the processor that read f's body runs
// that request first.
func (f *flight) awaitNextLeft(ctx context.Context) {
	if n := f.next.Load(); n != nil {
		select {
		case <-n.left:
		case <-ctx.Done():
		}
	}
}

type pageAnswer struct {
	page *Page
	err  error
}

func newWindow(parent context.Context, inline, chained bool, get pageGetter) *window {
	ctx, cancel := context.WithCancel(parent)
	return &window{ctx: ctx, cancel: cancel, get: get, inline: inline, chained: chained}
}

// pending reports how many requests are sent and not yet received.
func (w *window) pending() int { return len(w.queue) }

// last returns the request sent last; there must be one.
func (w *window) last() pageRequest { return w.queue[len(w.queue)-1].req }

// oldest returns the oldest request in flight, if any.
func (w *window) oldest() (pageRequest, bool) {
	if len(w.queue) == 0 {
		return pageRequest{}, false
	}
	return w.queue[0].req, true
}

// send puts a request in flight.
func (w *window) send(r pageRequest) {
	f := &flight{req: r}
	w.queue = append(w.queue, f)
	if w.inline {
		return
	}
	ctx, cancel := context.WithCancel(w.ctx)
	f.cancel, f.answer = cancel, make(chan pageAnswer, 1)
	var hooks attemptHooks
	if w.chained {
		f.read, f.left = make(chan struct{}), make(chan struct{})
		if after := w.lastSent; after != nil {
			after.next.Store(f)
			hooks.send = func() {
				select {
				case <-after.read:
				case <-ctx.Done():
				}
			}
		}
		w.lastSent = f
		hooks.left = f.markLeft
		hooks.read = func() {
			f.markRead()
			f.awaitNextLeft(ctx)
		}
	}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		p, err := w.get(ctx, r.u, hooks)
		if f.read != nil {
			f.markRead() // one that never read a body (an error, a cancel) frees the next too
			f.markLeft()
		}
		f.answer <- pageAnswer{p, err}
	}()
}

// receive waits for the answer to the oldest request in flight.
func (w *window) receive() (pageRequest, *Page, error) {
	f := w.queue[0]
	w.queue = append(w.queue[:0], w.queue[1:]...) // keeps the capacity: no allocation per page
	if w.inline {
		p, err := w.get(w.ctx, f.req.u, attemptHooks{})
		return f.req, p, err
	}
	a := <-f.answer
	f.cancel()
	return f.req, a.page, a.err
}

// cancelAll ends every request in flight without waiting for it.
func (w *window) cancelAll() {
	for _, f := range w.queue {
		if f.cancel != nil {
			f.cancel()
		}
	}
	clear(w.queue)
	w.queue = w.queue[:0]
}

// close ends every request in flight and waits for their goroutines.
func (w *window) close() {
	w.cancel()
	w.wg.Wait()
}
