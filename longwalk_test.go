package ugc_test

// A walk's memory is bounded by the pages in flight, not by its length: a
// walk of millions of posts, generated from skip by a server that stores
// nothing, keeps the heap in use as small at its end as near its start.

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ugcposts/ugc-go"
)

// generatedList answers list requests with n posts made from their
// position, in memory: post i is "g<i>".
type generatedList struct{ n int }

func (g generatedList) RoundTrip(req *http.Request) (*http.Response, error) {
	q := req.URL.Query()
	skip, _ := strconv.Atoi(q.Get("skip"))
	limit, err := strconv.Atoi(q.Get("limit"))
	if err != nil || limit < 1 || limit > ugc.MaxLimit {
		limit = ugc.MaxLimit
	}
	end := min(skip+limit, g.n)
	var b strings.Builder
	fmt.Fprintf(&b, `{"count":%d,"next":`, g.n)
	if end < g.n {
		fmt.Fprintf(&b, `"/v1/posts?skip=%d&limit=%d"`, end, limit)
	} else {
		b.WriteString("null")
	}
	b.WriteString(`,"nodes":[`)
	for i := skip; i < end; i++ {
		if i > skip {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"g%d","createdAt":"2024-01-02T03:04:05Z","media":{"location":"https://cdn.example/g%d.jpg"},"taggedProducts":[],"comment":"post %d"}`, i, i, i)
	}
	b.WriteString("]}")
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(b.String())), Request: req, ContentLength: -1}, nil
}

// TestLongWalkKeepsTheHeapBounded walks a generated list and samples the
// heap in use: its peak stays under 16 MiB over what was in use before
// the walk, however long the walk. The
// default run walks 100,000 posts; UGC_TEST_HEAVY=1 walks 10,000,000
// (prefetch) and 1,000,000 (parallel-8).
func TestLongWalkKeepsTheHeapBounded(t *testing.T) {
	for _, mode := range []struct {
		name  string
		opts  []ugc.Option
		heavy int
	}{{"prefetch", nil, 10_000_000}, {"parallel-8", []ugc.Option{ugc.WithReadAhead(8)}, 1_000_000}} {
		n := heavyOr(mode.heavy, 100_000)
		t.Run(mode.name, func(t *testing.T) {
			c, err := ugc.NewClient("http://127.0.0.1:1", "long-walk-key",
				ugc.WithHTTPClient(&http.Client{Transport: generatedList{n: n}}), ugc.WithStrictDecoding())
			require.NoError(t, err)
			var peak uint64
			var ms runtime.MemStats
			// What tests before this one keep (a run of -count=2 has the
			// first run's caches) is not this walk's: its heap is what it
			// adds to the heap in use before it.
			runtime.GC()
			runtime.ReadMemStats(&ms)
			before := ms.HeapInuse
			i := 0
			for p, err := range c.AllPosts(context.Background(), &ugc.PostsParams{Limit: 25}, mode.opts...) {
				require.NoError(t, err)
				if want := "g" + strconv.Itoa(i); p.ID != want {
					require.Equal(t, want, p.ID, "every post once, in order")
				}
				if i++; i%(n/50) == 0 {
					runtime.ReadMemStats(&ms)
					peak = max(peak, ms.HeapInuse)
				}
			}
			assert.Equal(t, n, i)
			grown := peak - min(before, peak)
			assert.Less(t, grown, uint64(16<<20), "peak heap in use over a %d-post walk, less the %d bytes before it", n, before)
			t.Logf("%d posts: peak heap in use %.1f MiB (%.1f MiB before the walk)", n, float64(grown)/(1<<20), float64(before)/(1<<20))
		})
	}
}
