package ugc

import (
	"context"
	"fmt"
	"net/url"
)

// Include names a relationship that a posts request adds to each post.
type Include string

// IncludeLabels adds each post's labels (id and name) as [Post.Labels].
const IncludeLabels Include = "labels"

// PostsParams are the query parameters of [Client.Posts]. The zero value
// asks for the first page of 25 posts, unfiltered, in the default language.
type PostsParams struct {
	// Limit is the page size, 1 to 25; 0 sends [MaxLimit], and a larger
	// limit is capped to it, as the server does.
	Limit int `url:"limit"`
	// Skip is how many posts to skip from the start; 0 or more.
	Skip int `url:"skip,omitempty"`
	// Market localizes the content: a market ID or shortId.
	Market string `url:"market,omitempty"`
	// Filter keeps the posts matching every element; nil for all posts.
	Filter Filter `url:"filter,omitempty"`
	// Include adds relationships; only [IncludeLabels] is supported.
	Include []Include `url:"include,comma,omitempty"`
}

func (p *PostsParams) validate() error {
	if err := checkPaging(p.Limit, p.Skip); err != nil {
		return err
	}
	for _, inc := range p.Include {
		if inc != IncludeLabels {
			return fmt.Errorf("%w: include %q is not supported (only %q is)", ErrMisuse, inc, IncludeLabels)
		}
	}
	return p.Filter.Validate()
}

// Posts returns one page of approved posts (GET /v1/posts). params may be
// nil. With Include [IncludeLabels] every post carries Labels.
//
// Before any request, it returns an error matching [ErrInvalidParams] for
// a filter the server would reject (a [*FilterError]) and one matching
// [ErrMisuse] for a negative Limit or Skip or an unsupported Include (see
// the table at [ErrInvalidParams]); then an [*APIError] for a non-2xx
// answer; a [*DecodeError] for a body that is not a valid page. When the
// context ends: a deadline that passes during the call, or any end after
// an attempt failed, gives an error that matches ctx.Err(), names the call
// ("ugc: GET /v1/posts: context deadline exceeded") and carries the last
// failed attempt's error (errors.As reaches it); a context that ended
// before the call, or a cancel before any attempt failed, gives ctx.Err()
// itself. opts change this call only (see [Option]).
func (c *Client) Posts(ctx context.Context, params *PostsParams, opts ...Option) (*Page, error) {
	u, err := c.postsURL(params)
	return c.call(ctx, u, err, opts)
}

// postsURL checks params and returns the URL of the page they ask for.
func (c *Client) postsURL(params *PostsParams) (*url.URL, error) {
	p := PostsParams{}
	if params != nil {
		p = *params
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	p.Limit = limitOrMax(p.Limit)
	return c.endpoint(&p, "posts")
}
