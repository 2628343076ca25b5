package ugc_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
)

// TestCursorRoundTripsWithinItsList: a single call's cursor, handed back
// with the same list's call, fetches the page its next link names; it is
// stable, shows neither the host nor the key, and is "" after the last
// page.
func TestCursorRoundTripsWithinItsList(t *testing.T) {
	t.Parallel()
	ds := ugctest.DefaultDataset()
	srv := ugctest.NewServer(t, ugctest.WithDataset(ds), ugctest.WithBasePath("/api"))
	c := srv.Client()
	ctx := context.Background()
	params := &ugc.PostsParams{Limit: 3, Market: "de-de", Filter: ugc.Filter{ugc.AnyLabel(ds.Labels[0].ID)}, Include: []ugc.Include{ugc.IncludeLabels}}

	first, err := c.Posts(ctx, params)
	require.NoError(t, err)
	cursor, err := first.Cursor()
	require.NoError(t, err)
	again, err := first.Cursor()
	require.NoError(t, err)
	assert.Equal(t, cursor, again, "stable")
	for _, secret := range []string{"127.0.0.1", "http", "/api", srv.APIKey, "de-de", ds.Labels[0].ID} {
		assert.NotContains(t, cursor, secret)
	}
	assert.Less(t, len(cursor), 40, "short enough for a query string")

	second, err := c.Posts(ctx, params, ugc.WithCursor(cursor))
	require.NoError(t, err)
	byNext, err := c.NextPage(ctx, first.Next)
	require.NoError(t, err)
	assert.Equal(t, idsOf(byNext.Nodes), idsOf(second.Nodes))
	assert.NotEqual(t, idsOf(first.Nodes), idsOf(second.Nodes))

	var seen []string
	page := first
	for {
		seen = append(seen, idsOf(page.Nodes)...)
		cursor, err := page.Cursor()
		require.NoError(t, err)
		if cursor == "" {
			break
		}
		page, err = c.Posts(ctx, params, ugc.WithCursor(cursor))
		require.NoError(t, err)
	}
	assert.Len(t, seen, first.Count, "every post once, cursor after cursor")

	page, err = c.GalleryPosts(ctx, "summer", &ugc.GalleryPostsParams{Limit: 2}, ugc.WithCursor(""))
	require.NoError(t, err, `"" asks for the params' page`)
	gallery, err := page.Cursor()
	require.NoError(t, err)
	page, err = c.GalleryPosts(ctx, "summer", &ugc.GalleryPostsParams{Limit: 2}, ugc.WithCursor(gallery))
	require.NoError(t, err)
	assert.NotEmpty(t, page.Nodes)
}

// TestCursorForAnotherListIsRefusedBeforeAnyRequest: a gallery's cursor
// replayed against the inbox (whose posts carry members' emails), another
// gallery or the posts list, a posts cursor with another query, an altered
// cursor and a string that is no cursor all fail with ErrBadCursor (and
// ErrInvalidParams), and no request is sent.
func TestCursorForAnotherListIsRefusedBeforeAnyRequest(t *testing.T) {
	t.Parallel()
	ds := ugctest.DefaultDataset()
	srv := ugctest.NewServer(t, ugctest.WithDataset(ds))
	c := srv.Client()
	ctx := context.Background()

	page, err := c.GalleryPosts(ctx, "summer", &ugc.GalleryPostsParams{Limit: 2})
	require.NoError(t, err)
	gallery, err := page.Cursor()
	require.NoError(t, err)
	posts := &ugc.PostsParams{Limit: 2, Filter: ugc.Filter{ugc.AnyLabel(ds.Labels[0].ID)}}
	page, err = c.Posts(ctx, posts)
	require.NoError(t, err)
	filtered, err := page.Cursor()
	require.NoError(t, err)
	altered := []byte(filtered)
	altered[len(altered)/2] ^= 1
	sent := len(srv.Requests())

	for _, tc := range []struct {
		name string
		call func() error
		want string
	}{
		{"a gallery's cursor against the inbox", func() error {
			_, err := c.Inbox(ctx, nil, ugc.WithCursor(gallery))
			return err
		}, "the cursor is for a gallery's posts (/v1/galleries/{id}/posts), not the inbox (/v1/inbox)"},
		{"a gallery's cursor against another gallery", func() error {
			_, err := c.GalleryPosts(ctx, "videos", &ugc.GalleryPostsParams{Limit: 2}, ugc.WithCursor(gallery))
			return err
		}, "for another gallery"},
		{"a gallery's cursor against the posts", func() error {
			_, err := c.Posts(ctx, nil, ugc.WithCursor(gallery))
			return err
		}, "not the posts list"},
		{"a cursor with another filter", func() error {
			_, err := c.Posts(ctx, &ugc.PostsParams{Limit: 2, Filter: ugc.Filter{ugc.AnyLabel(ds.Labels[1].ID)}}, ugc.WithCursor(filtered))
			return err
		}, "another query (filter, market or include)"},
		{"a cursor without its filter", func() error {
			_, err := c.Posts(ctx, &ugc.PostsParams{Limit: 2}, ugc.WithCursor(filtered))
			return err
		}, "another query"},
		{"a cursor with another market", func() error {
			_, err := c.Posts(ctx, &ugc.PostsParams{Limit: 2, Filter: posts.Filter, Market: "fr-fr"}, ugc.WithCursor(filtered))
			return err
		}, "another query"},
		{"an altered cursor", func() error {
			_, err := c.Posts(ctx, posts, ugc.WithCursor(string(altered)))
			return err
		}, "cursor refused"},
		{"a next URL", func() error {
			_, err := c.Posts(ctx, posts, ugc.WithCursor(page.Next))
			return err
		}, "not a cursor of this SDK"},
		{"a walk", func() error {
			for _, err := range c.AllPosts(ctx, posts, ugc.WithCursor(filtered)) {
				return err
			}
			return nil
		}, "a walk resumes from a Checkpoint"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if strings.Contains(tc.name, "walk") { // the program's error: a cursor is for one call
				require.ErrorIs(t, err, ugc.ErrMisuse)
				assert.NotErrorIs(t, err, ugc.ErrInvalidParams)
			} else { // the caller's: a service answers it 400
				require.ErrorIs(t, err, ugc.ErrInvalidParams)
				assert.ErrorIs(t, err, ugc.ErrBadCursor)
				assert.NotErrorIs(t, err, ugc.ErrMisuse)
			}
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	assert.Len(t, srv.Requests(), sent, "refused before any request")

	ds.AddGallery("v1", ds.Posts[0].ID, ds.Posts[1].ID, ds.Posts[2].ID)
	v1 := ugctest.NewServer(t, ugctest.WithDataset(ds)).Client()
	page, err = v1.GalleryPosts(ctx, "v1", &ugc.GalleryPostsParams{Limit: 1})
	require.NoError(t, err)
	named, err := page.Cursor()
	require.NoError(t, err)
	_, err = v1.Posts(ctx, &ugc.PostsParams{Limit: 1}, ugc.WithCursor(named))
	assert.ErrorIs(t, err, ugc.ErrBadCursor, `a gallery named "v1" is a gallery, not the posts list`)
	_, err = v1.GalleryPosts(ctx, "v1", &ugc.GalleryPostsParams{Limit: 1}, ugc.WithCursor(named))
	assert.NoError(t, err)

	_, err = ugc.NewClient(srv.URL, srv.APIKey, ugc.WithCursor(filtered))
	assert.ErrorContains(t, err, "WithCursor belongs to one call")
}

// TestCursorOfAWalkPageIsAnError: a walk's page is placed by its last post,
// and resumes from its Checkpoint; its Cursor says so rather than hand out
// a position that would repeat a post.
func TestCursorOfAWalkPageIsAnError(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t)
	for page, err := range srv.Client().PostsPages(context.Background(), &ugc.PostsParams{Limit: 5}) {
		require.NoError(t, err)
		_, err := page.Cursor()
		assert.ErrorContains(t, err, "Checkpoint")
		break
	}
}
