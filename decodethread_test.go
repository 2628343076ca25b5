package ugc

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestDecodeThreadRunsDecodesOneAtATime: decodes handed to the thread from
// many goroutines run one at a time, each before its run returns, and stop
// ends the thread.
func TestDecodeThreadRunsDecodesOneAtATime(t *testing.T) {
	t.Parallel()
	th := startDecodeThread()
	var running, most, ran atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				done := false
				th.run(func() {
					n := running.Add(1)
					for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
					}
					ran.Add(1)
					done = true
					running.Add(-1)
				})
				assert.True(t, done, "run returned before its decode ran")
			}
		}()
	}
	wg.Wait()
	th.stop()
	assert.Equal(t, int32(400), ran.Load())
	assert.Equal(t, int32(1), most.Load(), "decodes overlapped")
	select {
	case <-th.done:
	default:
		t.Fatal("stop returned before the thread's goroutine ended")
	}
}
