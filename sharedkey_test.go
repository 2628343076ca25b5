package ugc_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
)

// TestSharesOfAKeyOverTheWire: 2 or 3 Clients, each given its share of
// one key's quota with WithRateLimit(q/k, b/k), walk the fake behind that
// quota, saying nothing but Retry-After, at once, each in a mode of its
// own: every walk yields every post once, and the server refuses none of
// their requests (internal/pace's TestSharesOfAKeyAreNeverRefused
// simulates 1,000 keys). 2 generated keys of 60 to 240 requests a second,
// shares of 2 to 4 tokens, 300 to 1,000 posts (12 with UGC_TEST_HEAVY=1).
func TestSharesOfAKeyOverTheWire(t *testing.T) {
	if raceEnabled() {
		t.Skip("the race detector slows the server past what a spare token absorbs")
	}
	t.Parallel()
	for seed := range uint64(heavyOr(12, 2)) {
		rng := rand.New(rand.NewPCG(seed, 64))
		k := 2 + rng.IntN(2)
		rps := math.Round(60 * math.Exp(rng.Float64()*math.Log(4)))
		share := 2 + rng.IntN(3)
		posts := 300 + rng.IntN(700)
		t.Run(fmt.Sprintf("seed=%d/clients=%d/quota=%v/burst=%d/posts=%d", seed, k, rps, k*share, posts), func(t *testing.T) {
			t.Parallel()
			srv := ugctest.NewServer(t, ugctest.WithDataset(ugctest.Generate(posts, seed)), ugctest.WithRequestLogLimit(-1),
				ugctest.WithQuotaConfig(ugctest.QuotaConfig{RPS: rps, Burst: k * share, RetryAfterOnly: true}))
			var wg sync.WaitGroup
			for i := range k {
				c := srv.Client(ugc.WithRateLimit(rps/float64(k), share))
				mode := rateLimitModes[(int(seed)+i)%len(rateLimitModes)]
				wg.Add(1)
				go func() {
					defer wg.Done()
					mode.run(t, c, posts)
				}()
			}
			wg.Wait()
			reqs := srv.Requests()
			require.NotEmpty(t, reqs)
			refused := 0
			for _, r := range reqs {
				if r.OverQuota {
					refused++
				}
			}
			assert.Zero(t, refused, "requests refused, of %d", len(reqs))
		})
	}
}
