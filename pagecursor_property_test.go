package ugc_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ugcposts/ugc-go"
)

// linkNumber is a value a server may write for skip or limit in a next
// link, and what it means: a whole number (want), or not one (ok false).
type linkNumber struct {
	raw  string
	want int
	ok   bool
}

// wholes are the whole numbers drawn: small, at the contract's limit and
// past it, at 2³¹ and past it, at 2⁵³ and past it, the largest int64.
var wholes = []int{0, 1, 3, 10, 24, 25, 26, 100, 1000, 1500, 100000, 1<<31 - 1, 1 << 31, 3000000000,
	1<<53 + 1, 1_000_000_000_000_000_000, math.MaxInt64}

// drawLinkNumber draws a value as a server may write it: a whole number
// as an integer, with leading zeros, with a fraction of zeros, with an
// exponent (mantissa and exponent drawn so that their value is the
// number), or something that is not a whole number: a fraction, a
// negative number, junk, or a number no int holds.
func drawLinkNumber(rng *rand.Rand) linkNumber {
	n := wholes[rng.IntN(len(wholes))]
	if rng.IntN(3) == 0 {
		n = rng.IntN(5000)
	}
	digits := strconv.Itoa(n)
	switch rng.IntN(12) {
	case 0, 1, 2:
		return linkNumber{digits, n, true}
	case 3:
		return linkNumber{"00" + digits, n, true}
	case 4:
		return linkNumber{digits + "." + strings.Repeat("0", 1+rng.IntN(3)), n, true}
	case 5:
		// digits with the point j places from the right, times 10^j.
		j := rng.IntN(len(digits))
		e := []string{"e", "E", "e+"}[rng.IntN(3)]
		return linkNumber{digits[:len(digits)-j] + "." + digits[len(digits)-j:] + e + strconv.Itoa(j), n, true}
	case 6:
		// n, of trailing zeros k, as its leading digits times 10^k.
		trimmed := strings.TrimRight(digits, "0")
		if trimmed == "" {
			return linkNumber{"0e5", 0, true}
		}
		return linkNumber{trimmed + "e" + strconv.Itoa(len(digits)-len(trimmed)), n, true}
	case 7:
		frac := []string{".5", ".05", ".25", ".999"}[rng.IntN(4)]
		return linkNumber{digits + frac, 0, false}
	case 8:
		return linkNumber{[]string{"1e-1", "5e-3", "1.25e1", "10.5", "0.1"}[rng.IntN(5)], 0, false}
	case 9:
		return linkNumber{"-" + strconv.Itoa(1+rng.IntN(100)), 0, false}
	case 10:
		return linkNumber{[]string{"9223372036854775808", "1e30", "99999999999999999999", "1" + strings.Repeat("0", 40)}[rng.IntN(4)], 0, false}
	}
	junk := []string{"", "abc", "0x10", "1_000", " 5", "5 ", "5abc", "NaN", "Infinity", "1e", "e3", ".", "1..0", "+", "١٢", "null", "[10]"}
	return linkNumber{junk[rng.IntN(len(junk))], 0, false}
}

// TestEveryCursorTheSDKMakesItTakesBack is a property over generated next
// links: for each, a single call's Page.Cursor either gives a cursor that
// WithCursor accepts for the same list and that asks for exactly the
// link's page (skip and limit of the same value, or no limit where the
// link names none), or refuses at once, saying which of the two it cannot
// read. A link's skip or limit that is not a whole number is refused,
// never read as 0 (skip=10.5 would ask for the first page again, for
// ever); a whole number written as a decimal ("10.0", "1.5e3") is that
// number; a limit above the contract's 25 (a server with a larger cap) and
// a skip past 2³¹ are kept. 2,000 links; 20,000 with UGC_TEST_HEAVY=1.
func TestEveryCursorTheSDKMakesItTakesBack(t *testing.T) {
	t.Parallel()
	var (
		mu         sync.Mutex
		next       string // the next link's query the server writes next
		lastSkip   string
		lastLimit  string
		limitNamed bool
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		q := r.URL.Query()
		lastSkip, lastLimit = q.Get("skip"), q.Get("limit")
		_, limitNamed = q["limit"]
		link := "null"
		if next != "" {
			link = strconv.Quote(r.URL.Path + "?" + next)
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"count":1000,"next":%s,"nodes":[{"id":"p1","createdAt":"2024-01-02T03:04:05Z","media":{"location":"x"},"taggedProducts":[]}]}`, link)
	}))
	t.Cleanup(srv.Close)
	c, err := ugc.NewClient(srv.URL, "cursor-key", ugc.WithRetryMax(0))
	require.NoError(t, err)
	ctx := context.Background()
	lists := []struct {
		name  string
		query string
		call  func(opts ...ugc.Option) (*ugc.Page, error)
	}{
		{"posts", "market=de-DE&", func(opts ...ugc.Option) (*ugc.Page, error) {
			return c.Posts(ctx, &ugc.PostsParams{Limit: 5, Market: "de-DE"}, opts...)
		}},
		{"gallery", "", func(opts ...ugc.Option) (*ugc.Page, error) {
			return c.GalleryPosts(ctx, "summer:2024", &ugc.GalleryPostsParams{Limit: 5}, opts...)
		}},
		{"inbox", "", func(opts ...ugc.Option) (*ugc.Page, error) {
			return c.Inbox(ctx, &ugc.InboxParams{Limit: 5}, opts...)
		}},
	}
	rng := rand.New(rand.NewPCG(48, 4))
	refused, kept := 0, 0
	for i := range heavyOr(20_000, 2_000) {
		list := lists[rng.IntN(len(lists))]
		skip, limit := drawLinkNumber(rng), drawLinkNumber(rng)
		query := list.query + "skip=" + url.QueryEscape(skip.raw)
		switch rng.IntN(4) {
		case 0: // no limit: the server's page size
			limit = linkNumber{want: 0, ok: true}
		default:
			query += "&limit=" + url.QueryEscape(limit.raw)
			limit.ok = limit.ok && limit.want >= 1
		}
		if rng.IntN(2) == 0 && limit.raw != "" && limit.want > 0 {
			parts := strings.Split(query, "&") // the order a server writes is its own
			parts[len(parts)-1], parts[len(parts)-2] = parts[len(parts)-2], parts[len(parts)-1]
			query = strings.Join(parts, "&")
		}
		mu.Lock()
		next = query
		mu.Unlock()
		page, err := list.call()
		require.NoError(t, err)
		cursor, err := page.Cursor()
		link := fmt.Sprintf("case %d, %s, next ?%s", i, list.name, query)
		if !skip.ok || !limit.ok {
			refused++
			require.Error(t, err, "%s: a position no cursor can ask for is refused at once", link)
			assert.Empty(t, cursor, link)
			which := "skip"
			if skip.ok {
				which = "limit"
			}
			assert.Contains(t, err.Error(), "next link's "+which, link)
			continue
		}
		kept++
		require.NoError(t, err, link)
		mu.Lock()
		next = ""
		mu.Unlock()
		_, err = list.call(ugc.WithCursor(cursor))
		require.NoError(t, err, "%s: WithCursor takes back the cursor Page.Cursor made", link)
		mu.Lock()
		gotSkip, gotLimit, named := lastSkip, lastLimit, limitNamed
		mu.Unlock()
		assert.Equal(t, strconv.Itoa(skip.want), gotSkip, "%s: the cursor asks for the link's skip", link)
		if limit.want == 0 {
			assert.False(t, named, "%s: no limit, as the link", link)
		} else {
			assert.Equal(t, strconv.Itoa(limit.want), gotLimit, "%s: the cursor asks for the link's limit", link)
		}
	}
	t.Logf("%d next links: %d cursors taken back, %d refused at once", refused+kept, kept, refused)
	assert.Positive(t, refused)
	assert.Positive(t, kept)
}
