package main

import (
	"encoding/json"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// docBanner returns the banner the package documentation shows: the
// indented lines from the one that begins with {"url".
func docBanner(t *testing.T) banner {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "main.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	require.NoError(t, err)
	_, example, found := strings.Cut(f.Doc.Text(), "\t{\"url\"")
	require.True(t, found, `the package documentation shows the banner, from {"url"`)
	example, _, _ = strings.Cut(`{"url"`+example, "\n\n")
	var b banner
	require.NoError(t, json.Unmarshal([]byte(example), &b), "the documented banner is JSON: %s", example)
	return b
}

// TestDocumentedBannerIsTheBanner: the banner the documentation shows for
// `ugcfake -key KEY` has the keys, galleries, markets, counts and first
// labels of the real one (addresses and IDs aside).
func TestDocumentedBannerIsTheBanner(t *testing.T) {
	t.Parallel()
	doc := docBanner(t)
	_, real, _ := startCommand(t, "-key", "KEY")
	assert.Equal(t, real.APIKey, doc.APIKey)
	assert.Equal(t, real.Galleries, doc.Galleries)
	assert.Equal(t, real.Counts, doc.Counts)
	require.Len(t, doc.Markets, len(real.Markets))
	for i := range doc.Markets {
		assert.Equal(t, real.Markets[i].ShortID, doc.Markets[i].ShortID)
	}
	require.LessOrEqual(t, len(doc.Labels), len(real.Labels))
	for i := range doc.Labels {
		assert.Equal(t, real.Labels[i].Name, doc.Labels[i].Name, "label %d", i)
	}
	assert.Equal(t, doc.URL+"/_ugcfake", doc.Control)
}
