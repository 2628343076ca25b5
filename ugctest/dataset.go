package ugctest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/internal/filterrules"
)

// Dataset is everything a fake server serves: approved posts in stored
// order, pending inbox posts, galleries, labels and markets with their
// localized content.
//
// Fill it directly or with the Add methods, then hand it to [NewHandler] or
// [WithDataset]. The handler copies the lists when it starts, so later
// changes to the Dataset do not reach a running server (use the drift
// helpers such as [Handler.InsertPosts] for that); do not change the posts
// themselves while a server uses them.
//
// A Dataset made by [Generate] also holds generated posts, which come first
// in stored order, before Posts; they are built on demand and take no memory
// until served.
type Dataset struct {
	// Posts are the approved posts, in stored order: the order of every list.
	Posts []Post `json:"posts"`
	// Inbox are the posts pending moderation; each must carry
	// UploadedBy.Email.
	Inbox []ugc.Post `json:"inbox"`
	// Galleries list approved post IDs by gallery shortId.
	Galleries []Gallery `json:"galleries"`
	// Labels are all labels of the account, available or not.
	Labels []Label `json:"labels"`
	// Markets localize post content.
	Markets []Market `json:"markets"`

	gen *generator // generated posts, served before Posts; nil if none
}

// Post is an approved post of a [Dataset]: the post as the API writes it
// (without labels) and the IDs of the labels attached to it, in stored
// order. Label IDs that name no [Label] of the dataset never resolve.
//
// Its JSON form is {"post": {...}, "labelIds": [...]}.
type Post struct {
	ugc.Post
	// LabelIDs are the labels attached to the post, in stored order.
	LabelIDs []string
}

// postJSON is the JSON form of a Post.
type postJSON struct {
	Post     ugc.Post `json:"post"`
	LabelIDs []string `json:"labelIds,omitempty"`
}

// MarshalJSON writes {"post": ..., "labelIds": [...]}. It is defined here so
// that the embedded ugc.Post's own MarshalJSON is not promoted.
// A nil TaggedProducts is written as [], as the API writes it.
func (p Post) MarshalJSON() ([]byte, error) {
	post := p.Post
	if post.TaggedProducts == nil {
		post.TaggedProducts = []ugc.TaggedProduct{}
	}
	return json.Marshal(postJSON{Post: post, LabelIDs: p.LabelIDs})
}

// UnmarshalJSON reads the form MarshalJSON writes; unknown fields are an
// error.
func (p *Post) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var v postJSON
	if err := dec.Decode(&v); err != nil {
		return err
	}
	p.Post, p.LabelIDs = v.Post, v.LabelIDs
	return nil
}

// Gallery is a named selection of approved posts.
type Gallery struct {
	// ShortID is the gallery's path parameter in /v1/galleries/{id}/posts.
	ShortID string `json:"shortId"`
	// PostIDs are the gallery's posts, in gallery order. IDs that are not
	// (or no longer) approved posts are skipped when serving.
	PostIDs []string `json:"postIds"`
}

// Label is a label of the account.
type Label struct {
	// ID is 24 hexadecimal characters.
	ID string `json:"id"`
	// Name is nil for an unnamed label; markets never translate it.
	Name *string `json:"name"`
	// Removed labels are never served nor matched by filters.
	Removed bool `json:"removed,omitempty"`
	// Inaccessible labels are never served nor matched by filters.
	Inaccessible bool `json:"inaccessible,omitempty"`
}

// Available reports whether the label is served: neither removed nor
// inaccessible.
func (l Label) Available() bool { return !l.Removed && !l.Inaccessible }

// Market is a market that localizes post content with the market query
// parameter, by ID or by shortId.
type Market struct {
	// ID is 24 hexadecimal characters.
	ID string `json:"id"`
	// ShortID is the market's short name, such as "de-de".
	ShortID string `json:"shortId"`
	// Content localizes posts, by post ID. Posts without an entry, and
	// fields left empty in an entry, keep their stored text.
	Content map[string]Localization `json:"content,omitempty"`
}

// Localization is a market's text for one post. Empty fields keep the
// stored text. Label names are never localized.
type Localization struct {
	Comment          string `json:"comment,omitempty"`
	Alt              string `json:"alt,omitempty"`
	VideoCaptions    string `json:"videoCaptions,omitempty"`
	VideoDescription string `json:"videoDescription,omitempty"`
	// Products localize tagged products, by product ID.
	Products map[string]ProductLocalization `json:"products,omitempty"`
}

// ProductLocalization is a market's version of a tagged product. Empty
// fields keep the stored values.
type ProductLocalization struct {
	Title string     `json:"title,omitempty"`
	Price *ugc.Price `json:"price,omitempty"`
	URL   string     `json:"url,omitempty"`
}

// AddPosts appends approved posts without labels, in order, to the stored
// order; [Dataset.AddPost] adds one with its labels. Both take the ugc.Post
// that [Dataset.AddInboxPosts] and [NewPost] use.
func (d *Dataset) AddPosts(posts ...ugc.Post) {
	for _, p := range posts {
		d.Posts = append(d.Posts, Post{Post: p})
	}
}

// AddInboxPosts appends pending posts to the inbox. Each must carry
// UploadedBy.Email, or the handler refuses the dataset.
func (d *Dataset) AddInboxPosts(posts ...ugc.Post) { d.Inbox = append(d.Inbox, posts...) }

// AddGallery adds a gallery listing postIDs, in that order.
func (d *Dataset) AddGallery(shortID string, postIDs ...string) {
	d.Galleries = append(d.Galleries, Gallery{ShortID: shortID, PostIDs: postIDs})
}

// AddLabel adds a label.
func (d *Dataset) AddLabel(l Label) { d.Labels = append(d.Labels, l) }

// AddMarket adds a market.
func (d *Dataset) AddMarket(m Market) { d.Markets = append(d.Markets, m) }

// Len returns the number of approved posts, generated ones included.
func (d *Dataset) Len() int {
	n := len(d.Posts)
	if d.gen != nil {
		n += d.gen.n
	}
	return n
}

// Materialize returns a copy of d in which generated posts (and their
// localizations) are ordinary Posts and market Content entries, so it can
// be saved or edited. A dataset with no generated posts is copied as is.
func (d *Dataset) Materialize() *Dataset {
	out := *d
	out.gen = nil
	out.Posts = nil
	out.Markets = make([]Market, len(d.Markets))
	for i, m := range d.Markets {
		out.Markets[i] = m
		out.Markets[i].Content = make(map[string]Localization, len(m.Content))
		for k, v := range m.Content {
			out.Markets[i].Content[k] = v
		}
	}
	if d.gen != nil {
		out.Posts = make([]Post, 0, d.Len())
		for i := range d.gen.n {
			p := d.gen.post(i)
			out.Posts = append(out.Posts, p)
			for mi := range out.Markets {
				if loc, ok := d.gen.localization(mi, i, &p.Post); ok {
					out.Markets[mi].Content[p.ID] = loc
				}
			}
		}
	}
	out.Posts = append(out.Posts, d.Posts...)
	for i := range out.Markets {
		if len(out.Markets[i].Content) == 0 {
			out.Markets[i].Content = nil
		}
	}
	return &out
}

// Save writes d as indented JSON, the format [LoadDataset] reads.
// Generated posts are written out in full (see [Dataset.Materialize]).
// It returns the writer's error.
func (d *Dataset) Save(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(d.Materialize())
}

// LoadDataset reads a dataset written by [Dataset.Save]. It returns an
// error for malformed JSON, unknown fields or trailing data; the content
// itself is checked by [NewHandler].
func LoadDataset(r io.Reader) (*Dataset, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	d := new(Dataset)
	if err := dec.Decode(d); err != nil {
		return nil, fmt.Errorf("ugctest: LoadDataset: %w", err)
	}
	if dec.More() {
		return nil, errors.New("ugctest: LoadDataset: trailing data after the dataset")
	}
	return d, nil
}

// validate checks what the handler relies on; it returns the first problem.
func (d *Dataset) validate() error {
	for _, check := range []func() error{d.validateLabels, d.validateMarkets, d.validatePosts, d.validateInbox, d.validateGalleries} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// validateLabels checks the labels: 24-hexadecimal IDs, none twice (in any case).
func (d *Dataset) validateLabels() error {
	labelIDs := make(map[string]bool, len(d.Labels))
	for i, l := range d.Labels {
		if !filterrules.IsID(l.ID) {
			return fmt.Errorf("labels[%d]: id %q is not 24 hexadecimal characters", i, l.ID)
		}
		key := strings.ToLower(l.ID)
		if labelIDs[key] {
			return fmt.Errorf("labels[%d]: duplicate id %q", i, l.ID)
		}
		labelIDs[key] = true
	}
	return nil
}

// validateMarkets checks the markets: 24-hexadecimal IDs and a shortId, neither twice.
func (d *Dataset) validateMarkets() error {
	seen := map[string]bool{}
	for i, m := range d.Markets {
		if !filterrules.IsID(m.ID) {
			return fmt.Errorf("markets[%d]: id %q is not 24 hexadecimal characters", i, m.ID)
		}
		if m.ShortID == "" {
			return fmt.Errorf("markets[%d]: empty shortId", i)
		}
		for _, k := range []string{"id:" + strings.ToLower(m.ID), "short:" + m.ShortID} {
			if seen[k] {
				return fmt.Errorf("markets[%d]: duplicate %s", i, k)
			}
			seen[k] = true
		}
	}
	return nil
}

// validatePosts checks the approved posts: the contract's required fields, no ID twice.
func (d *Dataset) validatePosts() error {
	ids := map[string]bool{}
	for i := range d.Posts {
		if err := checkPost(&d.Posts[i].Post); err != nil {
			return fmt.Errorf("posts[%d]: %w", i, err)
		}
		if ids[d.Posts[i].ID] {
			return fmt.Errorf("posts[%d]: duplicate id %q", i, d.Posts[i].ID)
		}
		ids[d.Posts[i].ID] = true
	}
	return nil
}

// validateInbox checks the inbox posts: the required fields and uploadedBy.email.
func (d *Dataset) validateInbox() error {
	for i := range d.Inbox {
		p := &d.Inbox[i]
		if err := checkPost(p); err != nil {
			return fmt.Errorf("inbox[%d]: %w", i, err)
		}
		if p.UploadedBy == nil || p.UploadedBy.Email == "" {
			return fmt.Errorf("inbox[%d]: uploadedBy.email is required for inbox posts", i)
		}
	}
	return nil
}

// validateGalleries checks the galleries: a shortId without '/', none twice.
func (d *Dataset) validateGalleries() error {
	galleries := map[string]bool{}
	for i, g := range d.Galleries {
		if g.ShortID == "" || strings.Contains(g.ShortID, "/") {
			return fmt.Errorf("galleries[%d]: shortId %q must be non-empty and without '/'", i, g.ShortID)
		}
		if galleries[g.ShortID] {
			return fmt.Errorf("galleries[%d]: duplicate shortId %q", i, g.ShortID)
		}
		galleries[g.ShortID] = true
	}
	return nil
}

// checkPost checks the required fields of the contract (§2.2).
func checkPost(p *ugc.Post) error {
	switch {
	case p.ID == "":
		return errors.New("empty id")
	case p.CreatedAt.IsZero():
		return errors.New("zero createdAt")
	case p.Media.Location == "":
		return errors.New("empty media.location")
	case p.Origin != nil && p.Origin.Type == "":
		return errors.New("empty origin.type")
	case p.UploadedBy != nil && p.UploadedBy.Username == "":
		return errors.New("empty uploadedBy.username")
	}
	for i, t := range p.TaggedProducts {
		if t.Product.ID == "" || t.Product.Title == "" || t.Product.Handle == "" {
			return fmt.Errorf("taggedProducts[%d]: product needs id, title and handle", i)
		}
	}
	return nil
}

// LocalizingMarkets returns the markets that localize at least one approved
// post. For generated posts it looks at the first 100.
func (d *Dataset) LocalizingMarkets() []Market {
	var out []Market
	for mi, m := range d.Markets {
		ok := len(m.Content) > 0
		if !ok && d.gen != nil && mi < len(marketShortIDs) {
			for i := 0; i < min(d.gen.n, 100) && !ok; i++ {
				p := d.gen.post(i)
				_, ok = d.gen.localization(mi, i, &p.Post)
			}
		}
		if ok {
			out = append(out, m)
		}
	}
	return out
}
