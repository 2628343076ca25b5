package ugc_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"math"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"time"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
)

// A batch job that knows its API key's quota sets it: every call and walk
// of the Client shares it, and none is refused.
func ExampleWithRateLimit() {
	// In a test: ugctest.NewServer(t, ugctest.WithQuota(200, 5), ...).
	h, err := ugctest.NewHandler(ugctest.Generate(100, 1), "test-key", ugctest.WithQuota(200, 5))
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	client, err := ugc.NewClient(srv.URL, "test-key", ugc.WithRateLimit(200, 5))
	if err != nil {
		log.Fatal(err)
	}
	var sum ugc.WalkSummary
	n := 0
	for _, err := range client.AllPosts(context.Background(), &ugc.PostsParams{Limit: 25}, ugc.WithSummary(&sum)) {
		if err != nil {
			log.Fatal(err)
		}
		n++
	}
	refused := 0
	for _, r := range h.Requests() {
		if r.OverQuota {
			refused++
		}
	}
	fmt.Println(n, "posts,", refused, "refused")
	// Output: 100 posts, 0 refused
}

// A request handler that cannot wait long for a throttled API bounds its
// call: a wait for the quota longer than the call's throttle budget (or
// than its context's deadline) is not begun, and the call ends at once
// with a *ThrottleError, which matches ErrRateLimited and says how long the
// wait would have been: the handler passes it on as its own Retry-After.
// Here another job on the same API key has just used the quota, and the
// Client is shared with patient batch jobs (the default budget, five
// minutes).
func ExampleWithThrottleBudget() {
	h, err := ugctest.NewHandler(nil, "test-key", ugctest.WithQuotaConfig(
		ugctest.QuotaConfig{RPS: 0.5, Burst: 1, RetryAfterOnly: true})) // one request every 2 s
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	ctx := context.Background()
	other, err := ugc.NewClient(srv.URL, "test-key")
	if err != nil {
		log.Fatal(err)
	}
	if _, err := other.Posts(ctx, nil); err != nil {
		log.Fatal(err)
	}

	client, err := ugc.NewClient(srv.URL, "test-key")
	if err != nil {
		log.Fatal(err)
	}
	_, err = client.Posts(ctx, nil, ugc.WithThrottleBudget(time.Second))
	var te *ugc.ThrottleError
	if errors.As(err, &te) {
		retryAfter := int(math.Ceil(te.Wait.Seconds())) // never rounded down to 0
		fmt.Println(errors.Is(err, ugc.ErrRateLimited), te.Err.StatusCode, "Retry-After:", retryAfter)
	}
	// Output: true 429 Retry-After: 2
}

// During an outage the Client's retry budget runs out, and calls stop
// multiplying the load by their retries: here a budget of 2 retries, shared
// by both calls.
func ExampleWithRetryBudget() {
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		requests.Add(1)
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, `"Something went wrong"`)
	}))
	defer srv.Close()
	client, err := ugc.NewClient(srv.URL, "test-key", ugc.WithRetryBudget(2), ugc.WithRetryMax(3), ugc.WithRetryWait(0, 0))
	if err != nil {
		log.Fatal(err)
	}
	for call := 1; call <= 2; call++ {
		before := requests.Load()
		_, err := client.Posts(context.Background(), nil)
		fmt.Printf("call %d: %d requests, budget exhausted: %t, server error: %t\n",
			call, requests.Load()-before, errors.Is(err, ugc.ErrRetryBudgetExhausted), errors.Is(err, ugc.ErrServer))
	}
	// Output:
	// call 1: 3 requests, budget exhausted: true, server error: true
	// call 2: 1 requests, budget exhausted: true, server error: true
}
