package pace

import (
	"sync/atomic"
	"time"
)

// Clock is the time a [Gate] reads and waits on.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// After returns a channel that receives once d has passed, and a
	// function that stops it (it reports whether it stopped it first).
	After(d time.Duration) (<-chan time.Time, func() bool)
}

// Real is the wall clock: time.Now and time.NewTimer.
type Real struct{}

// Now returns time.Now().
func (Real) Now() time.Time { return time.Now() }

// After starts a timer of d.
func (Real) After(d time.Duration) (<-chan time.Time, func() bool) {
	t := time.NewTimer(d)
	return t.C, t.Stop
}

// Virtual is a clock that runs with the wall clock but, while skip
// reports true, does not wait: a wait moves its time forward by the wait
// at once. It is the clock of the clients package ugctest hands out: a
// wait the fake's faults named costs no real time, while a quota the test
// asked for (skip false) runs by the wall clock. Time only moves forward:
// waits that overlap move it to the latest of their ends, not to their
// sum.
type Virtual struct {
	skip   func() bool
	offset atomic.Int64 // nanoseconds ahead of the wall clock
}

// NewVirtual returns a clock that skips its waits while skip returns true.
func NewVirtual(skip func() bool) *Virtual { return &Virtual{skip: skip} }

// Now returns the wall clock's time plus the waits skipped.
func (v *Virtual) Now() time.Time { return time.Now().Add(time.Duration(v.offset.Load())) }

// After skips d when the clock skips, and waits it otherwise.
func (v *Virtual) After(d time.Duration) (<-chan time.Time, func() bool) {
	if !v.skip() {
		return Real{}.After(d)
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
