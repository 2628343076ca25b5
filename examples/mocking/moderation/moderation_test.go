package moderation_test

// The tests run the service against the fake API of package ugctest, over
// real HTTP on loopback, with a real *ugc.Client: pagination, retries and
// error mapping are the SDK's own, and each test checks both what the
// service returns and what reached the server (srv.Requests()). Only the one
// case the fake cannot serve, an inbox post without an email, uses a stub of
// the service's own API interface.

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/examples/mocking/moderation"
	"github.com/ugcposts/ugc-go/ugctest"
)

// created is the creation time of every seeded post.
var created = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// inboxPost returns a pending post submitted by email.
func inboxPost(id, username, email string) ugc.Post {
	return ugc.Post{
		ID:         id,
		CreatedAt:  created,
		Media:      ugc.Media{Location: "https://cdn.example.com/" + id + ".jpg"},
		UploadedBy: &ugc.UploadedBy{Username: username, Email: email},
	}
}

// inboxOf27 returns a dataset whose inbox holds 27 posts, more than one
// page, interleaved: 14 from anna (under two spellings of her email), 8
// from lea and 5 from mike.
func inboxOf27() *ugctest.Dataset {
	ds := &ugctest.Dataset{}
	for i := range 27 {
		id := fmt.Sprintf("in%02d", i)
		switch {
		case i%2 == 0 && i < 14:
			ds.AddInboxPosts(inboxPost(id, "anna", "anna@example.com"))
		case i%2 == 0:
			ds.AddInboxPosts(inboxPost(id, "Anna", "Anna@Example.com"))
		case i%3 == 0 || i == 1:
			ds.AddInboxPosts(inboxPost(id, "mike", "mike@example.com"))
		default:
			ds.AddInboxPosts(inboxPost(id, "lea", "lea@example.com"))
		}
	}
	return ds
}

// wantDigest27 is the digest of inboxOf27: most posts first.
var wantDigest27 = &moderation.Digest{
	Pending: 27,
	Submitters: []moderation.Submitter{
		{Email: "anna@example.com", Username: "anna", PostIDs: []string{"in00", "in02", "in04", "in06", "in08", "in10", "in12", "in14", "in16", "in18", "in20", "in22", "in24", "in26"}},
		{Email: "lea@example.com", Username: "lea", PostIDs: []string{"in05", "in07", "in11", "in13", "in17", "in19", "in23", "in25"}},
		{Email: "mike@example.com", Username: "mike", PostIDs: []string{"in01", "in03", "in09", "in15", "in21"}},
	},
}

func newService(t *testing.T, api moderation.API) *moderation.Service {
	t.Helper()
	svc, err := moderation.New(api)
	require.NoError(t, err)
	return svc
}

// statuses returns the status of each logged request, in order.
func statuses(reqs []ugctest.Request) []int {
	out := make([]int, len(reqs))
	for i, r := range reqs {
		out[i] = r.Status
	}
	return out
}

func TestDigest_GroupsTheWholeInboxByEmail(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t, ugctest.WithDataset(inboxOf27()))
	svc := newService(t, srv.Client())

	got, err := svc.Digest(t.Context())
	require.NoError(t, err)

	assert.Equal(t, wantDigest27, got)

	// Two pages of at most 25, the second one by the first one's next URL,
	// which the SDK starts one post earlier (skip 24, not 25) so that the
	// answer shows the last post it already has: posts added or removed
	// meanwhile can then cost none.
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	for i, wantSkip := range []string{"", "24"} {
		assert.Equal(t, "/v1/inbox", reqs[i].Path)
		assert.Equal(t, "25", reqs[i].Query.Get("limit"))
		assert.Equal(t, wantSkip, reqs[i].Query.Get("skip"))
		assert.True(t, reqs[i].KeyValid)
		assert.Equal(t, http.StatusOK, reqs[i].Status)
	}
}

func TestDigest_Render(t *testing.T) {
	t.Parallel()
	d := &moderation.Digest{Pending: 3, Submitters: []moderation.Submitter{
		{Email: "anna@example.com", Username: "anna", PostIDs: []string{"a", "b"}},
		{Email: "mike@example.com", Username: "mike", PostIDs: []string{"c"}},
	}}
	var b strings.Builder
	require.NoError(t, d.Render(&b))
	assert.Equal(t, "3 posts awaiting moderation from 2 members\n"+
		"  2  anna@example.com (anna): a b\n"+
		"  1  mike@example.com (mike): c\n", b.String())
}

func TestDigest_EmptyInbox(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t, ugctest.WithDataset(&ugctest.Dataset{}))

	got, err := newService(t, srv.Client()).Digest(t.Context())
	require.NoError(t, err)
	assert.Equal(t, &moderation.Digest{}, got)
	assert.Len(t, srv.Requests(), 1)
}

// Transient failures are the SDK's business: the service sees a clean walk,
// and the server saw the failed attempt and its retry.
func TestDigest_RecoversFromTransientFaults(t *testing.T) {
	t.Parallel()
	for _, fault := range []ugctest.Fault{
		ugctest.InternalError(),
		ugctest.RateLimit("0"),
		ugctest.DropConnection(),
		ugctest.TruncateBody(),
	} {
		t.Run(fault.Kind.String(), func(t *testing.T) {
			t.Parallel()
			srv := ugctest.NewServer(t, ugctest.WithDataset(inboxOf27()))
			svc := newService(t, srv.Client()) // retries without waiting
			srv.FailNext(1, fault)

			got, err := svc.Digest(t.Context())
			require.NoError(t, err)
			assert.Equal(t, wantDigest27, got)

			reqs := srv.Requests()
			require.Len(t, reqs, 3, "the failed attempt, its retry, the second page")
			assert.Equal(t, fault.Kind, reqs[0].Fault)
			assert.Equal(t, reqs[0].Query, reqs[1].Query, "the retry asks for the same page")
			assert.Equal(t, []int{http.StatusOK, http.StatusOK}, statuses(reqs[1:]))
		})
	}
}

// A server that keeps failing: after the SDK's retries the service returns
// the server's answer, wrapped, and no digest.
func TestDigest_GivesUpAfterTheRetries(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t, ugctest.WithDataset(inboxOf27()))
	svc := newService(t, srv.Client(ugc.WithRetryMax(2)))
	srv.FailNext(3, ugctest.InternalError())

	got, err := svc.Digest(t.Context())
	assert.Nil(t, got)
	require.ErrorIs(t, err, ugc.ErrServer)
	var apiErr *ugc.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, "Something went wrong", apiErr.Message)
	assert.Equal(t, []int{500, 500, 500}, statuses(srv.Requests()), "one attempt and two retries")
}

// A wrong key is permanent: no retry, and the caller can tell it apart.
func TestDigest_SurfacesAWrongKey(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t, ugctest.WithDataset(inboxOf27()))
	client, err := ugc.NewClient(srv.URL, "not-the-key", ugc.WithRetryWait(0, 0))
	require.NoError(t, err)

	got, err := newService(t, client).Digest(t.Context())
	assert.Nil(t, got)
	require.ErrorIs(t, err, ugc.ErrUnauthorized)
	var apiErr *ugc.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, "No valid API key provided", apiErr.Message)
	assert.NotContains(t, err.Error(), "not-the-key")

	reqs := srv.Requests()
	require.Len(t, reqs, 1, "a 401 is not retried")
	assert.False(t, reqs[0].KeyValid)
	assert.Equal(t, http.StatusUnauthorized, reqs[0].Status)
}

// stubAPI is the service's own interface, implemented by hand. Use one only
// for what the fake cannot serve: here, inbox posts that break the
// contract.
type stubAPI struct {
	inbox []ugc.Post
	err   error // yielded after the posts, if set
}

func (s stubAPI) Posts(context.Context, *ugc.PostsParams, ...ugc.Option) (*ugc.Page, error) {
	return nil, errors.New("stubAPI: Posts is not stubbed")
}

func (s stubAPI) AllInbox(context.Context, *ugc.InboxParams, ...ugc.Option) iter.Seq2[ugc.Post, error] {
	return func(yield func(ugc.Post, error) bool) {
		for _, p := range s.inbox {
			if !yield(p, nil) {
				return
			}
		}
		if s.err != nil {
			yield(ugc.Post{}, s.err)
		}
	}
}

func TestDigest_PostsWithoutEmail(t *testing.T) {
	t.Parallel()
	noEmail := inboxPost("p2", "ghost", "")
	anonymous := inboxPost("p3", "", "")
	anonymous.UploadedBy = nil
	svc := newService(t, stubAPI{inbox: []ugc.Post{inboxPost("p1", "anna", "anna@example.com"), noEmail, anonymous}})

	got, err := svc.Digest(t.Context())
	require.NoError(t, err)
	assert.Equal(t, &moderation.Digest{Pending: 3, Submitters: []moderation.Submitter{
		{Email: moderation.UnknownSubmitter, Username: "ghost", PostIDs: []string{"p2", "p3"}},
		{Email: "anna@example.com", Username: "anna", PostIDs: []string{"p1"}},
	}}, got)
}

func TestDigest_NoPartialDigestOnAnErrorMidWalk(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	svc := newService(t, stubAPI{inbox: []ugc.Post{inboxPost("p1", "anna", "anna@example.com")}, err: boom})

	got, err := svc.Digest(t.Context())
	assert.Nil(t, got)
	assert.ErrorIs(t, err, boom)
}

// Label IDs and market of the featured-feed dataset.
const (
	featuredID = "aaaaaaaaaaaaaaaaaaaaaaaa"
	otherID    = "bbbbbbbbbbbbbbbbbbbbbbbb"
	unnamedID  = "cccccccccccccccccccccccc"
	marketID   = "dddddddddddddddddddddddd"
)

// feedDataset returns five approved posts, four of them labelled Featured,
// and the market de-de, which localizes the first one's caption and product.
func feedDataset() *ugctest.Dataset {
	ds := &ugctest.Dataset{}
	ds.AddLabel(ugctest.NewLabel(featuredID, "Featured"))
	ds.AddLabel(ugctest.NewLabel(otherID, "Other"))
	ds.AddLabel(ugctest.Label{ID: unnamedID}) // a nil Name: unnamed
	post := func(id, comment string) ugc.Post {
		p := ugctest.NewPost(id) // valid, with defaults; the test sets what it cares about
		p.Comment = comment
		return p
	}
	p1 := post("p1", "Summer dress #summer")
	p1.TaggedProducts = []ugc.TaggedProduct{{X: 0.5, Y: 0.5, Product: ugc.Product{ID: "dress", Title: "Linen dress", Handle: "linen-dress"}}}
	ds.AddPost(p1, otherID, featuredID, unnamedID)
	ds.AddPost(post("p2", "Not featured"), otherID)
	p3 := post("p3", "Secret caption")
	hide := true
	p3.HideCaption = &hide
	ds.AddPost(p3, featuredID)
	ds.AddPost(post("p4", "Fourth"), featuredID)
	ds.AddPost(post("p5", "Fifth"), featuredID)
	ds.AddMarket(ugctest.Market{ID: marketID, ShortID: "de-de", Content: map[string]ugctest.Localization{
		"p1": {Comment: "Sommerkleid #summer", Products: map[string]ugctest.ProductLocalization{"dress": {Title: "Leinenkleid"}}},
	}})
	return ds
}

func TestFeatured_ListsLabelledPostsInTheMarket(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t, ugctest.WithDataset(feedDataset()))

	got, err := newService(t, srv.Client()).Featured(t.Context(), featuredID, "de-de", 3)
	require.NoError(t, err)
	assert.Equal(t, []moderation.FeedItem{
		{PostID: "p1", Caption: "Sommerkleid #summer", Products: []string{"Leinenkleid"}, Labels: []string{"Other", "Featured"}},
		{PostID: "p3", Labels: []string{"Featured"}}, // hideCaption
		{PostID: "p4", Caption: "Fourth", Labels: []string{"Featured"}},
	}, got)

	reqs := srv.Requests()
	require.Len(t, reqs, 1, "one page, no walk")
	q := reqs[0].Query
	assert.Equal(t, "/v1/posts", reqs[0].Path)
	assert.Equal(t, "3", q.Get("limit"))
	assert.Equal(t, "de-de", q.Get("market"))
	assert.Equal(t, "labels", q.Get("include"))
	assert.JSONEq(t, `[{"type":"label","operator":"OR","values":["`+featuredID+`"]}]`, q.Get("filter"))
}

func TestFeatured_MarketByID(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t, ugctest.WithDataset(feedDataset()))

	got, err := newService(t, srv.Client()).Featured(t.Context(), featuredID, marketID, 1)
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, "Sommerkleid #summer", got[0].Caption)
}

func TestFeatured_BadLabelIDFailsBeforeAnyRequest(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t, ugctest.WithDataset(feedDataset()))

	got, err := newService(t, srv.Client()).Featured(t.Context(), "featured", "", 3)
	assert.Nil(t, got)
	require.ErrorIs(t, err, ugc.ErrInvalidParams)
	var fe *ugc.FilterError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, `Filter value "featured" is not a valid ID`, fe.Message)
	assert.Empty(t, srv.Requests())
}

func TestFeatured_UnknownMarketIsABadRequest(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t, ugctest.WithDataset(feedDataset()))

	_, err := newService(t, srv.Client()).Featured(t.Context(), featuredID, "xx-xx", 3)
	require.ErrorIs(t, err, ugc.ErrBadRequest)
	var apiErr *ugc.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, "Market xx-xx not found", apiErr.Message)
	assert.Len(t, srv.Requests(), 1, "a 400 is not retried")
}

func TestFeatured_SizeOutOfRange(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t, ugctest.WithDataset(feedDataset()))
	svc := newService(t, srv.Client())

	for _, n := range []int{-1, 0, moderation.MaxFeed + 1} {
		_, err := svc.Featured(t.Context(), featuredID, "", n)
		assert.Error(t, err, "n = %d", n)
	}
	assert.Empty(t, srv.Requests())
}

func TestNew_RefusesANilAPI(t *testing.T) {
	t.Parallel()
	_, err := moderation.New(nil)
	assert.Error(t, err)
}
