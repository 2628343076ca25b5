package ugc

import (
	"context"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/ugcposts/ugc-go/internal/walk"
)

// TestParallelWindowOpensOneMoreForEachAnswer: a parallel window sends
// rampStart of the requests a walk wants, then keeps one more in flight
// for each answer taken, until it holds all the walk wants.
func TestParallelWindowOpensOneMoreForEachAnswer(t *testing.T) {
	t.Parallel()
	const ahead, pages = 16, 40
	get := func(ctx context.Context, u *url.URL, hooks attemptHooks) (*Page, error) { return &Page{}, nil }
	var lent atomic.Int64
	win := newWindow(context.Background(), ahead, &lent, get)
	t.Cleanup(win.close)
	noURL := func(walk.Request) *url.URL { return &url.URL{} }
	for taken := range pages - ahead {
		wants := make([]walk.Request, ahead)
		for i := range wants {
			wants[i] = walk.Request{Skip: 25 * (taken + i), Limit: 25}
		}
		win.sync(wants, false, noURL)
		require.Len(t, win.queue, min(rampStart+taken, ahead), "in flight after %d answers taken", taken)
		for i, f := range win.queue {
			assert.Equal(t, wants[i], f.req, "sent in the order wanted")
		}
		_, _, err := win.receive(wants[0])
		require.NoError(t, err)
	}
}

// TestWindowsShareTheClientsReadAhead: the requests a walk foresees are
// lent by its Client, maxReadAheads at most across its walks: with none
// free a window sends the page its walk waits for alone; a request
// foreseen gives its read-ahead back once it is the one waited for, or
// cancelled, or its window closed.
func TestWindowsShareTheClientsReadAhead(t *testing.T) {
	t.Parallel()
	block := make(chan struct{})
	get := func(ctx context.Context, u *url.URL, hooks attemptHooks) (*Page, error) {
		select {
		case <-block:
		case <-ctx.Done():
		}
		return &Page{}, nil
	}
	noURL := func(walk.Request) *url.URL { return &url.URL{} }
	wants := func(from int) []walk.Request {
		out := make([]walk.Request, 4)
		for i := range out {
			out[i] = walk.Request{Skip: 25 * (from + i), Limit: 25}
		}
		return out
	}
	var lent atomic.Int64
	lent.Store(maxReadAheads - 2) // other walks hold all but two
	win := newWindow(context.Background(), 3, &lent, get)
	t.Cleanup(func() { close(block); win.close() })

	win.sync(wants(0), false, noURL)
	assert.Len(t, win.queue, 3, "the page waited for, and two foreseen on the two free")
	assert.EqualValues(t, maxReadAheads, lent.Load())
	other := newWindow(context.Background(), 3, &lent, get)
	other.sync(wants(10), false, noURL)
	assert.Len(t, other.queue, 1, "none free: the page waited for alone")
	other.close()

	win.sync(wants(1), false, noURL) // the first taken: the one after it now waited for
	assert.Len(t, win.queue, 3, "the page now waited for gives its read-ahead back, for the one after the last")
	assert.EqualValues(t, maxReadAheads, lent.Load())
	win.sync(wants(3), false, noURL) // two no longer wanted: cancelled
	assert.Len(t, win.queue, 3, "the page waited for, and two foreseen on the two free")
	assert.EqualValues(t, maxReadAheads, lent.Load())
	win.close()
	assert.EqualValues(t, maxReadAheads-2, lent.Load(), "a closed window gives its read-ahead back")
}
