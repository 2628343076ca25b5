package ugc_test

// One Client shared by 64 goroutines, run under -race: every call gets the
// answer it asked for, whatever the others do at the same time.

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
)

func TestSharedClientAcrossGoroutines(t *testing.T) {
	t.Parallel()
	const (
		posts      = 300
		goroutines = 64
	)
	ds := ugctest.Generate(posts, 11)
	full := ds.Materialize()
	wantPosts := make([]string, 0, posts)
	for _, p := range full.Posts {
		wantPosts = append(wantPosts, p.ID)
	}
	wantInbox := idsOf(full.Inbox)
	wantGallery := map[string][]string{}
	for _, g := range full.Galleries {
		require.NotEmpty(t, g.PostIDs, "gallery %s", g.ShortID)
		wantGallery[g.ShortID] = g.PostIDs
	}
	require.Len(t, wantGallery, 2)

	srv := ugctest.NewServer(t, ugctest.WithDataset(ds))
	// Some requests fail, so retries of different calls interleave too.
	srv.FailFraction(0.05, 11, ugctest.InternalError(), ugctest.RateLimit("0"), ugctest.DropConnection(), ugctest.TruncateBody())
	c := srv.Client(ugc.WithRetryMax(10))
	ctx := context.Background()
	modes := [][]ugc.Option{{ugc.WithReadAhead(0)}, nil, {ugc.WithReadAhead(4)}}

	// Each goroutine runs one kind of call, chosen by its number, and
	// checks the answer against the dataset. assert, not require: these run
	// outside the test's goroutine.
	calls := []struct {
		name string
		run  func(t assert.TestingT, g int)
	}{
		{"Posts", func(t assert.TestingT, g int) {
			limit, skip := 1+g%25, (g*37)%posts
			page, err := c.Posts(ctx, &ugc.PostsParams{Limit: limit, Skip: skip})
			if assert.NoError(t, err) {
				assert.Equal(t, posts, page.Count)
				assert.Equal(t, wantPosts[skip:min(skip+limit, posts)], idsOf(page.Nodes))
			}
		}},
		{"GalleryPosts", func(t assert.TestingT, g int) {
			id := full.Galleries[g%2].ShortID
			page, err := c.GalleryPosts(ctx, id, &ugc.GalleryPostsParams{Limit: 25})
			if assert.NoError(t, err) {
				want := wantGallery[id]
				assert.Equal(t, len(want), page.Count)
				assert.Equal(t, want[:min(25, len(want))], idsOf(page.Nodes))
			}
		}},
		{"Inbox", func(t assert.TestingT, g int) {
			page, err := c.Inbox(ctx, &ugc.InboxParams{Limit: 3, Skip: g % 5})
			if assert.NoError(t, err) {
				assert.Equal(t, len(wantInbox), page.Count)
				assert.Equal(t, wantInbox[g%5:g%5+3], idsOf(page.Nodes))
				for _, p := range page.Nodes {
					if assert.NotNil(t, p.UploadedBy) {
						assert.NotEmpty(t, p.UploadedBy.Email)
					}
				}
			}
		}},
		{"AllPosts", func(t assert.TestingT, g int) {
			got, err := collectIDs(c.AllPosts(ctx, &ugc.PostsParams{Limit: 1 + g%25}, modes[g%3]...))
			assert.NoError(t, err)
			assert.Equal(t, wantPosts, got)
		}},
		{"AllGalleryPosts", func(t assert.TestingT, g int) {
			id := full.Galleries[g%2].ShortID
			got, err := collectIDs(c.AllGalleryPosts(ctx, id, &ugc.GalleryPostsParams{Limit: 4}, modes[g%3]...))
			assert.NoError(t, err)
			assert.Equal(t, wantGallery[id], got)
		}},
		{"AllInbox", func(t assert.TestingT, g int) {
			got, err := collectIDs(c.AllInbox(ctx, &ugc.InboxParams{Limit: 3}, modes[g%3]...))
			assert.NoError(t, err)
			assert.Equal(t, wantInbox, got)
		}},
	}

	var start, done sync.WaitGroup
	start.Add(1)
	for g := range goroutines {
		call := calls[g%len(calls)]
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait() // all 64 start together
			call.run(&prefixed{t: t, prefix: fmt.Sprintf("goroutine %d (%s): ", g, call.name)}, g)
		}()
	}
	start.Done()
	done.Wait()
	faults := 0
	for _, r := range srv.Requests() {
		if r.Fault != 0 {
			faults++
		}
	}
	assert.Positive(t, faults, "faults injected while the goroutines ran")
}

// collectIDs drains a post iterator: the IDs, and the error that ended it.
func collectIDs(seq func(func(ugc.Post, error) bool)) ([]string, error) {
	var ids []string
	for p, err := range seq {
		if err != nil {
			return ids, err
		}
		ids = append(ids, p.ID)
	}
	return ids, nil
}

// prefixed reports assertion failures to t with a prefix naming the
// goroutine. t.Errorf is safe to call from any goroutine.
type prefixed struct {
	t      *testing.T
	prefix string
}

func (p *prefixed) Errorf(format string, args ...any) {
	p.t.Errorf("%s"+format, append([]any{p.prefix}, args...)...)
}
