package ugc

import (
	"context"
	"fmt"
	"iter"
	"net/url"
	"slices"
)

// IterOption configures an iterator such as [Client.AllPosts].
type IterOption interface{ applyIter(*iterConfig) }

// iterOptionFunc is an IterOption that sets the iterator's configuration.
type iterOptionFunc func(*iterConfig)

func (f iterOptionFunc) applyIter(c *iterConfig) { f(c) }

type iterConfig struct {
	// readAhead is how many requests may be in flight while the caller
	// handles a page: 0 sequential, 1 prefetch (on one connection, the
	// default), n parallel.
	readAhead int
	drift     DriftPolicy
	resume    Checkpoint
	summary   *WalkSummary
	call      []CallOption // applied to each request of the walk
	err       error        // an option given a value it cannot take
}

// MaxConcurrency is the most requests a parallel walk keeps in flight; a
// larger [WithConcurrency] is refused.
const MaxConcurrency = 64

// WithPrefetch turns prefetching on or off. With it on (the default), the
// next page is already in flight while the caller handles the current one,
// so a consumer that does work per page pays for the network only once; the
// request after it, foreseen as the server's pages have been so far, goes
// out on the same connection as soon as the next page's body has arrived,
// so that it travels while that page decodes. One request is on the wire at
// a time. A foreseen request that a page proves wrong is cancelled at once;
// it costs at most one request whose page is thrown away, and when the loop
// breaks, one more.
//
// It is on by default because it costs nothing measurable otherwise: see
// BENCHMARKS.md.
func WithPrefetch(on bool) IterOption {
	return iterOptionFunc(func(c *iterConfig) {
		c.readAhead = 0
		if on {
			c.readAhead = 1
		}
	})
}

// WithConcurrency fetches pages in parallel, with at most n requests in
// flight (n < 2 means sequential; more than [MaxConcurrency] is an error
// that matches [ErrInvalidParams], yielded before any request). Posts are
// still yielded in the sequential order and memory is bounded by n pages.
//
// Each request is the one a sequential walk would send if every page
// before it were full, as the server's pages have been so far; each starts
// at the last post of the page before it, so every boundary between pages
// is checked as in a sequential walk. A page that proves the requests after
// it wrong (a short page, a list that changed) has them cancelled and sent
// again from where the walk stands. The guarantees of a sequential walk
// hold in parallel mode too.
func WithConcurrency(n int) IterOption {
	return iterOptionFunc(func(c *iterConfig) {
		switch {
		case n > MaxConcurrency:
			c.err = fmt.Errorf("%w: WithConcurrency(%d): at most %d requests in flight", ErrInvalidParams, n, MaxConcurrency)
		case n < 2:
			c.readAhead = 0
		default:
			c.readAhead = n
		}
	})
}

// WithDrift sets the drift policy; the default is [DriftRepair].
func WithDrift(p DriftPolicy) IterOption { return iterOptionFunc(func(c *iterConfig) { c.drift = p }) }

// ResumeFrom starts the walk at a checkpoint saved from an earlier walk
// ([Page.Checkpoint] or [WalkSummary.Checkpoint]) instead of at the first
// page. The checkpoint's URL carries every parameter of the original
// request, so the call's params are not used; it must be for the same
// endpoint, on the client's origin. The walk starts at the checkpoint's
// post and places its first page by it, as it places every page, so the
// resumed walk neither repeats nor skips a post when posts were added or
// removed between the two runs; a checkpoint taken after the last page
// yields only the posts added since. A checkpoint with an After but no URL
// reads from the first page, passing over the posts up to After.
func ResumeFrom(cp Checkpoint) IterOption {
	return iterOptionFunc(func(c *iterConfig) { c.resume = cp })
}

// NextPage fetches the page at a next URL given by an earlier page, for a job
// that pages by hand or resumes from a checkpoint. The URL must be on the
// client's origin, under its base path, for one of the list endpoints; it
// is refused otherwise (an error matching [ErrBadNext]). Other errors are
// those of [Client.Posts]. opts change this call only.
func (c *Client) NextPage(ctx context.Context, next string, opts ...CallOption) (*Page, error) {
	u, err := c.parseNext(next)
	if err != nil {
		return nil, err
	}
	return c.getPage(ctx, u, wantsLabels(u), opts, attemptHooks{})
}

// PostsPages iterates over the pages of [Client.Posts], from params (which it
// does not change) to the end, for a job that checkpoints its progress. Each
// page holds the posts new to the walk, in order (the post a request starts
// at to anchor it is not handed out twice), what was forgiven in reading
// them ([Page.Deviations]), in Next where the walk goes on ("" after the
// last page), and in Checkpoint where it stands: save that and resume with
// [ResumeFrom]. The walk is that of [Client.AllPosts]: it yields an error at
// most once, then stops, with the same errors.
func (c *Client) PostsPages(ctx context.Context, params *PostsParams, opts ...IterOption) iter.Seq2[*Page, error] {
	return c.pages(ctx, func() (*url.URL, error) { return c.postsURL(params) }, opts)
}

// GalleryPostsPages iterates over the pages of [Client.GalleryPosts], as
// [Client.PostsPages].
func (c *Client) GalleryPostsPages(ctx context.Context, galleryID string, params *GalleryPostsParams, opts ...IterOption) iter.Seq2[*Page, error] {
	return c.pages(ctx, func() (*url.URL, error) { return c.galleryPostsURL(galleryID, params) }, opts)
}

// InboxPages iterates over the pages of [Client.Inbox], as
// [Client.PostsPages].
func (c *Client) InboxPages(ctx context.Context, params *InboxParams, opts ...IterOption) iter.Seq2[*Page, error] {
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
// The walk is complete: every post that is in the list for the whole walk,
// and keeps its place in the order, comes exactly once while moderators add
// and remove posts (see [DriftRepair]), or the walk ends with an error that
// says why. Each request is params' query at a position; a next link gives
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
func (c *Client) AllPosts(ctx context.Context, params *PostsParams, opts ...IterOption) iter.Seq2[Post, error] {
	return c.posts(ctx, func() (*url.URL, error) { return c.postsURL(params) }, opts)
}

// AllGalleryPosts iterates over every post of a gallery, as [Client.AllPosts].
func (c *Client) AllGalleryPosts(ctx context.Context, galleryID string, params *GalleryPostsParams, opts ...IterOption) iter.Seq2[Post, error] {
	return c.posts(ctx, func() (*url.URL, error) { return c.galleryPostsURL(galleryID, params) }, opts)
}

// AllInbox iterates over every post pending moderation, as [Client.AllPosts].
func (c *Client) AllInbox(ctx context.Context, params *InboxParams, opts ...IterOption) iter.Seq2[Post, error] {
	return c.posts(ctx, func() (*url.URL, error) { return c.inboxURL(params) }, opts)
}

// pages returns the page iterator shared by every list: first builds the
// URL of the first page (or reports bad params).
func (c *Client) pages(ctx context.Context, first func() (*url.URL, error), opts []IterOption) iter.Seq2[*Page, error] {
	cfg := newIterConfig(opts)
	return func(yield func(*Page, error) bool) {
		w, err := c.newWalk(ctx, first, cfg)
		if err != nil {
			yield(nil, err)
			return
		}
		w.run(ctx, yield)
	}
}

// posts returns the post iterator shared by every list: the pages' posts,
// one by one. A context that ends stops it at once, in the middle of a page
// too; the summary counts the posts the caller was given, and its
// checkpoint stands after the last of them.
func (c *Client) posts(ctx context.Context, first func() (*url.URL, error), opts []IterOption) iter.Seq2[Post, error] {
	cfg := newIterConfig(opts)
	return func(yield func(Post, error) bool) {
		w, err := c.newWalk(ctx, first, cfg)
		if err != nil {
			yield(Post{}, err)
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

// ahead is how many requests a walk keeps in flight beyond the one it
// waits for: none sequential, one prefetching, n-1 in parallel.
func (c iterConfig) ahead() int {
	if c.readAhead == 1 {
		return 1
	}
	return max(c.readAhead-1, 0)
}

func newIterConfig(opts []IterOption) iterConfig {
	cfg := iterConfig{readAhead: 1}
	for _, o := range opts {
		if o != nil {
			o.applyIter(&cfg)
		}
	}
	return cfg
}

// newWalk checks the walk's parameters and returns it, ready to send its
// first request: the first page, or where a checkpoint stands.
func (c *Client) newWalk(ctx context.Context, first func() (*url.URL, error), cfg iterConfig) (*walk, error) {
	if ctx == nil {
		return nil, fmt.Errorf("%w: nil context", ErrInvalidParams)
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
		u = resumed
	}
	start := skipOf(u)
	w := &walk{c: c, cfg: cfg, labels: wantsLabels(u), cur: newCursor(cfg.drift, u.Path, start), start: start,
		plan: newPlan(u, cfg.ahead())}
	if cfg.resume.After != "" {
		w.cur.resumeAfter(cfg.resume.After)
	}
	return w, nil
}

// DriftPolicy says what an iterator does when the list changes under it.
type DriftPolicy int

const (
	// DriftRepair, the default, keeps the walk exactly-once while posts
	// are added and removed: each page is placed by the last post already
	// yielded, and when that post is not where it was, the walk finds it
	// again (reading back if needed) and goes on after it. Every post that
	// is in the list for the whole walk is yielded exactly once; a post
	// added or removed meanwhile may or may not be. This holds as long as
	// the list keeps a stable order (posts do not move); when the order
	// changes, the walk ends with a [*DriftError].
	DriftRepair DriftPolicy = iota
	// DriftFail ends the iteration with a [*DriftError] at the first sign
	// of change: a count that differs from the first page's, or a page whose
	// posts are not where they were asked for.
	DriftFail
)
