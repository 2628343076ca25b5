package ugc_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ugcposts/ugc-go"
)

// rawPost is a post as JSON members, in order, so a test can change one.
type rawPost [][2]string

// goodRawPost is a valid post with every kind of field the cases bend.
func goodRawPost(id string) rawPost {
	return rawPost{
		{"id", strconv.Quote(id)},
		{"createdAt", `"2024-05-01T12:00:00Z"`},
		{"media", `{"location":"https://cdn.example.test/` + id + `.jpg"}`},
		{"taggedProducts", `[{"x":0.5,"y":0.25,"product":{"id":"prod1","title":"Shoe","handle":"shoe","price":{"price":10,"currency":"EUR"}}}]`},
		{"fromSocial", `false`},
		{"comment", `"hello #ugc"`},
		{"socialDate", `"2024-04-30T08:00:00Z"`},
		{"uploadedBy", `{"username":"ann"}`},
		{"labels", `[{"id":"aaaaaaaaaaaaaaaaaaaaaaaa","name":"Featured"}]`},
	}
}

// with returns the post with member key set to raw ("" removes it).
func (p rawPost) with(key, raw string) rawPost {
	out := rawPost{}
	found := false
	for _, m := range p {
		if m[0] == key {
			found = true
			if raw == "" {
				continue
			}
			m[1] = raw
		}
		out = append(out, m)
	}
	if !found && raw != "" {
		out = append(out, [2]string{key, raw})
	}
	return out
}

func (p rawPost) String() string {
	parts := make([]string, len(p))
	for i, m := range p {
		parts[i] = strconv.Quote(m[0]) + ":" + m[1]
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// tag is the taggedProducts member with product members changed.
func tag(product string) string {
	return `[{"x":0.5,"y":0.25,"product":` + product + `}]`
}

// oddPostCase is one way real servers bend a post.
type oddPostCase struct {
	name string
	node string                          // the odd node's JSON
	path string                          // the deviation's path below nodes[i]; "" for none
	drop bool                            // the node cannot be a post
	keep func(t *testing.T, p *ugc.Post) // checks what the odd post kept
}

const oddID = "p037"

func oddPostCases() []oddPostCase {
	base := goodRawPost(oddID)
	at := func(want time.Time) func(*testing.T, *ugc.Post) {
		return func(t *testing.T, p *ugc.Post) { assert.True(t, want.Equal(p.CreatedAt), "createdAt %v", p.CreatedAt) }
	}
	zeroCreated := func(t *testing.T, p *ugc.Post) { assert.True(t, p.CreatedAt.IsZero()) }
	return []oddPostCase{
		{"timestamp without zone", base.with("createdAt", `"2024-05-01T12:00:00"`).String(), "createdAt", false, at(time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC))},
		{"date only", base.with("createdAt", `"2024-05-01"`).String(), "createdAt", false, at(time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC))},
		{"space instead of T is the contract's (RFC 3339 §5.6)", base.with("createdAt", `"2024-05-01 12:00:00Z"`).String(), "", false, at(time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC))},
		{"fractional seconds without zone", base.with("createdAt", `"2024-05-01T12:00:00.250"`).String(), "createdAt", false, at(time.Date(2024, 5, 1, 12, 0, 0, 250e6, time.UTC))},
		{"timestamp unreadable", base.with("createdAt", `"yesterday"`).String(), "createdAt", false, zeroCreated},
		{"timestamp a Unix time", base.with("createdAt", `1714564800`).String(), "createdAt", false, at(time.Unix(1714564800, 0))},
		{"timestamp in Unix milliseconds", base.with("createdAt", `1714564800250`).String(), "createdAt", false, at(time.UnixMilli(1714564800250))},
		{"timestamp in lower case is the contract's (RFC 3339 §5.6)", base.with("createdAt", `"2024-05-01t12:00:00z"`).String(), "", false, at(time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC))},
		{"PostgreSQL's timestamptz is the contract's", base.with("createdAt", `"2024-05-01 14:00:00.25+02"`).String(), "", false, at(time.Date(2024, 5, 1, 12, 0, 0, 25e7, time.UTC))},
		{"a week date in the basic format is the contract's", base.with("createdAt", `"2024W183T120000Z"`).String(), "", false, at(time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC))},
		{"timestamp with a +0000 offset after an extended time mixes formats", base.with("createdAt", `"2024-05-01T14:00:00+0200"`).String(), "createdAt", false, at(time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC))},
		{"timestamp an object", base.with("createdAt", `{"$date":"2024-05-01"}`).String(), "createdAt", false, zeroCreated},
		{"boolean as yes", base.with("fromSocial", `"yes"`).String(), "fromSocial", false, func(t *testing.T, p *ugc.Post) {
			require.NotNil(t, p.FromSocial)
			assert.True(t, *p.FromSocial)
		}},
		{"media as its URL alone", base.with("media", `"https://cdn.example.test/x.jpg"`).String(), "media", false, func(t *testing.T, p *ugc.Post) {
			assert.Equal(t, "https://cdn.example.test/x.jpg", p.Media.Location)
		}},
		{"timestamp missing", base.with("createdAt", "").String(), "createdAt", false, zeroCreated},
		{"price as a string", base.with("taggedProducts", tag(`{"id":"prod1","title":"Shoe","handle":"shoe","price":{"price":"10.00","currency":"EUR"}}`)).String(), "taggedProducts[0].product.price.price", false, func(t *testing.T, p *ugc.Post) {
			require.NotNil(t, p.TaggedProducts[0].Product.Price.Regular)
			assert.InDelta(t, 10.0, *p.TaggedProducts[0].Product.Price.Regular, 0)
		}},
		{"position as a string", base.with("taggedProducts", `[{"x":"0.5","y":0.25,"product":{"id":"prod1","title":"Shoe","handle":"shoe"}}]`).String(), "taggedProducts[0].x", false, func(t *testing.T, p *ugc.Post) {
			assert.InDelta(t, 0.5, p.TaggedProducts[0].X, 0)
		}},
		{"boolean as a string", base.with("fromSocial", `"true"`).String(), "fromSocial", false, func(t *testing.T, p *ugc.Post) {
			require.NotNil(t, p.FromSocial)
			assert.True(t, *p.FromSocial)
		}},
		{"boolean as a number", base.with("fromSocial", `1`).String(), "fromSocial", false, func(t *testing.T, p *ugc.Post) {
			require.NotNil(t, p.FromSocial)
			assert.True(t, *p.FromSocial)
		}},
		{"empty title", base.with("taggedProducts", tag(`{"id":"prod1","title":"","handle":"shoe"}`)).String(), "taggedProducts[0].product.title", false, func(t *testing.T, p *ugc.Post) {
			assert.Equal(t, "shoe", p.TaggedProducts[0].Product.Handle)
		}},
		{"missing handle", base.with("taggedProducts", tag(`{"id":"prod1","title":"Shoe"}`)).String(), "taggedProducts[0].product.handle", false, func(t *testing.T, p *ugc.Post) {
			assert.Equal(t, "Shoe", p.TaggedProducts[0].Product.Title)
		}},
		{"taggedProducts null", base.with("taggedProducts", `null`).String(), "taggedProducts", false, func(t *testing.T, p *ugc.Post) {
			assert.Equal(t, []ugc.TaggedProduct{}, p.TaggedProducts)
		}},
		{"taggedProducts missing", base.with("taggedProducts", "").String(), "taggedProducts", false, func(t *testing.T, p *ugc.Post) {
			assert.Equal(t, []ugc.TaggedProduct{}, p.TaggedProducts)
		}},
		{"tag position missing", base.with("taggedProducts", `[{"y":0.25,"product":{"id":"prod1","title":"Shoe","handle":"shoe"}}]`).String(), "taggedProducts[0].x", false, func(t *testing.T, p *ugc.Post) {
			assert.Equal(t, "shoe", p.TaggedProducts[0].Product.Handle)
		}},
		{"product media without location", base.with("taggedProducts", tag(`{"id":"prod1","title":"Shoe","handle":"shoe","media":{"hash":"h"}}`)).String(), "taggedProducts[0].product.media.location", false, func(t *testing.T, p *ugc.Post) {
			require.NotNil(t, p.TaggedProducts[0].Product.Media)
			assert.Equal(t, "h", p.TaggedProducts[0].Product.Media.Hash)
		}},
		{"label without name", base.with("labels", `[{"id":"aaaaaaaaaaaaaaaaaaaaaaaa"}]`).String(), "labels[0].name", false, func(t *testing.T, p *ugc.Post) {
			require.Len(t, p.Labels, 1)
			assert.Nil(t, p.Labels[0].Name)
		}},
		{"profile image without hash", base.with("uploadedBy", `{"username":"ann","image":{"filename":"a.jpg","location":"https://cdn.example.test/a.jpg"}}`).String(), "uploadedBy.image.hash", false, func(t *testing.T, p *ugc.Post) {
			require.NotNil(t, p.UploadedBy.Image)
			assert.Equal(t, "a.jpg", p.UploadedBy.Image.Filename)
		}},
		{"a tag that is not an object", base.with("taggedProducts", `[7]`).String(), "taggedProducts[0]", false, func(t *testing.T, p *ugc.Post) {
			assert.Empty(t, p.TaggedProducts)
		}},
		{"media missing", base.with("media", "").String(), "media", false, func(t *testing.T, p *ugc.Post) {
			assert.Equal(t, "hello #ugc", p.Comment)
		}},
		{"media null", base.with("media", `null`).String(), "media", false, func(t *testing.T, p *ugc.Post) {
			assert.Empty(t, p.Media.Location)
		}},
		{"labels null with include=labels", base.with("labels", `null`).String(), "labels", false, func(t *testing.T, p *ugc.Post) {
			assert.Equal(t, []ugc.Label{}, p.Labels)
		}},
		{"id a number", base.with("id", `37`).String(), "id", false, func(t *testing.T, p *ugc.Post) {
			assert.Equal(t, "37", p.ID)
		}},
		{"caption an object", base.with("comment", `{"text":"hi"}`).String(), "comment", false, func(t *testing.T, p *ugc.Post) {
			assert.Empty(t, p.Comment)
		}},
		{"caption a number", base.with("comment", `42`).String(), "comment", false, func(t *testing.T, p *ugc.Post) {
			assert.Equal(t, "42", p.Comment)
		}},
		{"uploader without username", base.with("uploadedBy", `{"email":"a@b.test"}`).String(), "uploadedBy.username", false, func(t *testing.T, p *ugc.Post) {
			require.NotNil(t, p.UploadedBy)
			assert.Equal(t, "a@b.test", p.UploadedBy.Email)
		}},
		{"origin a string", base.with("origin", `"instagram"`).String(), "origin", false, func(t *testing.T, p *ugc.Post) {
			assert.Nil(t, p.Origin)
		}},
		{"social date unreadable", base.with("socialDate", `"last week"`).String(), "socialDate", false, func(t *testing.T, p *ugc.Post) {
			assert.True(t, p.SocialDate.IsZero())
		}},
		{"member name in another case", base.with("Comment", `"shouted"`).with("comment", "").String(), "Comment", false, func(t *testing.T, p *ugc.Post) {
			assert.Equal(t, "shouted", p.Comment)
		}},
		{"unknown media type is kept, not a deviation", base.with("type", `"CAROUSEL"`).String(), "", false, func(t *testing.T, p *ugc.Post) {
			assert.Equal(t, ugc.MediaType("CAROUSEL"), p.Type)
		}},
		{"unknown member is ignored", base.with("score", `{"a":[1,2]}`).String(), "", false, nil},
		{"node not an object", `"p037"`, "", true, nil},
		{"node null", `null`, "", true, nil},
		{"node without id", base.with("id", "").String(), "id", true, nil},
		{"node with an empty id", base.with("id", `""`).String(), "id", true, nil},
	}
}

// pagedServer serves nodes by skip and limit, 25 a page at most, with a
// next link while nodes remain.
func pagedServer(t *testing.T, nodes []string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		skip, _ := strconv.Atoi(r.URL.Query().Get("skip"))
		limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		limit = min(max(limit, 1), ugc.MaxLimit)
		end := min(skip+limit, len(nodes))
		next := "null"
		if end < len(nodes) {
			next = strconv.Quote(fmt.Sprintf("http://%s%s?limit=%d&skip=%d", r.Host, r.URL.Path, limit, end))
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"count":%d,"next":%s,"nodes":[%s]}`, len(nodes), next, strings.Join(nodes[min(skip, end):end], ","))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestOddPostCostsNothing: a 3-page walk of 75 posts where the post on
// page 2 deviates in one way. For every kind of deviation, in every mode,
// the 74 good posts all come, in order; the odd one comes with what could
// be read (or, when it cannot be a post, is left out and reported); the
// deviation is recorded with the post, its path, what was sent and what was
// kept; and a strict client fails with a DecodeError that names the post
// and the field.
func TestOddPostCostsNothing(t *testing.T) {
	t.Parallel()
	for _, tc := range oddPostCases() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			nodes := make([]string, 75)
			var good []string
			for i := range nodes {
				id := fmt.Sprintf("p%03d", i)
				nodes[i] = goodRawPost(id).String()
				if id != oddID {
					good = append(good, id)
				}
			}
			nodes[37] = tc.node
			srv := pagedServer(t, nodes)
			params := &ugc.PostsParams{Limit: 25, Include: []ugc.Include{ugc.IncludeLabels}}

			for _, mode := range iterModes {
				c, err := ugc.NewClient(srv.URL, "tolerant-key", ugc.WithRetryWait(0, 0))
				require.NoError(t, err)
				var sum ugc.WalkSummary
				var got []string
				var odd *ugc.Post
				for p, err := range c.AllPosts(context.Background(), params, append(mode.opts, ugc.WithSummary(&sum))...) {
					require.NoError(t, err, mode.name)
					if p.ID == oddID || !strings.HasPrefix(p.ID, "p") { // "37" for the number id
						odd = &p
						continue
					}
					got = append(got, p.ID)
				}
				assert.Equal(t, good, got, "%s: every good post, in order", mode.name)
				if tc.drop {
					assert.Nil(t, odd, "%s: a node that cannot be a post is left out", mode.name)
				} else if assert.NotNil(t, odd, "%s: the odd post comes", mode.name) && tc.keep != nil {
					tc.keep(t, odd)
				}
				if tc.path == "" && !tc.drop {
					assert.Empty(t, sum.Deviations, mode.name)
					continue
				}
				require.Len(t, sum.Deviations, 1, "%s: %v", mode.name, sum.Deviations)
				d := sum.Deviations[0]
				assert.Equal(t, tc.drop, d.Dropped)
				if tc.path != "" {
					assert.True(t, strings.HasPrefix(d.Path, "nodes[") && strings.HasSuffix(d.Path, "]."+tc.path), "path %q", d.Path)
				}
				if !tc.drop {
					assert.NotEmpty(t, d.PostID)
					assert.NotEmpty(t, d.Kept)
				}
				assert.Equal(t, 1, sum.DeviationCount)
			}

			strict, err := ugc.NewClient(srv.URL, "tolerant-key", ugc.WithRetryWait(0, 0), ugc.WithStrictDecoding())
			require.NoError(t, err)
			var n int
			var walkErr error
			for _, err := range strict.AllPosts(context.Background(), params) {
				if err != nil {
					walkErr = err
					break
				}
				n++
			}
			if tc.path == "" && !tc.drop {
				assert.NoError(t, walkErr)
				return
			}
			var de *ugc.DecodeError
			require.ErrorAs(t, walkErr, &de, "strict: a deviation is a DecodeError")
			if tc.path != "" {
				assert.Contains(t, walkErr.Error(), tc.path)
			}
			if !tc.drop && tc.name != "id a number" {
				assert.Contains(t, walkErr.Error(), oddID)
			}
			assert.NotContains(t, walkErr.Error(), "tolerant-key")
		})
	}
}

// TestPageIteratorsShowDeviations: the page iterators hand each page with
// what was forgiven on it, once, even for a post that two overlapping pages
// hold (the last post of one page starts the next).
func TestPageIteratorsShowDeviations(t *testing.T) {
	t.Parallel()
	nodes := make([]string, 60)
	for i := range nodes {
		nodes[i] = goodRawPost(fmt.Sprintf("p%03d", i)).String()
	}
	nodes[24] = goodRawPost("p024").with("fromSocial", `"true"`).String() // the anchor of page 2
	nodes[40] = goodRawPost("p040").with("createdAt", `"2024-05-01"`).String()
	srv := pagedServer(t, nodes)
	c, err := ugc.NewClient(srv.URL, "tolerant-key", ugc.WithRetryWait(0, 0))
	require.NoError(t, err)
	var paths []string
	for page, err := range c.PostsPages(context.Background(), &ugc.PostsParams{Limit: 25}) {
		require.NoError(t, err)
		for _, d := range page.Deviations {
			paths = append(paths, d.PostID+" "+d.Path[strings.Index(d.Path, "]")+1:])
		}
	}
	assert.Equal(t, []string{"p024 .fromSocial", "p040 .createdAt"}, paths)
}

// TestDeviationNeverQuotesPartOfTheKey: a server that echoes the API key
// inside a deviating value, at every offset around the point where a
// Deviation's quote is cut and in its JSON-escaped form, never shows any
// part of the key: not in Sent, not in the log line, not in a strict
// client's error. (The padding is spaces: the key stands as a token, as
// the masker masks it; see keytoken.go.)
func TestDeviationNeverQuotesPartOfTheKey(t *testing.T) {
	t.Parallel()
	const key = "tolerant/canary+key=0123456789abcdef"
	escaped := strings.ReplaceAll(key, "/", `\/`)
	for offset := range 60 {
		for _, form := range []string{key, escaped} {
			odd := goodRawPost("p001").with("comment", `{"k":"`+strings.Repeat(" ", offset)+form+`"}`).String()
			srv := pagedServer(t, []string{goodRawPost("p000").String(), odd})
			var logs strings.Builder
			logger := slog.New(slog.NewTextHandler(&logs, nil))
			c, err := ugc.NewClient(srv.URL, key, ugc.WithRetryWait(0, 0), ugc.WithLogger(logger))
			require.NoError(t, err)
			page, err := c.Posts(context.Background(), nil)
			require.NoError(t, err)
			require.Len(t, page.Deviations, 1)
			strict, err := ugc.NewClient(srv.URL, key, ugc.WithRetryWait(0, 0), ugc.WithStrictDecoding())
			require.NoError(t, err)
			_, strictErr := strict.Posts(context.Background(), nil)
			require.Error(t, strictErr)
			for _, text := range []string{page.Deviations[0].Sent, page.Deviations[0].String(), logs.String(), strictErr.Error()} {
				for i := 0; i+8 <= len(key); i++ {
					require.NotContains(t, text, key[i:i+8], "offset %d: part of the key shows", offset)
				}
			}
		}
	}
}

// TestStrictModeRefusesAReplacedString: a caption with a lone surrogate is
// read with U+FFFD and a deviation by a tolerant client, and refused by a
// strict one, with a DecodeError that names the post and the field.
func TestStrictModeRefusesAReplacedString(t *testing.T) {
	t.Parallel()
	odd := goodRawPost("p001").with("comment", `"sunset \ud83c"`).String()
	srv := pagedServer(t, []string{goodRawPost("p000").String(), odd})
	c, err := ugc.NewClient(srv.URL, "tolerant-key", ugc.WithRetryWait(0, 0))
	require.NoError(t, err)
	page, err := c.Posts(context.Background(), nil)
	require.NoError(t, err)
	assert.Equal(t, "sunset \uFFFD", page.Nodes[1].Comment)
	require.Len(t, page.Deviations, 1)
	assert.Contains(t, page.Deviations[0].String(), `nodes[1].comment (post p001): sent "sunset \ud83c", kept U+FFFD in place of a lone surrogate`)

	strict, err := ugc.NewClient(srv.URL, "tolerant-key", ugc.WithRetryWait(0, 0), ugc.WithStrictDecoding())
	require.NoError(t, err)
	_, err = strict.Posts(context.Background(), nil)
	var decErr *ugc.DecodeError
	require.ErrorAs(t, err, &decErr)
	assert.Contains(t, err.Error(), "nodes[1].comment (post p001)")
	assert.Contains(t, err.Error(), "lone surrogate")
}
