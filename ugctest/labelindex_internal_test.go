package ugctest

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/ugcposts/ugc-go/internal/filterrules"
)

// TestFilteredEqualsMatches checks the index against the store's own rule,
// matches, post by post: for random filters, and for every page size at
// random offsets, filtered gives the scan's count and posts.
func TestFilteredEqualsMatches(t *testing.T) {
	t.Parallel()
	ds := Generate(3000, 5)
	ds.AddLabel(Label{ID: "00000000000000000000abcd", Removed: true})
	ds.AddLabel(Label{ID: "00000000000000000000abce"})
	ds.AddPost(NewPost("e1"), "00000000000000000000ABCE", ds.Labels[0].ID, "00000000000000000000abcd")
	ds.AddPost(NewPost("e2"), "00000000000000000000abce", "00000000000000000000abce")
	h, err := NewHandler(ds, "k")
	require.NoError(t, err)
	s := h.data
	ids := []string{"ffffffffffffffffffffffff"}
	for _, l := range ds.Labels {
		ids = append(ids, l.ID, strings.ToUpper(l.ID))
	}
	rng := rand.New(rand.NewPCG(5, 5))
	for round := range 200 {
		if round%20 == 19 {
			h.ShufflePosts(uint64(round))
		}
		f := make([]filterrules.Label, 1+rng.IntN(3))
		for i := range f {
			f[i] = filterrules.Label{Operator: filterrules.OperatorOr, Values: []string{}}
			if rng.IntN(2) == 0 {
				f[i].Operator = filterrules.OperatorAnd
			}
			for range rng.IntN(4) {
				f[i].Values = append(f[i].Values, ids[rng.IntN(len(ids))])
			}
		}
		cf := s.compile(f)
		var want []ref
		var buf [8]int32
		for _, r := range s.order {
			if s.matches(r, cf, buf[:0]) {
				want = append(want, r)
			}
		}
		limit := 1 + rng.IntN(25)
		skip := rng.IntN(len(want) + 2)
		page, count := s.filtered(cf, skip, limit)
		require.Equal(t, len(want), count, fmt.Sprint(f))
		wantPage := want[min(skip, len(want)):min(skip+limit, len(want))]
		if len(wantPage) == 0 {
			require.Empty(t, page, "%s skip=%d limit=%d", f, skip, limit)
			continue
		}
		require.Equal(t, wantPage, page, "%s skip=%d limit=%d", f, skip, limit)
	}
}
