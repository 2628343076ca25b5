package ugc_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/ugcposts/ugc-go"
)

// TestTheWalksQueryIsTheCallers: a next link supplies the position only.
// One that leaves the caller's filter, market or include out is repaired
// (every request carries the caller's, QueryRestored counts it); one that
// names another value for any of them is refused after its page, with
// ErrBadNext, before any request with that value is sent.
func TestTheWalksQueryIsTheCallers(t *testing.T) {
	t.Parallel()
	label := "aaaaaaaaaaaaaaaaaaaaaaa1"
	params := &ugc.PostsParams{Limit: 2, Market: "de-de", Include: []ugc.Include{ugc.IncludeLabels},
		Filter: ugc.Filter{ugc.AnyLabel(label)}}
	for _, tc := range []struct {
		name    string
		extra   string // what the next link carries besides skip and limit
		refused bool
	}{
		{"skip and limit only", "", false},
		{"the same query, written otherwise", "&market=de-de&include=labels&filter=" + url.QueryEscape(`[ {"type":"label","values":["`+label+`"],"operator":"OR"} ]`), false},
		{"another market", "&market=fr-fr", true},
		{"another include", "&include=", true},
		{"another filter", "&filter=" + url.QueryEscape(`[{"type":"label","operator":"OR","values":["bbbbbbbbbbbbbbbbbbbbbbb2"]}]`), true},
		{"the caller's market first, another after it (the first counts, as on the server)", "&market=de-de&market=fr-fr", false},
	} {
		for _, mode := range iterModes {
			t.Run(tc.name+"/"+mode.name, func(t *testing.T) {
				t.Parallel()
				srv, queries := nextOwnWayServer(t, tc.extra, "http://%s/v1/posts")
				c, err := ugc.NewClient(srv.URL, "query-key", ugc.WithRetryWait(0, 0))
				require.NoError(t, err)
				var sum ugc.WalkSummary
				got := walkAll(c.AllPosts(context.Background(), params, append(mode.opts, ugc.WithSummary(&sum))...))
				for _, q := range queries() {
					assert.Equal(t, "de-de", q.Get("market"), "every request carries the caller's market")
					assert.Equal(t, "labels", q.Get("include"))
					f, err := ugc.ParseFilter(q.Get("filter"))
					require.NoError(t, err)
					assert.Equal(t, params.Filter.String(), f.String())
				}
				if tc.refused {
					require.ErrorIs(t, got.err, ugc.ErrBadNext)
					assert.Equal(t, []string{"p0", "p1"}, got.ids, "the page that carried the link came first")
					return
				}
				require.NoError(t, got.err)
				assert.Equal(t, []string{"p0", "p1", "p2", "p3", "p4", "p5"}, got.ids)
				if tc.extra == "" {
					assert.Positive(t, sum.QueryRestored, "the repair is counted")
				}
			})
		}
	}
}

// TestHandPagingKeepsTheCallersQuery: a job that pages by hand (Posts, then
// NextPage on each page's Next) keeps its filter, market and include when
// the server's next links carry only skip and limit: Next carries what
// they left out, as the request wrote it, and a warning says so. A next
// link that names another value keeps it: NextPage fetches what it names.
func TestHandPagingKeepsTheCallersQuery(t *testing.T) {
	t.Parallel()
	label := "aaaaaaaaaaaaaaaaaaaaaaa1"
	params := &ugc.PostsParams{Limit: 2, Market: "de-de", Include: []ugc.Include{ugc.IncludeLabels},
		Filter: ugc.Filter{ugc.AnyLabel(label)}}
	for _, tc := range []struct {
		name, extra string // what the next link carries besides skip and limit
		market      string // the market every request after the first carries
	}{
		{"skip and limit only", "", "de-de"},
		{"the market only", "&market=de-de", "de-de"},
		{"another market", "&market=fr-fr", "fr-fr"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, queries := nextOwnWayServer(t, tc.extra, "/v1/posts")
			var logs strings.Builder
			c, err := ugc.NewClient(srv.URL, "query-key", ugc.WithRetryWait(0, 0),
				ugc.WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))))
			require.NoError(t, err)
			ctx := context.Background()
			page, err := c.Posts(ctx, params)
			for pages := 1; err == nil && page.Next != ""; pages++ {
				require.Less(t, pages, 10, "the pages end")
				page, err = c.NextPage(ctx, page.Next)
			}
			require.NoError(t, err)
			require.Len(t, queries(), 3)
			for i, q := range queries() {
				want := tc.market
				if i == 0 {
					want = "de-de"
				}
				assert.Equal(t, want, q.Get("market"), "request %d", i)
				assert.Equal(t, "labels", q.Get("include"), "request %d", i)
				f, err := ugc.ParseFilter(q.Get("filter"))
				require.NoError(t, err)
				assert.Equal(t, params.Filter.String(), f.String(), "request %d", i)
			}
			if tc.extra == "" {
				assert.Contains(t, logs.String(), "next link left out the caller's query")
			}
		})
	}
}

// nextOwnWayServer serves a list of 6 posts whose next links carry skip
// and limit, then extra, on path (a format that may take the host, for an
// absolute link), and records the query of every request it answers.
func nextOwnWayServer(t *testing.T, extra, path string) (*httptest.Server, func() []url.Values) {
	t.Helper()
	var mu sync.Mutex
	var queries []url.Values
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		mu.Lock()
		queries = append(queries, q)
		mu.Unlock()
		skip, _ := strconv.Atoi(q.Get("skip"))
		limit, _ := strconv.Atoi(q.Get("limit"))
		var nodes []string
		end := min(skip+limit, 6)
		for i := skip; i < end; i++ {
			nodes = append(nodes, fmt.Sprintf(`{"id":"p%d","createdAt":"2024-05-01T12:00:00Z","media":{"location":"m"},"taggedProducts":[],"labels":[]}`, i))
		}
		next := "null"
		if end < 6 {
			link := path
			if strings.Contains(path, "%s") {
				link = fmt.Sprintf(path, r.Host)
			}
			next = strconv.Quote(fmt.Sprintf("%s?skip=%d&limit=%d%s", link, end, limit, extra))
		}
		fmt.Fprintf(w, `{"count":6,"next":%s,"nodes":[%s]}`, next, strings.Join(nodes, ","))
	}))
	t.Cleanup(srv.Close)
	return srv, func() []url.Values {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(queries)
	}
}
