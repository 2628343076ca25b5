package ugc_test

// Benchmarks of walks and calls against the fake behind a quota that
// says nothing but Retry-After (issue 25). They take real time (a walk of
// 20,000 posts is 800 requests: 40 s at 20 requests a second) and run
// only with -bench; -benchtime 1x runs each once. Results and commands are
// in BENCHMARKS.md, for instance:
//
//	go test -run '^$' -bench 'QuotaWalk/posts=2000/' -benchtime 1x .
//	go test -run '^$' -bench 'QuotaCallers' -benchtime 1x .
//	go test -run '^$' -bench 'QuotaJitter' -benchtime 1x .

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
)

// quotaModes are the walks of BenchmarkQuotaWalk: the iterator's modes,
// and two prefetching walks of the same posts at once on one Client.
var quotaModes = []struct {
	name  string
	opts  []ugc.Option
	walks int
}{
	{"sequential", []ugc.Option{ugc.WithReadAhead(0)}, 1},
	{"prefetch", nil, 1},
	{"parallel-8", []ugc.Option{ugc.WithReadAhead(8)}, 1},
	{"parallel-16", []ugc.Option{ugc.WithReadAhead(16)}, 1},
	{"two-walks", nil, 2},
}

// BenchmarkQuotaWalk walks 2,000 or 20,000 posts (limit 25) against the
// fake behind a quota of 20, 50 or 200 requests a second, in bursts of 1,
// 2, 5 or 10, that says nothing but Retry-After in whole seconds
// (server=retry-after-only) or tells its state in rate-limit headers
// (server=headers, the fake's default), in each mode, with the default
// options (default) and with WithRateLimit set to the quota (rate-set). A new server and Client per walk: every bucket
// starts full, and the client knows nothing. It reports the time over
// requests ÷ quota (x-ideal: the requests include the refused ones, and
// the first burst rides free, so a perfect client is a little under 1),
// the time over the least any client not told the quota can take
// (x-bound, see leastTime; server=retry-after-only), the share of
// requests refused (429-%), the rate the Client allowed
// itself at the end over the quota (final/quota), and the walks that
// failed (failed/walk).
func BenchmarkQuotaWalk(b *testing.B) {
	for _, posts := range []int{2000, 20000} {
		ds := ugctest.Generate(posts, 18)
		for _, rps := range []float64{20, 50, 200} {
			for _, burst := range []int{1, 5, 50} {
				for _, server := range []string{"retry-after-only", "headers"} {
					for _, options := range []string{"default", "rate-set"} {
						for _, mode := range quotaModes {
							name := fmt.Sprintf("posts=%d/quota=%v/burst=%d/server=%s/%s/%s", posts, rps, burst, server, options, mode.name)
							q := ugctest.QuotaConfig{RPS: rps, Burst: burst, RetryAfterOnly: server == "retry-after-only"}
							b.Run(name, func(b *testing.B) {
								benchQuotaWalk(b, ds, posts, q, 0, options == "rate-set", mode.opts, mode.walks)
							})
						}
					}
				}
			}
		}
	}
}

// BenchmarkQuotaJitter walks 2,000 posts (limit 25) with WithRateLimit
// set to the quota, against the fake behind a quota of 50 or 200 requests
// a second, in bursts of 1, 2 or 5, that says nothing but Retry-After, on
// a way in that holds each request 0 to 5 or 20 ms at random before the
// server counts it (the jitter in transit), in each mode. It reports what
// BenchmarkQuotaWalk does.
//
//	go test -run '^$' -bench 'QuotaJitter' -benchtime 1x .
func BenchmarkQuotaJitter(b *testing.B) {
	const posts = 2000
	ds := ugctest.Generate(posts, 18)
	for _, rps := range []float64{50, 200} {
		for _, burst := range []int{1, 2, 5} {
			for _, jitter := range []time.Duration{0, 5 * time.Millisecond, 20 * time.Millisecond} {
				for _, mode := range quotaModes {
					name := fmt.Sprintf("quota=%v/burst=%d/jitter=%v/%s", rps, burst, jitter, mode.name)
					q := ugctest.QuotaConfig{RPS: rps, Burst: burst, RetryAfterOnly: true}
					b.Run(name, func(b *testing.B) {
						benchQuotaWalk(b, ds, posts, q, jitter, true, mode.opts, mode.walks)
					})
				}
			}
		}
	}
}

// jittered holds each request to h for 0 to most at random (from seed)
// before h takes it: the jitter in transit, which puts the server's count
// later than the client sent the request, by more or less each time.
func jittered(h http.Handler, most time.Duration, seed uint64) http.Handler {
	if most <= 0 {
		return h
	}
	var mu sync.Mutex
	rng := rand.New(rand.NewPCG(seed, 3))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		d := time.Duration(rng.Int64N(int64(most) + 1))
		mu.Unlock()
		time.Sleep(d)
		h.ServeHTTP(w, r)
	})
}

func benchQuotaWalk(b *testing.B, ds *ugctest.Dataset, posts int, q ugctest.QuotaConfig, jitter time.Duration, rateSet bool, opts []ugc.Option, walks int) {
	rps := q.RPS
	var (
		elapsed                   time.Duration
		requests, refused, failed int
		finalOverQuota            float64
	)
	for b.Loop() {
		h, err := ugctest.NewHandler(ds, "bench-key", ugctest.WithQuotaConfig(q), ugctest.WithRequestLogLimit(-1))
		if err != nil {
			b.Fatal(err)
		}
		srv := httptest.NewServer(jittered(h, jitter, 1))
		clientOpts := []ugc.Option{ugc.WithStrictDecoding()}
		if rateSet {
			clientOpts = append(clientOpts, ugc.WithRateLimit(rps, q.Burst))
		}
		c, err := ugc.NewClient(srv.URL, "bench-key", clientOpts...)
		if err != nil {
			b.Fatal(err)
		}
		sums := make([]ugc.WalkSummary, walks)
		var wg sync.WaitGroup
		var mu sync.Mutex
		start := time.Now()
		for w := range walks {
			wg.Add(1)
			go func() {
				defer wg.Done()
				n := 0
				walkOpts := append([]ugc.Option{ugc.WithSummary(&sums[w])}, opts...)
				for _, err := range c.AllPosts(context.Background(), &ugc.PostsParams{Limit: ugc.MaxLimit}, walkOpts...) {
					if err != nil {
						mu.Lock()
						failed++
						mu.Unlock()
						b.Logf("walk: %v", err)
						return
					}
					n++
				}
				if n != posts {
					b.Errorf("%d posts, want %d", n, posts)
				}
			}()
		}
		wg.Wait()
		elapsed += time.Since(start)
		srv.Close()
		for _, r := range h.Requests() {
			requests++
			if r.OverQuota {
				refused++
			}
		}
		finalOverQuota += sums[0].FinalRate / rps
	}
	n := float64(b.N)
	ideal := time.Duration(float64(requests) / n / rps * float64(time.Second))
	b.ReportMetric(float64(elapsed)/n/float64(ideal), "x-ideal")
	if q.RetryAfterOnly && jitter == 0 {
		b.ReportMetric(float64(elapsed)/n/float64(leastTime(float64(requests-refused)/n, rps, float64(q.Burst), time.Second)), "x-bound")
	}
	b.ReportMetric(100*float64(refused)/float64(max(requests, 1)), "429-%")
	b.ReportMetric(float64(refused)/n, "429s/op")
	b.ReportMetric(float64(requests)/n, "requests/op")
	b.ReportMetric(finalOverQuota/n, "final/quota")
	b.ReportMetric(float64(failed)/n, "failed/walk")
}

// leastTime is the least time a client that is not told the quota can
// take for n accepted requests against a token bucket of rate requests a
// second holding burst, that answers only 429 with Retry-After retry:
// the bucket's own time, (n − burst)/rate, and two pauses, each retry
// less what the bucket refills in it: one to meet the quota, one more to
// tell its rate from its burst. Where the bucket refills slower than the
// pause lasts, the pauses cost no tokens but still time: a walk that
// outlasts what the first pause refilled sits out both, and one that
// does not ends after the first.
func leastTime(n, rate, burst float64, retry time.Duration) time.Duration {
	r := retry.Seconds()
	var secs float64
	switch refilled := min(burst, rate*r); {
	case n <= burst:
	case n-burst <= refilled:
		secs = r
	default:
		secs = max((n-burst)/rate+2*max(r-burst/rate, 0), 2*r)
	}
	return time.Duration(secs * float64(time.Second))
}

// quotaPhase is a quota the fake keeps for a while: rate requests a
// second in bursts of burst, for lasts (0: to the end).
type quotaPhase struct {
	rate  float64
	burst int
	lasts time.Duration
}

// idealUnder returns the least time n requests take under the phases,
// whose buckets each start full: each phase serves its burst and its
// refill, the last the rest.
func idealUnder(phases []quotaPhase, n float64) time.Duration {
	var secs float64
	for _, p := range phases {
		if p.lasts == 0 || n <= float64(p.burst)+p.rate*p.lasts.Seconds() {
			return time.Duration((secs + max(n-float64(p.burst), 0)/p.rate) * float64(time.Second))
		}
		n -= float64(p.burst) + p.rate*p.lasts.Seconds()
		secs += p.lasts.Seconds()
	}
	return time.Duration(secs * float64(time.Second))
}

// BenchmarkQuotaChange walks 6,000 posts (limit 25, 240 requests) with the
// default options against the fake behind a quota that says nothing but
// Retry-After and changes mid-walk: 50 requests a second that fall to 10
// after 4 s, and 50 that fall to 10 for 2 s after 2 s and then rise to
// 100, in bursts of 5, in each mode. It reports the time over the least a
// client told each change could take (x-ideal, see idealUnder) and the
// share of requests refused.
//
//	go test -run '^$' -bench 'QuotaChange' -benchtime 1x .
func BenchmarkQuotaChange(b *testing.B) {
	const posts = 6000
	ds := ugctest.Generate(posts, 18)
	for _, sc := range []struct {
		name   string
		phases []quotaPhase
	}{
		{"50-to-10", []quotaPhase{{50, 5, 4 * time.Second}, {10, 5, 0}}},
		{"50-to-10-to-100", []quotaPhase{{50, 5, 2 * time.Second}, {10, 5, 2 * time.Second}, {100, 5, 0}}},
	} {
		for _, mode := range quotaModes[:3] {
			b.Run(sc.name+"/"+mode.name, func(b *testing.B) {
				var elapsed time.Duration
				var requests, refused int
				for b.Loop() {
					h, err := ugctest.NewHandler(ds, "bench-key", ugctest.WithRequestLogLimit(-1))
					if err != nil {
						b.Fatal(err)
					}
					srv := httptest.NewServer(h)
					c, err := ugc.NewClient(srv.URL, "bench-key", ugc.WithStrictDecoding())
					if err != nil {
						b.Fatal(err)
					}
					setQuota := func(p quotaPhase) {
						if err := h.SetQuotaConfig(ugctest.QuotaConfig{RPS: p.rate, Burst: p.burst, RetryAfterOnly: true}); err != nil {
							b.Error(err)
						}
					}
					setQuota(sc.phases[0])
					done := make(chan struct{})
					go func() { // the quota's schedule
						for i, p := range sc.phases[:len(sc.phases)-1] {
							select {
							case <-time.After(p.lasts):
								setQuota(sc.phases[i+1])
							case <-done:
								return
							}
						}
					}()
					start, n := time.Now(), 0
					for _, err := range c.AllPosts(context.Background(), &ugc.PostsParams{Limit: ugc.MaxLimit}, mode.opts...) {
						if err != nil {
							b.Fatal(err)
						}
						n++
					}
					elapsed += time.Since(start)
					close(done)
					srv.Close()
					if n != posts {
						b.Fatalf("%d posts, want %d", n, posts)
					}
					for _, r := range h.Requests() {
						requests++
						if r.OverQuota {
							refused++
						}
					}
				}
				n := float64(b.N)
				b.ReportMetric(float64(elapsed)/n/float64(idealUnder(sc.phases, float64(requests-refused)/n)), "x-ideal")
				b.ReportMetric(100*float64(refused)/float64(max(requests, 1)), "429-%")
			})
		}
	}
}

// BenchmarkQuotaCallers has 8 goroutines make single calls on one Client
// against the fake behind a quota of 5, 50 or 200 requests a second with a
// burst of 1 that says nothing but Retry-After, with the default options
// and with WithRateLimit set to the quota, for about ten seconds. It
// reports the calls a second over the quota (of-quota), the 429s, and the
// calls that failed.
func BenchmarkQuotaCallers(b *testing.B) {
	const workers = 8
	for _, rps := range []float64{5, 50, 200} {
		for _, options := range []string{"default", "rate-set"} {
			b.Run(fmt.Sprintf("quota=%v/burst=1/%s", rps, options), func(b *testing.B) {
				var (
					calls, refused, failed int
					elapsed                time.Duration
				)
				for b.Loop() {
					q := ugctest.QuotaConfig{RPS: rps, Burst: 1, RetryAfterOnly: true}
					h, err := ugctest.NewHandler(nil, "bench-key", ugctest.WithQuotaConfig(q), ugctest.WithRequestLogLimit(-1))
					if err != nil {
						b.Fatal(err)
					}
					srv := httptest.NewServer(h)
					var opts []ugc.Option
					if options == "rate-set" {
						opts = append(opts, ugc.WithRateLimit(rps, 1))
					}
					c, err := ugc.NewClient(srv.URL, "bench-key", opts...)
					if err != nil {
						b.Fatal(err)
					}
					each := int(10 * rps / workers)
					var wg sync.WaitGroup
					var mu sync.Mutex
					start := time.Now()
					for range workers {
						wg.Add(1)
						go func() {
							defer wg.Done()
							for range each {
								_, err := c.Posts(context.Background(), &ugc.PostsParams{Limit: 1})
								mu.Lock()
								calls++
								if err != nil && !errors.Is(err, context.Canceled) {
									failed++
								}
								mu.Unlock()
							}
						}()
					}
					wg.Wait()
					elapsed += time.Since(start)
					srv.Close()
					for _, r := range h.Requests() {
						if r.OverQuota {
							refused++
						}
					}
				}
				b.ReportMetric(float64(calls)/elapsed.Seconds()/rps, "of-quota")
				b.ReportMetric(float64(refused)/float64(b.N), "429s/op")
				b.ReportMetric(float64(failed)/float64(b.N), "failed/op")
			})
		}
	}
}
