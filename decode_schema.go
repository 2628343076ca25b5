package ugc

import (
	"bytes"
	"strings"
	"time"
	"unicode/utf8"
)

// The contract's types as the decoder reads them: each member of each
// type, declared once, in the contract's order (the order servers send).
// Adding a field to a type is one line here; TestSchemaCoversEveryField
// fails for a field of a Go type that has no line.

// envelope is the list envelope (contract §2.1). Its required members
// missing are an error, not a deviation: without them there is no page.
var envelope = newSchema([]member[Page]{
	{name: "count", read: readCount, need: required},
	{name: "next", read: readNext, need: required},
	{name: "nodes", read: (*decoder).nodes, need: required},
})

// postMembers is a post (contract §2.2).
var postMembers = newSchema([]member[Post]{
	{name: "id", read: readPostID, need: identity},
	{name: "createdAt", read: stamp(func(p *Post) *time.Time { return &p.CreatedAt }), need: required},
	{name: "media", read: readPostMedia, need: required},
	{name: "taggedProducts", read: list(func(p *Post) *[]TaggedProduct { return &p.TaggedProducts }, tagMembers, "tag"), need: required, fill: fillList(func(p *Post) *[]TaggedProduct { return &p.TaggedProducts })},
	{name: "origin", read: optObject(func(p *Post) **PostOrigin { return &p.Origin }, originMembers)},
	{name: "alt", read: text(func(p *Post) *string { return &p.Alt })},
	{name: "videoCaptions", read: text(func(p *Post) *string { return &p.VideoCaptions })},
	{name: "videoDescription", read: text(func(p *Post) *string { return &p.VideoDescription })},
	{name: "socialUrl", read: text(func(p *Post) *string { return &p.SocialURL })},
	{name: "type", read: text(func(p *Post) *MediaType { return &p.Type })},
	{name: "fromSocial", read: boolean(func(p *Post) **bool { return &p.FromSocial })},
	{name: "addedByCompany", read: boolean(func(p *Post) **bool { return &p.AddedByCompany })},
	{name: "socialDate", read: stamp(func(p *Post) *time.Time { return &p.SocialDate })},
	{name: "comment", read: text(func(p *Post) *string { return &p.Comment })},
	{name: "hideCaption", read: boolean(func(p *Post) **bool { return &p.HideCaption })},
	{name: "uploadedBy", read: optObject(func(p *Post) **UploadedBy { return &p.UploadedBy }, uploadedByMembers)},
	{name: "labels", read: list(func(p *Post) *[]Label { return &p.Labels }, labelMembers, "label"), need: withLabels, fill: fillList(func(p *Post) *[]Label { return &p.Labels })},
})

// originMembers is a post's origin (contract §2.3).
var originMembers = newSchema([]member[PostOrigin]{
	{name: "type", read: text(func(o *PostOrigin) *string { return &o.Type }), need: required},
})

// mediaMembers is a media file (contract §2.4).
var mediaMembers = newSchema([]member[Media]{
	{name: "location", read: text(func(m *Media) *string { return &m.Location }), need: required},
	{name: "hash", read: text(func(m *Media) *string { return &m.Hash })},
	{name: "filename", read: text(func(m *Media) *string { return &m.Filename })},
})

// tagMembers is a tagged product (contract §2.5).
var tagMembers = newSchema([]member[TaggedProduct]{
	{name: "x", read: number(func(t *TaggedProduct) *float64 { return &t.X }), need: required},
	{name: "y", read: number(func(t *TaggedProduct) *float64 { return &t.Y }), need: required},
	{name: "product", read: object(func(t *TaggedProduct) *Product { return &t.Product }, productMembers), need: required},
})

// productMembers is a product inside a tag (contract §2.6).
var productMembers = newSchema([]member[Product]{
	{name: "id", read: text(func(p *Product) *string { return &p.ID }), need: required},
	{name: "title", read: text(func(p *Product) *string { return &p.Title }), need: required},
	{name: "handle", read: text(func(p *Product) *string { return &p.Handle }), need: required},
	{name: "price", read: optObject(func(p *Product) **Price { return &p.Price }, priceMembers)},
	{name: "category", read: text(func(p *Product) *string { return &p.Category })},
	{name: "media", read: optObject(func(p *Product) **Media { return &p.Media }, mediaMembers)},
	{name: "url", read: text(func(p *Product) *string { return &p.URL })},
	{name: "developmentUrl", read: text(func(p *Product) *string { return &p.DevelopmentURL })},
	{name: "sku", read: text(func(p *Product) *string { return &p.SKU })},
	{name: "mpn", read: text(func(p *Product) *string { return &p.MPN })},
	{name: "gtin", read: text(func(p *Product) *string { return &p.GTIN })},
})

// priceMembers is a product's price (contract §2.6).
var priceMembers = newSchema([]member[Price]{
	{name: "price", read: optNumber(func(p *Price) **float64 { return &p.Regular })},
	{name: "currency", read: text(func(p *Price) *string { return &p.Currency })},
	{name: "salePrice", read: optNumber(func(p *Price) **float64 { return &p.Sale })},
})

// labelMembers is a label (contract §2.7): a label without an id is left
// out of its list.
var labelMembers = newSchema([]member[Label]{
	{name: "id", read: text(func(l *Label) *string { return &l.ID }), need: identity},
	{name: "name", read: nullableText(func(l *Label) **string { return &l.Name }), need: required},
})

// uploadedByMembers is a post's uploader (contract §2.8).
var uploadedByMembers = newSchema([]member[UploadedBy]{
	{name: "username", read: text(func(u *UploadedBy) *string { return &u.Username }), need: required},
	{name: "email", read: text(func(u *UploadedBy) *string { return &u.Email })},
	{name: "image", read: optObject(func(u *UploadedBy) **ProfileImage { return &u.Image }, profileImageMembers)},
})

// profileImageMembers is an uploader's image (contract §2.8): all three
// required inside it.
var profileImageMembers = newSchema([]member[ProfileImage]{
	{name: "hash", read: text(func(im *ProfileImage) *string { return &im.Hash }), need: required},
	{name: "filename", read: text(func(im *ProfileImage) *string { return &im.Filename }), need: required},
	{name: "location", read: text(func(im *ProfileImage) *string { return &im.Location }), need: required},
})

// ---- how members are read ------------------------------------------------

// text reads a string member. null leaves it, as encoding/json does; an
// empty string counts as missing.
func text[T any, S ~string](get func(*T) *S) func(*decoder, *T) (got, error) {
	return func(d *decoder, v *T) (got, error) {
		s, null, err := d.string()
		switch {
		case err != nil:
			return gotNone, err
		case null:
			return gotNull, nil
		}
		*get(v) = S(s)
		if s == "" {
			return gotNone, nil
		}
		return gotValue, nil
	}
}

// nullableText reads a string member that may be null (a label's name):
// null is a value, nil.
func nullableText[T any](get func(*T) **string) func(*decoder, *T) (got, error) {
	return func(d *decoder, v *T) (got, error) {
		if d.literal("null") {
			*get(v) = nil
			return gotValue, nil
		}
		s, _, err := d.string()
		*get(v) = &s
		return gotValue, err
	}
}

// boolean reads an optional boolean, nil when absent.
func boolean[T any](get func(*T) **bool) func(*decoder, *T) (got, error) {
	return func(d *decoder, v *T) (got, error) {
		b, err := d.boolean()
		*get(v) = b
		return gotOrNone(b != nil), err
	}
}

// number reads a number member. null leaves it, as encoding/json does; a
// value that is no number is reported, and counts as sent.
func number[T any](get func(*T) *float64) func(*decoder, *T) (got, error) {
	return func(d *decoder, v *T) (got, error) {
		if d.literal("null") {
			return gotNull, nil
		}
		f, ok, err := d.float()
		if ok {
			*get(v) = f
		}
		return gotValue, err
	}
}

// optNumber reads an optional number, nil when absent.
func optNumber[T any](get func(*T) **float64) func(*decoder, *T) (got, error) {
	return func(d *decoder, v *T) (got, error) {
		f, ok, err := d.float()
		if !ok {
			*get(v) = nil
			return gotNone, err
		}
		*get(v) = d.newFloat(f)
		return gotValue, err
	}
}

// stamp reads a timestamp member. null leaves it, as encoding/json does.
func stamp[T any](get func(*T) *time.Time) func(*decoder, *T) (got, error) {
	return func(d *decoder, v *T) (got, error) {
		t, null, err := d.timestamp()
		switch {
		case err != nil:
			return gotNone, err
		case null:
			return gotNull, nil
		}
		*get(v) = t
		return gotValue, nil
	}
}

var postIDText = text(func(p *Post) *string { return &p.ID })

// readPostID reads a post's id, and names the post in what is recorded
// after it. IDs are compared by their bytes: one that is not valid UTF-8
// (invalid bytes, or an escaped lone surrogate, which encoding/json would
// both replace with U+FFFD, making two posts one) is kept as sent, byte for
// byte, and recorded.
func readPostID(d *decoder, p *Post) (got, error) {
	start := d.pos
	g, err := postIDText(d, p)
	if err == nil && d.pos-start >= 2 && d.data[start] == '"' && strings.ContainsRune(p.ID, utf8.RuneError) {
		if raw := d.data[start+1 : d.pos-1]; !utf8.Valid(raw) || bytes.Contains(raw, []byte(`\u`)) {
			p.ID = string(raw)
			d.id = p.ID
			d.deviate(d.data[start:d.pos], "id kept as sent, byte for byte: not valid UTF-8")
		}
	}
	d.id = p.ID
	return g, err
}

var postMediaObject = object(func(p *Post) *Media { return &p.Media }, mediaMembers)

// readPostMedia reads a post's media: an object, or its location alone
// (a deviation).
func readPostMedia(d *decoder, p *Post) (got, error) {
	if d.peek() != '"' {
		return postMediaObject(d, p)
	}
	start := d.pos
	s, err := d.str()
	p.Media.Location = s
	d.deviate(d.data[start:d.pos], "media.location")
	return gotValue, err
}

func readCount(d *decoder, page *Page) (got, error) {
	n, err := d.count()
	page.Count = n
	return gotValue, err
}

func readNext(d *decoder, page *Page) (got, error) {
	s, err := d.next()
	page.Next = s
	return gotValue, err
}

// gotOrNone is gotValue when ok, else gotNone.
func gotOrNone(ok bool) got {
	if ok {
		return gotValue
	}
	return gotNone
}
