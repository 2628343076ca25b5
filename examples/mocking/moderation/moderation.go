// Package moderation is a small service built on the ugc SDK, here to show
// how code that depends on the SDK is tested (see ../README.md): it drains
// the moderation inbox into a digest grouped by the member who submitted
// each post, and renders a market's featured feed.
//
// It depends on the SDK through [API], a small interface declared here, on
// the consumer's side, that *ugc.Client satisfies. Its tests nevertheless
// pass a real *ugc.Client talking to the fake server of package ugctest:
// that exercises pagination, retries and error mapping as they are, which a
// stub of the interface would only imitate.
package moderation

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"
	"strings"

	"github.com/ugcposts/ugc-go"
)

// API is the part of *ugc.Client the service uses.
type API interface {
	// Posts returns one page of approved posts; see [ugc.Client.Posts].
	Posts(ctx context.Context, params *ugc.PostsParams, opts ...ugc.Option) (*ugc.Page, error)
	// AllInbox iterates over the whole inbox; see [ugc.Client.AllInbox].
	AllInbox(ctx context.Context, params *ugc.InboxParams, opts ...ugc.Option) iter.Seq2[ugc.Post, error]
}

// The SDK's client is an API: checked when this package compiles.
var _ API = (*ugc.Client)(nil)

// Service builds moderation digests and featured feeds from an [API].
type Service struct {
	api API
}

// New returns a Service reading from api, usually a *ugc.Client.
func New(api API) (*Service, error) {
	if api == nil {
		return nil, errors.New("moderation: nil API")
	}
	return &Service{api: api}, nil
}

// UnknownSubmitter is the email under which a digest groups inbox posts that
// carry no uploader email (the contract says every inbox post has one).
const UnknownSubmitter = "(unknown)"

// Submitter is one member's pending posts.
type Submitter struct {
	// Email is the member's email, or [UnknownSubmitter].
	Email string
	// Username is the username on the member's first pending post.
	Username string
	// PostIDs are the member's pending posts, in inbox order.
	PostIDs []string
}

// Digest is the moderation inbox grouped by submitter.
type Digest struct {
	// Pending is the number of posts awaiting moderation.
	Pending int
	// Submitters has one entry per email: the most pending posts first, then
	// by email.
	Submitters []Submitter
}

// Digest reads the whole inbox, page after page, and groups its posts by
// the submitting member's email. It returns an error, and no digest, if any
// page cannot be read after the SDK's retries; the error wraps the SDK's, so
// errors.Is(err, ugc.ErrUnauthorized) and the like work.
func (s *Service) Digest(ctx context.Context) (*Digest, error) {
	d := &Digest{}
	index := map[string]int{} // email -> position in d.Submitters
	for post, err := range s.api.AllInbox(ctx, &ugc.InboxParams{Limit: ugc.MaxLimit}) {
		if err != nil {
			return nil, fmt.Errorf("moderation: reading the inbox: %w", err)
		}
		email, username := UnknownSubmitter, ""
		if post.UploadedBy != nil {
			username = post.UploadedBy.Username
			if post.UploadedBy.Email != "" {
				email = strings.ToLower(post.UploadedBy.Email)
			}
		}
		i, ok := index[email]
		if !ok {
			i = len(d.Submitters)
			index[email] = i
			d.Submitters = append(d.Submitters, Submitter{Email: email, Username: username})
		}
		d.Submitters[i].PostIDs = append(d.Submitters[i].PostIDs, post.ID)
		d.Pending++
	}
	slices.SortStableFunc(d.Submitters, func(a, b Submitter) int {
		return cmp.Or(cmp.Compare(len(b.PostIDs), len(a.PostIDs)), cmp.Compare(a.Email, b.Email))
	})
	return d, nil
}

// Render writes the digest as text, one line per submitter, and returns the
// writer's error.
func (d *Digest) Render(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%d posts awaiting moderation from %d members\n", d.Pending, len(d.Submitters))
	for _, s := range d.Submitters {
		fmt.Fprintf(&b, "%3d  %s (%s): %s\n", len(s.PostIDs), s.Email, s.Username, strings.Join(s.PostIDs, " "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// FeedItem is one post of a featured feed.
type FeedItem struct {
	// PostID is the post's ID.
	PostID string
	// Caption is the post's caption in the feed's market; empty when the
	// post hides its caption.
	Caption string
	// Products are the titles of the tagged products, in the market's
	// language.
	Products []string
	// Labels are the names of the post's named labels, in stored order.
	Labels []string
}

// MaxFeed is the largest feed [Service.Featured] builds: one page.
const MaxFeed = ugc.MaxLimit

// Featured returns up to n approved posts (1 to [MaxFeed]) that carry the
// label labelID, localized for market (a market ID or shortId; "" for the
// stored text). It makes one request. A malformed label ID is an error
// wrapping ugc.ErrInvalidParams, with the server's message, before any
// request.
func (s *Service) Featured(ctx context.Context, labelID, market string, n int) ([]FeedItem, error) {
	if n < 1 || n > MaxFeed {
		return nil, fmt.Errorf("moderation: feed size %d is outside 1..%d", n, MaxFeed)
	}
	page, err := s.api.Posts(ctx, &ugc.PostsParams{
		Limit:   n,
		Market:  market,
		Filter:  ugc.Filter{ugc.AnyLabel(labelID)},
		Include: []ugc.Include{ugc.IncludeLabels},
	})
	if err != nil {
		return nil, fmt.Errorf("moderation: featured posts: %w", err)
	}
	items := make([]FeedItem, 0, len(page.Nodes))
	for _, p := range page.Nodes {
		item := FeedItem{PostID: p.ID}
		if p.HideCaption == nil || !*p.HideCaption {
			item.Caption = p.Comment
		}
		for _, t := range p.TaggedProducts {
			item.Products = append(item.Products, t.Product.Title)
		}
		for _, l := range p.Labels {
			if l.Name != nil {
				item.Labels = append(item.Labels, *l.Name)
			}
		}
		items = append(items, item)
	}
	return items, nil
}
