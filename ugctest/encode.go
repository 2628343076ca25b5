package ugctest

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ugcposts/ugc-go"
)

// appendPost appends the compact JSON of p exactly as encoding/json writes
// ugc.Post without HTML escaping (the test TestFastEncoderMatchesEncodingJSON
// holds the two together), but several times faster: it is the hot path of
// every list. Its taggedProducts must not be nil.
func appendPostJSON(dst []byte, p *ugc.Post) []byte {
	dst = append(dst, `{"id":`...)
	dst = appendString(dst, p.ID)
	dst = append(dst, `,"createdAt":`...)
	dst = appendTime(dst, p.CreatedAt)
	dst = append(dst, `,"media":`...)
	dst = appendMedia(dst, &p.Media)
	dst = append(dst, `,"taggedProducts":[`...)
	for i := range p.TaggedProducts {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendTag(dst, &p.TaggedProducts[i])
	}
	dst = append(dst, ']')
	if p.Origin != nil {
		dst = append(dst, `,"origin":{"type":`...)
		dst = appendString(dst, p.Origin.Type)
		dst = append(dst, '}')
	}
	dst = appendOptString(dst, `,"alt":`, p.Alt)
	dst = appendOptString(dst, `,"videoCaptions":`, p.VideoCaptions)
	dst = appendOptString(dst, `,"videoDescription":`, p.VideoDescription)
	dst = appendOptString(dst, `,"socialUrl":`, p.SocialURL)
	dst = appendOptString(dst, `,"type":`, string(p.Type))
	dst = appendOptBool(dst, `,"fromSocial":`, p.FromSocial)
	dst = appendOptBool(dst, `,"addedByCompany":`, p.AddedByCompany)
	if !p.SocialDate.IsZero() {
		dst = append(dst, `,"socialDate":`...)
		dst = appendTime(dst, p.SocialDate)
	}
	dst = appendOptString(dst, `,"comment":`, p.Comment)
	dst = appendOptBool(dst, `,"hideCaption":`, p.HideCaption)
	if u := p.UploadedBy; u != nil {
		dst = append(dst, `,"uploadedBy":{"username":`...)
		dst = appendString(dst, u.Username)
		dst = appendOptString(dst, `,"email":`, u.Email)
		if im := u.Image; im != nil {
			dst = append(dst, `,"image":{"hash":`...)
			dst = appendString(dst, im.Hash)
			dst = append(dst, `,"filename":`...)
			dst = appendString(dst, im.Filename)
			dst = append(dst, `,"location":`...)
			dst = appendString(dst, im.Location)
			dst = append(dst, '}')
		}
		dst = append(dst, '}')
	}
	if p.Labels != nil {
		dst = append(dst, `,"labels":[`...)
		for i, l := range p.Labels {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"id":`...)
			dst = appendString(dst, l.ID)
			dst = append(dst, `,"name":`...)
			if l.Name == nil {
				dst = append(dst, "null"...)
			} else {
				dst = appendString(dst, *l.Name)
			}
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

func appendMedia(dst []byte, m *ugc.Media) []byte {
	dst = append(dst, `{"location":`...)
	dst = appendString(dst, m.Location)
	dst = appendOptString(dst, `,"hash":`, m.Hash)
	dst = appendOptString(dst, `,"filename":`, m.Filename)
	return append(dst, '}')
}

func appendTag(dst []byte, t *ugc.TaggedProduct) []byte {
	dst = append(dst, `{"x":`...)
	dst = appendFloat(dst, t.X)
	dst = append(dst, `,"y":`...)
	dst = appendFloat(dst, t.Y)
	pr := &t.Product
	dst = append(dst, `,"product":{"id":`...)
	dst = appendString(dst, pr.ID)
	dst = append(dst, `,"title":`...)
	dst = appendString(dst, pr.Title)
	dst = append(dst, `,"handle":`...)
	dst = appendString(dst, pr.Handle)
	if pc := pr.Price; pc != nil {
		dst = append(dst, `,"price":{`...)
		sep := ""
		if pc.Regular != nil {
			dst = append(dst, `"price":`...)
			dst = appendFloat(dst, *pc.Regular)
			sep = ","
		}
		if pc.Currency != "" {
			dst = append(dst, sep+`"currency":`...)
			dst = appendString(dst, pc.Currency)
			sep = ","
		}
		if pc.Sale != nil {
			dst = append(dst, sep+`"salePrice":`...)
			dst = appendFloat(dst, *pc.Sale)
		}
		dst = append(dst, '}')
	}
	dst = appendOptString(dst, `,"category":`, pr.Category)
	if pr.Media != nil {
		dst = append(dst, `,"media":`...)
		dst = appendMedia(dst, pr.Media)
	}
	dst = appendOptString(dst, `,"url":`, pr.URL)
	dst = appendOptString(dst, `,"developmentUrl":`, pr.DevelopmentURL)
	dst = appendOptString(dst, `,"sku":`, pr.SKU)
	dst = appendOptString(dst, `,"mpn":`, pr.MPN)
	dst = appendOptString(dst, `,"gtin":`, pr.GTIN)
	return append(dst, "}}"...)
}

func appendOptString(dst []byte, key, s string) []byte {
	if s == "" {
		return dst
	}
	return appendString(append(dst, key...), s)
}

func appendOptBool(dst []byte, key string, b *bool) []byte {
	if b == nil {
		return dst
	}
	return strconv.AppendBool(append(dst, key...), *b)
}

// jsonSpecial marks the bytes that may need escaping: control characters,
// '"', '\\' and every non-ASCII byte (checked further).
var jsonSpecial = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf
	}
	return t
}()

// appendString appends s as a JSON string: as is when nothing needs
// escaping (the common case), else through encoding/json.
func appendString(dst []byte, s string) []byte {
	i := 0
	for i < len(s) && !jsonSpecial[s[i]] {
		i++
	}
	if i < len(s) {
		for j := i; j < len(s); j++ {
			if c := s[j]; c < 0x20 || c == '"' || c == '\\' {
				return appendJSONString(dst, s)
			}
		}
		if !utf8.ValidString(s[i:]) || strings.Contains(s[i:], "\u2028") || strings.Contains(s[i:], "\u2029") {
			return appendJSONString(dst, s)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

// appendFloat writes f as encoding/json does.
func appendFloat(dst []byte, f float64) []byte {
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) || math.IsNaN(f) || math.IsInf(f, 0) {
		b, err := json.Marshal(f)
		if err != nil {
			return append(dst, '0') // NaN or Inf: encoding/json fails; never in a valid dataset
		}
		return append(dst, b...)
	}
	return strconv.AppendFloat(dst, f, 'f', -1, 64)
}

// appendTime writes t as time.Time's MarshalJSON does.
func appendTime(dst []byte, t time.Time) []byte {
	dst = append(dst, '"')
	dst = t.AppendFormat(dst, time.RFC3339Nano)
	return append(dst, '"')
}

// appendJSONString appends s as a JSON string, without HTML escaping (as
// JavaScript's JSON.stringify writes it).
func appendJSONString(dst []byte, s string) []byte {
	buf := bytes.NewBuffer(dst)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	b := buf.Bytes()
	return b[:len(b)-1]
}
