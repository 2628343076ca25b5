package ugctest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
)

// answer is a raw HTTP answer.
type answer struct {
	status int
	header http.Header
	body   string
}

// fetch sends one request with the key (no header at all when key is nil).
func fetch(t *testing.T, method, rawURL string, key *string) answer {
	t.Helper()
	return send(t, method, rawURL, key, "")
}

// send is fetch with a request body.
func send(t *testing.T, method, rawURL string, key *string, body string) answer {
	t.Helper()
	req, err := http.NewRequest(method, rawURL, strings.NewReader(body))
	require.NoError(t, err)
	if key != nil {
		req.Header.Set("x-api-key", *key)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return answer{status: resp.StatusCode, header: resp.Header, body: string(b)}
}

// get fetches srv.URL+path with the server's key.
func get(t *testing.T, srv *ugctest.Server, path string) answer {
	t.Helper()
	return fetch(t, http.MethodGet, srv.URL+path, &srv.APIKey)
}

// envelope is a decoded 200 page, with each post kept as raw keys.
type envelope struct {
	Count int                          `json:"count"`
	Next  *string                      `json:"next"`
	Nodes []map[string]json.RawMessage `json:"nodes"`
}

// page fetches a page and checks the envelope's exact keys.
func page(t *testing.T, srv *ugctest.Server, path string) envelope {
	t.Helper()
	a := get(t, srv, path)
	require.Equal(t, http.StatusOK, a.status, a.body)
	assert.Equal(t, "application/json", a.header.Get("Content-Type"))
	var keys map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(a.body), &keys))
	assert.ElementsMatch(t, []string{"count", "next", "nodes"}, mapKeys(keys))
	var e envelope
	require.NoError(t, json.Unmarshal([]byte(a.body), &e))
	require.NotNil(t, e.Nodes, "nodes is never null")
	return e
}

func mapKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func ids(t *testing.T, e envelope) []string {
	t.Helper()
	out := make([]string, len(e.Nodes))
	for i, n := range e.Nodes {
		require.NoError(t, json.Unmarshal(n["id"], &out[i]))
	}
	return out
}

func storedIDs(ds *ugctest.Dataset) []string {
	out := make([]string, len(ds.Posts))
	for i, p := range ds.Posts {
		out[i] = p.ID
	}
	return out
}

func strptr(s string) *string { return &s }

func filterQuery(f string) string { return "filter=" + url.QueryEscape(f) }

func TestAuthOnEveryEndpoint(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t)
	paths := []string{"/v1/posts", "/v1/galleries/summer/posts", "/v1/inbox", "/v1/galleries/nope/posts", "/v1/unknown", "/v1/posts?limit=0"}
	keys := map[string]*string{"missing": nil, "empty": strptr(""), "wrong": strptr("wrong-key"), "key with a suffix": strptr(srv.APIKey + "x")}
	for _, p := range paths {
		for name, key := range keys {
			t.Run(p+"/"+name, func(t *testing.T) {
				t.Parallel()
				a := fetch(t, http.MethodGet, srv.URL+p, key)
				assert.Equal(t, http.StatusUnauthorized, a.status)
				assert.Equal(t, `"No valid API key provided"`, a.body)
				assert.Equal(t, "application/json", a.header.Get("Content-Type"))
			})
		}
	}
	t.Run("valid key", func(t *testing.T) {
		t.Parallel()
		assert.Equal(t, http.StatusOK, get(t, srv, "/v1/posts?limit=1").status)
	})
}

func TestBadRequests(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t)
	const lim, skp = `"limit must be an integer of at least 1"`, `"skip must be an integer of at least 0"`
	cases := []struct{ path, body string }{
		{"/v1/posts?limit=0", lim},
		{"/v1/posts?limit=-1", lim},
		{"/v1/posts?limit=abc", lim},
		{"/v1/posts?limit=1.5", lim},
		{"/v1/posts?limit=", lim},
		{"/v1/posts?skip=-1", skp},
		{"/v1/posts?skip=x", skp},
		{"/v1/posts?skip=", skp},
		{"/v1/inbox?limit=0", lim},
		{"/v1/inbox?skip=-3", skp},
		{"/v1/galleries/summer/posts?limit=zero", lim},
		{"/v1/galleries/summer/posts?skip=-1", skp},
		{"/v1/posts?include=", `"include must not be empty"`},
		{"/v1/posts?include=labels,", `"include must not be empty"`},
		{"/v1/posts?include=foo", `"Include foo is not supported"`},
		{"/v1/posts?include=labels,foo", `"Include foo is not supported"`},
		{"/v1/posts?include=Labels", `"Include Labels is not supported"`},
		{"/v1/posts?market=nowhere", `"Market nowhere not found"`},
		{"/v1/posts?market=000000000000000000000000", `"Market 000000000000000000000000 not found"`},
		{"/v1/galleries/summer/posts?market=nowhere", `"Market nowhere not found"`},
		// order of checks: limit before include before filter
		{"/v1/posts?limit=0&include=foo&filter=x", lim},
		{"/v1/posts?include=foo&filter=x", `"Include foo is not supported"`},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			t.Parallel()
			a := get(t, srv, c.path)
			assert.Equal(t, http.StatusBadRequest, a.status)
			assert.Equal(t, c.body, a.body)
			assert.Equal(t, "application/json", a.header.Get("Content-Type"))
		})
	}
}

func TestFilterMessages(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t)
	cases := []struct{ name, filter, msg string }{
		{"not JSON", `[{`, "Unexpected token in JSON at position "},
		{"bad value", `[{"type":"label","operator":"OR","values":["abc"]}]`, `Filter value "abc" is not a valid ID`},
		{"bad type", `[{"type":"tag","operator":"OR","values":[]}]`, `Filter type tag is not supported`},
		{"bad operator", `[{"type":"label","operator":"or","values":[]}]`, `Filter operator or is not supported`},
		{"type missing", `[{"operator":"OR","values":[]}]`, `Type is required`},
		{"operator missing", `[{"type":"label","values":[]}]`, `Operator is required`},
		{"values missing", `[{"type":"label","operator":"AND"}]`, `Values is required`},
		{"not an array", `{"type":"label"}`, `Filter param needs to be an array`},
		{"values not an array", `[{"type":"label","operator":"OR","values":"x"}]`, `Filter values must be an array`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			a := get(t, srv, "/v1/posts?"+filterQuery(c.filter))
			require.Equal(t, http.StatusBadRequest, a.status)
			var msg string
			require.NoError(t, json.Unmarshal([]byte(a.body), &msg), "a JSON string")
			assert.True(t, strings.HasPrefix(msg, c.msg), "%q starts with %q", msg, c.msg)
			_, err := ugc.ParseFilter(c.filter)
			var fe *ugc.FilterError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, fe.Message, msg, "the parser's exact message")
		})
	}
}

// labelInfo derives from a dataset what the server must answer.
type labelInfo struct {
	ds        *ugctest.Dataset
	available map[string]ugctest.Label // lower-case ID
}

func newLabelInfo(ds *ugctest.Dataset) labelInfo {
	li := labelInfo{ds: ds, available: map[string]ugctest.Label{}}
	for _, l := range ds.Labels {
		if l.Available() {
			li.available[strings.ToLower(l.ID)] = l
		}
	}
	return li
}

// labelsOf returns the available labels of p in stored order.
func (li labelInfo) labelsOf(p ugctest.Post) []ugc.Label {
	out := []ugc.Label{}
	for _, id := range p.LabelIDs {
		if l, ok := li.available[strings.ToLower(id)]; ok && !slices.ContainsFunc(out, func(x ugc.Label) bool { return x.ID == l.ID }) {
			out = append(out, ugc.Label{ID: l.ID, Name: l.Name})
		}
	}
	return out
}

// matching returns the IDs of posts for which keep is true.
func (li labelInfo) matching(keep func(have []ugc.Label) bool) []string {
	var out []string
	for _, p := range li.ds.Posts {
		if keep(li.labelsOf(p)) {
			out = append(out, p.ID)
		}
	}
	return out
}

func hasLabel(have []ugc.Label, id string) bool {
	return slices.ContainsFunc(have, func(l ugc.Label) bool { return strings.EqualFold(l.ID, id) })
}

// allPages walks next links from path and returns every post ID.
func allPages(t *testing.T, srv *ugctest.Server, path string) (got []string, count int) {
	t.Helper()
	e := page(t, srv, path)
	count = e.Count
	got = append(got, ids(t, e)...)
	for e.Next != nil {
		a := fetch(t, http.MethodGet, *e.Next, &srv.APIKey)
		require.Equal(t, http.StatusOK, a.status, a.body)
		e = envelope{}
		require.NoError(t, json.Unmarshal([]byte(a.body), &e))
		assert.Equal(t, count, e.Count)
		got = append(got, ids(t, e)...)
	}
	return got, count
}

func TestLabelsAndFilters(t *testing.T) {
	t.Parallel()
	ds := ugctest.DefaultDataset()
	srv := ugctest.NewServer(t, ugctest.WithDataset(ds))
	li := newLabelInfo(ds)

	var named, unnamed, removed, inaccessible string
	for _, l := range ds.Labels {
		switch {
		case l.Removed:
			removed = l.ID
		case l.Inaccessible:
			inaccessible = l.ID
		case l.Name == nil:
			unnamed = l.ID
		case named == "":
			named = l.ID
		}
	}
	require.NotEmpty(t, named)
	require.NotEmpty(t, unnamed)
	require.NotEmpty(t, removed)
	require.NotEmpty(t, inaccessible)

	t.Run("include=labels lists available labels in stored order", func(t *testing.T) {
		t.Parallel()
		got := map[string][]ugc.Label{}
		e := page(t, srv, "/v1/posts?limit=25&include=labels")
		e2 := page(t, srv, "/v1/posts?limit=25&skip=25&include=labels")
		for _, n := range append(e.Nodes, e2.Nodes...) {
			require.Contains(t, n, "labels")
			var id string
			var labels []ugc.Label
			require.NoError(t, json.Unmarshal(n["id"], &id))
			require.NoError(t, json.Unmarshal(n["labels"], &labels))
			got[id] = labels
		}
		var sawEmpty, sawAllRemoved, sawNull bool
		for _, p := range ds.Posts {
			want := li.labelsOf(p)
			assert.Equal(t, want, got[p.ID], p.ID)
			sawEmpty = sawEmpty || len(p.LabelIDs) == 0
			sawAllRemoved = sawAllRemoved || len(p.LabelIDs) > 0 && len(want) == 0
			for _, l := range want {
				sawNull = sawNull || l.Name == nil
			}
		}
		assert.True(t, sawEmpty && sawAllRemoved && sawNull, "the dataset covers no labels, only removed labels, unnamed labels")
	})
	t.Run("an empty labels is [] and an unnamed label has name null", func(t *testing.T) {
		t.Parallel()
		a := get(t, srv, "/v1/posts?limit=25&include=labels")
		assert.Contains(t, a.body, `"labels":[]`)
		assert.Contains(t, a.body, `{"id":"`+unnamed+`","name":null}`)
	})
	t.Run("without include no labels key", func(t *testing.T) {
		t.Parallel()
		for _, n := range page(t, srv, "/v1/posts?limit=25").Nodes {
			assert.NotContains(t, n, "labels")
		}
	})
	t.Run("labels ignore the filter", func(t *testing.T) {
		t.Parallel()
		f := `[{"type":"label","operator":"OR","values":["` + named + `"]}]`
		e := page(t, srv, "/v1/posts?limit=25&include=labels&"+filterQuery(f))
		require.NotEmpty(t, e.Nodes)
		for _, n := range e.Nodes {
			var id string
			var labels []ugc.Label
			require.NoError(t, json.Unmarshal(n["id"], &id))
			require.NoError(t, json.Unmarshal(n["labels"], &labels))
			i := slices.IndexFunc(ds.Posts, func(p ugctest.Post) bool { return p.ID == id })
			assert.Equal(t, li.labelsOf(ds.Posts[i]), labels)
		}
	})
	t.Run("label names are not localized", func(t *testing.T) {
		t.Parallel()
		plain := get(t, srv, "/v1/posts?limit=25&include=labels")
		for _, m := range ds.Markets {
			loc := get(t, srv, "/v1/posts?limit=25&include=labels&market="+m.ShortID)
			assert.Equal(t, labelsByPost(t, plain.body), labelsByPost(t, loc.body))
		}
	})

	other := ""
	for _, l := range ds.Labels {
		if l.Available() && l.ID != named {
			other = l.ID
			break
		}
	}
	filters := []struct {
		name, filter string
		keep         func([]ugc.Label) bool
	}{
		{"empty array", `[]`, func([]ugc.Label) bool { return true }},
		{"OR one", `[{"type":"label","operator":"OR","values":["` + named + `"]}]`, func(h []ugc.Label) bool { return hasLabel(h, named) }},
		{"OR two", `[{"type":"label","operator":"OR","values":["` + named + `","` + other + `"]}]`, func(h []ugc.Label) bool { return hasLabel(h, named) || hasLabel(h, other) }},
		{"AND two", `[{"type":"label","operator":"AND","values":["` + named + `","` + other + `"]}]`, func(h []ugc.Label) bool { return hasLabel(h, named) && hasLabel(h, other) }},
		{"two elements are ANDed", `[{"type":"label","operator":"OR","values":["` + named + `"]},{"type":"label","operator":"OR","values":["` + other + `"]}]`, func(h []ugc.Label) bool { return hasLabel(h, named) && hasLabel(h, other) }},
		{"upper-case ID", `[{"type":"label","operator":"OR","values":["` + strings.ToUpper(named) + `"]}]`, func(h []ugc.Label) bool { return hasLabel(h, named) }},
		{"unknown ID matches nothing", `[{"type":"label","operator":"OR","values":["0123456789abcdef01234567"]}]`, func([]ugc.Label) bool { return false }},
		{"removed label matches nothing", `[{"type":"label","operator":"OR","values":["` + removed + `"]}]`, func([]ugc.Label) bool { return false }},
		{"inaccessible label matches nothing", `[{"type":"label","operator":"AND","values":["` + inaccessible + `"]}]`, func([]ugc.Label) bool { return false }},
		{"empty values matches nothing", `[{"type":"label","operator":"OR","values":[]}]`, func([]ugc.Label) bool { return false }},
		{"empty AND values matches nothing", `[{"type":"label","operator":"AND","values":[]}]`, func([]ugc.Label) bool { return false }},
	}
	for _, f := range filters {
		t.Run("filter "+f.name, func(t *testing.T) {
			t.Parallel()
			want := li.matching(f.keep)
			got, count := allPages(t, srv, "/v1/posts?limit=7&"+filterQuery(f.filter))
			assert.Equal(t, len(want), count)
			assert.Equal(t, want, got)
		})
	}
	t.Run("empty filter= is no filter", func(t *testing.T) {
		t.Parallel()
		assert.Equal(t, len(ds.Posts), page(t, srv, "/v1/posts?filter=").Count)
	})
}

func labelsByPost(t *testing.T, body string) map[string]json.RawMessage {
	t.Helper()
	var e envelope
	require.NoError(t, json.Unmarshal([]byte(body), &e))
	out := map[string]json.RawMessage{}
	for _, n := range e.Nodes {
		var id string
		require.NoError(t, json.Unmarshal(n["id"], &id))
		out[id] = n["labels"]
	}
	return out
}

func TestPagination(t *testing.T) {
	t.Parallel()
	ds := ugctest.DefaultDataset()
	srv := ugctest.NewServer(t, ugctest.WithDataset(ds))
	all := storedIDs(ds)
	n := len(all)
	base := "http://" + strings.TrimPrefix(srv.URL, "http://")

	cases := []struct {
		name, query string
		want        []string
		next        string // "" for null
	}{
		{"limit 1", "limit=1", all[:1], base + "/v1/posts?limit=1&skip=1"},
		{"limit 25", "limit=25", all[:25], base + "/v1/posts?limit=25&skip=25"},
		{"limit 26 is capped", "limit=26", all[:25], base + "/v1/posts?limit=25&skip=25"},
		{"huge limit is capped", "limit=99999999999999999999999", all[:25], base + "/v1/posts?limit=25&skip=25"},
		{"no limit is 25", "", all[:25], base + "/v1/posts?limit=25&skip=25"},
		{"short last page", "limit=25&skip=25", all[25:], ""},
		{"exact last page", "limit=25&skip=" + strconv.Itoa(n-25), all[n-25:], ""},
		{"skip = count", "skip=" + strconv.Itoa(n), []string{}, ""},
		{"skip beyond count", "skip=" + strconv.Itoa(n+100), []string{}, ""},
		{"huge skip", "skip=99999999999999999999999", []string{}, ""},
		{"skip 0", "skip=0&limit=2", all[:2], base + "/v1/posts?limit=2&skip=2"},
		{"next keeps other parameters", "limit=3&market=de-de&include=labels&x=1", all[:3], base + "/v1/posts?include=labels&limit=3&market=de-de&skip=3&x=1"},
		{"next keeps filter", "limit=1&" + filterQuery("[]"), all[:1], base + "/v1/posts?filter=%5B%5D&limit=1&skip=1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := page(t, srv, "/v1/posts?"+c.query)
			assert.Equal(t, n, e.Count)
			assert.Equal(t, c.want, ids(t, e))
			if c.next == "" {
				assert.Nil(t, e.Next)
			} else if assert.NotNil(t, e.Next) {
				assert.Equal(t, c.next, *e.Next)
			}
		})
	}
	t.Run("null next is written as null", func(t *testing.T) {
		t.Parallel()
		assert.Contains(t, get(t, srv, "/v1/posts?skip=1000").body, `"next":null,"nodes":[]`)
	})
	for _, limit := range []int{1, 5, 7, 25} {
		for _, path := range []string{"/v1/posts", "/v1/inbox", "/v1/galleries/summer/posts"} {
			t.Run("walk "+path+" limit "+strconv.Itoa(limit), func(t *testing.T) {
				t.Parallel()
				got, count := allPages(t, srv, path+"?limit="+strconv.Itoa(limit))
				assert.Len(t, got, count)
				switch path {
				case "/v1/posts":
					assert.Equal(t, all, got, "every post once, in stored order")
				case "/v1/inbox":
					want := make([]string, len(ds.Inbox))
					for i, p := range ds.Inbox {
						want[i] = p.ID
					}
					assert.Equal(t, want, got)
				default:
					assert.Equal(t, ds.Galleries[0].PostIDs, got)
				}
			})
		}
	}
	t.Run("filtered walk keeps the filter", func(t *testing.T) {
		t.Parallel()
		f := `[{"type":"label","operator":"OR","values":["` + ds.Labels[0].ID + `"]}]`
		got, count := allPages(t, srv, "/v1/posts?limit=2&include=labels&"+filterQuery(f))
		assert.Len(t, got, count)
		li := newLabelInfo(ds)
		assert.Equal(t, li.matching(func(h []ugc.Label) bool { return hasLabel(h, ds.Labels[0].ID) }), got)
	})
	t.Run("stable order", func(t *testing.T) {
		t.Parallel()
		assert.Equal(t, get(t, srv, "/v1/posts?include=labels").body, get(t, srv, "/v1/posts?include=labels").body)
	})
}

func TestMarkets(t *testing.T) {
	t.Parallel()
	ds := ugctest.DefaultDataset()
	srv := ugctest.NewServer(t, ugctest.WithDataset(ds))
	require.GreaterOrEqual(t, len(ds.Markets), 2)
	plain := postsByID(t, get(t, srv, "/v1/posts?limit=25").body+"\n"+get(t, srv, "/v1/posts?limit=25&skip=25").body)
	for _, m := range ds.Markets {
		require.NotEmpty(t, m.Content, "market %s localizes something", m.ShortID)
		for _, by := range []string{m.ID, strings.ToUpper(m.ID), m.ShortID} {
			t.Run(m.ShortID+" by "+by, func(t *testing.T) {
				t.Parallel()
				loc := postsByID(t, get(t, srv, "/v1/posts?limit=25&market="+by).body+"\n"+get(t, srv, "/v1/posts?limit=25&skip=25&market="+by).body)
				require.Len(t, loc, len(ds.Posts))
				for _, p := range ds.Posts {
					want := plain[p.ID]
					l, ok := m.Content[p.ID]
					if !ok {
						assert.Equal(t, want, loc[p.ID], "not localized: unchanged")
						continue
					}
					got := loc[p.ID]
					if l.Comment != "" {
						assert.Equal(t, l.Comment, got.Comment)
					}
					if l.Alt != "" {
						assert.Equal(t, l.Alt, got.Alt)
					}
					if l.VideoCaptions != "" {
						assert.Equal(t, l.VideoCaptions, got.VideoCaptions)
					}
					for i, tp := range got.TaggedProducts {
						if pl, ok := l.Products[tp.Product.ID]; ok {
							assert.Equal(t, pl.Title, tp.Product.Title)
							assert.Equal(t, pl.Price, tp.Product.Price)
						} else {
							assert.Equal(t, want.TaggedProducts[i], tp)
						}
					}
					assert.Equal(t, want.ID, got.ID)
					assert.Equal(t, want.Media, got.Media)
					assert.Equal(t, want.CreatedAt, got.CreatedAt)
				}
			})
		}
	}
	t.Run("lower-cased shortId is unknown", func(t *testing.T) {
		t.Parallel()
		a := get(t, srv, "/v1/posts?market="+strings.ToUpper(ds.Markets[0].ShortID))
		assert.Equal(t, http.StatusBadRequest, a.status)
	})
	t.Run("empty market is none", func(t *testing.T) {
		t.Parallel()
		assert.Equal(t, page(t, srv, "/v1/posts").Nodes, page(t, srv, "/v1/posts?market=").Nodes)
	})
	t.Run("market is ignored by the inbox", func(t *testing.T) {
		t.Parallel()
		assert.Equal(t, page(t, srv, "/v1/inbox").Nodes, page(t, srv, "/v1/inbox?market=nowhere").Nodes)
	})
}

func postsByID(t *testing.T, bodies string) map[string]ugc.Post {
	t.Helper()
	out := map[string]ugc.Post{}
	for _, b := range strings.Split(bodies, "\n") {
		var p struct{ Nodes []ugc.Post }
		require.NoError(t, json.Unmarshal([]byte(b), &p))
		for _, n := range p.Nodes {
			out[n.ID] = n
		}
	}
	return out
}

func TestInboxAndEmails(t *testing.T) {
	t.Parallel()
	ds := ugctest.DefaultDataset()
	// An approved post given with an email never shows it.
	leaky := ds.Inbox[0]
	leaky.ID = "approved-with-email"
	ds.AddPosts(leaky)
	srv := ugctest.NewServer(t, ugctest.WithDataset(ds))

	inbox := page(t, srv, "/v1/inbox")
	require.Len(t, inbox.Nodes, len(ds.Inbox))
	for _, n := range inbox.Nodes {
		var u ugc.UploadedBy
		require.NoError(t, json.Unmarshal(n["uploadedBy"], &u))
		assert.NotEmpty(t, u.Email)
		assert.NotContains(t, n, "labels")
	}
	for _, path := range []string{"/v1/posts?limit=25&include=labels", "/v1/posts?skip=25&include=labels", "/v1/galleries/summer/posts", "/v1/galleries/videos/posts", "/v1/posts?skip=25&market=de-de"} {
		a := get(t, srv, path)
		require.Equal(t, http.StatusOK, a.status)
		assert.NotContains(t, a.body, `"email"`, path)
	}
	assert.Contains(t, get(t, srv, "/v1/posts?skip=36").body, `"approved-with-email"`)
	assert.Equal(t, inbox.Nodes, page(t, srv, "/v1/inbox?include=foo&filter=bad").Nodes, "no include or filter on the inbox")

	t.Run("inbox post without email is refused", func(t *testing.T) {
		bad := ugctest.DefaultDataset()
		bad.Inbox[3].UploadedBy = &ugc.UploadedBy{Username: "x"}
		_, err := ugctest.NewHandler(bad, "k")
		assert.ErrorContains(t, err, "inbox[3]: uploadedBy.email is required")
	})
}

func TestGalleries(t *testing.T) {
	t.Parallel()
	ds := ugctest.DefaultDataset()
	srv := ugctest.NewServer(t, ugctest.WithDataset(ds))
	require.GreaterOrEqual(t, len(ds.Galleries), 2)
	for _, g := range ds.Galleries {
		for _, market := range []string{"", "de-de", "fr-fr"} {
			t.Run(g.ShortID+" "+market, func(t *testing.T) {
				t.Parallel()
				gal := page(t, srv, "/v1/galleries/"+g.ShortID+"/posts?market="+market)
				assert.Equal(t, len(g.PostIDs), gal.Count)
				all := map[string]map[string]json.RawMessage{}
				for _, skip := range []string{"0", "25"} {
					for _, n := range page(t, srv, "/v1/posts?skip="+skip+"&market="+market).Nodes {
						var id string
						require.NoError(t, json.Unmarshal(n["id"], &id))
						all[id] = n
					}
				}
				for _, n := range gal.Nodes {
					var id string
					require.NoError(t, json.Unmarshal(n["id"], &id))
					assert.Equal(t, all[id], n, "gallery post == its /v1/posts entry")
				}
			})
		}
	}
	t.Run("unknown gallery", func(t *testing.T) {
		t.Parallel()
		a := get(t, srv, "/v1/galleries/nope/posts")
		assert.Equal(t, http.StatusNotFound, a.status)
		assert.Equal(t, `"Gallery not found"`, a.body)
		assert.Equal(t, "application/json", a.header.Get("Content-Type"))
	})
	t.Run("escaped shortId", func(t *testing.T) {
		t.Parallel()
		ds := ugctest.DefaultDataset()
		ds.AddGallery("a b", ds.Posts[0].ID, "not-a-post", ds.Posts[2].ID)
		srv := ugctest.NewServer(t, ugctest.WithDataset(ds))
		e := page(t, srv, "/v1/galleries/a%20b/posts?limit=1")
		assert.Equal(t, 2, e.Count, "IDs that are not approved posts are skipped")
		require.NotNil(t, e.Next)
		assert.Equal(t, srv.URL+"/v1/galleries/a%20b/posts?limit=1&skip=1", *e.Next)
	})
}

func TestRoutingAndMethods(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t)
	for _, p := range []string{"/", "/v1", "/v1/posts/", "/v2/posts", "/v1/galleries//posts", "/v1/galleries/summer", "/v1/galleries/a/b/posts", "/api/v1/posts"} {
		t.Run("GET "+p, func(t *testing.T) {
			t.Parallel()
			a := get(t, srv, p)
			assert.Equal(t, http.StatusNotFound, a.status)
			assert.Equal(t, `"Not found"`, a.body)
			assert.Equal(t, "application/json", a.header.Get("Content-Type"))
		})
	}
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch, http.MethodHead} {
		t.Run(m, func(t *testing.T) {
			t.Parallel()
			a := fetch(t, m, srv.URL+"/v1/posts", &srv.APIKey)
			assert.Equal(t, http.StatusMethodNotAllowed, a.status)
			assert.Equal(t, "GET", a.header.Get("Allow"))
			if m != http.MethodHead {
				assert.Equal(t, `"Method not allowed"`, a.body)
			}
		})
	}
}

func TestBasePath(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t, ugctest.WithBasePath("/api/"))
	assert.True(t, strings.HasSuffix(srv.URL, "/api"))
	for _, p := range []string{"/v1/posts?limit=2", "/v1/inbox?limit=2", "/v1/galleries/summer/posts?limit=2"} {
		e := page(t, srv, p)
		require.NotNil(t, e.Next)
		assert.True(t, strings.HasPrefix(*e.Next, srv.URL+"/v1/"), *e.Next)
		got, count := allPages(t, srv, p)
		assert.Len(t, got, count)
	}
	a := fetch(t, http.MethodGet, strings.TrimSuffix(srv.URL, "/api")+"/v1/posts", &srv.APIKey)
	assert.Equal(t, http.StatusNotFound, a.status)

	c := srv.Client()
	p, err := c.Posts(t.Context(), &ugc.PostsParams{Limit: 3})
	require.NoError(t, err)
	assert.Len(t, p.Nodes, 3)
}

func TestOptionalFieldsAreNeverNull(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t)
	for _, p := range []string{"/v1/posts?include=labels", "/v1/posts?skip=25&include=labels&market=fr-fr", "/v1/inbox", "/v1/galleries/videos/posts"} {
		body := get(t, srv, p).body
		without := strings.ReplaceAll(body, `"name":null`, "")
		without = strings.ReplaceAll(without, `"next":null`, "")
		assert.NotContains(t, without, "null", p)
		assert.NotContains(t, body, `\u003e`, "no HTML escaping")
		var pg ugc.Page
		require.NoError(t, json.Unmarshal([]byte(body), &pg), "the SDK accepts the page: every required field is present")
	}
}

func TestNewHandlerErrors(t *testing.T) {
	t.Parallel()
	mutate := map[string]func(d *ugctest.Dataset){
		"duplicate post":  func(d *ugctest.Dataset) { d.Posts[1].ID = d.Posts[0].ID },
		"no media":        func(d *ugctest.Dataset) { d.Posts[0].Media.Location = "" },
		"bad label ID":    func(d *ugctest.Dataset) { d.Labels[0].ID = "x" },
		"bad market ID":   func(d *ugctest.Dataset) { d.Markets[0].ID = "x" },
		"dup gallery":     func(d *ugctest.Dataset) { d.AddGallery(d.Galleries[0].ShortID) },
		"no createdAt":    func(d *ugctest.Dataset) { d.Inbox[0].CreatedAt = time.Time{} },
		"product w/o ID":  func(d *ugctest.Dataset) { d.Posts[0].TaggedProducts = []ugc.TaggedProduct{{}} },
		"gallery slashed": func(d *ugctest.Dataset) { d.AddGallery("a/b") },
	}
	for name, m := range mutate {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := ugctest.DefaultDataset()
			m(d)
			_, err := ugctest.NewHandler(d, "k")
			assert.Error(t, err)
		})
	}
	_, err := ugctest.NewHandler(nil, "")
	assert.ErrorContains(t, err, "empty API key")
}
