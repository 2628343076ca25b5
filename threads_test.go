package ugc_test

// A walk holds no OS thread of its own: thousands of walks at once, as a
// service that walks per request or a job that fans out per account runs
// them, hold about as many threads as one walk does. Go ends a process
// that needs more than 10,000 threads (debug.SetMaxThreads).
//
// The walks run on an in-memory transport with a latency (a timer, which
// holds no thread), so that they are all in flight at once and the count
// does not depend on the machine's limit of open files.

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
)

// memoryTransport answers each request from handler after latency, in
// memory.
type memoryTransport struct {
	handler http.Handler
	latency time.Duration
}

func (m memoryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	select {
	case <-time.After(m.latency):
	case <-req.Context().Done():
		return nil, req.Context().Err()
	}
	rec := httptest.NewRecorder()
	m.handler.ServeHTTP(rec, req)
	return rec.Result(), nil
}

// liveThreads returns the process's OS threads now: /proc/self/status on
// Linux, else the threads the runtime created (never fewer than live).
func liveThreads() int {
	if f, err := os.Open("/proc/self/status"); err == nil {
		defer f.Close()
		s := bufio.NewScanner(f)
		for s.Scan() {
			if v, ok := strings.CutPrefix(s.Text(), "Threads:"); ok {
				if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
					return n
				}
			}
		}
	}
	return pprof.Lookup("threadcreate").Count()
}

// TestConcurrentDefaultWalksHoldNoThreadEach: 1,000 default walks at once
// hold 64 OS threads or fewer (a thread a walk would hold a thousand).
func TestConcurrentDefaultWalksHoldNoThreadEach(t *testing.T) {
	if raceEnabled() {
		t.Skip("the race detector caps the goroutines alive at once at 8128; .ci/run runs this test without it")
	}
	load := concurrentServerWalks(t, 1000, true)
	assert.Empty(t, load.errs, "walks that failed")
	assert.EqualValues(t, 1000, load.complete, "walks that yielded every post")
	assert.LessOrEqual(t, load.threads, 64, "peak OS threads while 1,000 default walks ran")
	t.Logf("1,000 concurrent default walks: peak %d OS threads", load.threads)
}

// TestElevenThousandConcurrentDefaultWalksComplete: more walks at once than
// Go allows threads (10,000) all complete. Heavy: UGC_TEST_HEAVY=1.
func TestElevenThousandConcurrentDefaultWalksComplete(t *testing.T) {
	if !heavy() {
		t.Skip("heavy: set UGC_TEST_HEAVY=1")
	}
	require.False(t, raceEnabled(), "run without -race: the race detector caps goroutines at 8128")
	load := concurrentServerWalks(t, 11000, true)
	assert.Empty(t, load.errs, "walks that failed")
	assert.EqualValues(t, 11000, load.complete, "walks that yielded every post")
	t.Logf("11,000 concurrent default walks: peak %d OS threads", load.threads)
}

// walkLoad is what n concurrent walks on one Client did.
type walkLoad struct {
	complete int64 // walks that yielded every post, without error
	threads  int   // the most OS threads the process held
	// heap is the most heap in use (HeapInuse: spans that hold objects,
	// live or not yet collected), objects the most bytes of objects
	// (HeapAlloc); the server's included.
	heap, objects uint64
	errs          []error
}

// heapInUse reads the heap in use and the bytes of its objects without
// stopping the world.
func heapInUse(samples []metrics.Sample) (inUse, objects uint64) {
	metrics.Read(samples)
	return samples[0].Value.Uint64() + samples[1].Value.Uint64(), samples[0].Value.Uint64()
}

// concurrentServerWalks runs n default walks of a 60-post list (three
// pages at limit 25) at once, on one Client with the default transport,
// against ugctest over TCP in this process (or, with inMemory, over an
// in-memory transport with 20 ms a request), and
// samples the process's OS threads and heap in use while they run.
func concurrentServerWalks(tb testing.TB, n int, inMemory bool) walkLoad {
	tb.Helper()
	srv := ugctest.NewServer(tb, ugctest.WithDataset(ugctest.Generate(60, 5)), ugctest.WithRequestLogLimit(0))
	opts := []ugc.Option{ugc.WithRetryWait(time.Millisecond, 50*time.Millisecond)}
	if inMemory {
		opts = append(opts, ugc.WithHTTPClient(&http.Client{Transport: memoryTransport{handler: srv.Handler, latency: 20 * time.Millisecond}}))
	}
	client := srv.Client(opts...)
	var load walkLoad
	var mu sync.Mutex
	var done atomic.Bool
	var sampled sync.WaitGroup
	sampled.Add(1)
	go func() {
		defer sampled.Done()
		samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}}
		for !done.Load() {
			load.threads = max(load.threads, liveThreads())
			inUse, objects := heapInUse(samples)
			load.heap, load.objects = max(load.heap, inUse), max(load.objects, objects)
			time.Sleep(2 * time.Millisecond)
		}
	}()
	start := make(chan struct{})
	var walks sync.WaitGroup
	for range n {
		walks.Add(1)
		go func() {
			defer walks.Done()
			<-start
			posts := 0
			for _, err := range client.AllPosts(context.Background(), &ugc.PostsParams{Limit: 25}) {
				if err != nil {
					mu.Lock()
					load.errs = append(load.errs, err)
					mu.Unlock()
					return
				}
				posts++
			}
			if posts == 60 {
				atomic.AddInt64(&load.complete, 1)
			}
		}()
	}
	close(start)
	walks.Wait()
	done.Store(true)
	sampled.Wait()
	return load
}

// TestConcurrentWalksOnOneClientComplete: 2,000 default walks at once on
// one Client over TCP all complete, the default transport's connections
// shared by them (requests beyond its cap wait for one), on 64 OS threads
// at most. UGC_TEST_HEAVY=1 runs 50,000.
func TestConcurrentWalksOnOneClientComplete(t *testing.T) {
	if raceEnabled() {
		t.Skip("the race detector caps the goroutines alive at once at 8128; .ci/run runs this test without it")
	}
	n := heavyOr(50_000, 2_000)
	load := concurrentServerWalks(t, n, false)
	if len(load.errs) > 0 {
		t.Errorf("%d walks failed; the first: %v", len(load.errs), load.errs[0])
	}
	assert.EqualValues(t, n, load.complete, "walks that yielded every post")
	assert.LessOrEqual(t, load.threads, 64, "peak OS threads")
	t.Logf("%d concurrent default walks of 3 pages on one Client: %d complete, peak %d OS threads, peak heap in use %.0f MiB",
		n, load.complete, load.threads, float64(load.heap)/(1<<20))
}
