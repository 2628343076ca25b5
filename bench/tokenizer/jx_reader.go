// Package tokenizer measures the SDK's page reader against one built on
// github.com/go-faster/jx (ogen's tokenizer), to choose the tokenizer on
// evidence (issue 17). It is a module of its own so that jx never enters
// the SDK's module graph. The jx reader reads the contract's happy path
// only (no tolerance, no deviations, no required-field checks): the least
// a reader on jx would cost.
package tokenizer

import (
	"time"

	"github.com/go-faster/jx"

	ugc "github.com/ugcposts/ugc-go"
)

// readPageJX reads a page with jx into the SDK's types.
func readPageJX(b []byte) (*ugc.Page, error) {
	d := jx.DecodeBytes(b)
	var page ugc.Page
	err := d.ObjBytes(func(d *jx.Decoder, key []byte) error {
		switch string(key) {
		case "count":
			n, err := d.Int()
			page.Count = n
			return err
		case "next":
			if d.Next() == jx.Null {
				return d.Null()
			}
			s, err := d.Str()
			page.Next = s
			return err
		case "nodes":
			page.Nodes = make([]ugc.Post, 0, 25)
			return d.Arr(func(d *jx.Decoder) error {
				page.Nodes = append(page.Nodes, ugc.Post{})
				return readPostJX(d, &page.Nodes[len(page.Nodes)-1])
			})
		}
		return d.Skip()
	})
	return &page, err
}

func optBool(d *jx.Decoder) (*bool, error) {
	b, err := d.Bool()
	return &b, err
}

func stamp(d *jx.Decoder) (time.Time, error) {
	s, err := d.Str()
	if err != nil {
		return time.Time{}, err
	}
	return time.Parse(time.RFC3339Nano, s)
}

func readPostJX(d *jx.Decoder, p *ugc.Post) error {
	return d.ObjBytes(func(d *jx.Decoder, key []byte) error {
		var err error
		switch string(key) {
		case "id":
			p.ID, err = d.Str()
		case "createdAt":
			p.CreatedAt, err = stamp(d)
		case "socialDate":
			p.SocialDate, err = stamp(d)
		case "media":
			err = readMediaJX(d, &p.Media)
		case "taggedProducts":
			p.TaggedProducts = []ugc.TaggedProduct{}
			err = d.Arr(func(d *jx.Decoder) error {
				p.TaggedProducts = append(p.TaggedProducts, ugc.TaggedProduct{})
				return readTagJX(d, &p.TaggedProducts[len(p.TaggedProducts)-1])
			})
		case "origin":
			p.Origin = &ugc.PostOrigin{}
			err = d.ObjBytes(func(d *jx.Decoder, key []byte) error {
				if string(key) == "type" {
					p.Origin.Type, err = d.Str()
					return err
				}
				return d.Skip()
			})
		case "uploadedBy":
			p.UploadedBy = &ugc.UploadedBy{}
			err = d.ObjBytes(func(d *jx.Decoder, key []byte) error {
				switch string(key) {
				case "username":
					p.UploadedBy.Username, err = d.Str()
				case "email":
					p.UploadedBy.Email, err = d.Str()
				case "image":
					im := &ugc.ProfileImage{}
					p.UploadedBy.Image = im
					err = d.ObjBytes(func(d *jx.Decoder, key []byte) error {
						var err error
						switch string(key) {
						case "hash":
							im.Hash, err = d.Str()
						case "filename":
							im.Filename, err = d.Str()
						case "location":
							im.Location, err = d.Str()
						default:
							err = d.Skip()
						}
						return err
					})
				default:
					return d.Skip()
				}
				return err
			})
		default:
			err = readPostScalarJX(d, p, key)
		}
		return err
	})
}

// readPostScalarJX reads a post's optional strings and booleans.
func readPostScalarJX(d *jx.Decoder, p *ugc.Post, key []byte) error {
	var err error
	switch string(key) {
	case "alt":
		p.Alt, err = d.Str()
	case "videoCaptions":
		p.VideoCaptions, err = d.Str()
	case "videoDescription":
		p.VideoDescription, err = d.Str()
	case "socialUrl":
		p.SocialURL, err = d.Str()
	case "type":
		var s string
		s, err = d.Str()
		p.Type = ugc.MediaType(s)
	case "comment":
		p.Comment, err = d.Str()
	case "fromSocial":
		p.FromSocial, err = optBool(d)
	case "addedByCompany":
		p.AddedByCompany, err = optBool(d)
	case "hideCaption":
		p.HideCaption, err = optBool(d)
	default:
		err = d.Skip()
	}
	return err
}

func readMediaJX(d *jx.Decoder, m *ugc.Media) error {
	return d.ObjBytes(func(d *jx.Decoder, key []byte) error {
		var err error
		switch string(key) {
		case "location":
			m.Location, err = d.Str()
		case "hash":
			m.Hash, err = d.Str()
		case "filename":
			m.Filename, err = d.Str()
		default:
			err = d.Skip()
		}
		return err
	})
}

func readTagJX(d *jx.Decoder, t *ugc.TaggedProduct) error {
	return d.ObjBytes(func(d *jx.Decoder, key []byte) error {
		var err error
		switch string(key) {
		case "x":
			t.X, err = d.Float64()
		case "y":
			t.Y, err = d.Float64()
		case "product":
			err = readProductJX(d, &t.Product)
		default:
			err = d.Skip()
		}
		return err
	})
}

func readProductJX(d *jx.Decoder, p *ugc.Product) error {
	return d.ObjBytes(func(d *jx.Decoder, key []byte) error {
		var err error
		switch string(key) {
		case "id":
			p.ID, err = d.Str()
		case "title":
			p.Title, err = d.Str()
		case "handle":
			p.Handle, err = d.Str()
		case "category":
			p.Category, err = d.Str()
		case "url":
			p.URL, err = d.Str()
		case "developmentUrl":
			p.DevelopmentURL, err = d.Str()
		case "sku":
			p.SKU, err = d.Str()
		case "mpn":
			p.MPN, err = d.Str()
		case "gtin":
			p.GTIN, err = d.Str()
		case "media":
			p.Media = &ugc.Media{}
			err = readMediaJX(d, p.Media)
		case "price":
			p.Price = &ugc.Price{}
			err = d.ObjBytes(func(d *jx.Decoder, key []byte) error {
				var f float64
				switch string(key) {
				case "price":
					f, err = d.Float64()
					p.Price.Regular = &f
				case "salePrice":
					f, err = d.Float64()
					p.Price.Sale = &f
				case "currency":
					p.Price.Currency, err = d.Str()
				default:
					return d.Skip()
				}
				return err
			})
		default:
			err = d.Skip()
		}
		return err
	})
}
