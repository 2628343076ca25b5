package ugc_test

// Tests of the walk summary (WithSummary) and of the count check at the end
// of a walk (ErrIncomplete).

import (
	"context"
	"fmt"
	"log"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
)

// TestCountAboveTheListIsRecorded: a server whose count is above the posts
// it serves (1, 5 or 30 more) while every page is where it was asked: the
// walk reads on past the end twice, finds nothing more, and ends without
// error with every post; the summary records the shortfall (the count's
// error, not the walk's: every page was placed by its anchor).
func TestCountAboveTheListIsRecorded(t *testing.T) {
	t.Parallel()
	for _, missing := range []int{1, 5, 30} {
		for _, mode := range iterModes {
			t.Run(fmt.Sprintf("missing=%d/%s", missing, mode.name), func(t *testing.T) {
				t.Parallel()
				want := postIDs(43)
				srv := newMisbehavingServer(t, "", want)
				srv.countDelta = missing
				var s ugc.WalkSummary
				got := walkAll(srv.client(t).AllPosts(context.Background(), &ugc.PostsParams{Limit: 10}, append(slices.Clone(mode.opts), ugc.WithSummary(&s))...))
				require.NoError(t, got.err)
				assertIDs(t, want, got.ids, "every post once, in order")
				assert.Equal(t, missing, s.Shortfall)
				assert.Equal(t, 43+missing, s.CountAtStart)
				assert.Equal(t, 43+missing, s.CountAtEnd)
				assert.Equal(t, 43, s.Posts)
				assert.Positive(t, s.NextCorrected, "the end the count contradicts was read on")
			})
		}
	}
}

// TestOnlyPostsAddedBehindExcuseAShortfall: three posts are added during
// the walk, ahead of it (it yields them) or behind it (it finds the anchor
// three places on). Those behind are not owed; any other shortfall, here a
// post the count holds and the server never serves, shows in Shortfall:
// every page was placed by its anchor, so the walk ends without error.
func TestOnlyPostsAddedBehindExcuseAShortfall(t *testing.T) {
	t.Parallel()
	added := postIDs(103)[100:] // p0100..p0102, new
	for _, mode := range iterModes {
		for _, tc := range []struct {
			name         string
			at, unserved int
			shortfall    int
		}{
			{"ahead", 90, 0, 0},
			{"ahead, one never served", 90, 1, 1},
			{"behind", 0, 0, 3},
			{"behind, one never served", 0, 1, 4},
		} {
			t.Run(tc.name+"/"+mode.name, func(t *testing.T) {
				t.Parallel()
				srv := newMisbehavingServer(t, "", postIDs(100))
				srv.countDelta = tc.unserved
				srv.mutate = func(n, _ int, ids []string) []string {
					if n == 3 {
						return slices.Insert(ids, tc.at, added...)
					}
					return ids
				}
				var s ugc.WalkSummary
				got := walkAll(srv.client(t).AllPosts(context.Background(), &ugc.PostsParams{Limit: 10}, append(slices.Clone(mode.opts), ugc.WithSummary(&s))...))
				assert.Equal(t, len(got.ids), len(uniq(got.ids)), "no post twice")
				assert.Equal(t, tc.shortfall, s.Shortfall)
				require.NoError(t, got.err)
				assert.Subset(t, got.ids, postIDs(100), "every post present throughout")
			})
		}
	}
}

// TestNoErrIncompleteWhenTheListChanged: a shortfall on a list whose count
// changed during the walk is not ErrIncomplete (the posts removed account
// for it).
func TestNoErrIncompleteWhenTheListChanged(t *testing.T) {
	t.Parallel()
	for _, mode := range iterModes {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			srv := newMisbehavingServer(t, "", postIDs(100))
			srv.mutate = func(n, _ int, ids []string) []string {
				if n == 4 {
					return slices.Delete(ids, 90, 95) // after the cursor
				}
				return ids
			}
			got := walkAll(srv.client(t).AllPosts(context.Background(), &ugc.PostsParams{Limit: 10}, mode.opts...))
			require.NoError(t, got.err)
			assertIDs(t, slices.Delete(postIDs(100), 90, 95), got.ids, "every post present throughout, in order")
		})
	}
}

// TestSummaryOfAStableWalk: on a list that does not change, the summary
// counts one request per page, every post, no short page, no re-anchor, no
// shortfall; the requests are those the server saw.
func TestSummaryOfAStableWalk(t *testing.T) {
	t.Parallel()
	for _, mode := range iterModes {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			srv := ugctest.NewServer(t, ugctest.WithDataset(ugctest.Generate(300, 5)))
			var s ugc.WalkSummary
			n := 0
			for _, err := range srv.Client().AllPosts(context.Background(), &ugc.PostsParams{Limit: 25}, append(slices.Clone(mode.opts), ugc.WithSummary(&s))...) {
				require.NoError(t, err)
				n++
			}
			assert.Equal(t, 300, n)
			assert.Equal(t, 300, s.Posts)
			assert.Equal(t, s.Pages, s.Requests, "one request per page")
			assert.Len(t, srv.Requests(), s.Requests, "the requests the server saw")
			assert.GreaterOrEqual(t, s.Pages, 12)
			assert.LessOrEqual(t, s.Pages, 13, "at most one page more than following next (asking one post earlier)")
			assert.Equal(t, 300, s.CountAtStart)
			assert.Equal(t, 300, s.CountAtEnd)
			assert.Zero(t, s.ShortPages)
			assert.Zero(t, s.Reanchors)
			assert.Zero(t, s.Repeats)
			assert.Zero(t, s.Shortfall)
		})
	}
}

// TestSummaryCountsShortPages: a server that caps its pages below the
// limit shows in ShortPages, and the walk is complete.
func TestSummaryCountsShortPages(t *testing.T) {
	t.Parallel()
	for _, mode := range iterModes {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			srv := newMisbehavingServer(t, "", postIDs(50))
			srv.pageCap = 10
			var s ugc.WalkSummary
			got := walkAll(srv.client(t).AllPosts(context.Background(), &ugc.PostsParams{Limit: 25}, append(slices.Clone(mode.opts), ugc.WithSummary(&s))...))
			require.NoError(t, got.err)
			assertIDs(t, postIDs(50), got.ids, "every post once, in order")
			assert.Positive(t, s.ShortPages)
			assert.Equal(t, 50, s.Posts)
			assert.Zero(t, s.Shortfall)
		})
	}
}

// TestSummaryCountsReanchors: posts inserted before the cursor (more than
// a page of them, so the anchor leaves the page asked: the walk must look
// for it further on), posts removed before the cursor and a cache that
// answers a later page each make the walk re-read, which Reanchors counts;
// the walk stays exactly once.
func TestSummaryCountsReanchors(t *testing.T) {
	t.Parallel()
	// Each case sets up srv and returns the IDs it removed (under srv.mu).
	cases := map[string]func(srv *misbehavingServer) *[]string{
		"inserts before the cursor": func(srv *misbehavingServer) *[]string {
			srv.mutate = func(n, _ int, ids []string) []string {
				if n == 3 {
					return slices.Insert(ids, 0, postIDs(130)[100:]...) // p0100..p0129, new
				}
				return ids
			}
			return new([]string)
		},
		"removals before the cursor": func(srv *misbehavingServer) *[]string {
			removed := new([]string)
			srv.mutate = func(n, skip int, ids []string) []string {
				if n == 4 && skip > 5 {
					*removed = slices.Clone(ids[skip-5 : skip-2])
					return slices.Delete(ids, skip-5, skip-2)
				}
				return ids
			}
			return removed
		},
		"a later page from a cache": func(srv *misbehavingServer) *[]string {
			srv.wrongPage = func(n int) int {
				if n == 3 {
					return 2
				}
				return 0
			}
			return new([]string)
		},
	}
	for name, setup := range cases {
		for _, mode := range iterModes {
			t.Run(name+"/"+mode.name, func(t *testing.T) {
				t.Parallel()
				srv := newMisbehavingServer(t, "", postIDs(100))
				removed := setup(srv)
				var s ugc.WalkSummary
				got := walkAll(srv.client(t).AllPosts(context.Background(), &ugc.PostsParams{Limit: 10}, append(slices.Clone(mode.opts), ugc.WithSummary(&s))...))
				require.NoError(t, got.err)
				srv.mu.Lock()
				gone := *removed
				srv.mu.Unlock()
				var want, old []string // the posts present throughout: all, and those yielded
				for _, id := range postIDs(100) {
					if !slices.Contains(gone, id) {
						want = append(want, id)
					}
				}
				for _, id := range got.ids {
					if id < "p0100" && !slices.Contains(gone, id) {
						old = append(old, id)
					}
				}
				assertIDs(t, want, old, "every post present throughout once, in order")
				assert.Len(t, uniq(got.ids), len(got.ids), "no post twice")
				if !strings.HasPrefix(mode.name, "parallel") {
					// A parallel walk may have read every page before the
					// change reached the server: then nothing needed repair.
					assert.Positive(t, s.Reanchors)
				}
				assert.Equal(t, 100, s.CountAtStart)
				// Posts added before the cursor are in the count but never
				// came: the shortfall reports them, and no more.
				assert.LessOrEqual(t, s.Shortfall, s.CountAtEnd-len(want))
			})
		}
	}
}

// TestSummaryIsFilledHoweverTheLoopEnds: after a break, after an error and
// at the end, the summary holds what the walk did up to then.
func TestSummaryIsFilledHoweverTheLoopEnds(t *testing.T) {
	t.Parallel()
	for _, mode := range iterModes {
		t.Run("break/"+mode.name, func(t *testing.T) {
			t.Parallel()
			srv := newMisbehavingServer(t, "", postIDs(100))
			var s ugc.WalkSummary
			n := 0
			for _, err := range srv.client(t).AllPosts(context.Background(), &ugc.PostsParams{Limit: 10}, append(slices.Clone(mode.opts), ugc.WithSummary(&s))...) {
				require.NoError(t, err)
				if n++; n == 35 {
					break
				}
			}
			assert.Equal(t, 35, s.Posts)
			assert.GreaterOrEqual(t, s.Pages, 4)
			assert.Equal(t, 100, s.CountAtStart)
		})

		t.Run("error/"+mode.name, func(t *testing.T) {
			t.Parallel()
			srv := newMisbehavingServer(t, "", postIDs(100))
			srv.nextFor = func(_, last int) string {
				if last == 29 { // the page that ends with post 29
					return "https://elsewhere.example.com/v1/posts?limit=10&skip=30"
				}
				return ""
			}
			var s ugc.WalkSummary
			got := walkAll(srv.client(t).AllPosts(context.Background(), &ugc.PostsParams{Limit: 10}, append(slices.Clone(mode.opts), ugc.WithSummary(&s))...))
			require.ErrorIs(t, got.err, ugc.ErrBadNext)
			assert.Equal(t, 30, s.Posts)
			assert.Len(t, got.ids, 30)
		})
	}
}

// After the loop, the summary says what the walk did: a batch job can log
// it, or alert when a walk needed repairs.
func ExampleWithSummary() {
	baseURL, _, stop := startFakeAPI("test-key")
	defer stop()
	client, err := ugc.NewClient(baseURL, "test-key")
	if err != nil {
		log.Fatal(err)
	}

	var summary ugc.WalkSummary
	for _, err := range client.AllPosts(context.Background(), &ugc.PostsParams{Limit: 20}, ugc.WithSummary(&summary)) {
		if err != nil {
			log.Fatal(err) // the summary is filled here too
		}
		// ... handle the post
	}
	fmt.Printf("%d posts of %d, in %d pages; %d re-anchors, shortfall %d\n",
		summary.Posts, summary.CountAtEnd, summary.Pages, summary.Reanchors, summary.Shortfall)
	// Output: 36 posts of 36, in 2 pages; 0 re-anchors, shortfall 0
}

// TestSummaryCountsRetries: attempts that failed and were retried are in
// the summary, beside the requests.
func TestSummaryCountsRetries(t *testing.T) {
	t.Parallel()
	for _, mode := range iterModes {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			srv := ugctest.NewServer(t, ugctest.WithDataset(ugctest.Generate(60, 3)))
			srv.FailNext(2, ugctest.InternalError())
			var s ugc.WalkSummary
			n := 0
			for _, err := range srv.Client().AllPosts(context.Background(), nil, append(slices.Clone(mode.opts), ugc.WithSummary(&s))...) {
				require.NoError(t, err)
				n++
			}
			assert.Equal(t, 60, n)
			assert.Equal(t, 2, s.Retries)
			assert.Equal(t, 3, s.Requests)
		})
	}
}
