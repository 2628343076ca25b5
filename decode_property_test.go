package ugc

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// deviationKinds are ways to bend one member of a post: each takes the
// member's valid JSON and returns what a server sent instead.
var deviationKinds = []func(rng *rand.Rand, valid string) string{
	func(_ *rand.Rand, _ string) string { return `null` },
	func(_ *rand.Rand, v string) string { return strconv.Quote(v) }, // a value as a string
	func(_ *rand.Rand, _ string) string { return `{"unexpected":[1,{"a":null}]}` },
	func(_ *rand.Rand, _ string) string { return `[true,false]` },
	func(rng *rand.Rand, _ string) string { return strconv.Itoa(rng.IntN(1000)) },
	func(_ *rand.Rand, _ string) string { return `""` },
	func(_ *rand.Rand, _ string) string { return `"2024-05-01 12:00:00"` },
	func(_ *rand.Rand, _ string) string { return "" }, // the member left out
}

// randomPost returns the members of a random valid post.
func randomPost(rng *rand.Rand, i int) [][2]string {
	m := [][2]string{
		{"id", strconv.Quote(fmt.Sprintf("post-%d-%d", i, rng.IntN(1e6)))},
		{"createdAt", strconv.Quote(fmt.Sprintf("2024-%02d-%02dT%02d:00:00Z", 1+rng.IntN(12), 1+rng.IntN(28), rng.IntN(24)))},
		{"media", fmt.Sprintf(`{"location":"https://cdn.example.test/%d.jpg","hash":"h%d"}`, i, rng.IntN(99))},
		{"taggedProducts", fmt.Sprintf(`[{"x":%.3f,"y":%.3f,"product":{"id":"pr%d","title":"T%d","handle":"h%d","price":{"price":%d.5,"currency":"EUR"}}}]`, rng.Float64(), rng.Float64(), i, i, i, rng.IntN(90))},
	}
	if rng.IntN(2) == 0 {
		m = append(m, [2]string{"fromSocial", strconv.FormatBool(rng.IntN(2) == 0)})
	}
	if rng.IntN(2) == 0 {
		m = append(m, [2]string{"comment", strconv.Quote(fmt.Sprintf("caption é %d #tag", rng.IntN(100)))})
	}
	if rng.IntN(2) == 0 {
		m = append(m, [2]string{"uploadedBy", `{"username":"u","email":"u@example.test"}`})
	}
	if rng.IntN(2) == 0 {
		m = append(m, [2]string{"origin", `{"type":"INSTAGRAM"}`})
	}
	if rng.IntN(2) == 0 {
		m = append(m, [2]string{"labels", `[{"id":"aaaaaaaaaaaaaaaaaaaaaaaa","name":null}]`})
	}
	return m
}

func postObject(members [][2]string) string {
	parts := make([]string, 0, len(members))
	for _, m := range members {
		if m[1] != "" {
			parts = append(parts, strconv.Quote(m[0])+":"+m[1])
		}
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// TestOneDeviationTouchesOnlyItsPost: over many random valid pages, one
// random member of one random post is bent in a random way. Every other post
// decodes exactly as on the untouched page; the bent post is either read,
// its deviations (if the bend broke the contract) recorded for it, or it is
// dropped and reported;
// and the page itself is never lost.
func TestOneDeviationTouchesOnlyItsPost(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(42, 10))
	for round := range 2000 {
		n := 1 + rng.IntN(25)
		posts := make([][][2]string, n)
		nodes := make([]string, n)
		for i := range posts {
			posts[i] = randomPost(rng, i)
			nodes[i] = postObject(posts[i])
		}
		page := func(nodes []string) []byte {
			return []byte(`{"count":100,"next":null,"nodes":[` + strings.Join(nodes, ",") + `]}`)
		}
		clean, err := decodePage(page(nodes), false, nil)
		require.NoError(t, err)
		require.Empty(t, clean.Deviations, "round %d: a valid page has no deviation", round)

		k := rng.IntN(n)
		member := rng.IntN(len(posts[k]))
		bent := append([][2]string(nil), posts[k]...)
		bent[member][1] = deviationKinds[rng.IntN(len(deviationKinds))](rng, bent[member][1])
		changed := append([]string(nil), nodes...)
		changed[k] = postObject(bent)

		got, err := decodePage(page(changed), false, nil)
		require.NoError(t, err, "round %d: one bent post never costs the page", round)
		dropped := len(got.Nodes) == n-1
		require.True(t, len(got.Nodes) == n || dropped, "round %d", round)
		for i, j := 0, 0; i < n; i++ {
			if i == k {
				if !dropped {
					j++
				}
				continue
			}
			assert.Equal(t, clean.Nodes[i], got.Nodes[j], "round %d: post %d is untouched by post %d", round, i, k)
			j++
		}
		for _, d := range got.Deviations {
			assert.Equal(t, k, d.Index, "round %d: deviations are the bent post's", round)
		}
		if dropped {
			assert.True(t, slices.ContainsFunc(got.Deviations, func(d Deviation) bool { return d.Dropped }), "round %d: a dropped node is reported", round)
		}
	}
}

// JSON cut short anywhere, inside a literal, a string or a number too, is
// read as cut short (and so retried), never as a syntax error.
func TestJSONCutAnywhereIsCutShort(t *testing.T) {
	t.Parallel()
	body := []byte(`{"count":2,"next":null,"nodes":[{"id":"p1","createdAt":"2025-06-01T12:00:00Z","media":{"location":"https://cdn.example.com/p1.jpg"},"taggedProducts":[{"x":0.25,"y":0.5,"product":{"id":"a","title":"T","handle":"h"}}],"fromSocial":false,"hideCaption":true,"alt":null,"comment":"a \"quoted\" \u00e9"}]}`)
	_, err := decodePage(body, false, nil)
	require.NoError(t, err)
	for cut := 0; cut < len(body); cut++ {
		_, err := decodePage(body[:cut], false, nil)
		assert.ErrorIs(t, err, errTruncatedJSON, "cut at %d: …%q", cut, body[max(0, cut-8):cut])
	}
	_, err = decodePage([]byte(`{"count":2,"next":nul}`), false, nil)
	assert.NotErrorIs(t, err, errTruncatedJSON, "a bad literal inside is a syntax error")
	assert.ErrorIs(t, err, errSyntax)
}
