package ugc_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	ugc "github.com/ugcposts/ugc-go"
)

// goldenPage reads a hand-written page from testdata/pages.
func goldenPage(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "pages", name))
	require.NoError(t, err)
	return b
}

// valueOf returns a pointer to a copy of v, for optional fields.
func valueOf[T any](v T) *T { return &v }

func utc(year int, month time.Month, day, hour, minute, sec, nsec int) time.Time {
	return time.Date(year, month, day, hour, minute, sec, nsec, time.UTC)
}

// TestGoldenPagesDecode decodes each valid golden page and compares the whole
// result with a Go literal written from the same contract tables.
func TestGoldenPagesDecode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file string
		want ugc.Page
	}{
		{
			file: "full_post.json",
			want: ugc.Page{
				Count: 42,
				Next:  "https://api.example.test/prefix/v1/posts?limit=1&skip=1&include=labels",
				Nodes: []ugc.Post{{
					ID:        "6650a1b2c3d4e5f601234567",
					CreatedAt: utc(2024, time.May, 1, 12, 30, 45, 123_000_000),
					Media: ugc.Media{
						Location: "https://cdn.example.test/posts/6650a1b2.mp4",
						Hash:     "LEHV6nWB2yk8pyo0adR*.7kCMdnj",
						Filename: "beach-day.mp4",
					},
					TaggedProducts: []ugc.TaggedProduct{{
						X: 0.25,
						Y: 0.75,
						Product: ugc.Product{
							ID:     "prod-1001",
							Title:  "Linen Shirt",
							Handle: "linen-shirt",
							Price: &ugc.Price{
								Regular:  valueOf(59.9),
								Currency: "EUR",
								Sale:     valueOf(44.5),
							},
							Category: "Men > Shirts",
							Media: &ugc.Media{
								Location: "https://cdn.example.test/products/linen-shirt.jpg",
								Hash:     "L6PZfSi_.AyE_3t7t7R**0o#DgR4",
								Filename: "linen-shirt.jpg",
							},
							URL:            "https://shop.example.test/products/linen-shirt",
							DevelopmentURL: "https://staging.shop.example.test/products/linen-shirt",
							SKU:            "LS-BLU-M",
							MPN:            "MPN-77812",
							GTIN:           "4006381333931",
						},
					}},
					Origin:           &ugc.PostOrigin{Type: "SOCIAL"},
					Alt:              "A person in a blue linen shirt on a beach",
					VideoCaptions:    "Hello from the beach!",
					VideoDescription: "A short clip of a walk along the shore",
					SocialURL:        "https://social.example.test/p/abc123",
					Type:             ugc.MediaTypeVideo,
					FromSocial:       valueOf(true),
					AddedByCompany:   valueOf(true),
					SocialDate:       utc(2024, time.April, 30, 8, 0, 0, 0),
					Comment:          "Summer vibes #linen @shop",
					HideCaption:      valueOf(true),
					UploadedBy: &ugc.UploadedBy{
						Username: "sunny_days",
						Email:    "sunny@example.test",
						Image: &ugc.ProfileImage{
							Hash:     "d41d8cd98f00b204e9800998ecf8427e",
							Filename: "avatar.png",
							Location: "https://cdn.example.test/avatars/sunny.png",
						},
					},
					Labels: []ugc.Label{
						{ID: "65f0c0ffee0000000000beef", Name: valueOf("Summer")},
						{ID: "65f0c0ffee0000000000cafe", Name: nil},
					},
				}},
			},
		},
		{
			file: "minimal_post.json",
			want: ugc.Page{
				Count: 1,
				Nodes: []ugc.Post{{
					ID:             "6650a1b2c3d4e5f60000aaaa",
					CreatedAt:      utc(2024, time.January, 2, 3, 4, 5, 0),
					Media:          ugc.Media{Location: "https://cdn.example.test/posts/minimal.jpg"},
					TaggedProducts: []ugc.TaggedProduct{},
				}},
			},
		},
		{
			file: "falsy_values.json",
			want: ugc.Page{
				Count: 0,
				Nodes: []ugc.Post{{
					ID:        "6650a1b2c3d4e5f60000bbbb",
					CreatedAt: utc(2024, time.February, 29, 23, 59, 59, 0),
					Media:     ugc.Media{Location: "https://cdn.example.test/posts/falsy.jpg"},
					TaggedProducts: []ugc.TaggedProduct{{
						X: 0,
						Y: 0,
						Product: ugc.Product{
							ID:     "prod-free",
							Title:  "Free Sticker",
							Handle: "free-sticker",
							Price:  &ugc.Price{Regular: valueOf(0.0), Currency: "USD", Sale: valueOf(0.0)},
						},
					}},
					Type:           ugc.MediaTypeImage,
					FromSocial:     valueOf(false),
					AddedByCompany: valueOf(false),
					HideCaption:    valueOf(false),
					Labels:         []ugc.Label{},
				}},
			},
		},
		{
			file: "unknown_media_type.json",
			want: ugc.Page{
				Count: 3,
				Next:  "https://api.example.test/prefix/v1/galleries/abc123/posts?skip=2&limit=2",
				Nodes: []ugc.Post{
					{
						ID:             "6650a1b2c3d4e5f60000cccc",
						CreatedAt:      utc(2024, time.March, 10, 10, 0, 0, 0),
						Media:          ugc.Media{Location: "https://cdn.example.test/posts/carousel-1.jpg"},
						TaggedProducts: []ugc.TaggedProduct{},
						Type:           ugc.MediaType("CAROUSEL"),
						Origin:         &ugc.PostOrigin{Type: "UPLOAD"},
					},
					{
						ID:             "6650a1b2c3d4e5f60000dddd",
						CreatedAt:      utc(2024, time.March, 11, 10, 0, 0, 0),
						Media:          ugc.Media{Location: "https://cdn.example.test/posts/plain.jpg"},
						TaggedProducts: []ugc.TaggedProduct{},
						Type:           ugc.MediaTypeImage,
					},
				},
			},
		},
		{
			file: "unknown_fields.json",
			want: ugc.Page{
				Count: 1,
				Nodes: []ugc.Post{{
					ID:        "6650a1b2c3d4e5f60000eeee",
					CreatedAt: utc(2024, time.June, 1, 0, 0, 0, 0),
					Media:     ugc.Media{Location: "https://cdn.example.test/posts/extra.jpg"},
					TaggedProducts: []ugc.TaggedProduct{{
						X: 0.5,
						Y: 0.5,
						Product: ugc.Product{
							ID:     "prod-2",
							Title:  "Canvas Tote",
							Handle: "canvas-tote",
							Price:  &ugc.Price{Regular: valueOf(19.0), Currency: "GBP"},
						},
					}},
					Origin:     &ugc.PostOrigin{Type: "MANUAL"},
					UploadedBy: &ugc.UploadedBy{Username: "acme_team"},
					Labels:     []ugc.Label{{ID: "65f0c0ffee0000000000f00d", Name: valueOf("Totes")}},
				}},
			},
		},
		{
			file: "empty_page.json",
			want: ugc.Page{Count: 0, Next: "", Nodes: []ugc.Post{}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			var got ugc.Page
			require.NoError(t, json.Unmarshal(goldenPage(t, tt.file), &got))
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestDecodeAbsentVersusFalsy checks, beyond whole-struct equality, that an
// absent optional field and a present false or zero one stay apart.
func TestDecodeAbsentVersusFalsy(t *testing.T) {
	t.Parallel()
	var minimal, falsy ugc.Page
	require.NoError(t, json.Unmarshal(goldenPage(t, "minimal_post.json"), &minimal))
	require.NoError(t, json.Unmarshal(goldenPage(t, "falsy_values.json"), &falsy))
	require.Len(t, minimal.Nodes, 1)
	require.Len(t, falsy.Nodes, 1)
	absent, present := minimal.Nodes[0], falsy.Nodes[0]

	assert.Nil(t, absent.FromSocial, "fromSocial absent")
	assert.Nil(t, absent.AddedByCompany, "addedByCompany absent")
	assert.Nil(t, absent.HideCaption, "hideCaption absent")
	assert.True(t, absent.SocialDate.IsZero(), "socialDate absent is the zero time")
	assert.Nil(t, absent.Labels, "labels absent without include=labels")
	assert.NotNil(t, absent.TaggedProducts, "taggedProducts [] is present")
	assert.Empty(t, absent.TaggedProducts)

	if assert.NotNil(t, present.FromSocial) {
		assert.False(t, *present.FromSocial)
	}
	if assert.NotNil(t, present.AddedByCompany) {
		assert.False(t, *present.AddedByCompany)
	}
	if assert.NotNil(t, present.HideCaption) {
		assert.False(t, *present.HideCaption)
	}
	assert.NotNil(t, present.Labels, "labels [] is present")
	assert.Empty(t, present.Labels)
	price := present.TaggedProducts[0].Product.Price
	require.NotNil(t, price)
	if assert.NotNil(t, price.Regular, "price 0 is present") {
		assert.Zero(t, *price.Regular)
	}
	if assert.NotNil(t, price.Sale, "salePrice 0 is present") {
		assert.Zero(t, *price.Sale)
	}
}

// TestDecodeInvalidPages checks that each invalid golden page is an error
// that names the offending field.
func TestDecodeInvalidPages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file      string
		wantInErr []string // an envelope that cannot be read
		deviation string   // or the path of what a tolerant read forgave
	}{
		{file: "invalid_nodes_null.json", wantInErr: []string{"nodes", "missing"}},
		{file: "invalid_nodes_missing.json", wantInErr: []string{"nodes", "missing"}},
		{file: "invalid_count_missing.json", wantInErr: []string{"count", "missing"}},
		{file: "invalid_next_missing.json", wantInErr: []string{"next", "missing"}},
		{file: "invalid_count_string.json", deviation: "count"}, // read: a string holding an integer
		{file: "invalid_truncated.json", wantInErr: []string{"unexpected end of JSON input"}},
		{file: "invalid_html.html", wantInErr: []string{"invalid character '<'"}}, // encoding/json checks the syntax first
		{file: "invalid_post_missing_id.json", deviation: "nodes[0].id"},
		{file: "invalid_post_missing_created_at.json", deviation: "nodes[0].createdAt"},
		{file: "invalid_post_missing_media_location.json", deviation: "nodes[1].media.location"},
		{file: "invalid_post_missing_tagged_products.json", deviation: "nodes[0].taggedProducts"},
		{file: "invalid_product_missing_title.json", deviation: "nodes[0].taggedProducts[1].product.title"},
		{file: "invalid_price_string.json", deviation: "nodes[0].taggedProducts[0].product.price.price"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			var got ugc.Page
			err := json.Unmarshal(goldenPage(t, tt.file), &got)
			if tt.deviation != "" {
				require.NoError(t, err, "a post that deviates does not cost the page")
				require.NotEmpty(t, got.Deviations)
				assert.Equal(t, tt.deviation, got.Deviations[0].Path)
				return
			}
			require.Error(t, err)
			for _, s := range tt.wantInErr {
				assert.Contains(t, err.Error(), s)
			}
			assert.Equal(t, ugc.Page{}, got, "a failed decode leaves the page untouched")
		})
	}
}

// TestDecodeInvalidInline covers invalid shapes that need no file of their
// own: an envelope that cannot be read is an error; a post that deviates is
// read, with the deviation's path recorded.
func TestDecodeInvalidInline(t *testing.T) {
	t.Parallel()
	post := `{"id":"p1","createdAt":"2024-01-02T03:04:05Z","media":{"location":"m"},"taggedProducts":[]`
	tests := []struct {
		name, body, wantInErr, deviation string
	}{
		{name: "taggedProducts null", body: `{"count":1,"next":null,"nodes":[{"id":"p1","createdAt":"2024-01-02T03:04:05Z","media":{"location":"m"},"taggedProducts":null}]}`, deviation: "nodes[0].taggedProducts"},
		{name: "origin without type", body: `{"count":1,"next":null,"nodes":[` + post + `,"origin":{}}]}`, deviation: "nodes[0].origin.type"},
		{name: "uploadedBy without username", body: `{"count":1,"next":null,"nodes":[` + post + `,"uploadedBy":{"email":"a@b.test"}}]}`, deviation: "nodes[0].uploadedBy.username"},
		{name: "label without id", body: `{"count":1,"next":null,"nodes":[` + post + `,"labels":[{"name":"x"}]}]}`, deviation: "nodes[0].labels[0].id"},
		{name: "product without handle", body: `{"count":1,"next":null,"nodes":[{"id":"p1","createdAt":"2024-01-02T03:04:05Z","media":{"location":"m"},"taggedProducts":[{"x":0,"y":0,"product":{"id":"a","title":"b"}}]}]}`, deviation: "nodes[0].taggedProducts[0].product.handle"},
		{name: "product without id", body: `{"count":1,"next":null,"nodes":[{"id":"p1","createdAt":"2024-01-02T03:04:05Z","media":{"location":"m"},"taggedProducts":[{"x":0,"y":0,"product":{"title":"a","handle":"b"}}]}]}`, deviation: "nodes[0].taggedProducts[0].product.id"},
		{name: "x a string", body: `{"count":1,"next":null,"nodes":[{"id":"p1","createdAt":"2024-01-02T03:04:05Z","media":{"location":"m"},"taggedProducts":[{"x":"0.5","y":0,"product":{"id":"a","title":"b","handle":"c"}}]}]}`, deviation: "nodes[0].taggedProducts[0].x"},
		{name: "next a number", body: `{"count":1,"next":3,"nodes":[]}`, wantInErr: "next"},
		{name: "nodes an object", body: `{"count":1,"next":null,"nodes":{}}`, wantInErr: "nodes"},
		{name: "null page", body: `null`, wantInErr: "page must be a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got ugc.Page
			err := json.Unmarshal([]byte(tt.body), &got)
			if tt.deviation != "" {
				require.NoError(t, err)
				require.NotEmpty(t, got.Deviations)
				assert.Equal(t, tt.deviation, got.Deviations[0].Path)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantInErr)
		})
	}
}

func TestPageMarshalJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		page ugc.Page
		want string
	}{
		{"empty next is null, nil nodes is []", ugc.Page{Count: 0}, `{"count":0,"next":null,"nodes":[]}`},
		{"empty nodes stay []", ugc.Page{Count: 7, Nodes: []ugc.Post{}}, `{"count":7,"next":null,"nodes":[]}`},
		{"next is a string", ugc.Page{Count: 2, Next: "https://api.example.test/v1/posts?skip=1&limit=1"}, `{"count":2,"next":"https://api.example.test/v1/posts?skip=1\u0026limit=1","nodes":[]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := json.Marshal(tt.page)
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(got))
			var back ugc.Page
			require.NoError(t, json.Unmarshal(got, &back), "our own output decodes")
			assert.Equal(t, tt.page.Count, back.Count)
			assert.Equal(t, tt.page.Next, back.Next)
			assert.Empty(t, back.Nodes)
		})
	}
}

// TestGoldenPagesRoundTrip re-encodes each decoded golden page and decodes it
// again: nothing is lost and no optional field is written as null.
func TestGoldenPagesRoundTrip(t *testing.T) {
	t.Parallel()
	for _, file := range []string{"full_post.json", "minimal_post.json", "falsy_values.json", "unknown_media_type.json", "unknown_fields.json", "empty_page.json"} {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			var first ugc.Page
			require.NoError(t, json.Unmarshal(goldenPage(t, file), &first))
			b, err := json.Marshal(first)
			require.NoError(t, err)
			var second ugc.Page
			require.NoError(t, json.Unmarshal(b, &second))
			assert.Equal(t, first, second)
		})
	}
}

func TestPostMarshalOmitsAbsentFields(t *testing.T) {
	t.Parallel()
	t.Run("minimal post", func(t *testing.T) {
		t.Parallel()
		p := ugc.Post{
			ID:             "6650a1b2c3d4e5f60000aaaa",
			CreatedAt:      utc(2024, time.January, 2, 3, 4, 5, 0),
			Media:          ugc.Media{Location: "https://cdn.example.test/posts/minimal.jpg"},
			TaggedProducts: []ugc.TaggedProduct{},
		}
		got, err := json.Marshal(p)
		require.NoError(t, err)
		assert.JSONEq(t, `{
			"id": "6650a1b2c3d4e5f60000aaaa",
			"createdAt": "2024-01-02T03:04:05Z",
			"media": {"location": "https://cdn.example.test/posts/minimal.jpg"},
			"taggedProducts": []
		}`, string(got))
		assert.NotContains(t, string(got), "null")
	})
	t.Run("a page writes a nil taggedProducts as [] without changing the post", func(t *testing.T) {
		t.Parallel()
		page := ugc.Page{Count: 1, Nodes: []ugc.Post{{ID: "p", CreatedAt: utc(2024, time.January, 2, 3, 4, 5, 0), Media: ugc.Media{Location: "m"}}}}
		got, err := json.Marshal(page)
		require.NoError(t, err)
		assert.Contains(t, string(got), `"taggedProducts":[]`)
		assert.Nil(t, page.Nodes[0].TaggedProducts, "the caller's page is unchanged")
		var back ugc.Page
		require.NoError(t, json.Unmarshal(got, &back), "a page built in Go round-trips")
	})
	t.Run("a struct embedding Post keeps its own fields", func(t *testing.T) {
		t.Parallel()
		row := struct {
			ugc.Post
			Exported string `json:"exported"`
		}{Post: ugc.Post{ID: "p", TaggedProducts: []ugc.TaggedProduct{}}, Exported: "yes"}
		got, err := json.Marshal(row)
		require.NoError(t, err)
		assert.Contains(t, string(got), `"exported":"yes"`)
		assert.Contains(t, string(got), `"id":"p"`)
	})
	t.Run("tagged product with empty price", func(t *testing.T) {
		t.Parallel()
		p := ugc.Post{
			ID:        "p",
			CreatedAt: utc(2024, time.January, 2, 3, 4, 5, 0),
			Media:     ugc.Media{Location: "m"},
			TaggedProducts: []ugc.TaggedProduct{{
				Product: ugc.Product{ID: "a", Title: "b", Handle: "c", Price: &ugc.Price{Currency: "EUR"}},
			}},
			UploadedBy: &ugc.UploadedBy{Username: "u"},
		}
		got, err := json.Marshal(p)
		require.NoError(t, err)
		assert.JSONEq(t, `{
			"id": "p",
			"createdAt": "2024-01-02T03:04:05Z",
			"media": {"location": "m"},
			"taggedProducts": [{"x": 0, "y": 0, "product": {"id": "a", "title": "b", "handle": "c", "price": {"currency": "EUR"}}}],
			"uploadedBy": {"username": "u"}
		}`, string(got))
	})
	t.Run("labels: only a label's name may be null", func(t *testing.T) {
		t.Parallel()
		p := ugc.Post{
			ID:             "p",
			CreatedAt:      utc(2024, time.January, 2, 3, 4, 5, 0),
			Media:          ugc.Media{Location: "m"},
			TaggedProducts: []ugc.TaggedProduct{},
			Labels:         []ugc.Label{{ID: "65f0c0ffee0000000000cafe"}},
		}
		got, err := json.Marshal(p)
		require.NoError(t, err)
		assert.Contains(t, string(got), `"labels":[{"id":"65f0c0ffee0000000000cafe","name":null}]`)
		assert.Equal(t, 1, strings.Count(string(got), "null"))
	})
	t.Run("empty labels stay []", func(t *testing.T) {
		t.Parallel()
		p := ugc.Post{ID: "p", CreatedAt: utc(2024, time.January, 2, 3, 4, 5, 0), Media: ugc.Media{Location: "m"}, Labels: []ugc.Label{}}
		got, err := json.Marshal(p)
		require.NoError(t, err)
		assert.Contains(t, string(got), `"labels":[]`)
	})
	t.Run("whole page with a Go-built post decodes back", func(t *testing.T) {
		t.Parallel()
		in := ugc.Page{Count: 1, Nodes: []ugc.Post{{
			ID:        "p",
			CreatedAt: utc(2024, time.January, 2, 3, 4, 5, 0),
			Media:     ugc.Media{Location: "m"},
		}}}
		b, err := json.Marshal(in)
		require.NoError(t, err)
		var out ugc.Page
		require.NoError(t, json.Unmarshal(b, &out))
		require.Len(t, out.Nodes, 1)
		assert.Equal(t, []ugc.TaggedProduct{}, out.Nodes[0].TaggedProducts)
	})
}

// TestGoldenPagesOfTheReader (issue 17): timestamps in ISO 8601's other
// forms and PostgreSQL's, a count written as 2.5e1, a byte-order mark, a
// member sent twice, and invalid JSON inside a value of the wrong type.
// Read by the page's own UnmarshalJSON (json.Unmarshal checks the syntax
// itself before it calls it).
func TestGoldenPagesOfTheReader(t *testing.T) {
	t.Parallel()
	t.Run("iso8601_timestamps.json", func(t *testing.T) {
		t.Parallel()
		var page ugc.Page
		require.NoError(t, page.UnmarshalJSON(goldenPage(t, "iso8601_timestamps.json")))
		assert.Empty(t, page.Deviations, "forms the contract allows, and a count equal to an integer")
		assert.Equal(t, 25, page.Count)
		want := [][2]time.Time{
			{utc(2024, time.May, 1, 10, 15, 0, 123456000), utc(2024, time.May, 1, 10, 15, 0, 0)},
			{utc(2024, time.May, 1, 10, 15, 0, 0), utc(2024, time.May, 1, 10, 15, 0, 0)},
			{utc(2024, time.May, 1, 0, 0, 0, 0), utc(2017, time.January, 1, 0, 0, 0, 0)},
		}
		require.Len(t, page.Nodes, len(want))
		for i, w := range want {
			assert.True(t, w[0].Equal(page.Nodes[i].CreatedAt), "post %d createdAt %v", i, page.Nodes[i].CreatedAt)
			assert.True(t, w[1].Equal(page.Nodes[i].SocialDate), "post %d socialDate %v", i, page.Nodes[i].SocialDate)
		}
	})
	t.Run("byte_order_mark.json", func(t *testing.T) {
		t.Parallel()
		var page ugc.Page
		require.NoError(t, page.UnmarshalJSON(goldenPage(t, "byte_order_mark.json")))
		require.Len(t, page.Nodes, 1)
		require.Len(t, page.Deviations, 1)
		assert.Equal(t, -1, page.Deviations[0].Index)
	})
	t.Run("invalid_duplicate_member.json", func(t *testing.T) {
		t.Parallel()
		var page ugc.Page
		require.NoError(t, page.UnmarshalJSON(goldenPage(t, "invalid_duplicate_member.json")))
		require.Len(t, page.Nodes, 1)
		assert.Equal(t, "second", page.Nodes[0].Comment, "the last, as encoding/json keeps it")
		require.Len(t, page.Deviations, 1)
		assert.Equal(t, "nodes[0].comment", page.Deviations[0].Path)
	})
	for file, where := range map[string]string{
		"invalid_bad_escape_in_boolean.json":       "nodes[0].fromSocial",
		"invalid_control_character_in_number.json": "nodes[0].taggedProducts[0].x",
	} {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			var page ugc.Page
			err := page.UnmarshalJSON(goldenPage(t, file))
			require.Error(t, err, "invalid JSON is never a page")
			assert.Contains(t, err.Error(), "invalid JSON")
			assert.Contains(t, err.Error(), "in "+where)
			assert.Equal(t, ugc.Page{}, page)
		})
	}
}
