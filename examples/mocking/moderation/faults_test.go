package moderation_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
)

// The fault catalogue: each kind of failure a service built on the SDK
// should have a test for, set up with a ugctest.Rule on the endpoint it
// concerns. Each rule must fire, or the test fails at its end (a test that
// set up a failure and never saw it tests nothing).

// Failures the SDK absorbs: the service sees a clean, complete digest.
// Each rule fires on the inbox's second request, in the middle of the walk.
func TestDigest_AbsorbsWhatTheSDKRepairs(t *testing.T) {
	t.Parallel()
	for name, fault := range map[string]ugctest.Fault{
		// Transient answers, retried.
		"500":                        ugctest.InternalError(),
		"429 with Retry-After":       ugctest.RateLimit("0"),
		"503 outage":                 ugctest.ErrorResponse(http.StatusServiceUnavailable, "Service unavailable").WithHeader("Retry-After", "0"),
		"a proxy's 502 page":         ugctest.ProxyPage(http.StatusBadGateway),
		"dropped connection":         ugctest.DropConnection(),
		"body cut mid-way":           ugctest.TruncateBody(),
		"JSON cut, framing complete": ugctest.CutJSON(),
		"a short stall":              ugctest.Stall(5 * time.Millisecond),
		// Real servers' pages, read for what they are.
		"short page, next after it":        ugctest.ShortPage(3),
		"short page, next of the full one": ugctest.ShortPageSkipping(3),
		"list ends early, once":            ugctest.EndEarly(3),
		"relative next":                    ugctest.RelativeNext(),
		"next escaped another way":         ugctest.EscapedNext(),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := ugctest.NewServer(t, ugctest.WithDataset(inboxOf27()))
			srv.AddRule(ugctest.Rule{Name: name, Endpoint: ugctest.EndpointInbox, After: 1, Times: 1, Fault: fault})

			got, err := newService(t, srv.Client()).Digest(t.Context())
			require.NoError(t, err)
			assert.Equal(t, wantDigest27, got, "every post, once")
			assert.Equal(t, name, srv.Requests()[1].Rule, "the second request met the fault")
		})
	}
}

// A post with an odd field is kept, not dropped with its page: the SDK's
// tolerant reader (any client but srv.Client(), which is strict on
// purpose) keeps what it can read and reports the rest.
func TestDigest_KeepsAnOddPost(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t, ugctest.WithDataset(inboxOf27()))
	srv.AddRule(ugctest.Rule{Endpoint: ugctest.EndpointInbox, Times: 1, Fault: ugctest.OddPost(3)})
	client, err := ugc.NewClient(srv.URL, srv.APIKey, ugc.WithRetryWait(0, 0))
	require.NoError(t, err)

	got, err := newService(t, client).Digest(t.Context())
	require.NoError(t, err)
	assert.Equal(t, wantDigest27, got)
}

// Failures the service must surface: an error the caller can tell apart,
// and never a digest that silently lacks posts.
func TestDigest_SurfacesWhatCannotBeRepaired(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		rule  ugctest.Rule
		check func(t *testing.T, err error)
	}{
		{"key revoked mid-walk", ugctest.Rule{After: 1, Fault: ugctest.ErrorResponse(http.StatusUnauthorized, ugctest.MsgUnauthorized)},
			func(t *testing.T, err error) { assert.ErrorIs(t, err, ugc.ErrUnauthorized) }},
		{"inbox down for good", ugctest.Rule{Endpoint: ugctest.EndpointInbox, Fault: ugctest.InternalError()},
			func(t *testing.T, err error) { assert.ErrorIs(t, err, ugc.ErrServer) }},
		{"next on another host", ugctest.Rule{Fault: ugctest.ForeignNext("attacker.example")},
			func(t *testing.T, err error) {
				assert.ErrorIs(t, err, ugc.ErrBadNext)
				assert.Contains(t, err.Error(), "attacker.example")
			}},
		{"list always ends before its count", ugctest.Rule{After: 1, Fault: ugctest.EndEarly(0)},
			func(t *testing.T, err error) { assert.ErrorIs(t, err, ugc.ErrIncomplete) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := ugctest.NewServer(t, ugctest.WithDataset(inboxOf27()))
			srv.AddRule(tc.rule)
			got, err := newService(t, srv.Client(ugc.WithRetryMax(1))).Digest(t.Context())
			assert.Nil(t, got, "no partial digest")
			require.Error(t, err)
			tc.check(t, err)
			assert.NotContains(t, err.Error(), srv.APIKey)
		})
	}
}

// A server slower than the caller's deadline: the service returns the
// context's error promptly, not after the stall.
func TestDigest_HonoursTheDeadline(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t, ugctest.WithDataset(inboxOf27()))
	srv.AddRule(ugctest.Rule{Endpoint: ugctest.EndpointInbox, Fault: ugctest.Stall(time.Minute)})
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond) // time for the request to reach the fake under -race
	defer cancel()

	start := time.Now()
	_, err := newService(t, srv.Client()).Digest(ctx)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 10*time.Second)
}

// One endpoint failing does not take the others down: the featured feed
// works while the inbox is out.
func TestFeatured_WorksWhileTheInboxIsDown(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t, ugctest.WithDataset(feedDataset()))
	srv.AddRule(ugctest.Rule{Endpoint: ugctest.EndpointInbox, Fault: ugctest.ErrorResponse(http.StatusServiceUnavailable, "Service unavailable")})
	svc := newService(t, srv.Client(ugc.WithRetryMax(0)))

	_, err := svc.Digest(t.Context())
	assert.ErrorIs(t, err, ugc.ErrServer)
	items, err := svc.Featured(t.Context(), featuredID, "", 3)
	require.NoError(t, err)
	assert.NotEmpty(t, items)
}

// What the service sends is part of its contract too: the request log
// holds each request's headers (never the key's value) and its query as
// sent.
func TestDigest_SendsItsUserAgent(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t, ugctest.WithDataset(inboxOf27()))
	_, err := newService(t, srv.Client(ugc.WithUserAgent("moderation-digest/1.0"))).Digest(t.Context())
	require.NoError(t, err)
	for _, r := range srv.Requests() {
		assert.Contains(t, r.Header.Get("User-Agent"), "moderation-digest/1.0")
		assert.Equal(t, "[redacted]", r.Header.Get("X-Api-Key"))
	}
	assert.Equal(t, "limit=25", srv.Requests()[0].RawQuery)
}
