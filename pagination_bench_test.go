package ugc_test

// Benchmarks of batch iteration against the fake server (issue: batch
// iteration). Results and the commands that produced them are recorded in
// BENCHMARKS.md. Run them with:
//
//	go test -run '^$' -bench 'Iterate|HeapWhileIterating' -benchtime 1x -count 5 .

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
)

const (
	benchPosts    = 20_000 // 800 pages of 25
	benchLatency  = 10 * time.Millisecond
	benchPageWork = 10 * time.Millisecond
)

// naivePage is what a user decodes into by hand: the same post type, the
// envelope with a nullable next.
type naivePage struct {
	Count int        `json:"count"`
	Next  *string    `json:"next"`
	Nodes []ugc.Post `json:"nodes"`
}

// naiveWalk is the baseline: the loop a user writes with net/http and
// encoding/json, following next until it is null, calling work after each
// page. It returns how many posts it saw.
func naiveWalk(ctx context.Context, hc *http.Client, baseURL, key string, work func()) (int, error) {
	url := baseURL + "/v1/posts?limit=25"
	n := 0
	for url != "" {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return n, err
		}
		req.Header.Set("x-api-key", key)
		resp, err := hc.Do(req)
		if err != nil {
			return n, err
		}
		var page naivePage
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if err != nil {
			return n, err
		}
		if resp.StatusCode != http.StatusOK {
			return n, fmt.Errorf("status %d", resp.StatusCode)
		}
		n += len(page.Nodes)
		if work != nil {
			work()
		}
		url = ""
		if page.Next != nil {
			url = *page.Next
		}
	}
	return n, nil
}

// floorWalk is the transport-only floor: the loop that only moves bytes.
// It reads each body and finds next in it without decoding the posts, so
// no client that decodes can be faster.
func floorWalk(ctx context.Context, hc *http.Client, baseURL, key string) (int, error) {
	url := baseURL + "/v1/posts?limit=25"
	pages := 0
	var body bytes.Buffer
	for url != "" {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return pages, err
		}
		req.Header.Set("x-api-key", key)
		resp, err := hc.Do(req)
		if err != nil {
			return pages, err
		}
		body.Reset()
		_, err = body.ReadFrom(resp.Body)
		resp.Body.Close()
		if err != nil {
			return pages, err
		}
		pages++
		url = ""
		if _, rest, ok := bytes.Cut(body.Bytes(), []byte(`"next":"`)); ok {
			if end := bytes.IndexByte(rest, '"'); end >= 0 {
				url = string(rest[:end])
			}
		}
	}
	return pages * 25, nil
}

// sdkWalk walks every post with AllPosts, calling work after each page's
// last post.
func sdkWalk(ctx context.Context, c *ugc.Client, work func(), opts ...ugc.Option) (int, error) {
	n := 0
	for _, err := range c.AllPosts(ctx, &ugc.PostsParams{Limit: 25}, opts...) {
		if err != nil {
			return n, err
		}
		n++
		if work != nil && n%25 == 0 {
			work()
		}
	}
	return n, nil
}

func benchServer(b *testing.B, posts int, latency time.Duration, opts ...ugctest.Option) *ugctest.Server {
	b.Helper()
	opts = append(opts, ugctest.WithDataset(ugctest.Generate(posts, 1)), ugctest.WithLatency(latency))
	return ugctest.NewServer(b, opts...)
}

// BenchmarkIterate walks 20,000 posts (800 pages of 25) with 10 ms added to
// every request, by hand and with the SDK in each mode, with and without a
// consumer that spends 10 ms on each page.
//
// The fake runs in the benchmark's process, on the client's cores: a page
// the client decodes while the next request is at the fake delays the
// fake's taking it. UGC_BENCH_SERVER names a server in a process of its
// own instead, as a real server is (the same data and latency:
// `ugcfake -posts 20000 -latency 10ms`, its key in UGC_BENCH_KEY, default
// ugcfake's); requests/walk is then not reported.
func BenchmarkIterate(b *testing.B) {
	var requests atomic.Int64
	baseURL, key := os.Getenv("UGC_BENCH_SERVER"), cmp.Or(os.Getenv("UGC_BENCH_KEY"), "ugcfake-dev-key")
	if baseURL == "" {
		srv := benchServer(b, benchPosts, benchLatency, ugctest.WithRequestHook(func(ugctest.Request) { requests.Add(1) }))
		baseURL, key = srv.URL, srv.APIKey
	}
	work := func() { time.Sleep(benchPageWork) }
	// Each case gets its own transport, to count the connections it opens.
	var tr *http.Transport
	var dials *atomic.Int32
	client := func(b *testing.B) *ugc.Client {
		b.Helper()
		c, err := ugc.NewClient(baseURL, key, ugc.WithStrictDecoding(), ugc.WithHTTPClient(&http.Client{Transport: tr}))
		require.NoError(b, err)
		return c
	}
	naiveClient := func() *http.Client { return &http.Client{Transport: tr} }
	cases := []struct {
		name string
		walk func(ctx context.Context, b *testing.B) (int, error)
	}{
		{"floor", func(ctx context.Context, b *testing.B) (int, error) {
			return floorWalk(ctx, naiveClient(), baseURL, key)
		}},
		{"naive", func(ctx context.Context, b *testing.B) (int, error) {
			return naiveWalk(ctx, naiveClient(), baseURL, key, nil)
		}},
		{"sequential", func(ctx context.Context, b *testing.B) (int, error) {
			return sdkWalk(ctx, client(b), nil, ugc.WithReadAhead(0))
		}},
		{"prefetch", func(ctx context.Context, b *testing.B) (int, error) {
			return sdkWalk(ctx, client(b), nil)
		}},
		{"parallel-8", func(ctx context.Context, b *testing.B) (int, error) {
			return sdkWalk(ctx, client(b), nil, ugc.WithReadAhead(8))
		}},
		{"work/naive", func(ctx context.Context, b *testing.B) (int, error) {
			return naiveWalk(ctx, naiveClient(), baseURL, key, work)
		}},
		{"work/sequential", func(ctx context.Context, b *testing.B) (int, error) {
			return sdkWalk(ctx, client(b), work, ugc.WithReadAhead(0))
		}},
		{"work/prefetch", func(ctx context.Context, b *testing.B) (int, error) {
			return sdkWalk(ctx, client(b), work)
		}},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			ctx := context.Background()
			tr, dials = countingTransport()
			defer tr.CloseIdleConnections()
			requests.Store(0)
			b.ReportAllocs()
			for b.Loop() {
				n, err := tc.walk(ctx, b)
				require.NoError(b, err)
				require.Equal(b, benchPosts, n)
			}
			b.ReportMetric(float64(dials.Load())/float64(b.N), "conns/walk")
			if os.Getenv("UGC_BENCH_SERVER") == "" {
				b.ReportMetric(float64(requests.Load())/float64(b.N), "requests/walk")
			}
		})
	}
}

// BenchmarkHeapWhileIterating walks 200,000 posts and reports the largest
// growth of the live heap (measured after a GC every 10,000 posts) over the
// heap before the walk, server's dataset excluded: nothing may accumulate.
func BenchmarkHeapWhileIterating(b *testing.B) {
	const posts = 200_000
	srv := benchServer(b, posts, 0)
	for _, mode := range []struct {
		name string
		opts []ugc.Option
	}{
		{"prefetch", nil},
		{"parallel-8", []ugc.Option{ugc.WithReadAhead(8)}},
	} {
		b.Run(mode.name, func(b *testing.B) {
			c := srv.Client()
			var peak uint64
			for b.Loop() {
				base := liveHeap()
				n := 0
				for _, err := range c.AllPosts(context.Background(), nil, mode.opts...) {
					require.NoError(b, err)
					n++
					if n%10_000 == 0 {
						if h := liveHeap(); h > base && h-base > peak {
							peak = h - base
						}
					}
				}
				require.Equal(b, posts, n)
			}
			b.ReportMetric(float64(peak)/(1<<20), "MiB-live-growth")
		})
	}
}

func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkShortPages walks 1,000 posts from a server that sends 10 posts a
// page to a limit-25 walk (a server that caps pages lower than the
// contract's 25), with 5 ms added to every request: prefetch must cost no
// more requests than a sequential walk (within 5 %) and no more time.
func BenchmarkShortPages(b *testing.B) {
	const posts = 1_000
	var requests atomic.Int64
	srv := benchServer(b, posts, 5*time.Millisecond, ugctest.WithRequestHook(func(ugctest.Request) { requests.Add(1) }))
	srv.AddRule(ugctest.Rule{Endpoint: ugctest.EndpointPosts, Fault: ugctest.ShortPage(10)})
	for _, mode := range []struct {
		name string
		opts []ugc.Option
	}{
		{"sequential", []ugc.Option{ugc.WithReadAhead(0)}},
		{"prefetch", nil},
		{"parallel-8", []ugc.Option{ugc.WithReadAhead(8)}},
	} {
		b.Run(mode.name, func(b *testing.B) {
			c := srv.Client()
			requests.Store(0)
			for b.Loop() {
				n, err := sdkWalk(context.Background(), c, nil, mode.opts...)
				require.NoError(b, err)
				require.Equal(b, posts, n)
			}
			b.ReportMetric(float64(requests.Load())/float64(b.N), "requests/walk")
		})
	}
}

// BenchmarkConcurrentWalks runs 5,000 default walks of a 60-post list
// (three pages each) at once on one Client, and reports the most heap in
// use and OS threads the process held while they ran: against the fake
// over TCP in this process (the fake's heap and connections included), and
// over an in-memory transport with 20 ms a request (the walks' alone):
// the heap in use (HeapInuse) and the bytes of its objects (HeapAlloc).
func BenchmarkConcurrentWalks(b *testing.B) {
	const n = 5_000
	for _, tc := range []struct {
		name     string
		inMemory bool
	}{{"tcp", false}, {"in-memory", true}} {
		b.Run(tc.name, func(b *testing.B) {
			var heap, objects uint64
			var threads int
			for b.Loop() {
				load := concurrentServerWalks(b, n, tc.inMemory)
				if load.complete != n {
					b.Fatalf("%d of %d walks complete; %d failed", load.complete, n, len(load.errs))
				}
				heap, objects, threads = max(heap, load.heap), max(objects, load.objects), max(threads, load.threads)
			}
			b.ReportMetric(float64(heap)/(1<<20), "MiB-peak-heap-inuse")
			b.ReportMetric(float64(objects)/(1<<20), "MiB-peak-heap-alloc")
			b.ReportMetric(float64(threads), "peak-threads")
		})
	}
}
