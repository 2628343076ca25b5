package ugc

import (
	"sync"
	"sync/atomic"
)

// retryBudget is a Client's budget of retries for failures that are not
// throttles (see WithRetryBudget), as the AWS SDKs' retry quota and
// gRPC's retry throttling: each retry takes a token; a call that succeeds
// gives back its retries' tokens and a fifth more. While a server is down
// it runs out, and calls fail at their first error instead of multiplying
// the load.
type retryBudget struct {
	mu     sync.Mutex
	tokens float64
	max    float64 // 0: no budget, every retry is allowed
	full   atomic.Bool
}

// newRetryBudget returns a budget of n tokens; 0 allows every retry.
func newRetryBudget(n int) *retryBudget {
	b := &retryBudget{tokens: float64(n), max: float64(n)}
	b.full.Store(true)
	return b
}

// retryRefill is what a call that succeeds gives back beyond its retries.
const retryRefill = 0.2

// Take takes a token for one retry, and reports whether there was one.
func (b *retryBudget) Take() bool {
	if b.max == 0 {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	b.full.Store(false)
	return true
}

// Succeeded gives back the tokens of a call that succeeded after retries
// retries.
func (b *retryBudget) Succeeded(retries int) {
	if b.max == 0 || retries == 0 && b.full.Load() {
		return // the common case costs one atomic load
	}
	b.mu.Lock()
	b.tokens = min(b.tokens+float64(retries)+retryRefill, b.max)
	b.full.Store(b.tokens == b.max)
	b.mu.Unlock()
}
