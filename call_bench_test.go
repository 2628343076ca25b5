package ugc

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
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
