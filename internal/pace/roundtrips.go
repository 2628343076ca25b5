package pace

import (
	"slices"
	"time"
)

// roundTrips are the round trips of the last 64 answers: their least is
// near the round trip without jitter, their spread near the most the
// jitter moves a request. ring keeps their order, sorted their lengths.
type roundTrips struct {
	ring   [64]time.Duration
	sorted [64]time.Duration
	taken  int // in all
}

// take adds rtt, in place of the oldest once the ring is full.
func (r *roundTrips) take(rtt time.Duration) {
	rtt = max(rtt, 0)
	sorted := r.sorted[:min(r.taken, len(r.ring))]
	slot := r.taken % len(r.ring)
	if r.taken >= len(r.ring) {
		i, _ := slices.BinarySearch(sorted, r.ring[slot])
		sorted = slices.Delete(sorted, i, i+1)
	}
	r.ring[slot] = rtt
	r.taken++
	i, _ := slices.BinarySearch(sorted, rtt)
	_ = slices.Insert(sorted, i, rtt) // in place: sorted has room
}

// known reports whether enough answers came to know the quickest: a
// quarter of those kept.
func (r *roundTrips) known() bool { return r.taken >= len(r.ring)/4 }

// quickest returns the quickest a round trip may take, once known: under
// the least by as much as the quickest quarter spread past it (a sum of
// two transits' jitter is rare near its floor: the fifth least's spread
// leaves it over the floor in a third of windows); 0 before.
func (r *roundTrips) quickest() time.Duration {
	if !r.known() {
		return 0
	}
	least := r.sorted[0]
	return max(least-(r.sorted[min(r.taken, len(r.ring))/4]-least), 0)
}

// slowest returns the longest recent round trip.
func (r *roundTrips) slowest() time.Duration {
	if r.taken == 0 {
		return 0
	}
	return r.sorted[min(r.taken, len(r.ring))-1]
}

// jitter returns how far the recent round trips spread: the most less the
// least.
func (r *roundTrips) jitter() time.Duration { return r.slowest() - r.sorted[0] }

// spread returns how far the jitter in transit may move a request: the
// jitter, or the whole of the slowest until the quickest is known.
func (r *roundTrips) spread() time.Duration {
	if !r.known() {
		return r.slowest()
	}
	return r.jitter()
}
