package ugc_test

// Goroutine leaks: however a walk ends (run to the end, cancelled while
// pages are in flight, or stopped by an error), every goroutine it started
// has ended when the loop is over. TestBreakEndsAllWork covers a break.
//
// Not parallel: goleak sees every goroutine of the process. Idle keep-alive
// connections hold two goroutines each, so each case closes its own
// transport's idle connections before checking.

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
)

// leakCase starts a server whose hook calls onFirst once, when the first
// request's answer is decided, and a client on a transport of its own. It
// returns them and a check to defer: close the idle connections, then no
// goroutine may be left but those present once the server had started.
func leakCase(t *testing.T, onFirst func(*ugctest.Handler)) (*observedServer, *ugc.Client, func()) {
	t.Helper()
	var h atomic.Pointer[ugctest.Handler]
	var first atomic.Bool
	srv := newObservedServer(t, ugctest.Generate(300, 4), ugctest.WithRequestHook(func(ugctest.Request) {
		if onFirst != nil && first.CompareAndSwap(false, true) {
			onFirst(h.Load())
		}
	}))
	h.Store(srv.Handler)
	tr := &http.Transport{}
	c := srv.client(t, ugc.WithHTTPClient(&http.Client{Transport: tr}), ugc.WithRetryMax(0))
	ignore := goleak.IgnoreCurrent()
	return srv, c, func() {
		tr.CloseIdleConnections()
		goleak.VerifyNone(t, ignore)
	}
}

func TestNoGoroutineLeftWhenAWalkEnds(t *testing.T) {
	for _, mode := range iterModes {
		t.Run("full walk/"+mode.name, func(t *testing.T) {
			_, c, verify := leakCase(t, nil)
			defer verify()
			n := 0
			for _, err := range c.AllPosts(context.Background(), &ugc.PostsParams{Limit: 10}, mode.opts...) {
				require.NoError(t, err)
				n++
			}
			assert.Equal(t, 300, n)
		})

		t.Run("cancel with pages in flight/"+mode.name, func(t *testing.T) {
			srv, c, verify := leakCase(t, func(h *ugctest.Handler) {
				assert.NoError(t, h.FailNext(100, ugctest.Stall(time.Hour)))
			})
			defer verify()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			pageOne := make(chan struct{})
			go srv.cancelWhenStalled(ctx, cancel, pageOne)
			n := 0
			var errs []error
			for _, err := range c.AllPosts(ctx, &ugc.PostsParams{Limit: 10}, mode.opts...) {
				if err != nil {
					errs = append(errs, err)
					continue
				}
				if n++; n == 10 {
					close(pageOne)
				}
			}
			assert.Equal(t, 10, n)
			require.Len(t, errs, 1)
			assert.ErrorIs(t, errs[0], context.Canceled)
		})

		t.Run("server error/"+mode.name, func(t *testing.T) {
			_, c, verify := leakCase(t, func(h *ugctest.Handler) {
				assert.NoError(t, h.FailNext(1, ugctest.InternalError()))
			})
			defer verify()
			n := 0
			var errs []error
			for _, err := range c.AllPosts(context.Background(), &ugc.PostsParams{Limit: 10}, mode.opts...) {
				if err != nil {
					errs = append(errs, err)
					continue
				}
				n++
			}
			require.Len(t, errs, 1)
			assert.ErrorIs(t, errs[0], ugc.ErrServer)
			assert.GreaterOrEqual(t, n, 10, "page one came first")
			assert.Less(t, n, 300, "the walk stopped at the error")
		})
	}
}
