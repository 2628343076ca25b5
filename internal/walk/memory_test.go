package walk

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ugcposts/ugc-go/internal/walk/walkmodel"
)

// TestAWalksMemoryGrowsWithWhatItRead: a new walk allocates nothing for
// posts it has not read, whatever its bound (the most a parallel walk of
// read-ahead 64 remembers is 74 pages' worth); as it yields posts its
// memory holds them, up to its bound, then forgets the oldest.
func TestAWalksMemoryGrowsWithWhatItRead(t *testing.T) {
	// Not parallel: it reads the process's allocation counter.
	const walks = 1000
	machines := make([]*Machine, walks)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range machines {
		machines[i] = New(Config{Limit: MaxLimit, Ahead: 64})
	}
	runtime.ReadMemStats(&after)
	perWalk := float64(after.TotalAlloc-before.TotalAlloc) / walks
	assert.Less(t, perWalk, 2048.0, "bytes a new walk allocates (its bound is %d posts)", machines[0].cfg.Memory)
	t.Logf("a new walk allocates %.0f bytes; its memory may hold %d posts", perWalk, machines[0].cfg.Memory)

	m := newMemory(60)
	for i, id := range walkmodel.MakeIDs("p", 25) {
		assert.Equal(t, i+1, m.add(id))
	}
	assert.Len(t, m.seq, 25, "a page's posts")
	assert.LessOrEqual(t, cap(m.ring), 32, "the ring grows with the posts, not to its bound up front")
	for _, id := range walkmodel.MakeIDs("q", 100) {
		m.add(id)
	}
	require.Len(t, m.seq, 60, "at its bound the memory forgets the oldest")
	assert.False(t, m.holds("p0024"))
	assert.True(t, m.holds("q0040"), "the last 60 posts yielded")
	assert.False(t, m.holds("q0039"))
	order, ok := m.order("q0099")
	assert.True(t, ok)
	assert.Equal(t, 125, order)
}
