package ugc

import (
	"context"
	"net/url"
)

// InboxParams are the query parameters of [Client.Inbox]. The inbox takes no
// market, filter or include.
type InboxParams struct {
	Limit int `url:"limit"`          // 1 to 25; 0 sends MaxLimit, more is capped
	Skip  int `url:"skip,omitempty"` // posts skipped from the start
}

// Inbox returns one page of the posts pending moderation (GET /v1/inbox).
// params may be nil. Each post's UploadedBy carries the submitting member's
// Email. Errors are those of [Client.Posts]; opts change this call only.
func (c *Client) Inbox(ctx context.Context, params *InboxParams, opts ...Option) (*Page, error) {
	u, err := c.inboxURL(params)
	return c.call(ctx, u, err, opts)
}

// inboxURL checks params and returns the URL of the page they ask for.
func (c *Client) inboxURL(params *InboxParams) (*url.URL, error) {
	p := InboxParams{}
	if params != nil {
		p = *params
	}
	if err := checkPaging(p.Limit, p.Skip); err != nil {
		return nil, err
	}
	p.Limit = limitOrMax(p.Limit)
	return c.endpoint(&p, "inbox")
}
