package ugctest_test

import (
	"bytes"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ugcposts/ugc-go/ugctest"
)

var update = flag.Bool("update", false, "rewrite testdata/default.json from DefaultDataset")

func TestDefaultDatasetMatchesFixture(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	require.NoError(t, ugctest.DefaultDataset().Save(&buf))
	path := filepath.Join("testdata", "default.json")
	if *update {
		require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./ugctest -run Fixture -update")
	assert.Equal(t, string(want), buf.String(), "run go test ./ugctest -run Fixture -update")

	loaded, err := ugctest.LoadDataset(bytes.NewReader(want))
	require.NoError(t, err)
	assert.Equal(t, ugctest.DefaultDataset(), loaded, "the fixture loads back to DefaultDataset")
}

func TestDefaultDatasetCoversTheContract(t *testing.T) {
	t.Parallel()
	ds := ugctest.DefaultDataset()
	assert.GreaterOrEqual(t, len(ds.Posts), 24)
	assert.GreaterOrEqual(t, len(ds.Galleries), 2)
	assert.GreaterOrEqual(t, len(ds.Markets), 2)
	assert.Len(t, ds.Inbox, 10)
	has := map[string]bool{}
	for _, p := range ds.Posts {
		has["type "+string(p.Type)] = true
		has["social"] = has["social"] || p.FromSocial != nil && *p.FromSocial && p.SocialURL != "" && !p.SocialDate.IsZero()
		has["company"] = has["company"] || p.AddedByCompany != nil && *p.AddedByCompany
		has["hideCaption"] = has["hideCaption"] || p.HideCaption != nil && *p.HideCaption
		has["hashtag"] = has["hashtag"] || strings.Contains(p.Comment, "#")
		has["mention"] = has["mention"] || strings.Contains(p.Comment, "@")
		has["no labels"] = has["no labels"] || len(p.LabelIDs) == 0
		for _, tp := range p.TaggedProducts {
			pr := tp.Product
			has["sale"] = has["sale"] || pr.Price != nil && pr.Price.Sale != nil
			has["sku"] = has["sku"] || pr.SKU != ""
			has["mpn"] = has["mpn"] || pr.MPN != ""
			has["gtin"] = has["gtin"] || pr.GTIN != ""
			has["product without sku"] = has["product without sku"] || pr.SKU == ""
		}
	}
	for _, l := range ds.Labels {
		has["unnamed label"] = has["unnamed label"] || l.Name == nil
		has["removed label"] = has["removed label"] || l.Removed
		has["inaccessible label"] = has["inaccessible label"] || l.Inaccessible
	}
	for _, p := range ds.Inbox {
		assert.NotEmpty(t, p.UploadedBy.Email)
	}
	for _, want := range []string{"type IMAGE", "type VIDEO", "social", "company", "hideCaption", "hashtag", "mention", "no labels", "sale", "sku", "mpn", "gtin", "product without sku", "unnamed label", "removed label", "inaccessible label"} {
		assert.True(t, has[want], want)
	}
}

func TestGenerate(t *testing.T) {
	t.Parallel()
	a, b := ugctest.Generate(300, 7).Materialize(), ugctest.Generate(300, 7).Materialize()
	assert.Equal(t, a, b, "deterministic")
	assert.Len(t, a.Posts, 300)
	c := ugctest.Generate(300, 8).Materialize()
	assert.NotEqual(t, a.Posts[0].ID, c.Posts[0].ID, "seeds give distinct IDs")
	assert.Equal(t, 1_000_000, ugctest.Generate(1_000_000, 1).Len())

	// Generated and materialized datasets serve the same bytes.
	gen := ugctest.NewServer(t, ugctest.WithDataset(ugctest.Generate(300, 7)))
	mat := ugctest.NewServer(t, ugctest.WithDataset(a))
	for _, p := range []string{"/v1/posts?limit=25&skip=100&include=labels", "/v1/posts?limit=25&skip=50&market=de-de", "/v1/posts?limit=25&market=fr-fr", "/v1/galleries/summer/posts?include=labels"} {
		assert.Equal(t, page(t, mat, p).Nodes, page(t, gen, p).Nodes, p)
	}
}

func TestLoadDatasetErrors(t *testing.T) {
	t.Parallel()
	for name, in := range map[string]string{
		"not JSON":           `{`,
		"unknown field":      `{"postz": []}`,
		"trailing data":      `{} {}`,
		"unknown post field": `{"posts": [{"post": {}, "x": 1}]}`,
	} {
		_, err := ugctest.LoadDataset(strings.NewReader(in))
		assert.Error(t, err, name)
	}
}

// Seeding reads like the data: the same ugc.Post for approved and inbox
// posts, labels attached as IDs, builders that fill what the contract
// requires.
func TestSeedingTheObviousWay(t *testing.T) {
	t.Parallel()
	const summer, sale = "aaaaaaaaaaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbbbbbb"
	ds := &ugctest.Dataset{}
	ds.AddLabel(ugctest.NewLabel(summer, "Summer"))
	ds.AddLabel(ugctest.NewLabel(sale, "Sale"))
	p := ugctest.NewPost("p1")
	p.Comment = "hello #summer"
	ds.AddPost(p, summer, sale)
	ds.AddPosts(ugctest.NewPost("p2"), ugctest.NewPost("p3"))
	ds.AddInboxPosts(ugctest.NewInboxPost("i1", "ann@example.test"))
	ds.AddGallery("home", "p3", "p1")
	ds.AddMarket(ugctest.Market{ID: "cccccccccccccccccccccccc", ShortID: "de-de"})
	srv := ugctest.NewServer(t, ugctest.WithDataset(ds))

	e := page(t, srv, "/v1/posts?include=labels")
	assert.Equal(t, []string{"p1", "p2", "p3"}, ids(t, e))
	assert.JSONEq(t, `[{"id":"`+summer+`","name":"Summer"},{"id":"`+sale+`","name":"Sale"}]`, string(e.Nodes[0]["labels"]))
	assert.JSONEq(t, `[]`, string(e.Nodes[1]["labels"]))
	assert.Equal(t, []string{"p3", "p1"}, ids(t, page(t, srv, "/v1/galleries/home/posts")))
	assert.Equal(t, []string{"i1"}, ids(t, page(t, srv, "/v1/inbox")))
	assert.Equal(t, []string{"p1"}, ids(t, page(t, srv, "/v1/posts?"+filterQuery(`[{"type":"label","operator":"AND","values":["`+sale+`"]}]`))))
	assert.Equal(t, http.StatusOK, get(t, srv, "/v1/posts?market=de-de").status)
}
