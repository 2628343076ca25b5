package ugctest_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/ugcposts/ugc-go/ugctest"
)

// BenchmarkServePage measures 25-post pages served over loopback from a
// generated 1,000,000-post dataset, walking through it; the client runs in
// the same process and only reads the bytes. pages/s is wall-clock,
// pages/cpu-s per second of CPU used. Run on one core:
//
//	go test ./ugctest -run '^$' -bench ServePage -cpu 1
func BenchmarkServePage(b *testing.B) {
	const n = 1_000_000
	srv := ugctest.NewServer(b, ugctest.WithDataset(ugctest.Generate(n, 1)), ugctest.WithRequestLogLimit(0))
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	for _, bc := range []struct{ name, query string }{
		{"plain", ""},
		{"labels+market", "&include=labels&market=de-de"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			req, err := http.NewRequest(http.MethodGet, srv.URL, nil)
			if err != nil {
				b.Fatal(err)
			}
			req.Header.Set("x-api-key", srv.APIKey)
			var bytes int64
			b.ResetTimer()
			start, cpuStart := time.Now(), cpuTime()
			for i := 0; b.Loop(); i++ {
				skip := (i * 25) % (n - 25)
				u := srv.URL + "/v1/posts?limit=25&skip=" + strconv.Itoa(skip) + bc.query
				r := req.Clone(req.Context())
				r.URL, err = r.URL.Parse(u)
				if err != nil {
					b.Fatal(err)
				}
				resp, err := client.Do(r)
				if err != nil {
					b.Fatal(err)
				}
				m, _ := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Fatalf("status %d", resp.StatusCode)
				}
				bytes += m
			}
			elapsed, cpu := time.Since(start), cpuTime()-cpuStart
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "pages/s")
			if cpu > 0 {
				// Pages per second of CPU used by client and server together: the
				// rate on one dedicated core, whatever else the machine runs.
				b.ReportMetric(float64(b.N)/cpu.Seconds(), "pages/cpu-s")
			}
			b.SetBytes(bytes / int64(b.N))
		})
	}
}

// BenchmarkMillionPostMemory reports the heap in use by a fake server
// holding a generated 1,000,000-post dataset, after it served pages from
// the start, middle and end:
//
//	go test ./ugctest -run '^$' -bench MillionPostMemory -benchtime 3x
func BenchmarkMillionPostMemory(b *testing.B) {
	var worst float64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		h, err := ugctest.NewHandler(ugctest.Generate(1_000_000, 1), "k", ugctest.WithRequestLogLimit(0))
		if err != nil {
			b.Fatal(err)
		}
		srv := httptest.NewServer(h)
		for _, skip := range []int{0, 500_000, 999_975} {
			req, _ := http.NewRequest(http.MethodGet, srv.URL+"/v1/posts?limit=25&include=labels&skip="+strconv.Itoa(skip), nil)
			req.Header.Set("x-api-key", "k")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		worst = max(worst, float64(after.HeapInuse)-float64(before.HeapInuse))
		runtime.KeepAlive(h)
		srv.Close()
	}
	b.ReportMetric(worst/(1<<20), "MiB")
}
