package ugc

import (
	"context"
	"fmt"
	"iter"
	"net/url"
	"slices"

	"github.com/ugcposts/ugc-go/internal/walk"
)

// NextPage fetches the page at a Next URL of an earlier page, for a job that
// pages by hand. The URL must be on the client's origin and base path, for a
// list endpoint ([ErrBadNext] otherwise); other errors are those of
// [Client.Posts]. Since the URL names its own list, it is for a job's own
// state: a service hands its callers [Page.Cursor] instead.
func (c *Client) NextPage(ctx context.Context, next string, opts ...Option) (*Page, error) {
	u, err := c.parseNext(next)
	return c.call(ctx, u, err, opts)
}

// PostsPages iterates over the pages of [Client.Posts], from params to the
// end, for a job that checkpoints: each page holds the posts new to the walk,
// its [Page.Deviations], and its Checkpoint, to save for [ResumeFrom]. The
// walk and its errors are those of [Client.AllPosts].
func (c *Client) PostsPages(ctx context.Context, params *PostsParams, opts ...Option) iter.Seq2[*Page, error] {
	return c.pages(ctx, func() (*url.URL, error) { return c.postsURL(params) }, opts)
}

// GalleryPostsPages iterates over the pages of [Client.GalleryPosts], as
// [Client.PostsPages].
func (c *Client) GalleryPostsPages(ctx context.Context, galleryID string, params *GalleryPostsParams, opts ...Option) iter.Seq2[*Page, error] {
	return c.pages(ctx, func() (*url.URL, error) { return c.galleryPostsURL(galleryID, params) }, opts)
}

// InboxPages iterates over the pages of [Client.Inbox], as
// [Client.PostsPages].
func (c *Client) InboxPages(ctx context.Context, params *InboxParams, opts ...Option) iter.Seq2[*Page, error] {
	return c.pages(ctx, func() (*url.URL, error) { return c.inboxURL(params) }, opts)
}

// AllPosts iterates over every approved post matching params, following next
// from page to page:
//
//	for post, err := range client.AllPosts(ctx, params) {
//		if err != nil {
//			return err
//		}
//		...
//	}
//
// Every post in the list for the whole walk that keeps its place in the order
// comes exactly once, while posts are added and removed (the package
// documentation, Iteration). It yields an error once and stops: bad params, an
// API or decoding error after retries, a [*ThrottleError] (matching
// [ErrRateLimited]) when the quota's wait would pass the throttle budget, a
// refused next link ([ErrBadNext], after its page's posts), [ErrIncomplete],
// [ErrStalled], a [*DriftError], or ctx.Err() at once. Breaking out of the loop ends all its work. params is not
// changed.
func (c *Client) AllPosts(ctx context.Context, params *PostsParams, opts ...Option) iter.Seq2[Post, error] {
	return c.posts(ctx, func() (*url.URL, error) { return c.postsURL(params) }, opts)
}

// AllGalleryPosts iterates over every post of a gallery, as [Client.AllPosts].
func (c *Client) AllGalleryPosts(ctx context.Context, galleryID string, params *GalleryPostsParams, opts ...Option) iter.Seq2[Post, error] {
	return c.posts(ctx, func() (*url.URL, error) { return c.galleryPostsURL(galleryID, params) }, opts)
}

// AllInbox iterates over every post pending moderation, as [Client.AllPosts].
func (c *Client) AllInbox(ctx context.Context, params *InboxParams, opts ...Option) iter.Seq2[Post, error] {
	return c.posts(ctx, func() (*url.URL, error) { return c.inboxURL(params) }, opts)
}

// pages returns the page iterator shared by every list: first builds the
// URL of the first page (or reports bad params).
func (c *Client) pages(ctx context.Context, first func() (*url.URL, error), opts []Option) iter.Seq2[*Page, error] {
	cfg := c.newIterConfig(opts)
	return func(yield func(*Page, error) bool) {
		w, err := c.newWalk(ctx, first, cfg)
		if err != nil {
			yield(nil, c.maskErr(err))
			return
		}
		w.run(ctx, yield)
	}
}

// posts returns the post iterator shared by every list: the pages' posts,
// one by one. A context that ends stops it at once, in the middle of a page
// too; the summary counts the posts the caller was given, and its
// checkpoint stands after the last of them.
func (c *Client) posts(ctx context.Context, first func() (*url.URL, error), opts []Option) iter.Seq2[Post, error] {
	cfg := c.newIterConfig(opts)
	return func(yield func(Post, error) bool) {
		w, err := c.newWalk(ctx, first, cfg)
		if err != nil {
			yield(Post{}, c.maskErr(err))
			return
		}
		w.run(ctx, func(page *Page, err error) bool {
			if err != nil {
				yield(Post{}, err)
				return false
			}
			for i := range page.Nodes {
				if err := ctx.Err(); err != nil {
					w.record(event{kind: evHandedOut, n: i})
					yield(Post{}, err)
					return false
				}
				if !yield(page.Nodes[i], nil) {
					w.record(event{kind: evHandedOut, n: i + 1})
					return false
				}
			}
			return true
		})
	}
}

// newWalk checks the walk's parameters and returns it, ready to send its
// first request: the first page, or where a checkpoint stands.
func (c *Client) newWalk(ctx context.Context, first func() (*url.URL, error), cfg iterConfig) (*walker, error) {
	if ctx == nil {
		return nil, fmt.Errorf("%w: nil context", ErrMisuse)
	}
	if cfg.err != nil {
		return nil, cfg.err
	}
	u, err := first()
	if err != nil {
		return nil, err
	}
	if cfg.resume.URL != "" {
		resumed, err := c.parseNext(cfg.resume.URL)
		if err != nil {
			return nil, err
		}
		if !slices.Equal(pathSegments(resumed), pathSegments(u)) {
			return nil, fmt.Errorf("%w: checkpoint URL is for %s, not %s: %s", ErrBadNext, resumed.Path, u.Path, segmentDiff(pathSegments(u), pathSegments(resumed)))
		}
		if err := checkResumeQuery(u, resumed); err != nil {
			return nil, err
		}
		u = resumed
	}
	pos, err := positionOf(u)
	if err != nil {
		return nil, fmt.Errorf("%w: checkpoint URL's %w", ErrBadNext, err)
	}
	limit := pos.limitOr(MaxLimit)
	m := walk.New(walk.Config{Skip: pos.skip, Limit: limit, Ahead: cfg.readAhead, After: cfg.resume.After, FailOnChange: cfg.drift == DriftFail})
	return &walker{c: c, cfg: cfg, m: m, labels: wantsLabels(u), query: u, limit: limit, throttled: c.throttleStats()}, nil
}
