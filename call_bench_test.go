package ugc

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"runtime"
	"testing"
)

// fixedPage is an in-memory RoundTripper that answers every request with the
// same 200 page, so a benchmark measures the client and not a network.
type fixedPage []byte

func (p fixedPage) RoundTrip(*http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(bytes.NewReader(p))}, nil
}

// BenchmarkCall is one complete Posts call (build, send, read, decode) over
// an in-memory transport returning a 25-post page. Recorded in BENCHMARKS.md:
//
//	go test -run '^$' -bench 'Call$' -benchtime 2s -count 5 .
func BenchmarkCall(b *testing.B) {
	body, err := os.ReadFile("testdata/bench/page25.json")
	if err != nil {
		b.Fatal(err)
	}
	c, err := NewClient("https://api.example.com", "bench-key", WithHTTPClient(&http.Client{Transport: fixedPage(body)}))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Posts(ctx, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkClientFootprint is the heap a Client holds after one call, as a
// backend that keeps a Client for each tenant's key holds it: each
// iteration makes a Client and one call over an in-memory transport, and
// keeps the Client. Recorded in BENCHMARKS.md:
//
//	go test -run '^$' -bench ClientFootprint -benchtime 2000x -count 3 .
func BenchmarkClientFootprint(b *testing.B) {
	body, err := os.ReadFile("testdata/bench/page25.json")
	if err != nil {
		b.Fatal(err)
	}
	hc := &http.Client{Transport: fixedPage(body)}
	ctx := context.Background()
	var clients []*Client
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for b.Loop() {
		c, err := NewClient("https://api.example.com", "bench-key", WithHTTPClient(hc))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.Posts(ctx, nil); err != nil {
			b.Fatal(err)
		}
		clients = append(clients, c)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(len(clients)), "heap-B/client")
	runtime.KeepAlive(clients)
}
