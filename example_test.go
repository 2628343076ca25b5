package ugc_test

// Runnable examples. Each one talks to the fake API of package ugctest,
// served on a loopback port by net/http/httptest, so `go test` runs them and
// checks their output. In a program, replace the fake's URL and key with the
// real base URL and a key read from the environment:
//
//	client, err := ugc.NewClient("https://ugc.example.com", os.Getenv("UGC_API_KEY"))
//
// In a test, ugctest.NewServer(t) starts the same fake in one line, closes it
// when the test ends, and its Client method returns a ready client.

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"time"

	"gopkg.in/h2non/gock.v1"

	ugc "github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
)

// Label and market IDs of the fake's default dataset, used by the examples.
const (
	exampleSummer   = "e7b4b57c0000000000000000" // label "Summer"
	exampleBeach    = "e7b4b57c0000000000000001" // label "Beach"
	exampleFeatured = "e7b4b57c0000000000000007" // label "Featured"
)

// startFakeAPI serves the fake API of package ugctest, with its default
// data and the given key, on a loopback port. It returns the base URL to
// give ugc.NewClient, the handler (for its request log) and a function that
// stops the server. In a program, the base URL is the real one and the key
// comes from the environment.
func startFakeAPI(key string) (baseURL string, h *ugctest.Handler, stop func()) {
	h, err := ugctest.NewHandler(ugctest.DefaultDataset(), key)
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(h)
	return srv.URL, h, srv.Close
}

// One client per program, built and checked once. NewClient refuses bad
// input up front, so a typo in the configuration fails at start-up rather
// than on the first request.
func ExampleNewClient() {
	baseURL, _, stop := startFakeAPI("test-key")
	defer stop()

	client, err := ugc.NewClient(baseURL, "test-key",
		ugc.WithUserAgent("my-app/1.0"), // the User-Agent becomes "ugc-go/<version> my-app/1.0"
		ugc.WithRetryMax(2),             // retry 429, 5xx and connection errors twice
	)
	if err != nil {
		log.Fatal(err)
	}
	page, err := client.Posts(context.Background(), &ugc.PostsParams{Limit: 3})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d approved posts, %d on this page\n", page.Count, len(page.Nodes))

	// Mistakes caught by NewClient, before any request.
	_, err = ugc.NewClient("https://ugc.example.com", "")
	fmt.Println(err)
	_, err = ugc.NewClient("ugc.example.com", "test-key")
	fmt.Println(err)
	_, err = ugc.NewClient("http://ugc.example.com", "test-key")
	fmt.Println(err)
	// Output:
	// 36 approved posts, 3 on this page
	// ugc: NewClient: empty API key
	// ugc: NewClient: base URL must be absolute, with scheme https (or http)
	// ugc: NewClient: base URL http://ugc.example.com is plain http to a non-loopback host; use https, or WithInsecureHTTP to accept sending the key in clear text
}

// Approved posts carrying the label Summer or the label Beach, with each
// post's labels. Labels lists every available label of a post, whatever the
// filter; an unnamed label has a nil Name.
func ExampleClient_Posts() {
	baseURL, _, stop := startFakeAPI("test-key")
	defer stop()
	client, err := ugc.NewClient(baseURL, "test-key")
	if err != nil {
		log.Fatal(err)
	}

	page, err := client.Posts(context.Background(), &ugc.PostsParams{
		Limit:   4,
		Filter:  ugc.Filter{ugc.AnyLabel(exampleSummer, exampleBeach)},
		Include: []ugc.Include{ugc.IncludeLabels},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d posts match; the first %d:\n", page.Count, len(page.Nodes))
	for _, p := range page.Nodes {
		var names []string
		for _, l := range p.Labels {
			if l.Name == nil {
				names = append(names, "(unnamed)")
				continue
			}
			names = append(names, *l.Name)
		}
		fmt.Printf("%s %-5s %s\n", p.ID, p.Type, strings.Join(names, ", "))
	}
	// Output:
	// 11 posts match; the first 4:
	// e7b51e9d0000000000000003 IMAGE (unnamed), Beach
	// e7b51e9d0000000000000005 IMAGE Summer
	// e7b51e9d0000000000000006 IMAGE Summer, (unnamed), Beach
	// e7b51e9d0000000000000007 IMAGE Beach, Kids
}

// A gallery's posts, localized for a market by its shortId: captions, alt
// text and tagged products come in the market's language where it has them,
// and in the stored language otherwise.
func ExampleClient_GalleryPosts() {
	baseURL, _, stop := startFakeAPI("test-key")
	defer stop()
	client, err := ugc.NewClient(baseURL, "test-key")
	if err != nil {
		log.Fatal(err)
	}

	ctx := context.Background()
	stored, err := client.GalleryPosts(ctx, "summer", &ugc.GalleryPostsParams{Limit: 4})
	if err != nil {
		log.Fatal(err)
	}
	german, err := client.GalleryPosts(ctx, "summer", &ugc.GalleryPostsParams{Limit: 4, Market: "de-de"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("gallery summer: %d posts\n", german.Count)
	for i, p := range german.Nodes {
		fmt.Printf("%s\n  stored: %q\n  de-de:  %q\n", p.ID, stored.Nodes[i].Comment, p.Comment)
	}
	// Output:
	// gallery summer: 9 posts
	// e7b51e9d0000000000000001
	//   stored: "Ready for the weekend! #weekend #ootd @northwind"
	//   de-de:  "Ready for the weekend! #weekend #ootd @northwind"
	// e7b51e9d0000000000000008
	//   stored: "Picnic day with the kids #family #outdoors"
	//   de-de:  "Picknick mit den Kindern #family #outdoors"
	// e7b51e9d000000000000000b
	//   stored: "New in: the linen collection #linen #newin @northwindstore"
	//   de-de:  "New in: the linen collection #linen #newin @northwindstore"
	// e7b51e9d0000000000000014
	//   stored: "Beach vibes #beach #vacation #summer"
	//   de-de:  "Strandgefühl #beach #vacation #summer"
}

// The moderation inbox: posts awaiting approval, each with the email of the
// member who submitted it.
func ExampleClient_Inbox() {
	baseURL, _, stop := startFakeAPI("test-key")
	defer stop()
	client, err := ugc.NewClient(baseURL, "test-key")
	if err != nil {
		log.Fatal(err)
	}

	page, err := client.Inbox(context.Background(), &ugc.InboxParams{Limit: 3})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d posts awaiting moderation\n", page.Count)
	for _, p := range page.Nodes {
		fmt.Printf("%s from %s <%s>\n", p.ID, p.UploadedBy.Username, p.UploadedBy.Email)
	}
	// Output:
	// 10 posts awaiting moderation
	// e7b4ae580000000000000000 from anna.sun <anna.sun@mail.example.com>
	// e7b4ae580000000000000001 from mike_runs <mike_runs@mail.example.com>
	// e7b4ae580000000000000002 from the.family.blog <the.family.blog@mail.example.com>
}

// Every post with the label Featured. The loop follows next from page to
// page (three pages of two here); a break would stop all work at once.
func ExampleClient_AllPosts() {
	baseURL, h, stop := startFakeAPI("test-key")
	defer stop()
	client, err := ugc.NewClient(baseURL, "test-key")
	if err != nil {
		log.Fatal(err)
	}

	params := &ugc.PostsParams{Limit: 2, Filter: ugc.Filter{ugc.AnyLabel(exampleFeatured)}}
	for post, err := range client.AllPosts(context.Background(), params) {
		if err != nil {
			log.Fatal(err) // yielded once, then the loop ends
		}
		fmt.Println(post.ID, post.Type)
	}
	fmt.Println("requests:", len(h.Requests()))
	// Output:
	// e7b51e9d000000000000000c IMAGE
	// e7b51e9d000000000000000d VIDEO
	// e7b51e9d000000000000000e IMAGE
	// e7b51e9d000000000000001a IMAGE
	// e7b51e9d000000000000001f IMAGE
	// requests: 3
}

// A batch job that saves page.Checkpoint after each page it has handled,
// and a later run that resumes from it with ResumeFrom. The checkpoint's
// URL carries every parameter of the first request, so the resumed walk
// needs no params; its After is the last post handled, by which the resumed
// walk places itself.
func ExampleClient_PostsPages() {
	baseURL, _, stop := startFakeAPI("test-key")
	defer stop()
	client, err := ugc.NewClient(baseURL, "test-key")
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()

	// The first run handles two pages, saves its checkpoint, and stops.
	var checkpoint ugc.Checkpoint
	handled := 0
	for page, err := range client.PostsPages(ctx, &ugc.PostsParams{Limit: 10}) {
		if err != nil {
			log.Fatal(err)
		}
		handled += len(page.Nodes)
		checkpoint = page.Checkpoint // in a real job: write it to durable storage
		fmt.Printf("run 1: page of %d, %d of %d done\n", len(page.Nodes), handled, page.Count)
		if handled == 20 {
			break // the job is interrupted
		}
	}
	u, err := url.Parse(checkpoint.URL)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("checkpoint: skip", u.Query().Get("skip"), "limit", u.Query().Get("limit"))

	// The second run starts where the first one stopped.
	for page, err := range client.PostsPages(ctx, nil, ugc.ResumeFrom(checkpoint)) {
		if err != nil {
			log.Fatal(err)
		}
		handled += len(page.Nodes)
		fmt.Printf("run 2: page of %d, %d of %d done\n", len(page.Nodes), handled, page.Count)
	}
	// Output:
	// run 1: page of 10, 10 of 36 done
	// run 1: page of 10, 20 of 36 done
	// checkpoint: skip 20 limit 10
	// run 2: page of 10, 30 of 36 done
	// run 2: page of 6, 36 of 36 done
}

// Paging by hand: fetch a page, handle it, fetch its Next until it is
// empty. NextPage follows only URLs on the client's own origin, so the API
// key never goes anywhere else.
func ExampleClient_NextPage() {
	baseURL, _, stop := startFakeAPI("test-key")
	defer stop()
	client, err := ugc.NewClient(baseURL, "test-key")
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()

	page, err := client.Inbox(ctx, &ugc.InboxParams{Limit: 4})
	for {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%d posts, first %s\n", len(page.Nodes), page.Nodes[0].ID)
		if page.Next == "" {
			break
		}
		page, err = client.NextPage(ctx, page.Next)
	}

	_, err = client.NextPage(ctx, "https://elsewhere.example.com/v1/inbox?limit=4&skip=4")
	fmt.Println("foreign next refused:", errors.Is(err, ugc.ErrBadNext))
	// Output:
	// 4 posts, first e7b4ae580000000000000000
	// 4 posts, first e7b4ae580000000000000004
	// 2 posts, first e7b4ae580000000000000008
	// foreign next refused: true
}

// A filter is a list of label conditions that a post must all meet. Its
// String is the JSON sent as the filter parameter, and Validate applies the
// server's own rules, with the server's own messages.
func ExampleFilter() {
	f := ugc.Filter{
		ugc.AnyLabel(exampleSummer, exampleBeach), // Summer or Beach
		ugc.AllLabels(exampleFeatured),            // and Featured
	}
	fmt.Println(f)
	fmt.Println("valid:", f.Validate() == nil)

	bad := ugc.Filter{ugc.AnyLabel("summer")}
	err := bad.Validate()
	fmt.Println(err)
	fmt.Println("invalid params:", errors.Is(err, ugc.ErrInvalidParams))
	// Output:
	// [{"type":"label","operator":"OR","values":["e7b4b57c0000000000000000","e7b4b57c0000000000000001"]},{"type":"label","operator":"AND","values":["e7b4b57c0000000000000007"]}]
	// valid: true
	// ugc: invalid filter: Filter value "summer" is not a valid ID
	// invalid params: true
}

// ParseFilter reads a raw filter parameter by the server's rules. A bad one
// gives a *FilterError whose Message is the exact text of the server's 400
// answer.
func ExampleParseFilter() {
	f, err := ugc.ParseFilter(`[{"type":"label","operator":"AND","values":["e7b4b57c0000000000000007"]}]`)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(f[0].Operator, f[0].LabelIDs)

	_, err = ugc.ParseFilter(`[{"type":"label","operator":"OR","values":["12345"]}]`)
	var fe *ugc.FilterError
	if errors.As(err, &fe) {
		fmt.Println(fe.Message)
	}
	// Output:
	// AND [e7b4b57c0000000000000007]
	// Filter value "12345" is not a valid ID
}

// A non-2xx answer is an *APIError: its status, the message the API sent,
// and the raw body. errors.Is matches it against the sentinel of its
// status. Here the key is wrong; a 401 is never retried, and no error text
// shows the key.
func ExampleAPIError() {
	baseURL, h, stop := startFakeAPI("right-key")
	defer stop()
	client, err := ugc.NewClient(baseURL, "wrong-key")
	if err != nil {
		log.Fatal(err)
	}

	_, err = client.Posts(context.Background(), nil)
	var apiErr *ugc.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Message)
	}
	fmt.Println("unauthorized:", errors.Is(err, ugc.ErrUnauthorized))
	fmt.Println(err)
	fmt.Println("key in error:", strings.Contains(err.Error(), "wrong-key"))
	fmt.Println("requests:", len(h.Requests()))
	// Output:
	// 401 No valid API key provided
	// unauthorized: true
	// ugc: GET /v1/posts: 401 Unauthorized (request ID ugcfake-1): No valid API key provided
	// key in error: false
	// requests: 1
}

// gock under the retry layer. Prefer the fake of package ugctest, which
// paginates and fails like the real API; when a test must script exact
// answers with gock, do it this way:
//
//   - wrap an *http.Client with gock.InterceptClient before NewClient and
//     pass it with WithHTTPClient: the client copies it when it is built,
//     so wrapping it later changes nothing;
//   - give that *http.Client a Transport: gock intercepts only from
//     gock.New (or gock.Intercept) until gock.Off, and outside that window
//     hands each request to the Transport it wrapped; a nil one panics;
//   - retry at once (WithRetryWait(0, 0)) and little: a request no mock
//     matches is a connection error, which the client retries;
//   - anchor the matchers: gock's are regular expressions, so "2" would
//     also match a limit of 25;
//   - register one mock per expected attempt: a mock matches once unless
//     Times or Persist says otherwise.
func ExampleWithHTTPClient_gock() {
	defer gock.OffAll() // remove every mock and record, restore http.DefaultTransport

	hc := &http.Client{Transport: &http.Transport{}}
	gock.InterceptClient(hc)
	defer gock.RestoreClient(hc)

	client, err := ugc.NewClient("https://ugc.example.com", "test-key",
		ugc.WithHTTPClient(hc), ugc.WithRetryWait(0, 0), ugc.WithRetryMax(1))
	if err != nil {
		log.Fatal(err)
	}

	// One mock per expected attempt, each matching the request exactly.
	inbox := func() *gock.Request {
		return gock.New("https://ugc.example.com").
			Get("^/v1/inbox$").
			MatchParam("limit", "^2$").
			MatchHeader("x-api-key", "^test-key$")
	}
	// A 500 (a JSON string, as the API sends errors), then the page: the
	// retry layer makes both requests.
	inbox().Reply(http.StatusInternalServerError).JSON(`"Something went wrong"`)
	inbox().Reply(http.StatusOK).JSON(`{"count": 1, "next": null, "nodes": [{
		"id": "p1", "createdAt": "2025-06-01T12:00:00Z",
		"media": {"location": "https://cdn.example.com/p1.jpg"}, "taggedProducts": [],
		"uploadedBy": {"username": "anna.sun", "email": "anna.sun@mail.example.com"}}]}`)

	ctx := context.Background()
	page, err := client.Inbox(ctx, &ugc.InboxParams{Limit: 2})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(page.Count, page.Nodes[0].ID, page.Nodes[0].UploadedBy.Email)
	fmt.Println("every mock used:", gock.IsDone())

	// A request that no mock matches fails at once, with no backoff.
	_, err = client.Inbox(ctx, &ugc.InboxParams{Limit: 25})
	fmt.Println("unmatched:", errors.Is(err, gock.ErrCannotMatch))
	// Output:
	// 1 p1 anna.sun@mail.example.com
	// every mock used: true
	// unmatched: true
}

// gock with no WithHTTPClient: a client built before gock.New still reaches
// gock, because a client given no *http.Client sends each request through
// http.DefaultTransport as it is at that moment whenever gock (or anything
// else) has replaced it. After gock.Off the real network is used again.
func ExampleNewClient_gockDefaultTransport() {
	client, err := ugc.NewClient("https://ugc.example.com", "test-key", ugc.WithRetryMax(0))
	if err != nil {
		log.Fatal(err)
	}
	defer gock.OffAll()
	gock.New("https://ugc.example.com").Get("^/v1/posts$").Reply(http.StatusOK).
		JSON(`{"count": 0, "next": null, "nodes": []}`)

	page, err := client.Posts(context.Background(), nil)
	fmt.Println(page.Count, err, gock.IsDone())
	// Output:
	// 0 <nil> true
}

// The same options configure a Client and one call: given to a call, they
// override the Client's settings for it alone. A request handler retries
// less than a patient batch job on the same Client, forwards its request
// ID (replacing the Client's), and reads the answer's headers.
func ExampleOption() {
	baseURL, _, stop := startFakeAPI("test-key")
	defer stop()
	client, err := ugc.NewClient(baseURL, "test-key",
		ugc.WithRetryMax(6), // this Client's default: 6 retries
		ugc.WithHTTPClient(&http.Client{Transport: headerPrinter("X-Request-Id")}))
	if err != nil {
		log.Fatal(err)
	}

	var info ugc.ResponseInfo
	page, err := client.Posts(context.Background(), &ugc.PostsParams{Limit: 3},
		ugc.WithRetryMax(0),                           // this call only: no retry
		ugc.WithAttemptTimeout(2*time.Second),         // this call only
		ugc.WithHeader("X-Request-Id", "checkout-42"), // sent with this call's requests
		ugc.WithResponseInto(&info),                   // status, headers, attempts
	)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(page.Nodes), info.StatusCode, info.Attempts)
	// Output:
	// sent X-Request-Id: checkout-42
	// 3 200 1
}

// headerPrinter is a transport that prints one header of each request it
// sends, to show what reaches the wire.
type headerPrinter string

func (h headerPrinter) RoundTrip(r *http.Request) (*http.Response, error) {
	fmt.Printf("sent %s: %s\n", string(h), r.Header.Get(string(h)))
	return http.DefaultTransport.RoundTrip(r)
}

// An attempt observer counts attempts by outcome, for metrics. It is called
// after each attempt, in order, with the call's context.
func ExampleWithAttemptObserver() {
	baseURL, h, stop := startFakeAPI("test-key")
	defer stop()
	h.FailNext(2, ugctest.InternalError()) // two 500s, then the page

	var mu sync.Mutex
	counts := map[string]int{}
	client, err := ugc.NewClient(baseURL, "test-key", ugc.WithRetryWait(0, 0),
		ugc.WithAttemptObserver(func(_ context.Context, a ugc.AttemptInfo) {
			mu.Lock()
			defer mu.Unlock()
			counts[fmt.Sprintf("%s %d retry=%t", a.Endpoint, a.StatusCode, a.Retry)]++
		}))
	if err != nil {
		log.Fatal(err)
	}
	if _, err := client.Inbox(context.Background(), nil); err != nil {
		log.Fatal(err)
	}
	fmt.Println(counts)
	// Output:
	// map[/v1/inbox 200 retry=false:1 /v1/inbox 500 retry=true:2]
}

// A failed call's error carries what an on-call engineer needs: the status,
// the attempts, the server's Retry-After and request ID, and, when the
// context ends during retries, both the context's error and the last
// answer.
func ExampleAPIError_RequestID() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", "30")
		w.Header().Set("X-Request-Id", "req-7f3a")
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprint(w, `"Too many requests"`)
	}))
	defer srv.Close()
	// The server asks for 30 s; this client may spend 10 s throttled.
	client, err := ugc.NewClient(srv.URL, "test-key", ugc.WithThrottleBudget(10*time.Second))
	if err != nil {
		log.Fatal(err)
	}

	_, err = client.Posts(context.Background(), nil)
	var apiErr *ugc.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(errors.Is(err, ugc.ErrRateLimited))
		fmt.Println(apiErr)
		fmt.Println(apiErr.Attempts, apiErr.RetryAfter, apiErr.RequestID())
	}
	// Output:
	// true
	// ugc: GET /v1/posts: 429 Too Many Requests (request ID req-7f3a): Too many requests
	// 1 30s req-7f3a
}
