package walk

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ugcposts/ugc-go/internal/walk/walkmodel"
)

// servePage answers req from list as a server that keeps the contract
// does, with count the list's length plus extra, numbered answered.
func servePage(list []string, req Request, extra int, answered uint64) *Page {
	lo, hi := min(req.Skip, len(list)), min(req.Skip+req.Limit, len(list))
	page := &Page{Count: len(list) + extra, IDs: slices.Clone(list[lo:hi]), Answered: answered}
	if hi < len(list) {
		page.Next = Next{Present: true, Skip: hi, Limit: req.Limit}
	}
	return page
}

// TestAPageReadAgainOnlyForItsOrderIsPlacedWhereAsked: a prefetching walk
// has the page after the anchor's answered before the anchor's own, by a
// list that gained three posts behind it in between. That page is read
// again (its order alone makes it doubtful); its second answer, the same
// page under the same count, which rose by as much as the anchor moved, is
// placed where it was asked, as any page whose anchor moved with the count
// is: not settled from where the anchor shows it began, which would leave
// every later page's positions three places behind the server's, each read
// again and taken unverified (CI found this at the HTTP level: one walk in
// a hundred ended in ErrIncomplete).
func TestAPageReadAgainOnlyForItsOrderIsPlacedWhereAsked(t *testing.T) {
	t.Parallel()
	list := walkmodel.MakeIDs("p", 100)
	m := New(Config{Limit: 10, Ahead: 1})
	wants, _ := m.Wants(nil)
	step := m.Take(wants[0], servePage(list, wants[0], 1, 1))
	require.True(t, step.Placed)
	require.Len(t, step.Yield, 10)

	wants, _ = m.Wants(nil)
	require.Len(t, wants, 2, "the page after the anchor's is foreseen")
	own, after := wants[0], wants[1]
	grown := append(walkmodel.MakeIDs("n", 3), list...)
	afterPage := servePage(grown, after, 1, 2) // answered first, from the grown list
	ownPage := servePage(list, own, 1, 3)
	step = m.Take(own, ownPage)
	require.True(t, step.Placed)

	wants, _ = m.Wants(nil)
	require.Equal(t, after.Skip, wants[0].Skip)
	step = m.Take(wants[0], afterPage)
	require.False(t, step.Placed, "answered before the page it follows, from a list of another count: read again")
	wants, hold := m.Wants(nil)
	require.True(t, hold)
	require.Equal(t, Reread, wants[0].Purpose)
	step = m.Take(wants[0], servePage(grown, wants[0], 1, 4))
	require.True(t, step.Placed)
	assert.NotEmpty(t, step.Yield)
	assert.Zero(t, m.Outcomes()&UnverifiedPages, "placed by its anchor where asked, not settled")

	// The rest of the walk, on the grown list: every post of the list
	// as it was once, and the shortfall the count shows is what was added
	// behind the walk, not owed.
	for step.End == nil {
		wants, _ = m.Wants(nil)
		step = m.Take(wants[0], servePage(grown, wants[0], 1, 5))
	}
	assert.Equal(t, EndDone, step.End.Kind, "%+v", step.End)
	assert.Zero(t, step.End.Outcomes&UnverifiedPages)
	assert.Equal(t, 100, step.End.Posts)
}
