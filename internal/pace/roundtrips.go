package pace

import (
	"slices"
	"time"
)

// roundTrips are the round trips of the last answers: 64, so that their
// least is near the round trip without jitter, and their spread near the
// most the jitter in transit moves a request. The ring keeps the order
// they came in, to drop the oldest; sorted keeps the same ones in order of
// length.
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
// the least of the recent ones by as much as the fifth least is over it,
// as the next may be quicker than any of them; 0 before, as the whole of
// a round trip may be jitter.
func (r *roundTrips) quickest() time.Duration {
	if !r.known() {
		return 0
	}
	least := r.sorted[0]
	return max(least-(r.sorted[min(r.taken, len(r.ring))/16]-least), 0)
}

// slowest returns the most recent round trips took.
func (r *roundTrips) slowest() time.Duration {
	if r.taken == 0 {
		return 0
	}
	return r.sorted[min(r.taken, len(r.ring))-1]
}

// jitter returns how far the recent round trips spread: the most less the
// least.
func (r *roundTrips) jitter() time.Duration {
	n := min(r.taken, len(r.ring))
	if n == 0 {
		return 0
	}
	return r.sorted[n-1] - r.sorted[0]
}
