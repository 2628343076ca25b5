package ugctest

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ugcposts/ugc-go"
)

// plainPost has ugc.Post's fields and JSON tags but not its methods.
type plainPost ugc.Post

// stdEncode is what appendPostJSON must match: encoding/json, no HTML
// escaping.
func stdEncode(t *testing.T, p *ugc.Post) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode((*plainPost)(p)))
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

func TestFastEncoderMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	var posts []ugc.Post
	gen := Generate(3000, 11)
	for i := range gen.gen.n {
		p := gen.gen.wirePost(i)
		posts = append(posts, p)
		for mi := range gen.Markets {
			if loc, ok := gen.gen.localization(mi, i, &p); ok {
				q := p
				localize(&q, loc)
				posts = append(posts, q)
			}
		}
	}
	posts = append(posts, DefaultDataset().Inbox...)
	name := "Näme"
	weird := []string{`quote " and \ backslash`, "tab\tnew\nline\x01", "<b>&amp;</b>", "line\u2028sep\u2029", "bad \xff utf8", "emoji 😍 ü", ""}
	for _, s := range weird {
		f := math.Float64frombits(0x3e7ad7f29abcaf48) // 1e-7
		posts = append(posts, ugc.Post{
			ID: s + "x", CreatedAt: time.Date(2024, 2, 29, 23, 59, 59, 123456789, time.FixedZone("X", -5*3600)),
			Media:          ugc.Media{Location: s + "l", Hash: s},
			TaggedProducts: []ugc.TaggedProduct{{X: f, Y: 1e21, Product: ugc.Product{ID: s + "p", Title: s + "t", Handle: "h", Price: &ugc.Price{Sale: &f}}}, {X: -0.5, Y: 123456789.125, Product: ugc.Product{ID: "i", Title: "t", Handle: "h", Price: &ugc.Price{Currency: s}}}},
			Comment:        s, Alt: s, UploadedBy: &ugc.UploadedBy{Username: s + "u", Email: s, Image: &ugc.ProfileImage{}},
			Labels:      []ugc.Label{{ID: "a", Name: &name}, {ID: s}},
			HideCaption: ptr(false),
		})
	}
	posts = append(posts, ugc.Post{ID: "empty-labels", TaggedProducts: []ugc.TaggedProduct{}, Labels: []ugc.Label{}})
	for i := range posts {
		assert.Equal(t, stdEncode(t, &posts[i]), string(appendPostJSON(nil, &posts[i])), posts[i].ID)
	}
}
