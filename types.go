package ugc

import (
	"encoding/json"
	"errors"
	"slices"
	"time"
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

// Post is one user-generated-content post. Optional booleans are pointers
// (nil: the server did not say); absent strings are empty, an absent
// SocialDate the zero time. Labels is non-nil only with [IncludeLabels].
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

// Page is one page of a list: Count is the total number of items, Next the
// absolute URL of the following page ("" on the last) and Nodes the posts. To
// resume a walk, save its Checkpoint; to hand a position to a service's
// caller, its [Page.Cursor].
type Page struct {
	Count int
	Next  string
	Nodes []Post
	// Deviations lists what the client forgave in reading the page; nil
	// when it followed the contract.
	Deviations []Deviation
	// Checkpoint is where a walk stands after the page, for [ResumeFrom];
	// zero on a single call's page.
	Checkpoint Checkpoint
}

// errMissing reports a required field that a response left out.
var errMissing = errors.New("required field is missing")

// MarshalJSON writes the contract's envelope ("next": null for an empty Next).
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

// UnmarshalJSON reads the contract's envelope as the client does, a tolerant
// reader. It fails for JSON that does not parse and an envelope without count,
// next or nodes.
func (p *Page) UnmarshalJSON(data []byte) error {
	page, err := decodePage(data, false, nil)
	if err != nil {
		return err
	}
	*p = *page
	return nil
}
