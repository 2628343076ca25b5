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
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
)

// BenchmarkQuotaWalk walks 2,000 posts (limit 25) behind a quota of 20, 50
// and 200 requests a second (burst 5), in each mode, with WithRateLimit set
// to the quota (rate-set), with the default options (default), and with the
// default options against a server that sends no rate-limit header but
// Retry-After, in whole seconds (default-retry-after-only). It reports the
// walk's time over requests ÷ quota (x-ideal), the 429s, the requests and
// the walks that failed with ErrRateLimited (or anything else).
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
		for _, options := range []string{"rate-set", "default", "default-retry-after-only"} {
			for _, mode := range modes {
				b.Run(fmt.Sprintf("quota=%v/%s/%s", rps, options, mode.name), func(b *testing.B) {
					var elapsed time.Duration
					var requests, refused, rateLimited, failed int
					for b.Loop() {
						h, err := ugctest.NewHandler(ds, "bench-key", ugctest.WithQuota(rps, burst), ugctest.WithRequestLogLimit(-1))
						if err != nil {
							b.Fatal(err)
						}
						var handler http.Handler = h
						if options == "default-retry-after-only" {
							handler = retryAfterOnly(h) // a server that says nothing but Retry-After
						}
						srv := httptest.NewServer(handler)
						opts := []ugc.Option{ugc.WithStrictDecoding()}
						if options == "rate-set" {
							opts = append(opts, ugc.WithRateLimit(rps, burst))
						}
						c, err := ugc.NewClient(srv.URL, "bench-key", opts...)
						if err != nil {
							b.Fatal(err)
						}
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
						srv.Close()
						if n != posts && failed+rateLimited == 0 {
							b.Fatalf("%d posts, want %d", n, posts)
						}
						for _, r := range h.Requests() {
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

// retryAfterOnly strips every rate-limit header but Retry-After from h's
// answers.
func retryAfterOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(&strippingWriter{ResponseWriter: w}, r)
	})
}

type strippingWriter struct{ http.ResponseWriter }

func (w *strippingWriter) WriteHeader(code int) {
	for k := range w.Header() {
		if strings.HasPrefix(k, "Ratelimit") || strings.HasPrefix(k, "X-Ratelimit") {
			w.Header().Del(k)
		}
	}
	w.ResponseWriter.WriteHeader(code)
}
