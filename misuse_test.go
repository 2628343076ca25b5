package ugc_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
)

// refusalTransport answers no request but counts every one: a refusal
// before any request leaves it at zero.
type refusalTransport struct{ n atomic.Int64 }

func (c *refusalTransport) RoundTrip(*http.Request) (*http.Response, error) {
	c.n.Add(1)
	return nil, fmt.Errorf("no request may be sent")
}

// refusal is one generated bad input and the sentinel it must match.
type refusal struct {
	what string
	want error // ErrInvalidParams: the caller's input; ErrMisuse: the program's
	call func(ctx context.Context, c *ugc.Client) error
}

// firstErr runs a walk and returns its first error.
func firstErr(seq func(func(ugc.Post, error) bool)) error {
	for _, err := range seq {
		if err != nil {
			return err
		}
	}
	return nil
}

// randomString is n runes drawn from alphabet.
func randomString(r *rand.Rand, alphabet string, n int) string {
	rs := []rune(alphabet)
	var b strings.Builder
	for range n {
		b.WriteRune(rs[r.IntN(len(rs))])
	}
	return b.String()
}

// generatedRefusals draws n cases of every row of the table in the
// documentation of ErrInvalidParams, each on a single call and on a walk.
func generatedRefusals(r *rand.Rand, n int) []refusal {
	var out []refusal
	add := func(what string, want error, single func(ctx context.Context, c *ugc.Client) error, walk func(ctx context.Context, c *ugc.Client) error) {
		out = append(out, refusal{what, want, single}, refusal{what + " (walk)", want, walk})
	}
	for range n {
		// The caller's input.
		gallery := []string{"", ".", "..", randomString(r, "ab\x00\x1f\x7f\n\t", 1+r.IntN(8))}[r.IntN(4)]
		if gallery != "" && gallery != "." && gallery != ".." && !strings.ContainsAny(gallery, "\x00\x1f\x7f\n\t") {
			gallery += "\n"
		}
		add(fmt.Sprintf("gallery ID %q", gallery), ugc.ErrInvalidParams,
			func(ctx context.Context, c *ugc.Client) error {
				_, err := c.GalleryPosts(ctx, gallery, nil)
				return err
			},
			func(ctx context.Context, c *ugc.Client) error { return firstErr(c.AllGalleryPosts(ctx, gallery, nil)) })
		label := randomString(r, "0123456789abcdefXYZ-", r.IntN(30))
		if len(label) == 24 {
			label += "g"
		}
		f := ugc.Filter{ugc.AnyLabel(label)}
		add(fmt.Sprintf("label ID %q", label), ugc.ErrInvalidParams,
			func(ctx context.Context, c *ugc.Client) error {
				_, err := c.Posts(ctx, &ugc.PostsParams{Filter: f})
				return err
			},
			func(ctx context.Context, c *ugc.Client) error {
				return firstErr(c.AllPosts(ctx, &ugc.PostsParams{Filter: f}))
			})
		cursor := randomString(r, "ABCDEFabcdef0123456789-_", 1+r.IntN(40))
		out = append(out, refusal{fmt.Sprintf("cursor %q", cursor), ugc.ErrInvalidParams, func(ctx context.Context, c *ugc.Client) error {
			_, err := c.Inbox(ctx, nil, ugc.WithCursor(cursor))
			return err
		}})

		// The program's.
		limit, skip := -1-r.IntN(1<<20), -1-r.IntN(1<<20)
		add(fmt.Sprintf("limit %d", limit), ugc.ErrMisuse,
			func(ctx context.Context, c *ugc.Client) error {
				_, err := c.Inbox(ctx, &ugc.InboxParams{Limit: limit})
				return err
			},
			func(ctx context.Context, c *ugc.Client) error {
				return firstErr(c.AllInbox(ctx, &ugc.InboxParams{Limit: limit}))
			})
		add(fmt.Sprintf("skip %d", skip), ugc.ErrMisuse,
			func(ctx context.Context, c *ugc.Client) error {
				_, err := c.GalleryPosts(ctx, "summer", &ugc.GalleryPostsParams{Skip: skip})
				return err
			},
			func(ctx context.Context, c *ugc.Client) error {
				return firstErr(c.AllGalleryPosts(ctx, "summer", &ugc.GalleryPostsParams{Skip: skip}))
			})
		include := ugc.Include(randomString(r, "labelsLABELS,", r.IntN(8)))
		if include == ugc.IncludeLabels {
			include += "s"
		}
		add(fmt.Sprintf("include %q", include), ugc.ErrMisuse,
			func(ctx context.Context, c *ugc.Client) error {
				_, err := c.Posts(ctx, &ugc.PostsParams{Include: []ugc.Include{include}})
				return err
			},
			func(ctx context.Context, c *ugc.Client) error {
				return firstErr(c.AllPosts(ctx, &ugc.PostsParams{Include: []ugc.Include{include}}))
			})
		header := []string{"x-api-key", "User-Agent", "host"}[r.IntN(3)]
		header = strings.Map(func(c rune) rune {
			if r.IntN(2) == 0 {
				return []rune(strings.ToUpper(string(c)))[0]
			}
			return c
		}, header)
		add("reserved header "+header, ugc.ErrMisuse,
			func(ctx context.Context, c *ugc.Client) error {
				_, err := c.Inbox(ctx, nil, ugc.WithHeader(header, "v"))
				return err
			},
			func(ctx context.Context, c *ugc.Client) error {
				return firstErr(c.AllInbox(ctx, nil, ugc.WithHeader(header, "v")))
			})
	}
	misplaced := []struct {
		name string
		opt  ugc.Option
	}{
		{"WithHTTPClient", ugc.WithHTTPClient(http.DefaultClient)},
		{"WithLogger", ugc.WithLogger(nil)},
		{"WithRetryWait", ugc.WithRetryWait(0, 0)},
		{"WithRateLimit", ugc.WithRateLimit(1, 1)},
		{"WithAttemptObserver", ugc.WithAttemptObserver(func(context.Context, ugc.AttemptInfo) {})},
		{"WithRetryMax(-1)", ugc.WithRetryMax(-1)},
		{"WithAttemptTimeout(-1)", ugc.WithAttemptTimeout(-1)},
		{"WithThrottleBudget(-1)", ugc.WithThrottleBudget(-1)},
		{"nil Option", nil},
	}
	for _, m := range misplaced {
		add("option "+m.name, ugc.ErrMisuse,
			func(ctx context.Context, c *ugc.Client) error { _, err := c.Inbox(ctx, nil, m.opt); return err },
			func(ctx context.Context, c *ugc.Client) error { return firstErr(c.AllInbox(ctx, nil, m.opt)) })
	}
	out = append(out,
		refusal{"WithSummary on one call", ugc.ErrMisuse, func(ctx context.Context, c *ugc.Client) error {
			_, err := c.Inbox(ctx, nil, ugc.WithSummary(&ugc.WalkSummary{}))
			return err
		}},
		refusal{"WithCursor on a walk", ugc.ErrMisuse, func(ctx context.Context, c *ugc.Client) error {
			return firstErr(c.AllInbox(ctx, nil, ugc.WithCursor("")))
		}})
	var nilCtx context.Context
	add("nil context", ugc.ErrMisuse,
		func(_ context.Context, c *ugc.Client) error { _, err := c.Inbox(nilCtx, nil); return err },
		func(_ context.Context, c *ugc.Client) error { return firstErr(c.AllInbox(nilCtx, nil)) })
	return out
}

// TestEveryRefusalMatchesExactlyOneSentinel: every check the SDK makes
// before a request, over generated inputs, on single calls and walks,
// returns an error that matches the sentinel its row of the table in
// ErrInvalidParams's documentation names, never the other one, and sends
// nothing.
func TestEveryRefusalMatchesExactlyOneSentinel(t *testing.T) {
	t.Parallel()
	rt := &refusalTransport{}
	c, err := ugc.NewClient("https://api.test", "key", ugc.WithHTTPClient(&http.Client{Transport: rt}))
	require.NoError(t, err)
	ctx := context.Background()
	cases := generatedRefusals(rand.New(rand.NewPCG(49, 3)), 200)
	for _, tc := range cases {
		err := tc.call(ctx, c)
		if !assert.Error(t, err, tc.what) {
			continue
		}
		other := ugc.ErrMisuse
		if tc.want == ugc.ErrMisuse { //nolint:errorlint // which sentinel the row names
			other = ugc.ErrInvalidParams
		}
		assert.ErrorIs(t, err, tc.want, tc.what)
		assert.NotErrorIs(t, err, other, "%s: one sentinel, never both", tc.what)
	}
	assert.Zero(t, rt.n.Load(), "no request was sent")
}

// TestNewClientErrorsAreMisuse: a bad argument or option of NewClient is
// the program's (its configuration's) error, never the caller's input.
func TestNewClientErrorsAreMisuse(t *testing.T) {
	t.Parallel()
	for name, build := range map[string]func() (*ugc.Client, error){
		"empty key":          func() (*ugc.Client, error) { return ugc.NewClient("https://api.test", " ") },
		"key with a newline": func() (*ugc.Client, error) { return ugc.NewClient("https://api.test", "k\n") },
		"relative base URL":  func() (*ugc.Client, error) { return ugc.NewClient("api.test", "k") },
		"plain http":         func() (*ugc.Client, error) { return ugc.NewClient("http://api.test", "k") },
		"a call-only option": func() (*ugc.Client, error) { return ugc.NewClient("https://api.test", "k", ugc.WithCursor("")) },
		"a bad default":      func() (*ugc.Client, error) { return ugc.NewClient("https://api.test", "k", ugc.WithRetryMax(-2)) },
		"a reserved header": func() (*ugc.Client, error) {
			return ugc.NewClient("https://api.test", "k", ugc.WithHeader("Host", "h"))
		},
		"nil option":         func() (*ugc.Client, error) { return ugc.NewClient("https://api.test", "k", nil) },
		"a walk-only option": func() (*ugc.Client, error) { return ugc.NewClient("https://api.test", "k", ugc.WithSummary(nil)) },
		"a base URL's query": func() (*ugc.Client, error) { return ugc.NewClient("https://api.test?x=1", "k") },
		"a base URL's userinfo": func() (*ugc.Client, error) {
			return ugc.NewClient("https://u:p@api.test", "k")
		},
	} {
		_, err := build()
		require.Error(t, err, name)
		assert.ErrorIs(t, err, ugc.ErrMisuse, name)
		assert.NotErrorIs(t, err, ugc.ErrInvalidParams, name)
		assert.True(t, strings.HasPrefix(err.Error(), "ugc: NewClient: "), "%s: %v", name, err)
	}
}

// TestCursorOfAWalksPageIsMisuse: Page.Cursor on a walk's page is the
// program's error (a walk resumes from its Checkpoint), the last row of
// the table in ErrInvalidParams's documentation that needs a page.
func TestCursorOfAWalksPageIsMisuse(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t)
	for page, err := range srv.Client().PostsPages(context.Background(), &ugc.PostsParams{Limit: 2}) {
		require.NoError(t, err)
		_, err = page.Cursor()
		assert.ErrorIs(t, err, ugc.ErrMisuse)
		assert.NotErrorIs(t, err, ugc.ErrInvalidParams)
		break
	}
}
