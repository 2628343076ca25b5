package ugc

import (
	"flag"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// aimdCases overrides the number of sequences TestAdaptiveRateProperties
// runs: go test -run TestAdaptiveRateProperties -args -aimd.cases=10000
var aimdCases = flag.Int("aimd.cases", 0, "sequences for TestAdaptiveRateProperties (0: the default)")

var t0 = time.Date(2026, 11, 24, 22, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

func TestAdaptiveRateIsUncappedUntilEngaged(t *testing.T) {
	t.Parallel()
	var a adaptiveRate
	assert.False(t, a.engaged())
	assert.True(t, math.IsInf(a.rate(t0), 1))
	a.succeeded()
	assert.Equal(t, 0, a.inflight, "no cap on requests in flight")
}

func TestAdaptiveRateFirstThrottleHalvesTheMeasuredRateThenProbes(t *testing.T) {
	t.Parallel()
	var a adaptiveRate
	a.throttled(at(0), at(-time.Millisecond), 80, 50*time.Millisecond, 16)
	require.True(t, a.engaged())
	// 80 accepted a second and a named wait of 50 ms (20 a second): the
	// larger, halved.
	assert.InDelta(t, 40, a.rate(at(0)), 1e-9)
	assert.Equal(t, 8, a.inflight, "half the requests in flight")
	// Nothing tells the server's rate yet: it doubles every 250 ms.
	assert.InDelta(t, 80, a.rate(at(250*time.Millisecond)), 1e-9)
	assert.InDelta(t, 640, a.rate(at(time.Second)), 1e-9)
	// The next throttle ends the probe: halved from where it was, then
	// additive increase, a tenth of the rate before the cut per second.
	a.throttled(at(time.Second), at(time.Second), 0, 0, 8)
	assert.InDelta(t, 320, a.rate(at(time.Second)), 1e-9)
	assert.InDelta(t, 320+64, a.rate(at(2*time.Second)), 1e-9)
	assert.InDelta(t, 320+640, a.rate(at(11*time.Second)), 1e-9, "no ceiling without a policy")
}

func TestAdaptiveRateWithoutMeasureStartsFromTheNamedWait(t *testing.T) {
	t.Parallel()
	var a adaptiveRate
	a.throttled(at(0), at(0), 0, 200*time.Millisecond, 1)
	assert.InDelta(t, 5, a.rate(at(0)), 1e-9, "one request per named wait")
	assert.Equal(t, 1, a.inflight)

	var b adaptiveRate
	b.throttled(at(0), at(0), 0, 0, 0)
	assert.InDelta(t, aimdMinRate, b.rate(at(0)), 1e-9, "never below the floor")
}

func TestAdaptiveRateThrottlesOfOneCongestionCutOnce(t *testing.T) {
	t.Parallel()
	var a adaptiveRate
	a.throttled(at(0), at(-time.Millisecond), 100, 0, 8)
	// Requests sent before the cut come back throttled too: one cut.
	for i := range 7 {
		a.throttled(at(time.Duration(i)*time.Millisecond), at(-time.Millisecond), 100, 0, 8)
	}
	assert.InDelta(t, 50, a.base, 1e-9)
	assert.Equal(t, 4, a.inflight)
	// A request sent after the cut that is throttled cuts again, from the
	// rate reached (the probe's: 50 doubled four times in a second).
	a.throttled(at(time.Second), at(500*time.Millisecond), 100, 0, 8)
	assert.InDelta(t, 50*16*aimdDecrease, a.base, 1e-9)
	assert.Equal(t, 2, a.inflight)
	a.throttled(at(2*time.Second), at(1500*time.Millisecond), 100, 0, 8)
	assert.InDelta(t, (400+80)*aimdDecrease, a.base, 1e-9, "additive after the probe")
}

func TestAdaptiveRatePolicyIsTheCeilingAndComesBackWithinASecond(t *testing.T) {
	t.Parallel()
	var a adaptiveRate
	a.policy(at(0), 20)
	require.True(t, a.engaged(), "a policy paces before any throttle")
	assert.InDelta(t, 20, a.rate(at(0)), 1e-9)
	assert.InDelta(t, 20, a.rate(at(time.Hour)), 1e-9, "never above the policy")
	// A throttle below the policy: another client on the same key.
	a.throttled(at(time.Second), at(time.Second), 100, 50*time.Millisecond, 4)
	assert.InDelta(t, 10, a.rate(at(time.Second)), 1e-9)
	assert.InDelta(t, 15, a.rate(at(1500*time.Millisecond)), 1e-9)
	assert.InDelta(t, 20, a.rate(at(2*time.Second)), 1e-9)
	assert.InDelta(t, 20, a.rate(at(3*time.Second)), 1e-9)
	// A throttle whose answer brings the policy (seen at the same instant)
	// paces at the policy without a cut.
	var b adaptiveRate
	b.policy(at(0), 20)
	b.throttled(at(0), at(-time.Millisecond), 500, 50*time.Millisecond, 16)
	assert.InDelta(t, 20, b.rate(at(0)), 1e-9)
}

func TestAdaptiveRateInflightCapGrowsByOnePerCapSuccesses(t *testing.T) {
	t.Parallel()
	var a adaptiveRate
	a.throttled(at(0), at(0), 10, 0, 8)
	require.Equal(t, 4, a.inflight)
	for range 3 {
		a.succeeded()
	}
	assert.Equal(t, 4, a.inflight)
	a.succeeded()
	assert.Equal(t, 5, a.inflight, "after 4 successes")
	for range 5 {
		a.succeeded()
	}
	assert.Equal(t, 6, a.inflight, "after 5 more")
	for range 10_000 {
		a.succeeded()
	}
	assert.Equal(t, 0, a.inflight, "lifted past the maximum")
}

// TestAdaptiveRateProperties drives the controller with random
// throttles, successes and policies on a made-up clock, and checks what
// must always hold: the rate is finite and at least the floor once engaged,
// never above a policy, a cut never raises it, it never falls while no
// throttle comes, and the in-flight cap is 0 (none) or in 1..max.
// 300 seeded sequences of 200 events (50 under -short; -aimd.cases=N).
func TestAdaptiveRateProperties(t *testing.T) {
	t.Parallel()
	cases := 300
	if testing.Short() {
		cases = 50
	}
	if *aimdCases > 0 {
		cases = *aimdCases
	}
	for seed := range uint64(cases) {
		rng := rand.New(rand.NewPCG(seed, 18))
		var a adaptiveRate
		now, ceiling := t0, 0.0
		for range 200 {
			now = now.Add(time.Duration(rng.IntN(500)) * time.Millisecond)
			prev := a.rate(now)
			switch rng.IntN(10) {
			case 0:
				ceiling = float64(1 + rng.IntN(200))
				a.policy(now, ceiling)
			case 1, 2:
				sent := now.Add(-time.Duration(rng.IntN(1000)) * time.Millisecond)
				a.throttled(now, sent, float64(rng.IntN(1000)), time.Duration(rng.IntN(2000))*time.Millisecond, rng.IntN(32))
				if prev < math.Inf(1) {
					require.LessOrEqual(t, a.rate(now), max(prev, aimdMinRate)+1e-9, "seed %d: a cut raised the rate", seed)
				}
			default:
				a.succeeded()
				if a.engaged() {
					require.GreaterOrEqual(t, a.rate(now), min(prev, ceilingOr(ceiling))-1e-9, "seed %d: rate fell without a throttle", seed)
				}
			}
			if a.engaged() {
				r := a.rate(now)
				require.False(t, math.IsInf(r, 0) || math.IsNaN(r), "seed %d", seed)
				require.GreaterOrEqual(t, r, aimdMinRate-1e-12, "seed %d", seed)
				if ceiling > 0 {
					require.LessOrEqual(t, r, ceiling+1e-9, "seed %d: above the policy", seed)
				}
			}
			require.True(t, a.inflight == 0 || a.inflight >= 1 && a.inflight <= aimdMaxInflight, "seed %d: cap %d", seed, a.inflight)
		}
	}
}

func ceilingOr(c float64) float64 {
	if c > 0 {
		return c
	}
	return math.Inf(1)
}
