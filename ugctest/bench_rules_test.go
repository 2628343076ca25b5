package ugctest_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/ugcposts/ugc-go/ugctest"
)

// tenIdleRules are ten rules of every matching kind that never match a
// posts page request: what a test suite typically leaves installed.
func tenIdleRules() []ugctest.Rule {
	var rules []ugctest.Rule
	for i := range 10 {
		r := ugctest.Rule{Fault: ugctest.InternalError(), Optional: true}
		switch i % 3 {
		case 0:
			r.Endpoint = ugctest.EndpointInbox
		case 1:
			r.Path = "/v1/galleries/g" + strconv.Itoa(i) + "/posts"
		case 2:
			r.Endpoint = ugctest.EndpointPosts
			r.Query = url.Values{"market": {"de-de"}}
		}
		rules = append(rules, r)
	}
	return rules
}

// BenchmarkRules measures the handler alone serving 25-post pages of a
// generated 1,000,000-post dataset: one handler with no rules, one with ten
// rules installed that match none of the requests. Each iteration serves
// the same request on both, in alternating order, so the two are measured
// under the same load of a shared machine; overhead-% is what the rules
// cost a request they do not concern. Run on one core:
//
//	go test ./ugctest -run '^$' -bench Rules -cpu 1 -count 6
func BenchmarkRules(b *testing.B) {
	const n = 1_000_000
	ds := ugctest.Generate(n, 1)
	plain, err := ugctest.NewHandler(ds, "k", ugctest.WithRequestLogLimit(0))
	if err != nil {
		b.Fatal(err)
	}
	ruled, err := ugctest.NewHandler(ds, "k", ugctest.WithRequestLogLimit(0))
	if err != nil {
		b.Fatal(err)
	}
	for _, r := range tenIdleRules() {
		if _, err := ruled.AddRule(r); err != nil {
			b.Fatal(err)
		}
	}
	reqs := make([]*http.Request, 64)
	for i := range reqs {
		reqs[i] = httptest.NewRequest(http.MethodGet, "http://fake.test/v1/posts?limit=25&skip="+strconv.Itoa(i*15_000), nil)
		reqs[i].Header.Set("x-api-key", "k")
	}
	serve := func(h *ugctest.Handler, req *http.Request) time.Duration {
		rec := httptest.NewRecorder()
		start := time.Now()
		h.ServeHTTP(rec, req)
		d := time.Since(start)
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d", rec.Code)
		}
		return d
	}
	var none, ten time.Duration
	for i := 0; b.Loop(); i++ {
		req := reqs[i%len(reqs)]
		if i%2 == 0 {
			none += serve(plain, req)
			ten += serve(ruled, req)
		} else {
			ten += serve(ruled, req)
			none += serve(plain, req)
		}
	}
	b.ReportMetric(float64(b.N)/none.Seconds(), "pages/s-none")
	b.ReportMetric(float64(b.N)/ten.Seconds(), "pages/s-ten-rules")
	b.ReportMetric(100*(ten.Seconds()/none.Seconds()-1), "overhead-%")
	for _, st := range ruled.Rules() {
		if st.Fired != 0 {
			b.Fatalf("%s fired", st)
		}
	}
}
