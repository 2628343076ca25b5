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
// items, Next the URL of the following page ("" when the server says null;
// a relative link is resolved against the request, so Next is absolute)
// and Nodes the posts of this page. On the pages of an iterator such as
// [Client.PostsPages], Next is where the walk goes on.
//
// Next can be saved and fetched later with [Client.NextPage]; to resume a
// walk exactly, save the page's Checkpoint instead. A single call's Next
// carries the caller's filter, market and include where the server's link
// left them out (a warning is logged), so that a job paging by hand keeps
// its query; a link that names other values for them is left as it is.
type Page struct {
	Count int
	Next  string
	Nodes []Post
	// Deviations lists what the client forgave while reading the page, in
	// order: values of another type than the contract's, timestamps in
	// other forms, required fields missing, nodes that could not be posts
	// (left out of Nodes). nil when the page followed the contract. Under
	// [WithStrictDecoding] any deviation is a [*DecodeError] instead.
	Deviations []Deviation
	// Checkpoint, on the pages of an iterator such as [Client.PostsPages],
	// is where the walk stands after the page: give it to [ResumeFrom] to
	// go on from there. Zero on the page of a single call.
	Checkpoint Checkpoint
}

// errMissing reports a required field that a response left out.
var errMissing = errors.New("required field is missing")

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

// UnmarshalJSON reads the contract's envelope as the client does, as a
// tolerant reader: what a post deviates in is in Deviations. It fails only
// for JSON that does not parse and an envelope without count, next or
// nodes.
func (p *Page) UnmarshalJSON(data []byte) error {
	page, err := decodePage(data, false, nil)
	if err != nil {
		return err
	}
	*p = *page
	return nil
}
