package pace

import (
	"sync/atomic"
	"time"
)

// Wait is what a [Gate] waits for; a [Clock] may treat the kinds apart.
type Wait int

const (
	// ForRate is a wait for the rate: a token of the client's bucket.
	ForRate Wait = iota
	// ForPause is a wait for the end of a pause a server named.
	ForPause
	// ForAnswer is a wait for the answer to a request in flight, which
	// shows when the server counted it (see [Pacer.Hold]).
	ForAnswer
)

// Clock is the time a [Gate] reads, and waits on: After returns a channel
// that receives once the wait w of d has passed, and a function that
// stops it (and reports whether it stopped it first).
type Clock interface {
	Now() time.Time
	After(d time.Duration, w Wait) (<-chan time.Time, func() bool)
}

// Real is the wall clock: time.Now and time.NewTimer, for every wait.
type Real struct{}

// Now returns time.Now().
func (Real) Now() time.Time { return time.Now() }

// After starts a timer of d.
func (Real) After(d time.Duration, _ Wait) (<-chan time.Time, func() bool) {
	t := time.NewTimer(d)
	return t.C, t.Stop
}

// Virtual is a clock that runs with the wall clock but skips the waits
// its skip function names, moving its time forward by the wait at once
// (to the latest end of overlapping waits). It is the clock of ugctest's
// clients, which skip the pauses the fake's faults name.
type Virtual struct {
	skip   func(Wait) bool
	offset atomic.Int64 // nanoseconds ahead of the wall clock
}

// NewVirtual returns a clock that skips a wait w when skip(w) is true.
func NewVirtual(skip func(Wait) bool) *Virtual { return &Virtual{skip: skip} }

// Now returns the wall clock's time plus the waits skipped.
func (v *Virtual) Now() time.Time { return time.Now().Add(time.Duration(v.offset.Load())) }

// After skips the wait when the clock skips its kind, else waits it.
func (v *Virtual) After(d time.Duration, w Wait) (<-chan time.Time, func() bool) {
	if !v.skip(w) {
		return Real{}.After(d, w)
	}
	end := v.Now().Add(d)
	for {
		cur := v.offset.Load()
		ahead := int64(time.Until(end))
		if ahead <= cur || v.offset.CompareAndSwap(cur, ahead) {
			break
		}
	}
	c := make(chan time.Time, 1)
	c <- end
	return c, func() bool { return false }
}
