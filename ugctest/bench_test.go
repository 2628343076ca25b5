package ugctest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/ugcposts/ugc-go"
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

// BenchmarkFilteredPage measures 25-post pages of the posts list of a
// generated 1,000,000-post dataset, served by calling the handler directly,
// so the numbers are the server's alone: unfiltered, then filtered (one
// label; an AND of two labels with an OR of two more) walking through the
// matches, then the first filtered request of a new handler, the first
// after the stored order changed (the label index is rebuilt), a filter not
// in the cache, and a filter of the most values a request may carry. Run on one core:
//
//	go test ./ugctest -run '^$' -bench FilteredPage -cpu 1 -benchtime 2s
func BenchmarkFilteredPage(b *testing.B) {
	const n = 1_000_000
	ds := ugctest.Generate(n, 1)
	h, err := ugctest.NewHandler(ds, "k", ugctest.WithRequestLogLimit(0))
	if err != nil {
		b.Fatal(err)
	}
	var labels []string
	for _, l := range ds.Labels {
		if l.Available() {
			labels = append(labels, l.ID)
		}
	}
	request := func(query string) *http.Request {
		req := httptest.NewRequest(http.MethodGet, "http://fake.test/v1/posts?"+query, nil)
		req.Header.Set("x-api-key", "k")
		return req
	}
	// serveReq answers req, which may be served again.
	serveReq := func(b *testing.B, req *http.Request) (count int, size int) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		body := rec.Body.Bytes()
		i := bytes.IndexByte(body, ',')
		count, err := strconv.Atoi(string(body[len(`{"count":`):i]))
		if err != nil {
			b.Fatal(err)
		}
		return count, len(body)
	}
	serve := func(b *testing.B, query string) (count int, size int) { return serveReq(b, request(query)) }
	filter := func(f ugc.Filter) string { return "&filter=" + url.QueryEscape(f.String()) }
	// walk pages through the list query selects, 25 posts at a time.
	walk := func(query string) func(b *testing.B) {
		return func(b *testing.B) {
			count, _ := serve(b, "limit=25"+query)
			var bytes int64
			for i := 0; b.Loop(); i++ {
				skip := (i * 25) % max(1, count-25)
				_, m := serve(b, "limit=25&skip="+strconv.Itoa(skip)+query)
				bytes += int64(m)
			}
			b.SetBytes(bytes / int64(b.N))
			b.ReportMetric(float64(count), "matches")
		}
	}
	b.Run("unfiltered", walk(""))
	b.Run("or-1-label", walk(filter(ugc.Filter{ugc.AnyLabel(labels[0])})))
	b.Run("and-2-elements", walk(filter(ugc.Filter{ugc.AllLabels(labels[0], labels[1]), ugc.AnyLabel(labels[2], labels[3])})))
	b.Run("first-request", func(b *testing.B) {
		// The first filtered request a new handler serves: it draws every
		// generated post's labels and builds the index. Starting the
		// handler is not timed.
		q := request("limit=25&skip=5000" + filter(ugc.Filter{ugc.AnyLabel(labels[0])}))
		for b.Loop() {
			b.StopTimer()
			fresh, err := ugctest.NewHandler(ds, "k", ugctest.WithRequestLogLimit(0))
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			rec := httptest.NewRecorder()
			fresh.ServeHTTP(rec, q)
			if rec.Code != http.StatusOK {
				b.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
		}
	})
	b.Run("cold-index", func(b *testing.B) {
		// The first filtered request after the order changed: the label
		// index is rebuilt. Changing the order is not timed.
		q := request("limit=25&skip=5000" + filter(ugc.Filter{ugc.AnyLabel(labels[0])}))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, request("limit=1&skip="+strconv.Itoa(n/2)))
		var page struct{ Nodes []struct{ ID string } }
		if err := json.Unmarshal(rec.Body.Bytes(), &page); err != nil || len(page.Nodes) != 1 {
			b.Fatalf("%v: %s", err, rec.Body)
		}
		moved := page.Nodes[0].ID
		for i := 0; b.Loop(); i++ {
			b.StopTimer()
			if err := h.MovePost(moved, n/2+i%2); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			serveReq(b, q)
		}
	})
	b.Run("cold-cache", func(b *testing.B) {
		// Filters of two labels, cycling through more than the cache holds:
		// each request evaluates its filter on the built index.
		var qs []*http.Request
		for i := range labels {
			for j := range i {
				qs = append(qs, request("limit=25&skip=5000"+filter(ugc.Filter{ugc.AnyLabel(labels[i], labels[j])})))
			}
		}
		serveReq(b, qs[0])
		for i := 0; b.Loop(); i++ {
			serveReq(b, qs[i%len(qs)])
		}
	})
	b.Run("1000-values", func(b *testing.B) {
		// The most values a filter may carry: 1000 IDs, most unknown.
		ids := make([]string, 1000)
		for i := range ids {
			ids[i] = fmt.Sprintf("%024x", i)
		}
		copy(ids, labels)
		q := request("limit=25&skip=5000" + filter(ugc.Filter{ugc.AnyLabel(ids...)}))
		for b.Loop() {
			serveReq(b, q)
		}
	})
}
