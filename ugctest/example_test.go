package ugctest_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"
	"os"
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
	ds.AddPosts(ugctest.Post{Post: ugc.Post{ID: "p1", CreatedAt: mustTime("2025-06-01T12:00:00Z"), Media: ugc.Media{Location: "https://cdn.example.com/p1.jpg"}, Comment: "Hello #summer"}, LabelIDs: []string{"aaaaaaaaaaaaaaaaaaaaaaaa"}})
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
