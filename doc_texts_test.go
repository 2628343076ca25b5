package ugc_test

import (
	"bytes"
	"context"
	"fmt"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"log/slog"
	"net/http"
	"net/http/httptest"
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
// doc.go quotes is one the code produces in the case the doc describes,
// word for word but for timings.
func TestDocQuotedTextsAreWhatTheCodeSays(t *testing.T) {
	t.Parallel()
	quoted := docTextLines(t)
	require.GreaterOrEqual(t, len(quoted), 5, "doc.go's quoted texts were found")
	produced := map[string]bool{}
	for _, line := range producedTexts(t) {
		produced[withoutTimings(line)] = true
	}
	for _, line := range quoted {
		assert.True(t, produced[withoutTimings(line)], "doc.go quotes a text the code does not give:\n%s\nthe code gives:\n%s",
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
