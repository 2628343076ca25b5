package ugc

import (
	"context"
	"net/url"
	"sync"
)

// window keeps up to size page requests in flight and hands their answers
// back in the order they were sent. With size 0 nothing runs ahead: a
// request is sent when its answer is asked for, on the caller's goroutine.
// Requests in flight run on size goroutines that live as long as the
// window, so a page costs no goroutine or context of its own.
//
// A chained window sends each request only once the one before it has its
// body: one connection, one request on the wire at a time, and the next
// request travels while the page before it is decoded.
type window struct {
	ctx     context.Context
	cancel  context.CancelFunc
	get     func(ctx context.Context, u *url.URL, send, read func()) (*Page, error)
	size    int
	chained bool
	jobs    chan windowJob
	answers []chan pageAnswer // one per slot; request k uses slot k mod size
	queue   []windowJob       // sent and not yet received, oldest first
	sent    int
	read    chan struct{} // closed when the last request sent has its body (chained)
	wg      sync.WaitGroup
}

type windowJob struct {
	req   pageRequest
	slot  int
	after chan struct{} // chained: closed when the request before has its body
	read  chan struct{} // chained: closed when this one has its body, or ended
}

// pageRequest is one page the walk asks for.
type pageRequest struct {
	u    *url.URL
	skip int
}

type pageAnswer struct {
	page *Page
	err  error
}

func newWindow(parent context.Context, size int, chained bool, get func(context.Context, *url.URL, func(), func()) (*Page, error)) *window {
	ctx, cancel := context.WithCancel(parent)
	w := &window{ctx: ctx, cancel: cancel, get: get, size: size, chained: chained}
	if size > 0 {
		w.jobs = make(chan windowJob)
		w.answers = make([]chan pageAnswer, size)
		for i := range w.answers {
			w.answers[i] = make(chan pageAnswer, 1)
		}
		w.wg.Add(size)
		for range size {
			go w.work()
		}
	}
	return w
}

func (w *window) work() {
	defer w.wg.Done()
	for j := range w.jobs {
		var send, read func()
		if j.read != nil {
			if j.after != nil {
				send = func() { // the request is built; it goes when the one before has its body
					select {
					case <-j.after:
					case <-w.ctx.Done():
					}
				}
			}
			done := false
			read = func() { // once, though a retried attempt reads again
				if !done {
					done = true
					close(j.read)
				}
			}
		}
		p, err := w.get(w.ctx, j.req.u, send, read)
		if read != nil {
			read() // one that never read a body (an error) frees the next too
		}
		w.answers[j.slot] <- pageAnswer{p, err}
	}
}

// full reports whether no more requests can be sent before one is received.
func (w *window) full() bool { return len(w.queue) >= max(w.size, 1) }

// pending reports how many requests are sent and not yet received.
func (w *window) pending() int { return len(w.queue) }

// head returns the oldest request in flight; there must be one.
func (w *window) head() pageRequest { return w.queue[0].req }

// send puts a request in flight; the window must not be full.
func (w *window) send(r pageRequest) {
	j := windowJob{req: r}
	if w.chained {
		j.after, j.read = w.read, make(chan struct{})
		w.read = j.read
	}
	if w.size > 0 {
		j.slot = w.sent % w.size
		w.jobs <- j
	}
	w.sent++
	w.queue = append(w.queue, j)
}

// receive waits for the answer to the oldest request in flight.
func (w *window) receive() (pageRequest, *Page, error) {
	j := w.queue[0]
	w.queue = append(w.queue[:0], w.queue[1:]...) // keeps the capacity: no allocation per page
	if w.size == 0 {
		p, err := w.get(w.ctx, j.req.u, nil, nil)
		return j.req, p, err
	}
	a := <-w.answers[j.slot]
	return j.req, a.page, a.err
}

// drain receives and drops the answers to every request in flight.
func (w *window) drain() {
	for len(w.queue) > 0 {
		_, _, _ = w.receive()
	}
}

// close ends every request in flight and waits for the goroutines.
func (w *window) close() {
	w.cancel()
	if w.jobs != nil {
		close(w.jobs)
	}
	w.wg.Wait()
}
