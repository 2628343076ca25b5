package ugc_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
)

// defaultConnsPerHost is the default transport's cap (transport.go).
const defaultConnsPerHost = 256

// TestDefaultTransportCapsConnectionsPerHost: more calls at once than the
// default transport's cap on connections per host all succeed: the server
// holds every request it gets until all the calls have asked for a
// connection, and sees at most the cap at once, over at most the cap
// connections; the calls beyond it waited for a connection, they did not
// fail and did not dial one of their own. A caller's own transport
// (WithHTTPClient) is left as given: with no cap of its own, it dials one
// connection a call.
func TestDefaultTransportCapsConnectionsPerHost(t *testing.T) {
	t.Parallel()
	const calls = defaultConnsPerHost + 144
	t.Run("default transport", func(t *testing.T) {
		t.Parallel()
		most, conns := concurrentCalls(t, calls, defaultConnsPerHost)
		assert.Equal(t, defaultConnsPerHost, most, "requests the server held at once")
		assert.LessOrEqual(t, conns, defaultConnsPerHost, "connections opened for %d calls", calls)
	})
	t.Run("caller's transport", func(t *testing.T) {
		t.Parallel()
		tr := &http.Transport{}
		t.Cleanup(tr.CloseIdleConnections)
		most, conns := concurrentCalls(t, calls, calls, ugc.WithHTTPClient(&http.Client{Transport: tr}))
		assert.Equal(t, calls, most, "requests the server held at once")
		assert.Equal(t, calls, conns, "connections opened for %d calls", calls)
	})
}

// concurrentCalls makes n single calls at once on a Client built with
// opts, against a server that holds each request until busy requests are
// in flight and every call has asked for a connection, and returns the
// most requests the server held at once and the connections it accepted.
func concurrentCalls(t *testing.T, calls, busy int, opts ...ugc.Option) (most, connsOpened int) {
	t.Helper()
	h, err := ugctest.NewHandler(ugctest.Generate(30, 3), "cap-key")
	require.NoError(t, err)
	var (
		mu               sync.Mutex
		inFlight         int
		conns            atomic.Int32
		asked            atomic.Int32
		release          = make(chan struct{})
		full             = make(chan struct{})
		fullOnce, relOne sync.Once
	)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		inFlight++
		most = max(most, inFlight)
		if inFlight == busy {
			fullOnce.Do(func() { close(full) })
		}
		mu.Unlock()
		<-release
		h.ServeHTTP(w, r)
		mu.Lock()
		inFlight--
		mu.Unlock()
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	t.Cleanup(func() { relOne.Do(func() { close(release) }) })

	c, err := ugc.NewClient(srv.URL, "cap-key", opts...)
	require.NoError(t, err)
	allAsked := make(chan struct{})
	ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{GetConn: func(string) {
		if int(asked.Add(1)) == calls {
			close(allAsked)
		}
	}})
	var wg sync.WaitGroup
	errs := make(chan error, calls)
	for range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.Posts(ctx, &ugc.PostsParams{Limit: 5})
			errs <- err
		}()
	}
	<-full     // the connections it may open are all busy
	<-allAsked // and every call has asked for a connection
	relOne.Do(func() { close(release) })
	wg.Wait()
	close(errs)
	for err := range errs {
		assert.NoError(t, err)
	}
	mu.Lock()
	defer mu.Unlock()
	return most, int(conns.Load())
}
