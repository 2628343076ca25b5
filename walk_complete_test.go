package ugc_test

// Complete walks against servers that follow the contract loosely: the end
// of a list is a null next or an empty page, never a short page; a relative
// next is followed; a refused next ends the walk after the page that carried
// it; a walk that makes no progress ends with an error; a cancelled context
// stops the yielding at once. Every case runs in every iteration mode.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ugcposts/ugc-go"
)

// TestShortPagesAreNotTheEnd: a server that caps its pages below the limit
// asked while next is present gives every post once, in order, in every
// mode, over random list sizes and caps.
func TestShortPagesAreNotTheEnd(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 1))
	for i := range 12 {
		n, limit := rng.IntN(121), 2+rng.IntN(24)
		pageCap := 1 + rng.IntN(limit-1) // smaller than the limit asked
		want := postIDs(n)
		for _, mode := range iterModes {
			t.Run(fmt.Sprintf("%d/posts=%d/limit=%d/cap=%d/%s", i, n, limit, pageCap, mode.name), func(t *testing.T) {
				t.Parallel()
				srv := newMisbehavingServer(t, "", want)
				srv.pageCap = pageCap
				got := walkAll(srv.client(t).AllPosts(context.Background(), &ugc.PostsParams{Limit: limit}, mode.opts...))
				require.NoError(t, got.err)
				assertIDs(t, want, got.ids, "every post once, in order")
			})
		}
	}
}

// TestNextThatSkipsPostsIsNeverASilentGap: a server whose short pages carry
// a next that advances skip by the limit asked (so following it would skip
// posts) gives every post once, or ends with an error having yielded a
// gapless prefix of the list.
func TestNextThatSkipsPostsIsNeverASilentGap(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 2))
	for i := range 8 {
		n, limit := 1+rng.IntN(120), 2+rng.IntN(24)
		pageCap := 1 + rng.IntN(limit-1)
		want := postIDs(n)
		for _, mode := range iterModes {
			t.Run(fmt.Sprintf("%d/posts=%d/limit=%d/cap=%d/%s", i, n, limit, pageCap, mode.name), func(t *testing.T) {
				t.Parallel()
				srv := newMisbehavingServer(t, "", want)
				srv.pageCap, srv.nextByLimit = pageCap, true
				got := walkAll(srv.client(t).AllPosts(context.Background(), &ugc.PostsParams{Limit: limit}, mode.opts...))
				assert.Zero(t, got.afterErr, "nothing after the error")
				if got.err == nil {
					assertIDs(t, want, got.ids, "every post once, in order")
					return
				}
				require.LessOrEqual(t, len(got.ids), n)
				assertIDs(t, want[:len(got.ids)], got.ids, "what came before the error has no gap and no repeat")
			})
		}
	}
}

// TestRelativeNextIsFollowed: next given as a relative reference (path
// absolute, path relative, query only) is resolved against the request that
// returned it, with and without a base path, for posts and galleries.
func TestRelativeNextIsFollowed(t *testing.T) {
	t.Parallel()
	want := postIDs(83)
	for _, style := range []nextStyle{nextPathAbsolute, nextPathRelative, nextQueryOnly} {
		for _, base := range []string{"", "/api"} {
			for _, mode := range iterModes {
				t.Run(fmt.Sprintf("%s/base=%q/%s", style, base, mode.name), func(t *testing.T) {
					t.Parallel()
					srv := newMisbehavingServer(t, base, want)
					srv.nextStyle = style
					c := srv.client(t)
					got := walkAll(c.AllPosts(context.Background(), &ugc.PostsParams{Limit: 25}, mode.opts...))
					require.NoError(t, got.err)
					assertIDs(t, want, got.ids, "every post once, in order")

					got = walkAll(c.AllGalleryPosts(context.Background(), "summer", &ugc.GalleryPostsParams{Limit: 10}, mode.opts...))
					require.NoError(t, got.err)
					assertIDs(t, want, got.ids, "every post once, in order")
				})
			}
		}
	}
}

// TestRefusedNextEndsTheWalkAfterItsPage: a next on another origin or for
// another endpoint, given by page k, ends the walk with ErrBadNext after the
// posts of pages 1..k, in order; the foreign origin never gets a request.
func TestRefusedNextEndsTheWalkAfterItsPage(t *testing.T) {
	t.Parallel()
	var foreignHits atomic.Int64
	foreign := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		foreignHits.Add(1)
		fmt.Fprint(w, `{"count":0,"next":null,"nodes":[]}`)
	}))
	t.Cleanup(foreign.Close)

	const limit = 10
	want := postIDs(95)
	for k := 1; k <= 4; k++ {
		refused := map[string]func(srv *misbehavingServer) string{
			"foreign origin": func(*misbehavingServer) string {
				return fmt.Sprintf("%s/api/v1/posts?limit=%d&skip=%d", foreign.URL, limit, k*limit)
			},
			"other endpoint": func(srv *misbehavingServer) string {
				return fmt.Sprintf("%s/v1/inbox?limit=%d&skip=%d", srv.URL, limit, k*limit)
			},
		}
		for name, next := range refused {
			for _, mode := range iterModes {
				t.Run(fmt.Sprintf("%s/page=%d/%s", name, k, mode.name), func(t *testing.T) {
					t.Parallel()
					srv := newMisbehavingServer(t, "/api", want)
					srv.nextFor = func(_, last int) string {
						if last == k*limit-1 { // the page that ends with post k*limit-1
							return next(srv)
						}
						return ""
					}
					got := walkAll(srv.client(t).AllPosts(context.Background(), &ugc.PostsParams{Limit: limit}, mode.opts...))
					require.ErrorIs(t, got.err, ugc.ErrBadNext)
					assert.Zero(t, got.afterErr)
					assertIDs(t, want[:k*limit], got.ids, "the pages up to the one with the refused next come first")
					assert.NotContains(t, got.err.Error(), "misbehaving-key")
					if name == "other endpoint" {
						assert.Contains(t, got.err.Error(), "inbox", "the error says what differs")
					}
				})
			}
		}
	}
	t.Cleanup(func() { assert.Zero(t, foreignHits.Load(), "the foreign origin got a request") })
}

// TestGalleryNextEscapedAnotherWay: for gallery IDs that need escaping, a
// server that escapes the gallery segment of next in another way (lowercase
// hex, every reserved character escaped, or none) is on the same endpoint:
// every post once.
func TestGalleryNextEscapedAnotherWay(t *testing.T) {
	t.Parallel()
	escapes := map[string]func(string) string{
		"encodeURIComponent, lowercase hex": func(id string) string { return strings.ToLower(componentEscape(id)) },
		"encodeURIComponent":                componentEscape,
		"PathEscape":                        url.PathEscape,
		"reserved left as is":               func(id string) string { return strings.ToLower(url.PathEscape(id)) },
		"every byte escaped":                everyByteEscape,
	}
	want := postIDs(47)
	for _, gallery := range []string{"summer:2024", "fall+winter", "été", "a&b=c", "50%off"} {
		for name, escape := range escapes {
			for _, mode := range iterModes {
				t.Run(fmt.Sprintf("%s/%s/%s", gallery, name, mode.name), func(t *testing.T) {
					t.Parallel()
					srv := newMisbehavingServer(t, "/api", want)
					srv.escapeGallery = escape
					got := walkAll(srv.client(t).AllGalleryPosts(context.Background(), gallery, &ugc.GalleryPostsParams{Limit: 10}, mode.opts...))
					require.NoError(t, got.err)
					assertIDs(t, want, got.ids, "every post once, in order")
				})
			}
		}
	}
}

// TestGalleryWalkWithASpaceInItsID: the contract gives shortIds no
// character set, so a gallery ID such as "a b" is escaped and sent, and its
// walk yields every post once.
func TestGalleryWalkWithASpaceInItsID(t *testing.T) {
	t.Parallel()
	srv := newMisbehavingServer(t, "", postIDs(5))
	got := walkAll(srv.client(t).AllGalleryPosts(context.Background(), "a b", nil))
	require.NoError(t, got.err)
	assertIDs(t, postIDs(5), got.ids, "every post once")
	assert.Positive(t, srv.requestCount())
}

// componentEscape escapes as JavaScript's encodeURIComponent does: all but
// A-Z a-z 0-9 - _ . ! ~ * ' ( ), with uppercase hex.
func componentEscape(s string) string {
	var b strings.Builder
	for i := range len(s) {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-_.!~*'()", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// everyByteEscape escapes every byte, letters included, in lowercase hex.
func everyByteEscape(s string) string {
	var b strings.Builder
	for i := range len(s) {
		fmt.Fprintf(&b, "%%%02x", s[i])
	}
	return b.String()
}

// parallelism is how many requests a walk in the iteration mode named mode
// may have in flight.
func parallelism(mode string) int {
	if n, err := strconv.Atoi(strings.TrimPrefix(mode, "parallel-")); err == nil {
		return n
	}
	return 1
}

// TestNoProgressEndsTheWalk: a server that ignores skip (it always serves
// the first page while next advances) ends the walk with an error within a
// few requests, in every mode, whether its next stops at count or goes on
// past it. The lists are long enough for two pages in a row to bring no new
// post.
func TestNoProgressEndsTheWalk(t *testing.T) {
	t.Parallel()
	for _, n := range []int{60, 100, 1000} {
		for _, endless := range []bool{false, true} {
			for _, mode := range iterModes {
				t.Run(fmt.Sprintf("posts=%d/endless=%t/%s", n, endless, mode.name), func(t *testing.T) {
					t.Parallel()
					srv := newMisbehavingServer(t, "", postIDs(n))
					srv.ignoreSkip, srv.endlessNext = true, endless
					got := walkAll(srv.client(t).AllPosts(context.Background(), &ugc.PostsParams{Limit: 25}, mode.opts...))
					require.Error(t, got.err, "a walk that makes no progress ends with an error")
					assert.Zero(t, got.afterErr)
					// The first page, two that bring nothing, each read
					// twice (a page not where it was asked for, with the
					// count unchanged, is read once more before it is
					// believed), one read on from an end that the page's
					// anchor shows stands before where the walk has it
					// (where next stops at the count), and what a parallel
					// walk had in flight when it stopped.
					assert.LessOrEqual(t, srv.requestCount(), 6+parallelism(mode.name))
					assertIDs(t, postIDs(n)[:25], got.ids, "the first page once")
				})
			}
		}
	}
}

// TestNextBeyondCountEndsTheWalk: a next whose skip jumps past count, on a
// server that serves posts whatever skip says, ends the walk with an error
// within a few requests.
func TestNextBeyondCountEndsTheWalk(t *testing.T) {
	t.Parallel()
	for _, mode := range iterModes {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			srv := newMisbehavingServer(t, "", postIDs(40))
			srv.ignoreSkip, srv.endlessNext = true, true
			srv.nextFor = func(skip, _ int) string { return fmt.Sprintf("%s/v1/posts?limit=25&skip=%d", srv.URL, skip+1000) }
			got := walkAll(srv.client(t).AllPosts(context.Background(), &ugc.PostsParams{Limit: 25}, mode.opts...))
			require.Error(t, got.err)
			assert.Zero(t, got.afterErr)
			assert.Less(t, srv.requestCount(), 6+parallelism(mode.name), "a few requests, and what a parallel walk had in flight")
		})
	}
}

// TestCancelMidPageStopsAtOnce: cancelling the context after the third post
// of a 25-post page makes the next thing yielded an error matching
// context.Canceled, with no more posts, in every mode, and leaves no
// goroutine behind. Not parallel: goleak sees the whole process.
func TestCancelMidPageStopsAtOnce(t *testing.T) {
	for _, mode := range iterModes {
		for _, page := range []int{1, 2} {
			t.Run(fmt.Sprintf("page=%d/%s", page, mode.name), func(t *testing.T) {
				_, c, verify := leakCase(t, nil)
				defer verify()
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				var posts, afterCancel int
				var errs []error
				for _, err := range c.AllPosts(ctx, &ugc.PostsParams{Limit: 25}, mode.opts...) {
					if err != nil {
						errs = append(errs, err)
						continue
					}
					if ctx.Err() != nil {
						afterCancel++
					}
					if posts++; posts == (page-1)*25+3 {
						cancel()
					}
				}
				assert.Zero(t, afterCancel, "posts yielded after the cancel")
				require.Len(t, errs, 1)
				assert.ErrorIs(t, errs[0], context.Canceled)
			})
		}
	}
}
