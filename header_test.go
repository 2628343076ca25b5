package ugc_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
)

// TestCallHeaderReplacesTheClients: a call's or walk's WithHeader replaces
// the Client's value of that name for it alone; several at one level add
// values; names the Client does not set are kept.
func TestCallHeaderReplacesTheClients(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t, ugctest.WithDataset(ugctest.Generate(4, 1)))
	c := srv.Client(ugc.WithHeader("X-Tenant", "default"), ugc.WithHeader("X-Job", "nightly"))
	ctx := context.Background()

	_, err := c.Posts(ctx, nil, ugc.WithHeader("x-tenant", "acme"))
	require.NoError(t, err)
	_, err = c.Posts(ctx, nil, ugc.WithHeader("X-Tenant", "a"), ugc.WithHeader("X-Tenant", "b"))
	require.NoError(t, err)
	for _, err := range c.AllPosts(ctx, &ugc.PostsParams{Limit: 2}, ugc.WithReadAhead(0), ugc.WithHeader("X-Tenant", "walk")) {
		require.NoError(t, err)
	}
	_, err = c.Posts(ctx, nil)
	require.NoError(t, err)

	reqs := srv.Requests()
	require.Len(t, reqs, 5)
	want := [][]string{{"acme"}, {"a", "b"}, {"walk"}, {"walk"}, {"default"}}
	for i, r := range reqs {
		assert.Equal(t, want[i], r.Header.Values("X-Tenant"), "request %d", i+1)
		assert.Equal(t, []string{"nightly"}, r.Header.Values("X-Job"), "request %d keeps the Client's other headers", i+1)
	}
}

// TestReservedHeadersNameTheOptionToUse: the headers the client sets itself
// are refused at every level, before any request, with an error that says
// what sets them.
func TestReservedHeadersNameTheOptionToUse(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t)
	c := srv.Client()
	ctx := context.Background()
	for _, tc := range []struct{ name, want string }{
		{"x-api-key", "carries the API key given to NewClient"},
		{"X-API-KEY", "carries the API key given to NewClient"},
		{" X-Api-Key", "carries the API key given to NewClient"},
		{"User-Agent", "WithUserAgent"},
		{"user-agent", "WithUserAgent"},
		{"Host", "base URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ugc.NewClient(srv.URL, srv.APIKey, ugc.WithHeader(tc.name, "v"))
			require.ErrorIs(t, err, ugc.ErrMisuse)
			assert.Contains(t, err.Error(), tc.want)

			_, err = c.Posts(ctx, nil, ugc.WithHeader(tc.name, "v"))
			require.ErrorIs(t, err, ugc.ErrMisuse)
			assert.Contains(t, err.Error(), tc.want)

			for _, err := range c.AllInbox(ctx, nil, ugc.WithHeader(tc.name, "v")) {
				require.ErrorIs(t, err, ugc.ErrMisuse)
				assert.Contains(t, err.Error(), tc.want)
			}
		})
	}
	assert.Empty(t, srv.Requests(), "refused before any request")
}
