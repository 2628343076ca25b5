package ugc_test

import (
	"bytes"
	"context"
	"fmt"
	"go/ast"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
)

// docTextLines returns the lines of doc.go's code blocks that are not Go
// (see docSnippets): the error texts and log lines the docs quote.
func docTextLines(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	require.NoError(t, err)
	var out []string
	for _, block := range new(comment.Parser).Parse(f.Doc.Text()).Content {
		code, ok := block.(*comment.Code)
		if !ok || strings.Contains(code.Text, "ugc.") || strings.Contains(code.Text, ":=") {
			continue
		}
		out = append(out, strings.Split(strings.TrimSpace(code.Text), "\n")...)
	}
	return out
}

// readmeTextLines returns the lines of README.md's plain code blocks
// that are error texts ("ugc: ...").
func readmeTextLines(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("README.md")
	require.NoError(t, err)
	var out []string
	inPlain, inCode := false, false
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, "```"):
			inPlain, inCode = !inCode && line == "```", !inCode
		case inPlain && strings.HasPrefix(line, "ugc: "):
			out = append(out, line)
		}
	}
	return out
}

// variableAttrs are the log attributes whose values are timings.
var variableAttrs = regexp.MustCompile(`\b(duration|wait)=[^ ]+`)

// withoutTimings puts a placeholder in place of a log line's timings.
func withoutTimings(line string) string { return variableAttrs.ReplaceAllString(line, "$1=…") }

// producedTexts returns the error texts and log lines the code gives in
// the cases doc.go quotes.
func producedTexts(t *testing.T) []string {
	t.Helper()
	ctx := context.Background()
	var out []string

	// A throttle past the call's budget, from the fake's 429 of a minute.
	srv := ugctest.NewServer(t)
	srv.FailNext(1, ugctest.RateLimit("60"))
	_, err := srv.Client().Posts(ctx, nil, ugc.WithThrottleBudget(time.Second))
	require.Error(t, err)
	out = append(out, err.Error())

	// A 503 retried, then a success, logged.
	srv = ugctest.NewServer(t)
	srv.FailNext(1, ugctest.ErrorResponse(http.StatusServiceUnavailable, "busy"))
	var log bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		}}))
	c, err := ugc.NewClient(srv.URL, srv.APIKey, ugc.WithLogger(logger), ugc.WithRetryWait(time.Millisecond, time.Millisecond))
	require.NoError(t, err)
	_, err = c.Posts(ctx, nil)
	require.NoError(t, err)
	out = append(out, strings.Split(strings.TrimSpace(log.String()), "\n")...)

	// A deadline that passes while a 500 is waited out, and a 429 that
	// names no wait, five times.
	status := http.StatusInternalServerError
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(status)
		fmt.Fprint(w, map[int]string{500: `"Something went wrong"`, 429: `"Too many requests"`}[status])
	}))
	t.Cleanup(api.Close)
	deadline := &expiringCtx{Context: ctx, done: make(chan struct{})}
	c, err = ugc.NewClient(api.URL, "test-key", ugc.WithRetryWait(time.Hour, time.Hour),
		ugc.WithAttemptObserver(func(context.Context, ugc.AttemptInfo) { deadline.expire() }))
	require.NoError(t, err)
	_, err = c.Posts(deadline, nil)
	require.Error(t, err)
	out = append(out, err.Error())

	status = http.StatusTooManyRequests
	c, err = ugc.NewClient(api.URL, "test-key", ugc.WithRetryWait(0, 0))
	require.NoError(t, err)
	_, err = c.Posts(ctx, nil)
	require.Error(t, err)
	out = append(out, err.Error())
	return out
}

// TestDocQuotedTextsAreWhatTheCodeSays: every error text and log line that
// doc.go quotes, and every error text of README.md, is one the code produces in the case the doc describes,
// word for word but for timings.
func TestDocQuotedTextsAreWhatTheCodeSays(t *testing.T) {
	// Not parallel: it takes milliseconds, and its servers' goroutines
	// would compete with the timing of the rate-limit tests.
	quoted, readme := docTextLines(t), readmeTextLines(t)
	require.GreaterOrEqual(t, len(quoted), 5, "doc.go's quoted texts were found")
	require.GreaterOrEqual(t, len(readme), 2, "README.md's quoted texts were found")
	quoted = append(quoted, readme...)
	produced := map[string]bool{}
	for _, line := range producedTexts(t) {
		produced[withoutTimings(line)] = true
	}
	for _, line := range quoted {
		assert.True(t, produced[withoutTimings(line)], "the docs quote a text the code does not give:\n%s\nthe code gives:\n%s",
			line, strings.Join(keys(produced), "\n"))
	}
}

// keys returns m's keys.
func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// exportedDocQuotes returns the error texts ("ugc: ...", in double quotes)
// that the doc comments of the package's exported declarations quote, by
// the declaration's name.
func exportedDocQuotes(t *testing.T) map[string][]string {
	t.Helper()
	entries, err := os.ReadDir(".")
	require.NoError(t, err)
	quote := regexp.MustCompile(`"(ugc: [^"]*)"`)
	out := map[string][]string{}
	add := func(name string, doc *ast.CommentGroup) {
		recv, method, isMethod := strings.Cut(name, ".")
		if doc == nil || !ast.IsExported(recv) || isMethod && !ast.IsExported(method) {
			return
		}
		for _, m := range quote.FindAllStringSubmatch(strings.ReplaceAll(doc.Text(), "\n", " "), -1) {
			out[name] = append(out[name], m[1])
		}
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") || e.Name() == "doc.go" {
			continue
		}
		f, err := parser.ParseFile(fset, e.Name(), nil, parser.ParseComments)
		require.NoError(t, err)
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				add(declName(d), d.Doc)
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch spec := spec.(type) {
					case *ast.TypeSpec:
						add(spec.Name.Name, spec.Doc)
						add(spec.Name.Name, d.Doc)
					case *ast.ValueSpec:
						add(spec.Names[0].Name, spec.Doc)
					}
				}
			}
		}
	}
	return out
}

// quotedErrorTexts are the errors of the cases the exported docs quote,
// by the declaration whose doc quotes them.
func quotedErrorTexts(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}

	// A 500 with a request ID, retried to the end (APIError.Error).
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("X-Request-Id", "edge-1")
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, `"Something went wrong"`)
	}))
	t.Cleanup(api.Close)
	c, err := ugc.NewClient(api.URL, "test-key", ugc.WithRetryWait(0, 0))
	require.NoError(t, err)
	_, err = c.Posts(context.Background(), nil)
	require.Error(t, err)
	out["APIError.Error"] = err.Error()

	// A deadline that passes during the first attempt (Client.Posts).
	slow := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	t.Cleanup(slow.Close)
	c, err = ugc.NewClient(slow.URL, "test-key")
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = c.Posts(ctx, nil)
	require.Error(t, err)
	out["Client.Posts"] = err.Error()
	return out
}

// TestExportedDocsQuoteTheErrorsTheCodeGives: an error text that an
// exported identifier's doc quotes is the one the code gives.
func TestExportedDocsQuoteTheErrorsTheCodeGives(t *testing.T) {
	// Not parallel, as TestDocQuotedTextsAreWhatTheCodeSays.
	quotes := exportedDocQuotes(t)
	produced := quotedErrorTexts(t)
	for name, texts := range quotes {
		for _, text := range texts {
			if name == "FilterError.Error" && text == "ugc: invalid filter: " { // FilterError.Error: a prefix, then the server's message
				continue
			}
			got, ok := produced[name]
			if assert.True(t, ok, "%s's doc quotes %q, which no case of this test produces: add one", name, text) {
				assert.Equal(t, text, got, "%s's doc quotes an error the code does not give", name)
			}
		}
	}
	assert.Len(t, quotes, len(produced)+1, "every case of this test is quoted by a doc")
}

// declName is a function's name, or a method's as Type.Method.
func declName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	typ := fn.Recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}
