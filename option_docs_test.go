package ugc_test

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
)

// optionLevels reads, from the package's source, the "Given to:" line of
// the doc of every exported function that returns an Option.
func optionLevels(t *testing.T) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(".")
	require.NoError(t, err)
	out := map[string]string{}
	fset := token.NewFileSet()
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, e.Name(), nil, parser.ParseComments)
		require.NoError(t, err)
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !fn.Name.IsExported() || fn.Type.Results == nil || len(fn.Type.Results.List) != 1 {
				continue
			}
			if id, ok := fn.Type.Results.List[0].Type.(*ast.Ident); !ok || id.Name != "Option" {
				continue
			}
			_, given, _ := strings.Cut(fn.Doc.Text(), "Given to: ")
			out[fn.Name.Name], _, _ = strings.Cut(given, "\n")
		}
	}
	return out
}

// TestEachOptionSaysWhereItMayBeGiven: every option's documentation ends
// with "Given to:" and the levels (NewClient, a call, a walk) that accept
// it, and the levels it names are exactly those that do.
func TestEachOptionSaysWhereItMayBeGiven(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t)
	var info ugc.ResponseInfo
	var sum ugc.WalkSummary
	valid := map[string]ugc.Option{
		"WithHTTPClient":       ugc.WithHTTPClient(&http.Client{}),
		"WithRetryMax":         ugc.WithRetryMax(1),
		"WithRetryWait":        ugc.WithRetryWait(0, 0),
		"WithAttemptTimeout":   ugc.WithAttemptTimeout(time.Minute),
		"WithLogger":           ugc.WithLogger(slog.New(slog.DiscardHandler)),
		"WithUserAgent":        ugc.WithUserAgent("docs-test"),
		"WithMaxResponseBytes": ugc.WithMaxResponseBytes(1 << 20),
		"WithStrictDecoding":   ugc.WithStrictDecoding(),
		"WithInsecureHTTP":     ugc.WithInsecureHTTP(),
		"WithAttemptObserver":  ugc.WithAttemptObserver(func(context.Context, ugc.AttemptInfo) {}),
		"WithHeader":           ugc.WithHeader("X-Docs", "1"),
		"WithResponseInto":     ugc.WithResponseInto(&info),
		"WithReadAhead":        ugc.WithReadAhead(0),
		"WithDrift":            ugc.WithDrift(ugc.DriftRepair),
		"ResumeFrom":           ugc.ResumeFrom(ugc.Checkpoint{}),
		"WithSummary":          ugc.WithSummary(&sum),
		"WithRateLimit":        ugc.WithRateLimit(1000, 10),
		"WithThrottleBudget":   ugc.WithThrottleBudget(time.Minute),
		"WithRetryBudget":      ugc.WithRetryBudget(10),
		"WithMaxPause":         ugc.WithMaxPause(time.Minute),
		"WithCursor":           ugc.WithCursor(""),
	}
	c := srv.Client()
	ctx := context.Background()
	for name, given := range optionLevels(t) {
		t.Run(name, func(t *testing.T) {
			opt, ok := valid[name]
			require.True(t, ok, "%s is an option this test does not know: add it, with a valid value, to its table", name)
			require.NotEmpty(t, given, `%s's doc has no "Given to:" line naming NewClient, a call and/or a walk`, name)

			_, clientErr := ugc.NewClient(srv.URL, srv.APIKey, opt)
			_, callErr := c.Posts(ctx, &ugc.PostsParams{Limit: 1}, opt)
			var walkErr error
			for _, err := range c.AllPosts(ctx, &ugc.PostsParams{Limit: 1}, opt) {
				walkErr = err
				break
			}
			for _, level := range []struct {
				word string
				err  error
			}{{"NewClient", clientErr}, {"a call", callErr}, {"a walk", walkErr}} {
				assert.Equal(t, level.err == nil, strings.Contains(given, level.word),
					"%s's doc says it is given to %q; given to %s it returns %v: the doc or the code is wrong", name, given, level.word, level.err)
			}
		})
	}
}
