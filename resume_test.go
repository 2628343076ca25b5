package ugc_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
)

// TestResumeFromRefusesParamsThatContradictTheCheckpoint: a walk resumed
// with a filter, market or include other than the checkpoint's (or one the
// checkpoint's walk did not have) fails before any request with an error
// that names the parameter and both values; nil params, or the same ones,
// resume the saved walk.
func TestResumeFromRefusesParamsThatContradictTheCheckpoint(t *testing.T) {
	t.Parallel()
	ds := ugctest.DefaultDataset()
	srv := ugctest.NewServer(t, ugctest.WithDataset(ds))
	c := srv.Client()
	ctx := context.Background()
	summer, beach := ds.Labels[0].ID, ds.Labels[1].ID
	params := &ugc.PostsParams{Limit: 2, Filter: ugc.Filter{ugc.AnyLabel(summer)}}

	var all, first []string
	for post, err := range c.AllPosts(ctx, params) {
		require.NoError(t, err)
		all = append(all, post.ID)
	}
	require.Greater(t, len(all), 2)
	var cp ugc.Checkpoint
	for page, err := range c.PostsPages(ctx, params) {
		require.NoError(t, err)
		first, cp = idsOf(page.Nodes), page.Checkpoint
		break
	}

	for _, tc := range []struct {
		name   string
		params *ugc.PostsParams
		want   string
	}{
		{"another filter", &ugc.PostsParams{Filter: ugc.Filter{ugc.AnyLabel(beach)}}, `filter=`},
		{"a market the walk had not", &ugc.PostsParams{Filter: params.Filter, Market: "de-de"}, `market="de-de", but the checkpoint's walk had no market`},
		{"an include the walk had not", &ugc.PostsParams{Include: []ugc.Include{ugc.IncludeLabels}}, `include="labels"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(srv.Requests())
			for _, err := range c.AllPosts(ctx, tc.params, ugc.ResumeFrom(cp)) {
				require.ErrorIs(t, err, ugc.ErrMisuse)
				assert.Contains(t, err.Error(), "ResumeFrom: the params ask for ")
				assert.Contains(t, err.Error(), tc.want)
			}
			assert.Len(t, srv.Requests(), before, "refused before any request")
		})
	}

	for name, p := range map[string]*ugc.PostsParams{"nil params": nil, "the same params": params, "the filter alone": {Filter: ugc.Filter{ugc.AnyLabel(summer)}}} {
		var rest []string
		for post, err := range c.AllPosts(ctx, p, ugc.ResumeFrom(cp)) {
			require.NoError(t, err, name)
			rest = append(rest, post.ID)
		}
		assert.Equal(t, all, append(append([]string{}, first...), rest...), name)
	}
}
