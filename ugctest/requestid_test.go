package ugctest_test

import (
	"context"
	"fmt"
	"math/rand/v2"
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
	for i, want := range []string{"ugcfake-1", "ugcfake-2", "ugcfake-3", "ugcfake-4", "gateway-7"} {
		assert.Equal(t, want, reqs[i].ID, "the log holds the ID of each answer as the client saw it")
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

// TestTheLogHoldsTheIDTheClientSaw: over generated faults, some setting an
// X-Request-Id of their own (in any case of the header's name), the
// request log's ID of each request is the ID the client read from its
// answer, an error's or a success's.
func TestTheLogHoldsTheIDTheClientSaw(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(49, 10))
	srv := ugctest.NewServer(t)
	c := srv.Client(ugc.WithRetryMax(0))
	var seen []string
	for i := range 200 {
		status := []int{400, 401, 404, 429, 500, 502, 503}[r.IntN(7)]
		fault := ugctest.ErrorResponse(status, "fault")
		switch r.IntN(3) {
		case 0:
			fault = fault.WithHeader([]string{"X-Request-Id", "x-request-id", "X-REQUEST-ID"}[r.IntN(3)], fmt.Sprintf("edge-%d", i))
		case 1:
			fault.Header = http.Header{"x-request-id": {fmt.Sprintf("raw-%d", i)}} // not canonical, as a literal may be
		}
		if r.IntN(4) > 0 {
			srv.FailNext(1, fault)
		}
		var info ugc.ResponseInfo
		_, err := c.Inbox(context.Background(), &ugc.InboxParams{Limit: 1}, ugc.WithThrottleBudget(0), ugc.WithResponseInto(&info))
		if err != nil {
			seen = append(seen, ugc.RequestID(err))
		} else {
			seen = append(seen, info.RequestID())
		}
	}
	reqs := srv.Requests()
	require.Len(t, reqs, len(seen))
	for i := range reqs {
		assert.Equal(t, seen[i], reqs[i].ID, "request %d", i)
		assert.NotEmpty(t, reqs[i].ID)
	}
}
