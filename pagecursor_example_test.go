package ugc_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/ugcposts/ugc-go"
)

// A service hands its callers a cursor, not the upstream's next link: the
// cursor shows no host, and taken back it is bound to the list the handler
// names. Here a gallery's cursor comes back aimed at the inbox, and is
// refused before any request (a 400 for the caller).
func ExamplePage_Cursor() {
	baseURL, _, stop := startFakeAPI("test-key")
	defer stop()
	client, err := ugc.NewClient(baseURL, "test-key")
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()

	// GET /feed?cursor=...: the handler names the list; the cursor, the
	// caller's, only the position ("" for the first page).
	feed := func(cursor string) (ids []string, next string, err error) {
		page, err := client.GalleryPosts(ctx, "summer", &ugc.GalleryPostsParams{Limit: 4}, ugc.WithCursor(cursor))
		if err != nil {
			return nil, "", err
		}
		for _, p := range page.Nodes {
			ids = append(ids, p.ID)
		}
		next, err = page.Cursor()
		return ids, next, err
	}
	ids, next, err := feed("")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(ids), "posts, then a cursor of", len(next), "characters")
	ids, _, err = feed(next)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(ids), "more posts")

	_, err = client.Inbox(ctx, nil, ugc.WithCursor(next))
	fmt.Println(errors.Is(err, ugc.ErrBadCursor), errors.Is(err, ugc.ErrInvalidParams))
	fmt.Println(err)
	// Output:
	// 4 posts, then a cursor of 22 characters
	// 4 more posts
	// true true
	// ugc: cursor refused: the cursor is for a gallery's posts (/v1/galleries/{id}/posts), not the inbox (/v1/inbox)
}
