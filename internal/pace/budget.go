package pace

import (
	"sync"
	"sync/atomic"
)

// RetryBudget is a client's budget of retries for failures that are not
// throttles (5xx, connection errors, bodies cut short), shared by every
// call, as the AWS SDKs' retry quota and gRPC's retry throttling do: each
// such retry takes one token; a call that succeeds gives back the tokens
// its retries took and a fifth of a token more. While a server is down,
// the budget runs out and calls fail at their first error instead of
// multiplying the load by their retries; successes refill it.
type RetryBudget struct {
	mu     sync.Mutex
	tokens float64
	max    float64 // 0: no budget, every retry is allowed
	full   atomic.Bool
}

// NewRetryBudget returns a budget of n tokens; 0 allows every retry.
func NewRetryBudget(n int) *RetryBudget {
	b := &RetryBudget{tokens: float64(n), max: float64(n)}
	b.full.Store(true)
	return b
}

// retryRefill is what a call that succeeds gives back beyond its retries.
const retryRefill = 0.2

// Take takes a token for one retry, and reports whether there was one.
func (b *RetryBudget) Take() bool {
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
func (b *RetryBudget) Succeeded(retries int) {
	if b.max == 0 || retries == 0 && b.full.Load() {
		return // the common case costs one atomic load
	}
	b.mu.Lock()
	b.tokens = min(b.tokens+float64(retries)+retryRefill, b.max)
	b.full.Store(b.tokens == b.max)
	b.mu.Unlock()
}
