package ugctest_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
)

// TestEveryAnswerCarriesARequestID: a page, the contract's errors, an
// injected fault and a refusal over the quota all carry X-Request-Id, the
// ID the request log holds; the SDK's RequestID reads it from a success
// (ResponseInfo) and from a failure (APIError), so a downstream test of
// request-ID propagation needs no gock. A Respond fault that names its own
// ID sends that one.
func TestEveryAnswerCarriesARequestID(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t)
	c := srv.Client(ugc.WithRetryMax(0))
	ctx := context.Background()

	var info ugc.ResponseInfo
	_, err := c.Posts(ctx, &ugc.PostsParams{Limit: 2}, ugc.WithResponseInto(&info))
	require.NoError(t, err)
	assert.Equal(t, "ugcfake-1", info.RequestID())

	srv.FailNext(1, ugctest.InternalError())
	_, err = c.Inbox(ctx, nil)
	var apiErr *ugc.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, "ugcfake-2", apiErr.RequestID())

	_, err = c.Posts(ctx, &ugc.PostsParams{Include: []ugc.Include{"labels"}}, ugc.WithHeader("X-Other", "x"))
	require.NoError(t, err)
	_, err = c.GalleryPosts(ctx, "no-such-gallery", nil)
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, "ugcfake-4", apiErr.RequestID(), "a 404 of the fake")

	srv.FailNext(1, ugctest.ErrorResponse(http.StatusServiceUnavailable, "down").WithHeader("X-Request-Id", "gateway-7"))
	_, err = c.Posts(ctx, nil)
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, "gateway-7", apiErr.RequestID(), "a fault's own ID wins")

	reqs := srv.Requests()
	require.Len(t, reqs, 5)
	for i, want := range []string{"ugcfake-1", "ugcfake-2", "ugcfake-3", "ugcfake-4", "ugcfake-5"} {
		assert.Equal(t, want, reqs[i].ID, "the log holds the ID of each answer, in order")
	}

	quota := ugctest.NewServer(t, ugctest.WithQuota(0.001, 1))
	resp, err := rawGet(t, quota, "/v1/posts")
	require.NoError(t, err)
	_ = resp.Body.Close()
	resp, err = rawGet(t, quota, "/v1/posts")
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	assert.Equal(t, "ugcfake-2", resp.Header.Get("X-Request-Id"), "a refusal over the quota too")
}
