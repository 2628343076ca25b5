package pace

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRoundTripsAreTheLastOnesSorted: after each answer, the round trips
// the spacing reads are the last 64 taken (all of them before there are
// so many), in order of length, whatever their lengths and repeats.
func TestRoundTripsAreTheLastOnesSorted(t *testing.T) {
	t.Parallel()
	for seed := range uint64(50) {
		rng := rand.New(rand.NewPCG(seed, 64))
		spread := 1 + rng.Int64N(int64(time.Second)) // small spreads repeat lengths
		var r roundTrips
		var taken []time.Duration
		for range 300 {
			rtt := time.Duration(rng.Int64N(spread))
			taken = append(taken, rtt)
			got := r.take(rtt)
			want := slices.Sorted(slices.Values(taken[max(len(taken)-64, 0):]))
			require.Equal(t, want, got, "seed %d, after %d answers", seed, len(taken))
		}
		assert.Equal(t, len(taken), r.taken)
	}
}

// TestTheJitterRoomFades: under a configured quota, the room for the
// jitter in transit is the most the round trips showed, fading by half
// each jitterMemory after they stop showing it, and never less than what
// they show now.
func TestTheJitterRoomFades(t *testing.T) {
	t.Parallel()
	p := New(700, 2)
	now := simEpoch
	assert.Equal(t, 2*time.Millisecond, p.jitterRemembered(now, 2*time.Millisecond))
	assert.Equal(t, 2*time.Millisecond, p.jitterRemembered(now, 100*time.Microsecond), "a quieter moment")
	assert.InDelta(t, float64(time.Millisecond), float64(p.jitterRemembered(now.Add(jitterMemory), 100*time.Microsecond)), float64(time.Microsecond), "half, a jitterMemory later")
	assert.InDelta(t, float64(250*time.Microsecond), float64(p.jitterRemembered(now.Add(3*jitterMemory), 100*time.Microsecond)), float64(time.Microsecond), "a quarter, two more")
	assert.Equal(t, 3*time.Millisecond, p.jitterRemembered(now.Add(3*jitterMemory), 3*time.Millisecond), "what the round trips show now")
}
