package ugc_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
)

// TestOptionsAtEveryLevel: one Option type for a Client, a call and a walk.
// An option of requests or walks given to NewClient is the default of every
// call or walk, and a call's own overrides it; an option of one level only is
// an error elsewhere that names where it belongs.
func TestOptionsAtEveryLevel(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t, ugctest.WithDataset(ugctest.Generate(30, 2)))
	ctx := context.Background()

	t.Run("a header given to the Client goes on every request", func(t *testing.T) {
		c := srv.Client(ugc.WithHeader("X-Job", "nightly"))
		_, err := c.Posts(ctx, &ugc.PostsParams{Limit: 5}, ugc.WithHeader("X-Call", "one"))
		require.NoError(t, err)
		n := 0
		for _, err := range c.AllPosts(ctx, &ugc.PostsParams{Limit: 10}) {
			require.NoError(t, err)
			n++
		}
		assert.Equal(t, 30, n)
		reqs := srv.Requests()
		require.NotEmpty(t, reqs)
		for _, r := range reqs {
			assert.Equal(t, "nightly", r.Header.Get("X-Job"), r.RawQuery)
		}
		assert.Equal(t, "one", reqs[0].Header.Get("X-Call"), "the call's own header too")
		assert.Empty(t, reqs[len(reqs)-1].Header.Get("X-Call"), "only on its call")
	})

	t.Run("a walk default given to the Client, and a walk's own", func(t *testing.T) {
		var sum ugc.WalkSummary
		c := srv.Client(ugc.WithReadAhead(0))
		for _, err := range c.AllPosts(ctx, &ugc.PostsParams{Limit: 10}, ugc.WithSummary(&sum)) {
			require.NoError(t, err)
		}
		assert.Equal(t, 30, sum.Posts)
		assert.Equal(t, 3, sum.Requests, "sequential: three pages, nothing foreseen")
	})

	for _, tc := range []struct {
		name, want string
		opt        ugc.Option
	}{
		{"a summary on a Client", "belongs to one walk", ugc.WithSummary(&ugc.WalkSummary{})},
		{"a checkpoint on a Client", "belongs to one walk", ugc.ResumeFrom(ugc.Checkpoint{})},
		{"an output of one call on a Client", "belongs to one call", ugc.WithResponseInto(&ugc.ResponseInfo{})},
		{"a bad default", "the x-api-key header carries the API key given to NewClient", ugc.WithHeader("X-Api-Key", "other")},
		{"a read-ahead out of range", "need 0 to 64", ugc.WithReadAhead(65)},
		{"nil", "nil Option", nil},
	} {
		t.Run("NewClient refuses "+tc.name, func(t *testing.T) {
			_, err := ugc.NewClient(srv.URL, srv.APIKey, tc.opt)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}

	c := srv.Client()
	for _, tc := range []struct {
		name, want string
		opt        ugc.Option
	}{
		{"a transport on a call", "configures a Client", ugc.WithHTTPClient(http.DefaultClient)},
		{"a logger on a call", "configures a Client", ugc.WithLogger(nil)},
		{"a summary on one call", "applies to a walk", ugc.WithSummary(&ugc.WalkSummary{})},
		{"a read-ahead on one call", "applies to a walk", ugc.WithReadAhead(2)},
	} {
		t.Run("a call refuses "+tc.name, func(t *testing.T) {
			_, err := c.Posts(ctx, nil, tc.opt)
			require.ErrorIs(t, err, ugc.ErrMisuse)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	t.Run("a walk refuses a transport, before any request", func(t *testing.T) {
		before := len(srv.Requests())
		for _, err := range c.AllPosts(ctx, nil, ugc.WithHTTPClient(http.DefaultClient)) {
			require.ErrorIs(t, err, ugc.ErrMisuse)
			assert.Contains(t, err.Error(), "configures a Client")
		}
		assert.Len(t, srv.Requests(), before)
	})
}
