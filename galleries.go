package ugc

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"unicode"
)

// GalleryPostsParams are the query parameters of [Client.GalleryPosts].
type GalleryPostsParams struct {
	Limit  int    `url:"limit"`            // 1 to 25; 0 sends MaxLimit, more is capped
	Skip   int    `url:"skip,omitempty"`   // posts skipped from the start
	Market string `url:"market,omitempty"` // a market ID or shortId
}

// GalleryPosts returns one page of the posts of the gallery whose shortId is
// galleryID (GET /v1/galleries/{id}/posts), escaped as one path segment.
// params may be nil. Errors are those of [Client.Posts]; an empty ID, ".",
// ".." or one with control characters matches [ErrInvalidParams].
func (c *Client) GalleryPosts(ctx context.Context, galleryID string, params *GalleryPostsParams, opts ...Option) (*Page, error) {
	u, err := c.galleryPostsURL(galleryID, params)
	return c.call(ctx, u, err, opts)
}

// galleryPostsURL checks the ID and params and returns the URL of the page
// they ask for.
func (c *Client) galleryPostsURL(galleryID string, params *GalleryPostsParams) (*url.URL, error) {
	if err := checkGalleryID(galleryID); err != nil {
		return nil, err
	}
	p := GalleryPostsParams{}
	if params != nil {
		p = *params
	}
	if err := checkPaging(p.Limit, p.Skip); err != nil {
		return nil, err
	}
	p.Limit = limitOrMax(p.Limit)
	return c.endpoint(&p, "galleries", galleryID, "posts")
}

func checkGalleryID(id string) error {
	switch {
	case id == "":
		return fmt.Errorf("%w: empty gallery ID", ErrInvalidParams)
	case id == "." || id == "..":
		return fmt.Errorf("%w: gallery ID %q is not a shortId", ErrInvalidParams, id)
	case strings.IndexFunc(id, unicode.IsControl) >= 0:
		return fmt.Errorf("%w: gallery ID %q contains control characters", ErrInvalidParams, id)
	}
	return nil
}
