package ugc_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
)

// TestAttemptTimeoutHasItsOwnError: an attempt that runs past
// WithAttemptTimeout while the caller's context is alive matches
// ErrAttemptTimeout, and still context.DeadlineExceeded and a net.Error
// that timed out; its text names the bound and the option. A caller's own
// deadline never matches ErrAttemptTimeout.
func TestAttemptTimeoutHasItsOwnError(t *testing.T) {
	t.Parallel()
	const bound = 20 * time.Millisecond

	t.Run("no answer in time, retried, then given up", func(t *testing.T) {
		t.Parallel()
		srv := ugctest.NewServer(t)
		// Optional: on a loaded machine the bound may end an attempt
		// before it reaches the server, with the same error
		srv.AddRule(ugctest.Rule{Times: 2, Fault: ugctest.Stall(time.Minute), Optional: true})
		_, err := srv.Client(ugc.WithAttemptTimeout(bound), ugc.WithRetryMax(1)).Posts(context.Background(), nil)
		require.Error(t, err)
		assert.ErrorIs(t, err, ugc.ErrAttemptTimeout)
		assert.ErrorIs(t, err, context.DeadlineExceeded, "code that checks the context's error still matches")
		var netErr net.Error
		require.ErrorAs(t, err, &netErr)
		assert.True(t, netErr.Timeout())
		assert.Contains(t, err.Error(), "attempt ran past its timeout of 20ms (WithAttemptTimeout)")
		assert.Contains(t, err.Error(), "after 2 attempts")
	})

	t.Run("a body that stops half-way", func(t *testing.T) {
		t.Parallel()
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "4096")
			_, _ = w.Write([]byte(`{"count":3,"next":null,"nodes":[`))
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}))
		defer srv.Close()
		// the headers must come within the bound, or no answer began:
		// long enough for a loaded machine under -race (20 ms was not)
		c, err := ugc.NewClient(srv.URL, "key", ugc.WithAttemptTimeout(25*bound), ugc.WithRetryMax(0))
		require.NoError(t, err)
		_, err = c.Posts(context.Background(), nil)
		var decErr *ugc.DecodeError
		require.ErrorAs(t, err, &decErr, "the answer began: a decoding error, of its type")
		assert.ErrorIs(t, err, ugc.ErrAttemptTimeout)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
	})

	t.Run("a call's own bound", func(t *testing.T) {
		t.Parallel()
		srv := ugctest.NewServer(t)
		srv.AddRule(ugctest.Rule{Times: 1, Fault: ugctest.Stall(time.Minute), Optional: true}) // as above
		_, err := srv.Client(ugc.WithRetryMax(0)).Inbox(context.Background(), nil, ugc.WithAttemptTimeout(bound))
		assert.ErrorIs(t, err, ugc.ErrAttemptTimeout)
	})

	t.Run("the caller's deadline is not an attempt timeout", func(t *testing.T) {
		t.Parallel()
		srv := ugctest.NewServer(t)
		srv.FailNext(1, ugctest.Stall(time.Minute))
		// long enough for the request to reach the stall on a loaded
		// machine under -race (20 ms was not, once)
		ctx, cancel := context.WithTimeout(context.Background(), 25*bound)
		defer cancel()
		_, err := srv.Client(ugc.WithAttemptTimeout(time.Minute)).Posts(ctx, nil)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		assert.NotErrorIs(t, err, ugc.ErrAttemptTimeout)
		assert.True(t, errors.Is(ctx.Err(), context.DeadlineExceeded))
	})

	t.Run("other failures are not attempt timeouts", func(t *testing.T) {
		t.Parallel()
		srv := ugctest.NewServer(t)
		srv.FailNext(1, ugctest.InternalError())
		_, err := srv.Client(ugc.WithAttemptTimeout(time.Minute), ugc.WithRetryMax(0)).Posts(context.Background(), nil)
		require.ErrorIs(t, err, ugc.ErrServer)
		assert.NotErrorIs(t, err, ugc.ErrAttemptTimeout)
		assert.NotErrorIs(t, err, context.DeadlineExceeded)
	})
}
