package ugc

import (
	"context"
	"fmt"
	"iter"
	"net/url"
	"slices"

	"github.com/ugcposts/ugc-go/internal/walk"
)

// NextPage fetches the page at a next URL given by an earlier page, for a job
// that pages by hand or resumes from a checkpoint. The URL must be on the
// client's origin, under its base path, for one of the list endpoints; it
// is refused otherwise (an error matching [ErrBadNext]). Other errors are
// those of [Client.Posts]. opts change this call only.
//
// The URL names its own list, so NextPage is for a job's own state, not
// for input from elsewhere: a service that hands positions to its callers
// hands them [Page.Cursor], which shows no host, and takes them back with
// [WithCursor] on the call for the list it serves, which refuses a cursor
// for any other list before sending a request.
func (c *Client) NextPage(ctx context.Context, next string, opts ...Option) (*Page, error) {
	u, err := c.parseNext(next)
	return c.call(ctx, u, err, opts)
}

// PostsPages iterates over the pages of [Client.Posts], from params (which it
// does not change) to the end, for a job that checkpoints its progress. Each
// page holds the posts new to the walk, in order (the post a request starts
// at to anchor it is not handed out twice), what was forgiven in reading
// them ([Page.Deviations]), in Next where the walk goes on ("" after the
// last page), and in Checkpoint where it stands: save that and resume with
// [ResumeFrom]. The walk is that of [Client.AllPosts]: it yields an error at
// most once, then stops, with the same errors.
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

// AllPosts iterates over every approved post matching params, following
// next from page to page:
//
//	for post, err := range client.AllPosts(ctx, params) {
//		if err != nil {
//			return err
//		}
//		...
//	}
//
// The walk aims to be complete: every post that is in the list for the
// whole walk, and keeps its place in the order, comes exactly once while
// moderators add and remove posts (see [DriftRepair]), or the walk ends
// with an error that says why (the package documentation says what still
// defeats it). Each request is params' query at a position; a next link gives
// the position only (a relative one is resolved against the request that
// returned it). It ends after a page whose next is null or an empty page; a
// page shorter than its limit that gives a next link is not the end. Each
// request starts at the last post already yielded, so that each answer
// shows whether the list moved and a change of the list cannot open a
// silent gap. The package documentation says what it does with servers
// that misbehave.
//
// It yields an error once and stops: bad params; an API or decoding error
// (after retries); a refused next link ([ErrBadNext]), after the posts of the
// page that carried it; [ErrIncomplete] when a walk that could not check
// every page's place ends short of its count; [ErrStalled] when two pages
// in a row move the walk on by nothing; a [*DriftError] when the pages show
// the order changed or the walk cannot find its place again (or at any
// change, under [DriftFail]); or ctx.Err(), at once, even in the middle of
// a page.
// [WithSummary] tells what the walk did. Breaking out of the loop ends all
// work at once, with no goroutine or connection left behind. params is not
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
