package ugctest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ugcposts/ugc-go/ugctest"
)

// nextSkip returns the skip of a next link, resolved against base.
func nextSkip(t *testing.T, base string, e envelope) int {
	t.Helper()
	require.NotNil(t, e.Next, "a next link")
	b, err := url.Parse(base)
	require.NoError(t, err)
	u, err := b.Parse(*e.Next)
	require.NoError(t, err)
	n, err := strconv.Atoi(u.Query().Get("skip"))
	require.NoError(t, err)
	return n
}

// misbehaving returns a server of 60 posts whose every posts request
// misbehaves with f, and the stored IDs.
func misbehaving(t *testing.T, f ugctest.Fault) (*ugctest.Server, []string) {
	t.Helper()
	ds := ugctest.Generate(60, 5)
	srv := ugctest.NewServer(t, ugctest.WithDataset(ds))
	srv.AddRule(ugctest.Rule{Endpoint: ugctest.EndpointPosts, Fault: f})
	return srv, storedIDs(ds.Materialize())
}

func TestShortPages(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		fault    ugctest.Fault
		nextSkip int // -1: null
	}{
		{ugctest.ShortPage(4), 14},
		{ugctest.ShortPageSkipping(4), 20},
		{ugctest.EndEarly(4), -1},
		{ugctest.ShortPage(0), 10},
		{ugctest.ShortPage(25), 20}, // keeps the whole page
	} {
		t.Run(tc.fault.Kind.String()+"/"+strconv.Itoa(tc.fault.Keep), func(t *testing.T) {
			t.Parallel()
			srv, stored := misbehaving(t, tc.fault)
			e := page(t, srv, "/v1/posts?skip=10&limit=10")
			assert.Equal(t, 60, e.Count, "count is the whole list")
			want := stored[10:min(10+tc.fault.Keep, 20)]
			assert.Equal(t, want, ids(t, e))
			if tc.nextSkip < 0 {
				assert.Nil(t, e.Next)
				return
			}
			assert.Equal(t, tc.nextSkip, nextSkip(t, srv.URL, e))
		})
	}
	t.Run("at the end of the list", func(t *testing.T) {
		t.Parallel()
		srv, stored := misbehaving(t, ugctest.ShortPage(3))
		e := page(t, srv, "/v1/posts?skip=55&limit=10")
		assert.Equal(t, stored[55:58], ids(t, e))
		assert.Equal(t, 58, nextSkip(t, srv.URL, e))
		e = page(t, srv, "/v1/posts?skip=58&limit=10")
		assert.Equal(t, stored[58:], ids(t, e))
		assert.Nil(t, e.Next, "nothing is left")
	})
}

func TestNextLinkForms(t *testing.T) {
	t.Parallel()
	t.Run("relative", func(t *testing.T) {
		t.Parallel()
		srv, _ := misbehaving(t, ugctest.RelativeNext())
		e := page(t, srv, "/v1/posts?limit=5&include=labels")
		assert.Equal(t, "/v1/posts?include=labels&limit=5&skip=5", *e.Next)
	})
	t.Run("foreign", func(t *testing.T) {
		t.Parallel()
		srv, _ := misbehaving(t, ugctest.ForeignNext(""))
		e := page(t, srv, "/v1/posts?limit=5")
		assert.Equal(t, "http://ugcfake.invalid/v1/posts?limit=5&skip=5", *e.Next)
		srv, _ = misbehaving(t, ugctest.ForeignNext("attacker.example:8443"))
		e = page(t, srv, "/v1/posts?limit=5")
		assert.Equal(t, "http://attacker.example:8443/v1/posts?limit=5&skip=5", *e.Next)
	})
	t.Run("escaped", func(t *testing.T) {
		t.Parallel()
		ds := ugctest.DefaultDataset()
		ds.AddGallery("a b+ü", storedIDs(ds)...)
		srv := ugctest.NewServer(t, ugctest.WithDataset(ds), ugctest.WithBasePath("/api"))
		srv.AddRule(ugctest.Rule{Fault: ugctest.EscapedNext()})
		for path, want := range map[string]string{
			"/v1/posts":                        "/api/v1/%70osts",
			"/v1/inbox":                        "/api/v1/%69nbox",
			"/v1/galleries/summer/posts":       "/api/v1/galleries/%73%75%6D%6D%65%72/posts",
			"/v1/galleries/a%20b+%C3%BC/posts": "/api/v1/galleries/%61%20%62%2B%C3%BC/posts",
		} {
			e := page(t, srv, path+"?limit=1")
			require.NotNil(t, e.Next, path)
			u, err := url.Parse(*e.Next)
			require.NoError(t, err)
			assert.Equal(t, want, u.EscapedPath(), path)
			orig, err := url.Parse(srv.URL + path)
			require.NoError(t, err)
			assert.Equal(t, orig.Path, u.Path, "the same path, escaped another way")
			assert.Equal(t, http.StatusOK, get(t, srv, strings.TrimPrefix(u.RequestURI(), "/api")).status, "and the fake serves it")
		}
	})
}

func TestOddPost(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ index, odd int }{{0, 0}, {2, 2}, {-1, 4}, {-5, 0}, {5, -1}, {-6, -1}} {
		srv, _ := misbehaving(t, ugctest.OddPost(tc.index))
		e := page(t, srv, "/v1/posts?limit=5")
		for i, n := range e.Nodes {
			var s string
			err := json.Unmarshal(n["createdAt"], &s)
			if i == tc.odd {
				assert.Error(t, err, "index %d: post %d is odd", tc.index, i)
				_, err := strconv.ParseInt(string(n["createdAt"]), 10, 64)
				assert.NoError(t, err, "a Unix time")
			} else {
				assert.NoError(t, err, "index %d: post %d", tc.index, i)
			}
		}
	}
	t.Run("inbox", func(t *testing.T) {
		t.Parallel()
		srv := ugctest.NewServer(t)
		srv.AddRule(ugctest.Rule{Endpoint: ugctest.EndpointInbox, Fault: ugctest.OddPost(1)})
		e := page(t, srv, "/v1/inbox?limit=3")
		assert.NotEqual(t, byte('"'), e.Nodes[1]["createdAt"][0])
	})
}

func TestPageOrderAndPlace(t *testing.T) {
	t.Parallel()
	t.Run("shuffled", func(t *testing.T) {
		t.Parallel()
		srv, stored := misbehaving(t, ugctest.ShuffledPage(3))
		e := page(t, srv, "/v1/posts?skip=20&limit=20")
		got := ids(t, e)
		assert.ElementsMatch(t, stored[20:40], got)
		assert.NotEqual(t, stored[20:40], got)
		assert.Equal(t, got, ids(t, page(t, srv, "/v1/posts?skip=20&limit=20")), "the same seed, the same order")
		assert.Equal(t, 40, nextSkip(t, srv.URL, e))
	})
	t.Run("ignore skip", func(t *testing.T) {
		t.Parallel()
		srv, stored := misbehaving(t, ugctest.IgnoreSkip())
		e := page(t, srv, "/v1/posts?skip=30&limit=10")
		assert.Equal(t, stored[:10], ids(t, e))
		assert.Equal(t, 40, nextSkip(t, srv.URL, e), "next as asked")
	})
	for _, tc := range []struct{ offset, from int }{{3, 33}, {-4, 26}, {-100, 0}, {100, 60}} {
		t.Run("stale "+strconv.Itoa(tc.offset), func(t *testing.T) {
			t.Parallel()
			srv, stored := misbehaving(t, ugctest.StalePage(tc.offset))
			e := page(t, srv, "/v1/posts?skip=30&limit=10")
			assert.Equal(t, stored[tc.from:min(tc.from+10, 60)], ids(t, e))
			assert.Equal(t, 40, nextSkip(t, srv.URL, e))
			assert.Equal(t, 60, e.Count)
		})
	}
}

func TestAnyAnswer(t *testing.T) {
	t.Parallel()
	t.Run("status, body and headers", func(t *testing.T) {
		t.Parallel()
		srv := ugctest.NewServer(t)
		srv.AddRule(ugctest.Rule{Times: 1, Fault: ugctest.ErrorResponse(http.StatusUnauthorized, ugctest.MsgUnauthorized).
			WithHeader("WWW-Authenticate", `ApiKey realm="ugc"`).WithHeader("X-Request-Id", "r1")})
		a := get(t, srv, "/v1/posts")
		assert.Equal(t, http.StatusUnauthorized, a.status)
		assert.Equal(t, `"No valid API key provided"`, a.body)
		assert.Equal(t, `ApiKey realm="ugc"`, a.header.Get("Www-Authenticate"))
		assert.Equal(t, "r1", a.header.Get("X-Request-Id"))
		assert.Equal(t, "application/json", a.header.Get("Content-Type"))
	})
	t.Run("a proxy's page", func(t *testing.T) {
		t.Parallel()
		srv := ugctest.NewServer(t)
		srv.AddRule(ugctest.Rule{Times: 1, Fault: ugctest.ProxyPage(http.StatusBadGateway)})
		a := get(t, srv, "/v1/posts")
		assert.Equal(t, http.StatusBadGateway, a.status)
		assert.Equal(t, "text/html", a.header.Get("Content-Type"))
		assert.Contains(t, a.body, "<h1>502 Bad Gateway</h1>")
	})
	t.Run("headers on a page", func(t *testing.T) {
		t.Parallel()
		srv := ugctest.NewServer(t)
		srv.AddRule(ugctest.Rule{Times: 1, Fault: ugctest.ShortPage(1).WithHeader("X-Cache", "HIT")})
		a := get(t, srv, "/v1/posts?limit=3")
		assert.Equal(t, http.StatusOK, a.status)
		assert.Equal(t, "HIT", a.header.Get("X-Cache"))
	})
	t.Run("JSON cut short behind complete framing", func(t *testing.T) {
		t.Parallel()
		srv := ugctest.NewServer(t)
		srv.AddRule(ugctest.Rule{Times: 1, Fault: ugctest.CutJSON()})
		cut := get(t, srv, "/v1/posts?limit=4")
		resp, err := rawGet(t, srv, "/v1/posts?limit=4")
		require.NoError(t, err)
		defer resp.Body.Close()
		whole, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.True(t, json.Valid(whole), "only the first answer was cut")
		assert.Equal(t, string(whole[:len(whole)/2]), cut.body)
		assert.Equal(t, strconv.Itoa(len(cut.body)), cut.header.Get("Content-Length"), "complete to HTTP")
		assert.False(t, json.Valid([]byte(cut.body)))
	})
	t.Run("page faults leave errors alone", func(t *testing.T) {
		t.Parallel()
		srv := ugctest.NewServer(t)
		srv.AddRule(ugctest.Rule{Fault: ugctest.ShortPage(0)})
		assert.Equal(t, http.StatusBadRequest, get(t, srv, "/v1/posts?limit=0").status)
		wrong := "wrong"
		assert.Equal(t, http.StatusUnauthorized, fetch(t, http.MethodGet, srv.URL+"/v1/posts", &wrong).status)
		st := srv.Rules()
		assert.Equal(t, 1, st[0].Matched, "a request without the key is not matched by a page fault")
	})
}

// Page faults shape a filtered list as they do the whole one.
func TestPageFaultsOnAFilteredList(t *testing.T) {
	t.Parallel()
	ds := ugctest.Generate(300, 2)
	label := ""
	for _, l := range ds.Labels {
		if l.Available() {
			label = l.ID
			break
		}
	}
	q := "/v1/posts?limit=5&" + filterQuery(`[{"type":"label","operator":"OR","values":["`+label+`"]}]`)
	clean := ugctest.NewServer(t, ugctest.WithDataset(ds))
	want := ids(t, page(t, clean, q+"&skip=2"))
	first := ids(t, page(t, clean, q))
	require.Len(t, want, 5)

	srv := ugctest.NewServer(t, ugctest.WithDataset(ds))
	srv.AddRule(ugctest.Rule{Times: 1, Fault: ugctest.StalePage(-2)})
	srv.AddRule(ugctest.Rule{Times: 1, Fault: ugctest.IgnoreSkip()})
	assert.Equal(t, want, ids(t, page(t, srv, q+"&skip=4")))
	assert.Equal(t, first, ids(t, page(t, srv, q+"&skip=4")))
}

func TestRespondWithoutABody(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t)
	srv.AddRule(ugctest.Rule{Times: 1, Fault: ugctest.Respond(http.StatusNoContent, "ignored")})
	a := get(t, srv, "/v1/posts")
	assert.Equal(t, http.StatusNoContent, a.status)
	assert.Empty(t, a.body)
}
