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

// PostsParams are the query parameters of [Client.Posts]; the zero value asks
// for the first 25 posts, unfiltered.
type PostsParams struct {
	Limit   int       `url:"limit"`                   // 1 to 25; 0 sends MaxLimit, more is capped
	Skip    int       `url:"skip,omitempty"`          // posts skipped from the start
	Market  string    `url:"market,omitempty"`        // a market ID or shortId
	Filter  Filter    `url:"filter,omitempty"`        // nil: every post
	Include []Include `url:"include,comma,omitempty"` // only IncludeLabels
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

// Posts returns one page of approved posts (GET /v1/posts). params may be nil;
// opts change this call only.
//
// Before any request, a filter the server would reject is a [*FilterError]
// (matching [ErrInvalidParams]), and bad params match [ErrMisuse]; a non-2xx
// answer is an [*APIError], a body that is not a page a [*DecodeError]. A
// deadline that passes during the call, or a context that ends after an
// attempt failed, gives an error that matches ctx.Err(), names the call ("ugc:
// GET /v1/posts: context deadline exceeded") and keeps the last attempt's
// error for errors.As; otherwise an ended context gives ctx.Err().
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
