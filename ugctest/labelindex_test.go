package ugctest_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
)

// Tests of the label index behind filtered lists: whatever the data, the
// drift and the filter, a filtered list is what a scan of the whole list
// gives.

// serveDirect answers one GET of path from h, without a network.
func serveDirect(t testing.TB, h http.Handler, path string) (int, string) {
	req := httptest.NewRequest(http.MethodGet, "http://fake.test"+path, nil)
	req.Header.Set("x-api-key", "k")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

// scannedPost is a post of the unfiltered list with its served labels.
type scannedPost struct {
	id     string
	labels []string // lower-case IDs
}

// scanAll walks the unfiltered list with include=labels.
func scanAll(t *testing.T, h http.Handler) []scannedPost {
	t.Helper()
	var out []scannedPost
	for skip := 0; ; skip += 25 {
		code, body := serveDirect(t, h, "/v1/posts?limit=25&include=labels&skip="+strconv.Itoa(skip))
		require.Equal(t, http.StatusOK, code, body)
		var e struct {
			Count int
			Nodes []struct {
				ID     string
				Labels []ugc.Label
			}
		}
		require.NoError(t, json.Unmarshal([]byte(body), &e))
		for _, n := range e.Nodes {
			p := scannedPost{id: n.ID}
			for _, l := range n.Labels {
				p.labels = append(p.labels, strings.ToLower(l.ID))
			}
			out = append(out, p)
		}
		if len(e.Nodes) < 25 {
			require.Len(t, out, e.Count)
			return out
		}
	}
}

// bruteForce returns the IDs of the posts that match f, by the rules of the
// package doc: elements ANDed, OR any value, AND all values, empty values
// nothing, IDs in any case.
func bruteForce(all []scannedPost, f ugc.Filter) []string {
	out := []string{}
	for _, p := range all {
		ok := true
		for _, el := range f {
			n := 0
			for _, id := range el.LabelIDs {
				if slices.Contains(p.labels, strings.ToLower(id)) {
					n++
				}
			}
			if len(el.LabelIDs) == 0 || el.Operator == ugc.OperatorAnd && n < len(el.LabelIDs) || n == 0 {
				ok = false
			}
		}
		if ok {
			out = append(out, p.id)
		}
	}
	return out
}

// randomCase upper-cases s at random.
func randomCase(rng *rand.Rand, s string) string {
	if rng.IntN(3) == 0 {
		return strings.ToUpper(s)
	}
	return s
}

// labelPicker draws label IDs: the dataset's, available or not, and
// unknown ones, in random case.
type labelPicker struct {
	ids []string
}

func (lp labelPicker) pick(rng *rand.Rand, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = randomCase(rng, lp.ids[rng.IntN(len(lp.ids))])
	}
	return out
}

func (lp labelPicker) filter(rng *rand.Rand) ugc.Filter {
	f := make(ugc.Filter, 1+rng.IntN(3))
	for i := range f {
		n := 1 + rng.IntN(4)
		if rng.IntN(12) == 0 {
			n = 0
		}
		f[i] = ugc.LabelFilter{Operator: ugc.OperatorOr, LabelIDs: lp.pick(rng, n)}
		if rng.IntN(2) == 0 {
			f[i].Operator = ugc.OperatorAnd
		}
	}
	return f
}

// randomDataset is generated posts, explicit posts or both, with extra
// labels in every state and posts carrying labels, unknown IDs and
// duplicates.
func randomDataset(rng *rand.Rand, seed uint64) (*ugctest.Dataset, labelPicker) {
	ds := &ugctest.Dataset{}
	if rng.IntN(3) > 0 {
		ds = ugctest.Generate(rng.IntN(300), seed)
	}
	for i := range rng.IntN(6) {
		l := ugctest.Label{ID: fmt.Sprintf("%016x%08x", seed, i)}
		switch rng.IntN(4) {
		case 0:
			l.Removed = true
		case 1:
			l.Inaccessible = true
		}
		ds.AddLabel(l)
	}
	lp := labelPicker{ids: []string{"0123456789abcdef01234567", "fedcba9876543210fedcba98"}} // unknown
	for _, l := range ds.Labels {
		lp.ids = append(lp.ids, l.ID)
	}
	for i := range rng.IntN(80) {
		ds.AddPost(ugctest.NewPost("x"+strconv.Itoa(i)), lp.pick(rng, rng.IntN(5))...)
	}
	return ds, lp
}

// drift changes the stored order at random, as the drift helpers allow;
// present is the IDs in the list, kept up to date.
func drift(t *testing.T, rng *rand.Rand, h *ugctest.Handler, lp labelPicker, present []string, inserted *int) []string {
	for range 1 + rng.IntN(3) {
		switch op := rng.IntN(4); {
		case op == 0 || len(present) == 0:
			var posts []ugctest.Post
			for range 1 + rng.IntN(4) {
				*inserted++
				p := ugctest.Post{Post: ugctest.NewPost("ins" + strconv.Itoa(*inserted)), LabelIDs: lp.pick(rng, rng.IntN(5))}
				posts = append(posts, p)
			}
			at := rng.IntN(len(present) + 2)
			require.NoError(t, h.InsertPosts(at, posts...))
			at = min(at, len(present))
			for i, p := range posts {
				present = slices.Insert(present, at+i, p.ID)
			}
		case op == 1:
			i := rng.IntN(len(present))
			require.NoError(t, h.RemovePosts(present[i]))
			present = slices.Delete(present, i, i+1)
		case op == 2:
			i, to := rng.IntN(len(present)), rng.IntN(len(present))
			require.NoError(t, h.MovePost(present[i], to))
			id := present[i]
			present = slices.Insert(slices.Delete(present, i, i+1), to, id)
		default:
			h.ShufflePosts(rng.Uint64())
			present = nil // unknown until the next scan
		}
		if present == nil {
			break
		}
	}
	return present
}

// TestFilteredListMatchesAScan: for random datasets, drift and filters, the
// count and every page of a filtered list are those of a scan of the whole
// list, and stay so after the order changes (the index and its cache are
// rebuilt, never stale).
func TestFilteredListMatchesAScan(t *testing.T) {
	t.Parallel()
	for seed := range uint64(80) {
		t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(seed, 0x1abe1))
			ds, lp := randomDataset(rng, seed)
			h, err := ugctest.NewHandler(ds, "k", ugctest.WithRequestLogLimit(0))
			require.NoError(t, err)
			var filters []ugc.Filter // kept across drift: a cached answer must not outlive its order
			for range 4 {
				filters = append(filters, lp.filter(rng))
			}
			var present []string
			inserted := 0
			for round := range 6 {
				if round > 0 {
					present = drift(t, rng, h, lp, present, &inserted)
				}
				all := scanAll(t, h)
				if present != nil {
					ids := make([]string, len(all))
					for i, p := range all {
						ids[i] = p.id
					}
					require.Equal(t, present, ids, "the drift helpers moved the posts as the test expects")
				}
				present = present[:0]
				for _, p := range all {
					present = append(present, p.id)
				}
				filters = append(filters, lp.filter(rng))
				for _, f := range filters {
					checkFilteredPages(t, rng, h, all, f)
				}
			}
		})
	}
}

// checkFilteredPages pages through f with a random limit, and past the end.
func checkFilteredPages(t *testing.T, rng *rand.Rand, h http.Handler, all []scannedPost, f ugc.Filter) {
	t.Helper()
	want := bruteForce(all, f)
	limit := 1 + rng.IntN(25)
	for skip := 0; skip <= len(want)+limit; skip += limit {
		if rng.IntN(4) == 0 { // jump, as a client that does not walk does
			skip = rng.IntN(len(want) + 2)
		}
		path := "/v1/posts?limit=" + strconv.Itoa(limit) + "&skip=" + strconv.Itoa(skip) + "&" + filterQuery(f.String())
		code, body := serveDirect(t, h, path)
		require.Equal(t, http.StatusOK, code, body)
		var e struct {
			Count int
			Nodes []struct{ ID string }
		}
		require.NoError(t, json.Unmarshal([]byte(body), &e))
		got := []string{}
		for _, n := range e.Nodes {
			got = append(got, n.ID)
		}
		require.Equal(t, len(want), e.Count, "count of %s", f)
		require.Equal(t, want[min(skip, len(want)):min(skip+limit, len(want))], got, "%s skip=%d limit=%d", f, skip, limit)
	}
}

// TestFilteredListUnderConcurrentDrift: filtered requests racing with the
// drift helpers (run with -race) each answer a consistent page: every post
// carries the filter's label, and the count is at most the list's length.
func TestFilteredListUnderConcurrentDrift(t *testing.T) {
	t.Parallel()
	const n = 5000
	ds := ugctest.Generate(n, 3)
	h, err := ugctest.NewHandler(ds, "k", ugctest.WithRequestLogLimit(0))
	require.NoError(t, err)
	var labels []string
	for _, l := range ds.Labels {
		if l.Available() {
			labels = append(labels, l.ID)
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			for {
				select {
				case <-stop:
					return
				default:
				}
				label := labels[rng.IntN(len(labels))]
				f := ugc.Filter{ugc.AnyLabel(label)}
				if g%2 == 1 {
					f = append(f, ugc.AllLabels(labels[rng.IntN(len(labels))]))
				}
				code, body := serveDirect(t, h, "/v1/posts?include=labels&skip="+strconv.Itoa(rng.IntN(n))+"&"+filterQuery(f.String()))
				if !assert.Equal(t, http.StatusOK, code, body) {
					return
				}
				var e struct {
					Count int
					Nodes []struct{ Labels []ugc.Label }
				}
				if !assert.NoError(t, json.Unmarshal([]byte(body), &e)) {
					return
				}
				assert.LessOrEqual(t, e.Count, n+100)
				for _, p := range e.Nodes {
					assert.True(t, slices.ContainsFunc(p.Labels, func(l ugc.Label) bool { return l.ID == label }), "a post without %s", label)
				}
			}
		}()
	}
	rng := rand.New(rand.NewPCG(9, 9))
	for i := range 100 {
		switch i % 3 {
		case 0:
			require.NoError(t, h.InsertPosts(rng.IntN(n), ugctest.Post{Post: ugctest.NewPost("c" + strconv.Itoa(i)), LabelIDs: labels[:2]}))
		case 1:
			require.NoError(t, h.MovePost("c"+strconv.Itoa(i-1), rng.IntN(n)))
		default:
			h.ShufflePosts(uint64(i))
		}
	}
	close(stop)
	wg.Wait()
}
