package ugc_test

import (
	"context"
	"net"
	"net/http"
	"os"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
)

// failingDialer fails the first fails dials of each call with err, as the
// system does when a local resource runs out, then dials for real.
type failingDialer struct {
	err   error
	fails int32
	dials atomic.Int32
}

func (d *failingDialer) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if d.dials.Add(1) <= d.fails {
		return nil, &net.OpError{Op: "dial", Net: network, Err: d.err}
	}
	var nd net.Dialer
	return nd.DialContext(ctx, network, addr)
}

// TestLocalExhaustionDoesNotSpendTheRetryBudget: dials that fail because a
// local resource ran out (descriptors, ephemeral ports, socket buffers)
// are retried with backoff within WithRetryMax, as any connection error,
// but do not spend the Client's retry budget, which is meant for outages:
// with a budget of one retry, calls that each meet three such failures all
// succeed, one after another. A dial refused by the server's host is an
// outage: the second retry finds the budget spent.
func TestLocalExhaustionDoesNotSpendTheRetryBudget(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t, ugctest.WithDataset(ugctest.Generate(10, 4)))
	for _, tc := range []struct {
		name  string
		err   error
		local bool
	}{
		{"EMFILE", os.NewSyscallError("socket", syscall.EMFILE), true},
		{"ENFILE", os.NewSyscallError("socket", syscall.ENFILE), true},
		{"EADDRNOTAVAIL", os.NewSyscallError("connect", syscall.EADDRNOTAVAIL), true},
		{"ENOBUFS", os.NewSyscallError("socket", syscall.ENOBUFS), true},
		{"ECONNREFUSED", os.NewSyscallError("connect", syscall.ECONNREFUSED), false},
		{"ECONNRESET", os.NewSyscallError("read", syscall.ECONNRESET), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := &http.Transport{}
			t.Cleanup(tr.CloseIdleConnections)
			c := srv.Client(ugc.WithHTTPClient(&http.Client{Transport: tr}),
				ugc.WithRetryBudget(1), ugc.WithRetryMax(5), ugc.WithRetryWait(0, 0))
			for call := range 4 {
				d := &failingDialer{err: tc.err, fails: 3}
				tr.DialContext = d.dial
				tr.CloseIdleConnections() // each call dials afresh
				var info ugc.ResponseInfo
				_, err := c.Posts(context.Background(), &ugc.PostsParams{Limit: 5}, ugc.WithResponseInto(&info))
				if !tc.local {
					require.ErrorIs(t, err, ugc.ErrRetryBudgetExhausted, "an outage: the second retry finds the budget of one spent")
					assert.ErrorIs(t, err, tc.err.(*os.SyscallError).Err)
					return
				}
				require.NoError(t, err, "call %d: %d dials failed with %v, each retried", call, d.fails, tc.err)
				assert.Equal(t, 4, info.Attempts, "three failed attempts, then the answer")
			}
		})
	}
}
