package ugc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"
)

// MediaType is the media type of a post. The contract names IMAGE and VIDEO as
// typical values and does not list the rest, so any other value the server
// sends is kept as it is.
type MediaType string

// The media types the contract names.
const (
	MediaTypeImage MediaType = "IMAGE"
	MediaTypeVideo MediaType = "VIDEO"
)

// Post is one user-generated-content post (contract §2.2).
//
// Required fields are plain values. Optional booleans are pointers, so nil
// means "the server did not say" and a non-nil false means "false".
// SocialDate is the zero time when absent. Optional strings are empty when
// absent. Labels is nil unless the request asked for include=labels; then it
// is non-nil, possibly empty.
type Post struct {
	ID               string          `json:"id"`
	CreatedAt        time.Time       `json:"createdAt"`
	Media            Media           `json:"media"`
	TaggedProducts   []TaggedProduct `json:"taggedProducts"`
	Origin           *PostOrigin     `json:"origin,omitempty"`
	Alt              string          `json:"alt,omitempty"`
	VideoCaptions    string          `json:"videoCaptions,omitempty"`
	VideoDescription string          `json:"videoDescription,omitempty"`
	SocialURL        string          `json:"socialUrl,omitempty"`
	Type             MediaType       `json:"type,omitempty"`
	FromSocial       *bool           `json:"fromSocial,omitempty"`
	AddedByCompany   *bool           `json:"addedByCompany,omitempty"`
	SocialDate       time.Time       `json:"socialDate,omitzero"`
	Comment          string          `json:"comment,omitempty"`
	HideCaption      *bool           `json:"hideCaption,omitempty"`
	UploadedBy       *UploadedBy     `json:"uploadedBy,omitempty"`
	Labels           []Label         `json:"labels,omitzero"`
}

// PostOrigin names the platform or source a post came from (contract §2.3).
// The contract does not list the values, so Type is kept as sent.
type PostOrigin struct {
	Type string `json:"type"`
}

// Media is an image or video file (contract §2.4).
type Media struct {
	Location string `json:"location"`
	Hash     string `json:"hash,omitempty"`
	Filename string `json:"filename,omitempty"`
}

// TaggedProduct is a product tagged at a position on a post's media
// (contract §2.5). X and Y run from 0 to 1.
type TaggedProduct struct {
	X       float64 `json:"x"`
	Y       float64 `json:"y"`
	Product Product `json:"product"`
}

// Product is the product inside a tag (contract §2.6).
type Product struct {
	ID             string `json:"id"`
	Title          string `json:"title"`
	Handle         string `json:"handle"`
	Price          *Price `json:"price,omitempty"`
	Category       string `json:"category,omitempty"`
	Media          *Media `json:"media,omitempty"`
	URL            string `json:"url,omitempty"`
	DevelopmentURL string `json:"developmentUrl,omitempty"`
	SKU            string `json:"sku,omitempty"`
	MPN            string `json:"mpn,omitempty"`
	GTIN           string `json:"gtin,omitempty"`
}

// Price is a product's price. Regular and Sale are nil when absent, so a
// price of 0 is told apart from no price.
type Price struct {
	Regular  *float64 `json:"price,omitempty"`
	Currency string   `json:"currency,omitempty"` // ISO 4217 code
	Sale     *float64 `json:"salePrice,omitempty"`
}

// Label is a label attached to a post, returned only with include=labels
// (contract §2.7). Name is nil when the label is unnamed; it is never
// translated by a market.
type Label struct {
	ID   string  `json:"id"`
	Name *string `json:"name"`
}

// UploadedBy describes who uploaded a post (contract §2.8). Email is set only
// for inbox posts.
type UploadedBy struct {
	Username string        `json:"username"`
	Email    string        `json:"email,omitempty"`
	Image    *ProfileImage `json:"image,omitempty"`
}

// ProfileImage is an uploader's profile image.
type ProfileImage struct {
	Hash     string `json:"hash"`
	Filename string `json:"filename"`
	Location string `json:"location"`
}

// Page is one page of a list (contract §2.1): Count is the total number of
// items, Next the URL of the following page ("" when the server says null)
// and Nodes the posts of this page.
//
// Next can be saved and fetched later with [Client.NextPage] to resume a walk.
type Page struct {
	Count int
	Next  string
	Nodes []Post
}

// errMissing reports a required field that a response left out.
var errMissing = errors.New("required field is missing")

// pageJSON is the envelope as decoded: its fields record whether they were
// present, so a missing one is an error rather than a zero.
type pageJSON struct {
	Count countField `json:"count"`
	Next  nextField  `json:"next"`
	Nodes []Post     `json:"nodes"`
}

// countField is a required JSON integer.
type countField struct {
	set   bool
	value int
}

func (f *countField) UnmarshalJSON(b []byte) error {
	n, err := strconv.Atoi(string(b))
	switch {
	case err == nil:
	case b[0] == '"':
		return fmt.Errorf("count: a string (%s) where an integer is required", snippet(b))
	default:
		return fmt.Errorf("count: %s is not an integer", snippet(b))
	}
	f.set, f.value = true, n
	return nil
}

// nextField is a required JSON string or null.
type nextField struct {
	set   bool
	value string
}

func (f *nextField) UnmarshalJSON(b []byte) error {
	f.set = true
	switch {
	case string(b) == "null":
		f.value = ""
		return nil
	case len(b) >= 2 && b[0] == '"' && bytes.IndexByte(b, '\\') < 0 && utf8.Valid(b):
		f.value = string(b[1 : len(b)-1]) // no escapes: the text is the value
		return nil
	}
	return json.Unmarshal(b, &f.value)
}

// MarshalJSON writes the contract's envelope, with "next": null for an
// empty Next and "taggedProducts": [] for a post whose TaggedProducts is nil.
// (Post itself has no MarshalJSON, so a struct that embeds it encodes all
// its fields.)
func (p Page) MarshalJSON() ([]byte, error) {
	var next *string
	if p.Next != "" {
		next = &p.Next
	}
	nodes := p.Nodes
	if nodes == nil {
		nodes = []Post{}
	}
	for i := range nodes {
		if nodes[i].TaggedProducts == nil {
			// Required, so [] rather than null: a copy, the caller's page
			// is not changed.
			nodes = slices.Clone(nodes)
			for j := i; j < len(nodes); j++ {
				if nodes[j].TaggedProducts == nil {
					nodes[j].TaggedProducts = []TaggedProduct{}
				}
			}
			break
		}
	}
	return json.Marshal(struct {
		Count int     `json:"count"`
		Next  *string `json:"next"`
		Nodes []Post  `json:"nodes"`
	}{p.Count, next, nodes})
}

// UnmarshalJSON reads the contract's envelope and checks that it and every
// post carry their required fields; a missing one is an error that names it.
func (p *Page) UnmarshalJSON(data []byte) error {
	page, err := decodePage(data)
	if err != nil {
		return err
	}
	*p = *page
	return nil
}

// decodePage decodes and checks a page in one pass over data (json.Unmarshal
// into a Page would scan it three times: validation, the skip to find the
// value for UnmarshalJSON, and the decoding).
func decodePage(data []byte) (*Page, error) {
	var raw pageJSON
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	if !raw.Count.set {
		return nil, fmt.Errorf("count: %w", errMissing)
	}
	if !raw.Next.set {
		return nil, fmt.Errorf("next: %w", errMissing)
	}
	if raw.Nodes == nil {
		return nil, fmt.Errorf("nodes: %w", errMissing)
	}
	for i := range raw.Nodes {
		if err := raw.Nodes[i].checkRequired(); err != nil {
			return nil, fmt.Errorf("nodes[%d].%w", i, err)
		}
	}
	return &Page{Count: raw.Count.value, Next: raw.Next.value, Nodes: raw.Nodes}, nil
}

// checkRequired reports the first required field of the post that the
// response did not carry, as a path relative to the post.
func (p *Post) checkRequired() error {
	switch {
	case p.ID == "":
		return fmt.Errorf("id: %w", errMissing)
	case p.CreatedAt.IsZero():
		return fmt.Errorf("createdAt: %w", errMissing)
	case p.Media.Location == "":
		return fmt.Errorf("media.location: %w", errMissing)
	case p.TaggedProducts == nil:
		return fmt.Errorf("taggedProducts: %w", errMissing)
	case p.Origin != nil && p.Origin.Type == "":
		return fmt.Errorf("origin.type: %w", errMissing)
	case p.UploadedBy != nil && p.UploadedBy.Username == "":
		return fmt.Errorf("uploadedBy.username: %w", errMissing)
	}
	for i, t := range p.TaggedProducts {
		switch {
		case t.Product.ID == "":
			return fmt.Errorf("taggedProducts[%d].product.id: %w", i, errMissing)
		case t.Product.Title == "":
			return fmt.Errorf("taggedProducts[%d].product.title: %w", i, errMissing)
		case t.Product.Handle == "":
			return fmt.Errorf("taggedProducts[%d].product.handle: %w", i, errMissing)
		}
	}
	for i, l := range p.Labels {
		if l.ID == "" {
			return fmt.Errorf("labels[%d].id: %w", i, errMissing)
		}
	}
	return nil
}
