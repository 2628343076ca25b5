package ugc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unsafe"
)

// decoder reads a page from its JSON bytes in one pass, as a tolerant
// reader: each post is read on its own, a value of another type than the
// contract's is read when it can be (a number or boolean sent as a string,
// a timestamp in a common form other than RFC 3339, null where a list is
// required) and left at its zero value when it cannot, and every such
// deviation is recorded. Only the envelope (count, next, nodes) and the
// JSON syntax must be exact: without them there is no page.
//
// It is written for this one schema, with no reflection: the strings of a
// page are slices of one copy of the body (one allocation for all of them),
// and a post costs only the slices and pointers its fields need.
type decoder struct {
	data  []byte
	text  string // data as a string, for literals and numbers: never kept
	block []byte // where the strings a page keeps live; see keep
	pos   int

	devs   []Deviation
	node   int       // index of the node being read
	id     string    // its id, once read
	path   []pathSeg // where the decoder is inside the node
	labels bool      // the request asked for include=labels
	bad    bool      // a scalar reader met invalid JSON

	bools  []bool    // blocks for the optional booleans' pointers
	floats []float64 // and the prices'
}

// pathSeg is one step of a JSON path: a key, or an index when key is "".
type pathSeg struct {
	key   string
	index int
}

// errSyntax is JSON that does not parse: HTML, a stray character, ...
var errSyntax = errors.New("invalid JSON")

// errTruncatedJSON is JSON that ends before its value does: a body cut short
// that its framing did not reveal.
var errTruncatedJSON = fmt.Errorf("%w: unexpected end of JSON input", errSyntax)

// decodePage reads a page. labels says whether every post must carry
// labels (the request asked for include=labels). The page's Deviations
// list what was forgiven; err is for an envelope that cannot be read. mask,
// if not nil, hides the API key in what a deviation quotes: it runs on the
// value before it is cut short, so no part of the key can remain.
func decodePage(data []byte, labels bool, mask func(string) string) (*Page, error) {
	d := decoder{data: data, text: unsafe.String(unsafe.SliceData(data), len(data)), labels: labels}
	page, err := d.page()
	if err != nil {
		if endsEarly(data) { // whatever the reader stumbled on, the cut came first
			return nil, errTruncatedJSON
		}
		return nil, err
	}
	for i := range d.devs {
		d.devs[i].Sent = sentSnippet(d.devs[i].Sent, mask)
		if mask != nil {
			d.devs[i].PostID = mask(d.devs[i].PostID) // a server may echo anything, even as an id
		}
	}
	page.Deviations = d.devs
	return page, nil
}

// endsEarly reports whether data is JSON that is valid as far as it goes
// and ends before its value does: cut inside a literal ("fals"), a string
// or a number as much as between two values. Only errors pay for it.
func endsEarly(data []byte) bool {
	err := json.NewDecoder(bytes.NewReader(data)).Decode(new(json.RawMessage))
	return errors.Is(err, io.ErrUnexpectedEOF)
}

func (d *decoder) page() (*Page, error) {
	d.ws()
	if !d.eat('{') {
		return nil, d.syntax("a page must be a JSON object")
	}
	var page Page
	var haveCount, haveNext, haveNodes bool
	err := d.object(pageKeys, func(key string) error {
		switch key {
		case "count":
			lit, ok := d.number()
			if !ok {
				return fmt.Errorf("count: %s is not an integer", d.snippetOf(d.skipValue()))
			}
			n, err := strconv.Atoi(lit)
			if err != nil {
				return fmt.Errorf("count: %s is not an integer", lit)
			}
			page.Count, haveCount = n, true
		case "next":
			switch d.peek() {
			case 'n':
				if !d.literal("null") {
					return d.syntax("bad literal")
				}
				page.Next = ""
			case '"':
				s, err := d.str()
				if err != nil {
					return err
				}
				page.Next = s
			default:
				return fmt.Errorf("next: %s is not a string or null", d.snippetOf(d.skipValue()))
			}
			haveNext = true
		case "nodes":
			if d.peek() != '[' {
				if d.literal("null") {
					return fmt.Errorf("nodes: %w", errMissing)
				}
				return fmt.Errorf("nodes: %s is not an array", d.snippetOf(d.skipValue()))
			}
			nodes, err := d.nodes()
			if err != nil {
				return err
			}
			page.Nodes, haveNodes = nodes, true
		default:
			return errUnknownKey
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if d.ws(); d.pos != len(d.data) {
		return nil, d.syntax("data after the page")
	}
	switch {
	case !haveCount:
		return nil, fmt.Errorf("count: %w", errMissing)
	case !haveNext:
		return nil, fmt.Errorf("next: %w", errMissing)
	case !haveNodes:
		return nil, fmt.Errorf("nodes: %w", errMissing)
	}
	return &page, nil
}

// nodes reads the nodes array: each element that can be a post is one; any
// other is a deviation and left out.
func (d *decoder) nodes() ([]Post, error) {
	d.pos++ // '['
	posts := make([]Post, 0, MaxLimit)
	for i := 0; ; i++ {
		if d.ws(); d.eat(']') {
			return posts, nil
		}
		if i > 0 && !d.eat(',') {
			return nil, d.syntax("expected , or ] in nodes")
		}
		d.ws()
		d.node, d.id, d.path = i, "", d.path[:0]
		if d.peek() != '{' {
			start := d.pos
			if err := d.skip(); err != nil {
				return nil, err
			}
			d.deviate(d.data[start:d.pos], "node dropped: not an object")
			d.devs[len(d.devs)-1].Dropped = true
			continue
		}
		posts = append(posts, Post{})
		p := &posts[len(posts)-1]
		if err := d.post(p); err != nil {
			return nil, err
		}
		if p.ID == "" {
			posts = posts[:len(posts)-1]
			d.path = append(d.path[:0], pathSeg{key: "id"})
			d.deviate(nil, "node dropped: no id")
			d.devs[len(d.devs)-1].Dropped = true
		}
	}
}

// errUnknownKey is what a member function returns for a key it does not
// read; object then skips the value.
var errUnknownKey = errors.New("unknown key")

// object reads the members of an object whose '{' is already read, calling
// member with each key, positioned at its value (which member must read,
// or return errUnknownKey). A key that is one of names only when case is
// ignored is read as that name, as encoding/json does, with a deviation.
func (d *decoder) object(names []string, member func(key string) error) error {
	for first := true; ; first = false {
		if d.ws(); d.eat('}') {
			return nil
		}
		if !first && !d.eat(',') {
			return d.syntax("expected , or } in object")
		}
		if d.ws(); d.peek() != '"' {
			return d.syntax("expected a key")
		}
		key, err := d.str()
		if err != nil {
			return err
		}
		if d.ws(); !d.eat(':') {
			return d.syntax("expected : after a key")
		}
		d.ws()
		err = member(key)
		if err == errUnknownKey {
			if n := d.known(key, names); n != "" {
				err = member(n)
			} else {
				err = d.skip()
			}
		}
		if err != nil {
			return err
		}
	}
}

// array reads the elements of an array whose '[' is already read, calling
// elem with each index, positioned at its value.
func (d *decoder) array(elem func(i int) error) error {
	for i := 0; ; i++ {
		if d.ws(); d.eat(']') {
			return nil
		}
		if i > 0 && !d.eat(',') {
			return d.syntax("expected , or ] in array")
		}
		d.ws()
		if err := elem(i); err != nil {
			return err
		}
	}
}

// field runs read with key pushed on the path.
func (d *decoder) field(key string, read func() error) error {
	d.path = append(d.path, pathSeg{key: key})
	err := read()
	if err == nil && d.bad {
		err = d.syntax("invalid value")
	}
	d.path = d.path[:len(d.path)-1]
	return err
}

// known maps a key that matches one of the contract's names only when case
// is ignored (as encoding/json matches it) to that name, with a deviation.
func (d *decoder) known(key string, names []string) string {
	for _, n := range names {
		if strings.EqualFold(key, n) {
			d.path = append(d.path, pathSeg{key: key})
			d.deviate(nil, "read as "+strconv.Quote(n))
			d.path = d.path[:len(d.path)-1]
			return n
		}
	}
	return ""
}

// ---- the contract's objects ------------------------------------------

// The names of each object's members, for keys in another case.
var (
	pageKeys       = []string{"count", "next", "nodes"}
	mediaKeys      = []string{"location", "hash", "filename"}
	originKeys     = []string{"type"}
	uploadedByKeys = []string{"username", "email", "image"}
	imageKeys      = []string{"hash", "filename", "location"}
	tagKeys        = []string{"x", "y", "product"}
	productKeys    = []string{"id", "title", "handle", "price", "category", "media", "url", "developmentUrl", "sku", "mpn", "gtin"}
	priceKeys      = []string{"price", "currency", "salePrice"}
	labelKeys      = []string{"id", "name"}
)

var postKeys = []string{"id", "createdAt", "media", "taggedProducts", "origin", "alt", "videoCaptions", "videoDescription", "socialUrl", "type", "fromSocial", "addedByCompany", "socialDate", "comment", "hideCaption", "uploadedBy", "labels"}

func (d *decoder) post(p *Post) error {
	d.pos++ // '{'
	first := len(d.devs)
	defer func() { // deviations found before the id was read name the post too
		for i := first; i < len(d.devs); i++ {
			if d.devs[i].PostID == "" {
				d.devs[i].PostID = p.ID
			}
		}
	}()
	var haveCreated, haveMedia, haveTags bool
	member := func(key string) error {
		return d.field(key, func() error {
			switch key {
			case "id":
				p.ID = d.string()
				d.id = p.ID
			case "createdAt":
				before := len(d.devs)
				p.CreatedAt = d.timestamp()
				// An unreadable value is reported already; null is missing.
				haveCreated = !p.CreatedAt.IsZero() || len(d.devs) > before
			case "media":
				haveMedia = true
				if d.peek() == '"' { // the media's URL alone
					start := d.pos
					p.Media.Location = d.string()
					d.deviate(d.data[start:d.pos], "media.location")
					return nil
				}
				return object2(d, &p.Media, mediaKeys, d.media)
			case "taggedProducts":
				haveTags = true
				return d.tags(&p.TaggedProducts)
			case "origin":
				return optObject(d, &p.Origin, originKeys, d.origin)
			case "alt":
				p.Alt = d.string()
			case "videoCaptions":
				p.VideoCaptions = d.string()
			case "videoDescription":
				p.VideoDescription = d.string()
			case "socialUrl":
				p.SocialURL = d.string()
			case "type":
				p.Type = MediaType(d.string())
			case "fromSocial":
				p.FromSocial = d.boolean()
			case "addedByCompany":
				p.AddedByCompany = d.boolean()
			case "socialDate":
				p.SocialDate = d.timestamp()
			case "comment":
				p.Comment = d.string()
			case "hideCaption":
				p.HideCaption = d.boolean()
			case "uploadedBy":
				return optObject(d, &p.UploadedBy, uploadedByKeys, d.uploadedBy)
			case "labels":
				return d.labelList(&p.Labels)
			default:
				return errUnknownKey
			}
			return nil
		})
	}
	if err := d.object(postKeys, member); err != nil {
		return err
	}
	if p.ID == "" {
		return nil // the node is dropped, and reported, by nodes
	}
	d.require(p.ID != "", "id")
	d.require(haveCreated, "createdAt")
	d.require(haveMedia && p.Media.Location != "", "media.location")
	if !haveTags || p.TaggedProducts == nil {
		d.require(false, "taggedProducts")
		p.TaggedProducts = []TaggedProduct{}
	}
	if p.Origin != nil {
		d.require(p.Origin.Type != "", "origin.type")
	}
	if p.UploadedBy != nil {
		d.require(p.UploadedBy.Username != "", "uploadedBy.username")
	}
	if d.labels && p.Labels == nil {
		d.require(false, "labels")
		p.Labels = []Label{}
	}
	return nil
}

func (d *decoder) media(m *Media, key string) error {
	return d.field(key, func() error {
		switch key {
		case "location":
			m.Location = d.string()
		case "hash":
			m.Hash = d.string()
		case "filename":
			m.Filename = d.string()
		default:
			return errUnknownKey
		}
		return nil
	})
}

func (d *decoder) origin(o *PostOrigin, key string) error {
	return d.field(key, func() error {
		if key == "type" {
			o.Type = d.string()
			return nil
		}
		return errUnknownKey
	})
}

func (d *decoder) uploadedBy(u *UploadedBy, key string) error {
	return d.field(key, func() error {
		switch key {
		case "username":
			u.Username = d.string()
		case "email":
			u.Email = d.string()
		case "image":
			if err := optObject(d, &u.Image, imageKeys, d.profileImage); err != nil || u.Image == nil {
				return err
			}
			d.require(u.Image.Hash != "", "hash") // all three are required inside an image
			d.require(u.Image.Filename != "", "filename")
			d.require(u.Image.Location != "", "location")
			return nil
		default:
			return errUnknownKey
		}
		return nil
	})
}

func (d *decoder) profileImage(im *ProfileImage, key string) error {
	return d.field(key, func() error {
		switch key {
		case "hash":
			im.Hash = d.string()
		case "filename":
			im.Filename = d.string()
		case "location":
			im.Location = d.string()
		default:
			return errUnknownKey
		}
		return nil
	})
}

// tags reads taggedProducts: null or another type is an empty list.
func (d *decoder) tags(tags *[]TaggedProduct) error {
	if d.peek() != '[' {
		start := d.pos
		if err := d.skip(); err != nil {
			return err
		}
		*tags = []TaggedProduct{}
		d.deviate(d.data[start:d.pos], "[]")
		return nil
	}
	d.pos++
	list := (*tags)[:0]
	if list == nil {
		list = []TaggedProduct{}
	}
	err := d.array(func(i int) error {
		d.path = append(d.path, pathSeg{index: i})
		defer func() { d.path = d.path[:len(d.path)-1] }()
		if d.peek() != '{' {
			start := d.pos
			if err := d.skip(); err != nil {
				return err
			}
			d.deviate(d.data[start:d.pos], "tag dropped: not an object")
			return nil
		}
		list = append(list, TaggedProduct{})
		t := &list[len(list)-1]
		var haveProduct, haveX, haveY bool
		d.pos++
		if err := d.object(tagKeys, func(key string) error {
			return d.field(key, func() error {
				switch key {
				case "x":
					haveX = d.peek() != 'n'
					t.X = d.float()
				case "y":
					haveY = d.peek() != 'n'
					t.Y = d.float()
				case "product":
					haveProduct = true
					return object2(d, &t.Product, productKeys, d.product)
				default:
					return errUnknownKey
				}
				return nil
			})
		}); err != nil {
			return err
		}
		d.require(haveX, "x")
		d.require(haveY, "y")
		d.require(haveProduct && t.Product.ID != "", "product.id")
		d.require(haveProduct && t.Product.Title != "", "product.title")
		d.require(haveProduct && t.Product.Handle != "", "product.handle")
		return nil
	})
	*tags = list
	return err
}

func (d *decoder) product(p *Product, key string) error {
	return d.field(key, func() error {
		switch key {
		case "id":
			p.ID = d.string()
		case "title":
			p.Title = d.string()
		case "handle":
			p.Handle = d.string()
		case "price":
			return optObject(d, &p.Price, priceKeys, d.price)
		case "category":
			p.Category = d.string()
		case "media":
			if err := optObject(d, &p.Media, mediaKeys, d.media); err != nil || p.Media == nil {
				return err
			}
			d.require(p.Media.Location != "", "location")
			return nil
		case "url":
			p.URL = d.string()
		case "developmentUrl":
			p.DevelopmentURL = d.string()
		case "sku":
			p.SKU = d.string()
		case "mpn":
			p.MPN = d.string()
		case "gtin":
			p.GTIN = d.string()
		default:
			return errUnknownKey
		}
		return nil
	})
}

func (d *decoder) price(pr *Price, key string) error {
	return d.field(key, func() error {
		switch key {
		case "price":
			pr.Regular = d.optFloat()
		case "currency":
			pr.Currency = d.string()
		case "salePrice":
			pr.Sale = d.optFloat()
		default:
			return errUnknownKey
		}
		return nil
	})
}

// labelList reads labels: null is no list (an empty one, reported, when
// the request asked for labels); a label without an id is left out.
func (d *decoder) labelList(labels *[]Label) error {
	if d.peek() != '[' {
		start := d.pos
		if err := d.skip(); err != nil {
			return err
		}
		if string(d.data[start:d.pos]) == "null" {
			*labels = nil // as encoding/json; an asked-for list is required by post
			return nil
		}
		*labels = []Label{}
		d.deviate(d.data[start:d.pos], "[]")
		return nil
	}
	d.pos++
	list := (*labels)[:0]
	if list == nil {
		list = []Label{}
	}
	err := d.array(func(i int) error {
		d.path = append(d.path, pathSeg{index: i})
		defer func() { d.path = d.path[:len(d.path)-1] }()
		if d.peek() != '{' {
			start := d.pos
			if err := d.skip(); err != nil {
				return err
			}
			d.deviate(d.data[start:d.pos], "label dropped: not an object")
			return nil
		}
		var l Label
		var haveName bool
		d.pos++
		if err := d.object(labelKeys, func(key string) error {
			return d.field(key, func() error {
				switch key {
				case "id":
					l.ID = d.string()
				case "name":
					haveName = true // a string, or null for an unnamed label
					if d.literal("null") {
						l.Name = nil
						return nil
					}
					s := d.string()
					l.Name = &s
				default:
					return errUnknownKey
				}
				return nil
			})
		}); err != nil {
			return err
		}
		if l.ID == "" {
			d.deviate(nil, "label dropped: no id")
			return nil
		}
		d.require(haveName, "name")
		list = append(list, l)
		return nil
	})
	*labels = list
	return err
}

// object2 reads an object into *v (keeping what an earlier member of the
// same name set, as encoding/json does); null leaves it, any other value is
// a deviation.
func object2[T any](d *decoder, v *T, names []string, member func(*T, string) error) error {
	switch d.peek() {
	case '{':
		d.pos++
		return d.object(names, func(key string) error { return member(v, key) })
	case 'n':
		if d.literal("null") {
			return nil
		}
	}
	start := d.pos
	if err := d.skip(); err != nil {
		return err
	}
	d.deviate(d.data[start:d.pos], "zero value")
	return nil
}

// optObject reads an optional object into *v, allocating it if needed.
func optObject[T any](d *decoder, v **T, names []string, member func(*T, string) error) error {
	switch d.peek() {
	case '{':
		if *v == nil {
			*v = new(T)
		}
		d.pos++
		t := *v
		return d.object(names, func(key string) error { return member(t, key) })
	case 'n':
		if d.literal("null") {
			*v = nil
			return nil
		}
	}
	start := d.pos
	if err := d.skip(); err != nil {
		return err
	}
	d.deviate(d.data[start:d.pos], "zero value")
	return nil
}
