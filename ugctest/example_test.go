package ugctest_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"time"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
)

// A fake API mounted with net/http/httptest; in a test, ugctest.NewServer(t)
// does the same in one line and closes it when the test ends.
func ExampleNewHandler() {
	h, err := ugctest.NewHandler(ugctest.DefaultDataset(), "test-key")
	if err != nil {
		panic(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()

	c, err := ugc.NewClient(srv.URL, "test-key", ugc.WithRetryWait(0, 0))
	if err != nil {
		panic(err)
	}
	page, err := c.Posts(context.Background(), &ugc.PostsParams{Limit: 2})
	if err != nil {
		panic(err)
	}
	fmt.Println("count:", page.Count, "posts:", len(page.Nodes), "more:", page.Next != "")
	fmt.Println(page.Nodes[0].ID, page.Nodes[0].Type)
	// Output:
	// count: 36 posts: 2 more: true
	// e7b51e9d0000000000000000 IMAGE
}

// Injected faults fire a chosen number of times; the SDK's retries recover,
// and the request log shows what happened.
func ExampleHandler_FailNext() {
	h, _ := ugctest.NewHandler(nil, "test-key")
	srv := httptest.NewServer(h)
	defer srv.Close()

	_ = h.FailNext(1, ugctest.InternalError())
	_ = h.FailNext(1, ugctest.RateLimit("0"))
	c, _ := ugc.NewClient(srv.URL, "test-key", ugc.WithRetryWait(0, 0))
	page, err := c.Inbox(context.Background(), &ugc.InboxParams{Limit: 1})
	fmt.Println(err, page.Nodes[0].UploadedBy.Email)
	for _, r := range h.Requests() {
		fmt.Println(r.Status, r.Fault)
	}
	// Output:
	// <nil> anna.sun@mail.example.com
	// 500 internal-error
	// 429 rate-limit
	// 200 none
}

// Localized content by market shortId, labels with include=labels: label
// names stay as stored.
func ExampleDataset() {
	ds := &ugctest.Dataset{}
	name := "Summer"
	ds.AddLabel(ugctest.Label{ID: "aaaaaaaaaaaaaaaaaaaaaaaa", Name: &name})
	ds.AddMarket(ugctest.Market{ID: "bbbbbbbbbbbbbbbbbbbbbbbb", ShortID: "de-de", Content: map[string]ugctest.Localization{
		"p1": {Comment: "Hallo #sommer"},
	}})
	ds.AddPost(ugc.Post{ID: "p1", CreatedAt: mustTime("2025-06-01T12:00:00Z"), Media: ugc.Media{Location: "https://cdn.example.com/p1.jpg"}, Comment: "Hello #summer"}, "aaaaaaaaaaaaaaaaaaaaaaaa")
	ds.AddGallery("home", "p1")

	h, _ := ugctest.NewHandler(ds, "test-key")
	srv := httptest.NewServer(h)
	defer srv.Close()
	c, _ := ugc.NewClient(srv.URL, "test-key")
	page, _ := c.Posts(context.Background(), &ugc.PostsParams{Market: "de-de", Include: []ugc.Include{ugc.IncludeLabels}})
	p := page.Nodes[0]
	fmt.Println(p.Comment, *p.Labels[0].Name)
	_ = ds.Save(os.Stdout)
	// Output:
	// Hallo #sommer Summer
	// {
	//   "posts": [
	//     {
	//       "post": {
	//         "id": "p1",
	//         "createdAt": "2025-06-01T12:00:00Z",
	//         "media": {
	//           "location": "https://cdn.example.com/p1.jpg"
	//         },
	//         "taggedProducts": [],
	//         "comment": "Hello #summer"
	//       },
	//       "labelIds": [
	//         "aaaaaaaaaaaaaaaaaaaaaaaa"
	//       ]
	//     }
	//   ],
	//   "inbox": null,
	//   "galleries": [
	//     {
	//       "shortId": "home",
	//       "postIds": [
	//         "p1"
	//       ]
	//     }
	//   ],
	//   "labels": [
	//     {
	//       "id": "aaaaaaaaaaaaaaaaaaaaaaaa",
	//       "name": "Summer"
	//     }
	//   ],
	//   "markets": [
	//     {
	//       "id": "bbbbbbbbbbbbbbbbbbbbbbbb",
	//       "shortId": "de-de",
	//       "content": {
	//         "p1": {
	//           "comment": "Hallo #sommer"
	//         }
	//       }
	//     }
	//   ]
	// }
}

func mustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// Seeding reads like the data: build valid posts with the builders, set
// what the test cares about, add them with their labels.
func ExampleNewPost() {
	featured := "Featured"
	ds := &ugctest.Dataset{}
	ds.AddLabel(ugctest.Label{ID: "aaaaaaaaaaaaaaaaaaaaaaaa", Name: &featured})
	p := ugctest.NewPost("p1")
	p.Comment = "hello #summer"
	ds.AddPost(p, "aaaaaaaaaaaaaaaaaaaaaaaa")
	ds.AddPost(ugctest.NewPost("p2"))
	ds.AddInboxPosts(ugctest.NewInboxPost("i1", "ann@example.test"))

	h, err := ugctest.NewHandler(ds, "test-key")
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	c, err := ugc.NewClient(srv.URL, "test-key")
	if err != nil {
		log.Fatal(err)
	}
	page, err := c.Posts(context.Background(), &ugc.PostsParams{Filter: ugc.Filter{ugc.AnyLabel("aaaaaaaaaaaaaaaaaaaaaaaa")}, Include: []ugc.Include{ugc.IncludeLabels}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(page.Count, page.Nodes[0].ID, page.Nodes[0].Comment, *page.Nodes[0].Labels[0].Name)
	inbox, err := c.Inbox(context.Background(), nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(inbox.Nodes[0].UploadedBy.Email)
	// Output:
	// 1 p1 hello #summer Featured
	// ann@example.test
}

// A rule fails one endpoint while the others work: here the second and
// third gallery requests answer 503, and the request log names the rule.
func ExampleHandler_AddRule() {
	h, _ := ugctest.NewHandler(nil, "test-key")
	srv := httptest.NewServer(h)
	defer srv.Close()

	_, err := h.AddRule(ugctest.Rule{
		Name:     "gallery outage",
		Endpoint: ugctest.EndpointGallery,
		After:    1, // the first gallery request goes through
		Times:    2,
		Fault:    ugctest.ErrorResponse(http.StatusServiceUnavailable, "Service unavailable"),
	})
	if err != nil {
		panic(err)
	}
	c, _ := ugc.NewClient(srv.URL, "test-key", ugc.WithRetryMax(0))
	ctx := context.Background()
	for range 4 {
		_, err := c.GalleryPosts(ctx, "summer", &ugc.GalleryPostsParams{Limit: 1})
		fmt.Println("gallery:", err)
	}
	_, err = c.Posts(ctx, &ugc.PostsParams{Limit: 1})
	fmt.Println("posts:", err)
	for _, r := range h.Rules() {
		fmt.Printf("%s: matched %d, fired %d, done %t\n", r, r.Matched, r.Fired, r.Done)
	}
	// Output:
	// gallery: <nil>
	// gallery: ugc: GET /v1/galleries/summer/posts: 503 Service Unavailable (request ID ugcfake-2): Service unavailable
	// gallery: ugc: GET /v1/galleries/summer/posts: 503 Service Unavailable (request ID ugcfake-3): Service unavailable
	// gallery: <nil>
	// posts: <nil>
	// gallery outage: matched 4, fired 2, done true
}

// Real servers' misbehaviours, on demand: every third posts page comes back
// short, with a next just after its posts. The SDK's walk reads on and
// yields every post once.
func ExampleShortPage() {
	h, _ := ugctest.NewHandler(ugctest.Generate(100, 1), "test-key")
	srv := httptest.NewServer(h)
	defer srv.Close()
	_, _ = h.AddRule(ugctest.Rule{Endpoint: ugctest.EndpointPosts, Every: 3, Fault: ugctest.ShortPage(4)})

	c, _ := ugc.NewClient(srv.URL, "test-key")
	var sum ugc.WalkSummary
	seen := map[string]bool{}
	for p, err := range c.AllPosts(context.Background(), &ugc.PostsParams{Limit: 25}, ugc.WithSummary(&sum)) {
		if err != nil {
			panic(err)
		}
		seen[p.ID] = true
	}
	fmt.Println("posts:", sum.Posts, "distinct:", len(seen), "short pages:", sum.ShortPages > 0)
	// Output:
	// posts: 100 distinct: 100 short pages: true
}

// The request log keeps each request's headers, without the key's value,
// and its query as sent.
func ExampleHandler_Requests() {
	h, _ := ugctest.NewHandler(nil, "test-key")
	srv := httptest.NewServer(h)
	defer srv.Close()

	c, _ := ugc.NewClient(srv.URL, "test-key", ugc.WithUserAgent("digest-job/3"))
	_, _ = c.Posts(context.Background(), &ugc.PostsParams{Limit: 2}, ugc.WithHeader("X-Request-Id", "job-42"))
	r := h.Requests()[0]
	fmt.Println(r.Method, r.Path, r.RawQuery, r.Status)
	fmt.Println(r.Header.Get("X-Request-Id"), r.Header.Get("X-Api-Key"))
	fmt.Println(strings.HasSuffix(r.Header.Get("User-Agent"), " digest-job/3")) // after the SDK's own
	// Output:
	// GET /v1/posts limit=2 200
	// job-42 [redacted]
	// true
}

// The control API does over HTTP what the Handler's methods do, for test
// suites in other languages (cmd/ugcfake always serves it).
func ExampleWithControlAPI() {
	h, _ := ugctest.NewHandler(nil, "test-key", ugctest.WithControlAPI())
	srv := httptest.NewServer(h)
	defer srv.Close()

	rule := `{"endpoint":"inbox","times":1,"fault":{"kind":"rate-limit","retryAfter":"0"}}`
	req, _ := http.NewRequest(http.MethodPost, srv.URL+ugctest.ControlPath+"/rules", strings.NewReader(rule))
	req.Header.Set("x-api-key", "test-key")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println("POST /rules:", resp.StatusCode)

	c, _ := ugc.NewClient(srv.URL, "test-key", ugc.WithRetryWait(0, 0))
	_, err = c.Inbox(context.Background(), &ugc.InboxParams{Limit: 1})
	fmt.Println("inbox:", err)
	for _, r := range h.Requests() {
		fmt.Println(r.Path, r.Status, r.Fault)
	}
	// Output:
	// POST /rules: 201
	// inbox: <nil>
	// /v1/inbox 429 rate-limit
	// /v1/inbox 200 none
}
