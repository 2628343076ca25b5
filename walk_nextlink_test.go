package ugc_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ugcposts/ugc-go"
)

// numberServer serves a list of n posts that writes each next link's skip
// with write: as servers that keep numbers as floating point write them.
func numberServer(t *testing.T, n int, write func(skip int) string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		skip, _ := strconv.Atoi(r.URL.Query().Get("skip"))
		limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		end := min(skip+limit, n)
		var b strings.Builder
		fmt.Fprintf(&b, `{"count":%d,"next":`, n)
		if end < n {
			fmt.Fprintf(&b, `"/v1/posts?skip=%s&limit=%d"`, write(end), limit)
		} else {
			b.WriteString("null")
		}
		b.WriteString(`,"nodes":[`)
		for i := skip; i < end; i++ {
			if i > skip {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"id":"p%03d","createdAt":"2024-01-02T03:04:05Z","media":{"location":"x"},"taggedProducts":[]}`, i)
		}
		b.WriteString("]}")
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(b.String()))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestAWalkReadsAWholeSkipHoweverItIsWritten: a server that writes its
// next links' skip as a decimal ("10.0", "1.0e1") is walked to its end,
// every post once, in every mode; one whose link's skip is not a whole
// number ("10.5") ends the walk after the page that carried it with an
// error matching ErrBadNext that names the skip, never read as 0 (which
// sent the walk back to the first page).
func TestAWalkReadsAWholeSkipHoweverItIsWritten(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(48, 5))
	forms := []func(int) string{
		func(s int) string { return strconv.Itoa(s) + ".0" },
		func(s int) string { return strconv.Itoa(s) + ".000" },
		func(s int) string {
			d := strconv.Itoa(s)
			return d[:1] + "." + d[1:] + "e" + strconv.Itoa(len(d)-1)
		},
		func(s int) string { return "0" + strconv.Itoa(s) },
	}
	for i, write := range forms {
		for _, ahead := range []int{0, 1, 3} {
			n := 60 + rng.IntN(40)
			t.Run(fmt.Sprintf("form=%d/read-ahead=%d/posts=%d", i, ahead, n), func(t *testing.T) {
				t.Parallel()
				c, err := ugc.NewClient(numberServer(t, n, write), "k")
				require.NoError(t, err)
				var sum ugc.WalkSummary
				var ids []string
				for p, err := range c.AllPosts(context.Background(), &ugc.PostsParams{Limit: 10}, ugc.WithReadAhead(ahead), ugc.WithSummary(&sum)) {
					require.NoError(t, err)
					ids = append(ids, p.ID)
				}
				assert.Len(t, ids, sum.CountAtEnd)
				assert.Equal(t, len(ids), len(uniq(ids)), "every post once")
				assert.Zero(t, sum.NextCorrected, "each link's skip is where the posts end")
			})
		}
	}
	t.Run("not a whole number", func(t *testing.T) {
		t.Parallel()
		c, err := ugc.NewClient(numberServer(t, 60, func(s int) string { return strconv.Itoa(s) + ".5" }), "k")
		require.NoError(t, err)
		var ids []string
		var walkErr error
		for p, err := range c.AllPosts(context.Background(), &ugc.PostsParams{Limit: 10}) {
			if err != nil {
				walkErr = err
				continue
			}
			ids = append(ids, p.ID)
		}
		require.ErrorIs(t, walkErr, ugc.ErrBadNext)
		assert.Contains(t, walkErr.Error(), `skip "10.5" is not a whole number`)
		assert.Len(t, ids, 10, "the posts of the page that carried it")
	})
}
