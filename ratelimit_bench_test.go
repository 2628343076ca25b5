package ugc_test

// Benchmarks of walks against the fake behind a quota (issue 18). They
// take real time (a walk of 2,000 posts is about 84 requests: 4.2 s at 20
// requests a second) and run only with -bench. Results and the command are
// in BENCHMARKS.md:
//
//	go test -run '^$' -bench 'QuotaWalk' -benchtime 1x .

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
)

// BenchmarkQuotaWalk walks 2,000 posts (limit 25) behind a quota of 20, 50
// and 200 requests a second (burst 5), in each mode, with WithRateLimit set
// to the quota and with the default options. It reports the walk's time
// over requests ÷ quota (x-ideal), the 429s, the requests and the walks
// that failed with ErrRateLimited (or anything else).
func BenchmarkQuotaWalk(b *testing.B) {
	const (
		posts = 2000
		burst = 5
	)
	ds := ugctest.Generate(posts, 18)
	modes := []struct {
		name string
		opts []ugc.Option
	}{
		{"sequential", []ugc.Option{ugc.WithReadAhead(0)}},
		{"prefetch", nil},
		{"parallel-8", []ugc.Option{ugc.WithReadAhead(8)}},
		{"parallel-16", []ugc.Option{ugc.WithReadAhead(16)}},
	}
	for _, rps := range []float64{20, 50, 200} {
		for _, configured := range []bool{true, false} {
			for _, mode := range modes {
				options := "default"
				if configured {
					options = "rate-set"
				}
				b.Run(fmt.Sprintf("quota=%v/%s/%s", rps, options, mode.name), func(b *testing.B) {
					var elapsed time.Duration
					var requests, refused, rateLimited, failed int
					for b.Loop() {
						srv := ugctest.NewServer(b, ugctest.WithDataset(ds), ugctest.WithQuota(rps, burst), ugctest.WithRequestLogLimit(-1))
						opts := []ugc.Option{ugc.WithRetryWait(ugc.DefaultRetryWaitMin, ugc.DefaultRetryWaitMax)}
						if configured {
							opts = append(opts, ugc.WithRateLimit(rps, burst))
						}
						c := srv.Client(opts...)
						n := 0
						start := time.Now()
						for _, err := range c.AllPosts(context.Background(), &ugc.PostsParams{Limit: ugc.MaxLimit}, mode.opts...) {
							if err != nil {
								if errors.Is(err, ugc.ErrRateLimited) {
									rateLimited++
								} else {
									failed++
								}
								break
							}
							n++
						}
						elapsed += time.Since(start)
						if n != posts && failed+rateLimited == 0 {
							b.Fatalf("%d posts, want %d", n, posts)
						}
						for _, r := range srv.Requests() {
							requests++
							if r.OverQuota {
								refused++
							}
						}
					}
					walks := float64(b.N)
					ideal := time.Duration(float64(requests) / walks / rps * float64(time.Second))
					b.ReportMetric(float64(elapsed)/walks/float64(ideal), "x-ideal")
					b.ReportMetric(float64(refused)/walks, "429s/walk")
					b.ReportMetric(float64(requests)/walks, "requests/walk")
					b.ReportMetric(float64(rateLimited)/walks, "ErrRateLimited/walk")
					b.ReportMetric(float64(failed)/walks, "failed/walk")
				})
			}
		}
	}
}
