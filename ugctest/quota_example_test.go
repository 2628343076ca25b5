package ugctest_test

import (
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/ugcposts/ugc-go/ugctest"
)

// A fake behind a quota of one request a second, in bursts of two: the
// third request at once is refused, with the quota's headers.
func ExampleWithQuota() {
	// In a test: ugctest.NewServer(t, ugctest.WithQuota(1, 2)).
	h, err := ugctest.NewHandler(nil, "test-key", ugctest.WithQuota(1, 2))
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	for range 3 {
		req, err := http.NewRequest(http.MethodGet, srv.URL+"/v1/posts?limit=1", nil)
		if err != nil {
			log.Fatal(err)
		}
		req.Header.Set("x-api-key", "test-key")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			log.Fatal(err)
		}
		resp.Body.Close()
		fmt.Println(resp.StatusCode, resp.Header.Get("X-RateLimit-Remaining"), resp.Header.Get("Retry-After"), resp.Header.Get("RateLimit-Policy"))
	}
	// Output:
	// 200 1  "quota";q=1;w=1
	// 200 0  "quota";q=1;w=1
	// 429 0 1 "quota";q=1;w=1
}

// A fake behind a quota that says nothing but Retry-After, as most of the
// web's throttles do: an accepted request carries no rate-limit header,
// and a refused one Retry-After alone, in whole seconds.
func ExampleWithQuotaConfig() {
	q := ugctest.QuotaConfig{RPS: 1, Burst: 2, RetryAfterOnly: true}
	// In a test: ugctest.NewServer(t, ugctest.WithQuotaConfig(q)).
	h, err := ugctest.NewHandler(nil, "test-key", ugctest.WithQuotaConfig(q))
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	for range 3 {
		req, err := http.NewRequest(http.MethodGet, srv.URL+"/v1/posts?limit=1", nil)
		if err != nil {
			log.Fatal(err)
		}
		req.Header.Set("x-api-key", "test-key")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			log.Fatal(err)
		}
		resp.Body.Close()
		fmt.Printf("%d %q %q\n", resp.StatusCode, resp.Header.Get("Retry-After"), resp.Header.Get("X-RateLimit-Remaining"))
	}
	// Output:
	// 200 "" ""
	// 200 "" ""
	// 429 "1" ""
}
