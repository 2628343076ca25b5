package ugc

import (
	"context"
	"net/url"
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
	win := newWindow(context.Background(), ahead, get)
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
