package ugc_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
)

// rampStart is the window's requests in flight before its first answer
// (window.go).
const rampStart = 4

// TestParallelWindowNeverRunsAheadOfItsAnswers: over generated walks
// (read-ahead 2 to 32, 50 to 1,500 posts, each answer 0 to 4 ms late), the
// server never holds more of a walk's requests at once than rampStart and
// one for each answer it has given, and every post comes once. (That the
// window opens to the read-ahead, one more for each answer, is
// TestParallelWindowOpensOneMoreForEachAnswer: how far it opens here
// depends on how fast the machine sends.)
func TestParallelWindowNeverRunsAheadOfItsAnswers(t *testing.T) {
	t.Parallel()
	for seed := range uint64(24) {
		rng := rand.New(rand.NewPCG(seed, 43))
		ahead, posts := 2+rng.IntN(31), 50+rng.IntN(1451)
		t.Run(fmt.Sprintf("seed=%d/read-ahead=%d/posts=%d", seed, ahead, posts), func(t *testing.T) {
			t.Parallel()
			h, err := ugctest.NewHandler(ugctest.Generate(posts, seed), "k")
			require.NoError(t, err)
			var (
				mu                       sync.Mutex
				inFlight, answered, most int
				overs                    []string
				lateness                 = rand.New(rand.NewPCG(seed, 44))
			)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				inFlight++
				most = max(most, inFlight)
				if inFlight > rampStart+answered {
					overs = append(overs, fmt.Sprintf("%d in flight after %d answers", inFlight, answered))
				}
				late := time.Duration(lateness.Int64N(int64(4 * time.Millisecond)))
				mu.Unlock()
				time.Sleep(late)
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, r)
				mu.Lock()
				inFlight-- // before the answer leaves: the client may send the next at once
				answered++
				mu.Unlock()
				for k, v := range rec.Header() {
					w.Header()[k] = v
				}
				w.WriteHeader(rec.Code)
				_, _ = w.Write(rec.Body.Bytes())
			}))
			t.Cleanup(srv.Close)
			c, err := ugc.NewClient(srv.URL, "k")
			require.NoError(t, err)
			seen := map[string]bool{}
			for p, err := range c.AllPosts(context.Background(), &ugc.PostsParams{Limit: 25}, ugc.WithReadAhead(ahead)) {
				require.NoError(t, err)
				assert.False(t, seen[p.ID], "post %s came twice", p.ID)
				seen[p.ID] = true
			}
			assert.Len(t, seen, posts)
			mu.Lock()
			defer mu.Unlock()
			assert.Empty(t, overs, "the window opened ahead of its answers")
			t.Logf("at most %d requests in flight", most)
		})
	}
}

// TestFirstThrottleMeetsTheWindowNotTheReadAhead: a parallel walk that
// meets a bucket of one at its first requests, behind a server that says
// nothing but Retry-After, has at most rampStart requests in flight beyond
// the answers it took when the first throttle comes: it took one (the
// bucket's token), so at most rampStart+1 are refused, whatever the
// read-ahead (it was the whole read-ahead, less one). The walk's deadline
// is shorter than the named second: it ends at the first throttle, with
// ErrRateLimited, and the requests refused are those that were in flight.
// The bucket's token comes every 20 ms, later than a loaded machine sends
// them.
func TestFirstThrottleMeetsTheWindowNotTheReadAhead(t *testing.T) {
	t.Parallel()
	ds := ugctest.Generate(300, 7)
	for _, ahead := range []int{8, 16} {
		t.Run(fmt.Sprintf("read-ahead=%d", ahead), func(t *testing.T) {
			t.Parallel()
			srv := ugctest.NewServer(t, ugctest.WithDataset(ds), ugctest.WithRequestLogLimit(-1),
				ugctest.WithQuotaConfig(ugctest.QuotaConfig{RPS: 50, Burst: 1, RetryAfterOnly: true}))
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			defer cancel()
			var walkErr error
			for _, err := range srv.Client().AllPosts(ctx, &ugc.PostsParams{Limit: 25}, ugc.WithReadAhead(ahead)) {
				if err != nil {
					walkErr = err
				}
			}
			require.ErrorIs(t, walkErr, ugc.ErrRateLimited, "the walk ends at the first throttle")
			refused := 0
			for _, r := range srv.Requests() {
				if r.OverQuota {
					refused++
				}
			}
			assert.Positive(t, refused, "a bucket of one refuses a parallel walk's first requests")
			assert.LessOrEqual(t, refused, rampStart+1, "requests refused at the first throttle")
		})
	}
}

// TestReadAheadIsTheRequestsOnTheWire: WithReadAhead(n) is how many page
// requests a walk keeps on the wire ahead of the page its caller handles.
// A server that answers each in 20 ms holds n of a walk's requests at once
// when the caller takes each page at once (one when n is 0: the walk
// waits for each), and never more than n when the caller spends 5 ms on
// each page; every post comes once. The latency is long enough for a
// walk under -race on a busy machine to send its next request before the
// others are answered.
func TestReadAheadIsTheRequestsOnTheWire(t *testing.T) {
	t.Parallel()
	const posts = 40 * 25
	h, err := ugctest.NewHandler(ugctest.Generate(posts, 9), "k")
	require.NoError(t, err)
	for _, n := range []int{0, 1, 2, 3, 8} {
		for _, handling := range []time.Duration{0, 5 * time.Millisecond} {
			t.Run(fmt.Sprintf("read-ahead=%d/handling=%v", n, handling), func(t *testing.T) {
				t.Parallel()
				var mu sync.Mutex
				inFlight, most := 0, 0
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					mu.Lock()
					inFlight++
					most = max(most, inFlight)
					mu.Unlock()
					time.Sleep(20 * time.Millisecond) // the server's latency
					mu.Lock()
					inFlight-- // before the answer leaves: the client may send the next at once
					mu.Unlock()
					h.ServeHTTP(w, r)
				}))
				t.Cleanup(srv.Close)
				c, err := ugc.NewClient(srv.URL, "k")
				require.NoError(t, err)
				seen := map[string]bool{}
				for p, err := range c.AllPosts(context.Background(), &ugc.PostsParams{Limit: 25}, ugc.WithReadAhead(n)) {
					require.NoError(t, err)
					assert.False(t, seen[p.ID], "post %s came twice", p.ID)
					seen[p.ID] = true
					if len(seen)%25 == 0 {
						time.Sleep(handling) // the caller handles the page
					}
				}
				assert.Len(t, seen, posts)
				mu.Lock()
				defer mu.Unlock()
				if handling == 0 {
					assert.Equal(t, max(n, 1), most, "requests on the wire at once")
				} else {
					assert.LessOrEqual(t, most, max(n, 1), "requests on the wire at once")
				}
			})
		}
	}
}
