package ugctest_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
)

// Tests of the decisions in the package doc that the other tests leave
// open: repeated parameters, include=labels,labels, the https scheme of next.

func TestRepeatedParameterFirstValueCounts(t *testing.T) {
	t.Parallel()
	ds := ugctest.DefaultDataset()
	srv := ugctest.NewServer(t, ugctest.WithDataset(ds))
	all := storedIDs(ds)
	li := newLabelInfo(ds)
	label := ds.Labels[0].ID
	require.True(t, ds.Labels[0].Available())
	labelled := `[{"type":"label","operator":"OR","values":["` + label + `"]}]`
	withLabel := li.matching(func(h []ugc.Label) bool { return hasLabel(h, label) })
	require.NotEmpty(t, withLabel)
	require.Less(t, len(withLabel), len(all), "the filter must change the answer")

	t.Run("200", func(t *testing.T) {
		t.Parallel()
		cases := []struct {
			name, path string
			count      int
			want       []string
		}{
			{"limit", "/v1/posts?limit=2&limit=5", len(all), all[:2]},
			{"limit capped, then valid", "/v1/posts?limit=99&limit=1", len(all), all[:25]},
			{"limit, then invalid", "/v1/posts?limit=3&limit=abc", len(all), all[:3]},
			{"limit, then empty", "/v1/posts?limit=3&limit=", len(all), all[:3]},
			{"skip", "/v1/posts?limit=2&skip=4&skip=0", len(all), all[4:6]},
			{"skip, then invalid", "/v1/posts?limit=2&skip=1&skip=-1", len(all), all[1:3]},
			{"skip split by limit", "/v1/posts?skip=1&limit=2&skip=7", len(all), all[1:3]},
			{"filter", "/v1/posts?limit=25&" + filterQuery(labelled) + "&" + filterQuery("[{"), len(withLabel), withLabel},
			{"filter [] first is no filter", "/v1/posts?limit=25&filter=%5B%5D&" + filterQuery(labelled), len(all), all[:25]},
			{"include, then unsupported", "/v1/posts?limit=2&include=labels&include=foo", len(all), all[:2]},
			{"market, then unknown", "/v1/posts?limit=2&market=de-de&market=nowhere", len(all), all[:2]},
			{"empty market, then unknown", "/v1/posts?limit=2&market=&market=nowhere", len(all), all[:2]},
			{"inbox limit", "/v1/inbox?limit=1&limit=4", len(ds.Inbox), []string{ds.Inbox[0].ID}},
			{"gallery skip", "/v1/galleries/summer/posts?limit=1&skip=2&skip=0", len(ds.Galleries[0].PostIDs), ds.Galleries[0].PostIDs[2:3]},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				e := page(t, srv, c.path)
				assert.Equal(t, c.count, e.Count)
				assert.Equal(t, c.want, ids(t, e))
			})
		}
	})

	t.Run("400", func(t *testing.T) {
		t.Parallel()
		cases := []struct{ path, body string }{
			{"/v1/posts?limit=abc&limit=3", `"limit must be an integer of at least 1"`},
			{"/v1/posts?limit=&limit=3", `"limit must be an integer of at least 1"`},
			{"/v1/posts?limit=0&limit=3", `"limit must be an integer of at least 1"`},
			{"/v1/posts?skip=-1&skip=1", `"skip must be an integer of at least 0"`},
			{"/v1/posts?include=foo&include=labels", `"Include foo is not supported"`},
			{"/v1/posts?include=&include=labels", `"include must not be empty"`},
			{"/v1/posts?market=nowhere&market=de-de", `"Market nowhere not found"`},
			{"/v1/galleries/summer/posts?market=nowhere&market=de-de", `"Market nowhere not found"`},
			{"/v1/inbox?limit=0&limit=1", `"limit must be an integer of at least 1"`},
			{"/v1/galleries/summer/posts?skip=x&skip=1", `"skip must be an integer of at least 0"`},
		}
		for _, c := range cases {
			t.Run(c.path, func(t *testing.T) {
				t.Parallel()
				a := get(t, srv, c.path)
				assert.Equal(t, http.StatusBadRequest, a.status)
				assert.Equal(t, c.body, a.body)
			})
		}
		t.Run("filter", func(t *testing.T) {
			t.Parallel()
			a := get(t, srv, "/v1/posts?"+filterQuery("[{")+"&"+filterQuery(labelled))
			assert.Equal(t, http.StatusBadRequest, a.status)
			var msg string
			require.NoError(t, json.Unmarshal([]byte(a.body), &msg), "a JSON string")
			assert.True(t, strings.HasPrefix(msg, "Unexpected token in JSON at position "), msg)
		})
	})

	t.Run("include takes effect by the first value", func(t *testing.T) {
		t.Parallel()
		for _, n := range page(t, srv, "/v1/posts?limit=5&include=labels&include=foo").Nodes {
			assert.Contains(t, n, "labels")
		}
	})

	t.Run("market localizes by the first value", func(t *testing.T) {
		t.Parallel()
		plain := page(t, srv, "/v1/posts?limit=25").Nodes
		de := page(t, srv, "/v1/posts?limit=25&market=de-de").Nodes
		fr := page(t, srv, "/v1/posts?limit=25&market=fr-fr").Nodes
		require.NotEqual(t, plain, de, "de-de localizes the first page")
		require.NotEqual(t, de, fr, "de-de and fr-fr differ on the first page")
		assert.Equal(t, de, page(t, srv, "/v1/posts?limit=25&market=de-de&market=fr-fr").Nodes)
		assert.Equal(t, fr, page(t, srv, "/v1/posts?limit=25&market=fr-fr&market=de-de").Nodes)
		assert.Equal(t, plain, page(t, srv, "/v1/posts?limit=25&market=&market=de-de").Nodes, "an empty first market is no market")
	})

	t.Run("next", func(t *testing.T) {
		t.Parallel()
		cases := []struct{ name, query, next string }{
			// limit and skip are replaced by one value each; other parameters keep every value, in order.
			{"limit and skip once", "limit=2&skip=1&limit=9&skip=8", "/v1/posts?limit=2&skip=3"},
			{"market kept twice", "limit=2&market=de-de&market=fr-fr", "/v1/posts?limit=2&market=de-de&market=fr-fr&skip=2"},
			{"unknown kept twice", "limit=2&x=b&x=a", "/v1/posts?limit=2&skip=2&x=b&x=a"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				e := page(t, srv, "/v1/posts?"+c.query)
				require.NotNil(t, e.Next)
				assert.Equal(t, srv.URL+c.next, *e.Next)
			})
		}
		t.Run("a walk keeps the first market", func(t *testing.T) {
			t.Parallel()
			want := postsByID(t, get(t, srv, "/v1/posts?limit=25&market=fr-fr").body+"\n"+get(t, srv, "/v1/posts?limit=25&skip=25&market=fr-fr").body)
			e := page(t, srv, "/v1/posts?limit=7&market=fr-fr&market=de-de")
			got := map[string]ugc.Post{}
			for {
				for _, n := range e.Nodes {
					var p ugc.Post
					b, err := json.Marshal(n)
					require.NoError(t, err)
					require.NoError(t, json.Unmarshal(b, &p))
					got[p.ID] = p
				}
				if e.Next == nil {
					break
				}
				a := fetch(t, http.MethodGet, *e.Next, &srv.APIKey)
				require.Equal(t, http.StatusOK, a.status, a.body)
				e = envelope{}
				require.NoError(t, json.Unmarshal([]byte(a.body), &e))
			}
			assert.Equal(t, want, got)
		})
	})
}

func TestIncludeLabelsTwice(t *testing.T) {
	t.Parallel()
	ds := ugctest.DefaultDataset()
	// A post that names one label twice (once in upper case) still lists it once.
	named := ""
	for _, l := range ds.Labels {
		if l.Available() && l.Name != nil {
			named = l.ID
			break
		}
	}
	require.NotEmpty(t, named)
	dup := ds.Posts[0]
	dup.ID = "labelled-twice"
	dup.LabelIDs = []string{named, strings.ToUpper(named), named}
	ds.Posts = slices.Insert(ds.Posts, 0, dup)
	srv := ugctest.NewServer(t, ugctest.WithDataset(ds))
	li := newLabelInfo(ds)

	once := get(t, srv, "/v1/posts?limit=25&include=labels")
	require.Equal(t, http.StatusOK, once.status, once.body)
	for _, include := range []string{"labels,labels", "labels,%20labels%20", "labels,labels,labels", "%20labels%20,labels"} {
		t.Run(include, func(t *testing.T) {
			t.Parallel()
			a := get(t, srv, "/v1/posts?limit=25&include="+include)
			require.Equal(t, http.StatusOK, a.status, a.body)
			assert.Equal(t, "application/json", a.header.Get("Content-Type"))
			var e envelope
			require.NoError(t, json.Unmarshal([]byte(a.body), &e))
			require.Len(t, e.Nodes, 25)
			// Duplicate keys would vanish in a map: count them in the raw body.
			assert.Equal(t, len(e.Nodes), strings.Count(a.body, `"labels":`), "one labels key per post")
			// The same posts as with include=labels; only next differs.
			var want envelope
			require.NoError(t, json.Unmarshal([]byte(once.body), &want))
			assert.Equal(t, want.Count, e.Count)
			assert.Equal(t, want.Nodes, e.Nodes)
			for i, n := range e.Nodes {
				var labels []ugc.Label
				require.NoError(t, json.Unmarshal(n["labels"], &labels))
				assert.Equal(t, li.labelsOf(ds.Posts[i]), labels, ds.Posts[i].ID)
			}
			var first []ugc.Label
			require.NoError(t, json.Unmarshal(e.Nodes[0]["labels"], &first))
			require.Len(t, first, 1, "a label named twice is listed once")
			assert.Equal(t, named, first[0].ID)
			require.NotNil(t, e.Next)
			u, err := url.Parse(*e.Next)
			require.NoError(t, err)
			assert.Equal(t, []string{mustUnescape(t, include)}, u.Query()["include"], "next keeps include as sent")
		})
	}
	t.Run("galleries and the inbox ignore it", func(t *testing.T) {
		t.Parallel()
		for _, p := range []string{"/v1/inbox", "/v1/galleries/summer/posts"} {
			assert.Equal(t, page(t, srv, p).Nodes, page(t, srv, p+"?include=labels,labels").Nodes, p)
		}
	})
}

func mustUnescape(t *testing.T, s string) string {
	t.Helper()
	u, err := url.QueryUnescape(s)
	require.NoError(t, err)
	return u
}

func TestNextOverTLS(t *testing.T) {
	t.Parallel()
	const key = "tls-key"
	for _, proto := range []string{"HTTP/1.1", "HTTP/2.0"} {
		for _, base := range []string{"", "/api"} {
			t.Run(proto+" base "+strconv.Quote(base), func(t *testing.T) {
				t.Parallel()
				h, err := ugctest.NewHandler(nil, key, ugctest.WithBasePath(base))
				require.NoError(t, err)
				srv := httptest.NewUnstartedServer(h)
				srv.EnableHTTP2 = proto == "HTTP/2.0"
				srv.StartTLS()
				t.Cleanup(srv.Close)
				client := srv.Client()
				host, err := url.Parse(srv.URL)
				require.NoError(t, err)
				require.Equal(t, "https", host.Scheme)

				for _, path := range []string{"/v1/posts?limit=5&include=labels", "/v1/inbox?limit=2", "/v1/galleries/summer/posts?limit=2"} {
					next := srv.URL + base + path
					count, seen, pages := 0, 0, 0
					for next != "" {
						u, err := url.Parse(next)
						require.NoError(t, err)
						assert.Equal(t, "https", u.Scheme, next)
						assert.Equal(t, host.Host, u.Host, next)
						assert.True(t, strings.HasPrefix(next, srv.URL+base+"/v1/"), next)

						req, err := http.NewRequest(http.MethodGet, next, nil)
						require.NoError(t, err)
						req.Header.Set("x-api-key", key)
						resp, err := client.Do(req)
						require.NoError(t, err)
						body, err := io.ReadAll(resp.Body)
						resp.Body.Close()
						require.NoError(t, err)
						require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
						assert.Equal(t, proto, resp.Proto)
						var e envelope
						require.NoError(t, json.Unmarshal(body, &e))
						if pages == 0 {
							require.NotNil(t, e.Next, "the first page has a next")
							assert.True(t, strings.HasPrefix(*e.Next, "https://"+host.Host+"/"), *e.Next)
						}
						count = e.Count
						seen += len(e.Nodes)
						pages++
						next = ""
						if e.Next != nil {
							next = *e.Next
						}
					}
					assert.Equal(t, count, seen, "the https next links walk every item of %s", path)
					assert.Greater(t, pages, 1)
				}
			})
		}
	}
	t.Run("plain http stays http", func(t *testing.T) {
		t.Parallel()
		srv := ugctest.NewServer(t)
		e := page(t, srv, "/v1/posts?limit=1")
		require.NotNil(t, e.Next)
		assert.True(t, strings.HasPrefix(*e.Next, "http://"+strings.TrimPrefix(srv.URL, "http://")+"/"), *e.Next)
	})
}

// TestUndecodableQueryIs400: a query the server cannot decode is answered
// 400, never read in part: a filter with a bad escape would otherwise
// return the whole unfiltered list.
func TestUndecodableQueryIs400(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t)
	for name, query := range map[string]string{
		"bad escape":      "limit=2&filter=%ZZ",
		"semicolon":       "limit=2;skip=1",
		"too many params": strings.Repeat("a=1&", 1000) + "limit=2",
	} {
		req, err := http.NewRequest(http.MethodGet, srv.URL+"/v1/posts?"+query, nil)
		require.NoError(t, err)
		req.Header.Set("x-api-key", srv.APIKey)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err, name)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "%s: %s", name, body)
	}
}

// TestRequestWithoutHostGetsAUsableNext: an HTTP/1.0 request with no Host
// header gets a next URL on the address it reached.
func TestRequestWithoutHostGetsAUsableNext(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t)
	addr := strings.TrimPrefix(srv.URL, "http://")
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "GET /v1/posts?limit=1 HTTP/1.0\r\nx-api-key: %s\r\n\r\n", srv.APIKey)
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	defer resp.Body.Close()
	var page struct {
		Next string `json:"next"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&page))
	assert.True(t, strings.HasPrefix(page.Next, "http://"+addr+"/v1/posts?"), page.Next)
}

// TestFilterBounds: one request's filter is bounded, so its cost is: more
// than 64 KiB is refused unparsed, more than 1000 values (all elements
// together) after parsing, when the server's own messages come first.
func TestFilterBounds(t *testing.T) {
	t.Parallel()
	ds := ugctest.DefaultDataset()
	srv := ugctest.NewServer(t, ugctest.WithDataset(ds))
	label := ds.Labels[0].ID
	require.True(t, ds.Labels[0].Available())
	values := func(n int) []string { return slices.Repeat([]string{label}, n) }
	pad := func(f string, size int) string { return f + strings.Repeat(" ", size-len(f)) }
	const tooMany, tooLong = `"Filter has more than 1000 values"`, `"Filter is longer than 65536 bytes"`
	cases := []struct {
		name, filter string
		status       int
		body         string
	}{
		{"1000 values", ugc.Filter{ugc.AnyLabel(values(1000)...)}.String(), http.StatusOK, ""},
		{"1000 values in two elements", ugc.Filter{ugc.AnyLabel(values(400)...), ugc.AllLabels(values(600)...)}.String(), http.StatusOK, ""},
		{"1001 values", ugc.Filter{ugc.AnyLabel(values(1001)...)}.String(), http.StatusBadRequest, tooMany},
		{"1001 values in three elements", ugc.Filter{ugc.AnyLabel(values(1)...), ugc.AllLabels(values(500)...), ugc.AnyLabel(values(500)...)}.String(), http.StatusBadRequest, tooMany},
		{"1001 values, one invalid", ugc.Filter{ugc.AnyLabel(append(values(1000), "nope")...)}.String(), http.StatusBadRequest, `"Filter value \"nope\" is not a valid ID"`},
		{"65536 bytes", pad(ugc.Filter{ugc.AnyLabel(label)}.String(), 64<<10), http.StatusOK, ""},
		{"65537 bytes", pad(ugc.Filter{ugc.AnyLabel(label)}.String(), 64<<10+1), http.StatusBadRequest, tooLong},
		{"65537 bytes, not JSON", strings.Repeat("[", 64<<10+1), http.StatusBadRequest, tooLong},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			a := get(t, srv, "/v1/posts?limit=1&"+filterQuery(c.filter))
			require.Equal(t, c.status, a.status, a.body)
			if c.body != "" {
				assert.Equal(t, c.body, a.body)
			}
		})
	}
}
