package ugc

import (
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestDecodeThreadDecodesOffTheCallersThread: every decode runs on one OS
// thread of its own, never on the thread of the goroutine that handed it
// over (an unlocked goroutine woken there would run on it).
func TestDecodeThreadDecodesOffTheCallersThread(t *testing.T) {
	t.Parallel()
	th := startDecodeThread()
	defer th.stop()
	// The thread's goroutine may first run, and lock, on the thread of the
	// first caller, which then goes on elsewhere: the check starts after.
	th.run(func() {})
	decoders := map[int]bool{}
	onCaller := 0
	for range 100 {
		caller := syscall.Gettid()
		th.run(func() {
			tid := syscall.Gettid()
			decoders[tid] = true
			if tid == caller {
				onCaller++
			}
		})
	}
	assert.Len(t, decoders, 1, "decodes ran on more than one thread")
	assert.Zero(t, onCaller, "decodes ran on the caller's thread")
}
