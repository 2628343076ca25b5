package ugc

import "runtime"

// decodeThread decodes the pages of a chained walk on an OS thread of its
// own.
//
// A chained walk sends its next request as soon as a page's body has
// arrived, so that the request travels while the page is decoded. Decoded
// on the goroutine that read the body, the page would keep the thread the
// network woke busy for the whole decode (about 0.1 ms for 25 posts): the
// next request's goroutine waits behind it, since Go runs a goroutine woken
// on a processor there first, and a server on the same machine waits for
// that CPU to take the request. A goroutine locked to a thread of its own
// makes the runtime hand the decode to that thread, and the thread the
// network woke goes on with the next request at once. BENCHMARKS.md has the
// measures.
type decodeThread struct {
	jobs chan func()
	done chan struct{} // closed when the thread's goroutine has returned
}

// startDecodeThread starts a decode thread; stop ends it.
func startDecodeThread() *decodeThread {
	t := &decodeThread{jobs: make(chan func()), done: make(chan struct{})}
	go t.loop()
	return t
}

func (t *decodeThread) loop() {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread() // the thread goes back to the runtime's pool
	defer close(t.done)
	for job := range t.jobs {
		job()
	}
}

// run runs decode on the thread, one decode at a time, and returns once it
// has run. It must not be called after stop.
func (t *decodeThread) run(decode func()) {
	ran := make(chan struct{})
	t.jobs <- func() { decode(); close(ran) }
	<-ran
}

// stop ends the thread once no run is waiting, and waits for it to end.
func (t *decodeThread) stop() {
	close(t.jobs)
	<-t.done
}
