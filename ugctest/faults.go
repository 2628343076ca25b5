package ugctest

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"time"
)

// FaultKind is the kind of an injected [Fault].
type FaultKind int

// The kinds of fault a handler can inject.
const (
	// FaultInternalError answers 500 "Something went wrong".
	FaultInternalError FaultKind = iota + 1
	// FaultRateLimit answers 429 "Too many requests" with a Retry-After
	// header.
	FaultRateLimit
	// FaultDropConnection closes the connection without any answer.
	FaultDropConnection
	// FaultTruncateBody sends the headers of the full answer, with its
	// Content-Length, and about half of its body, then aborts the
	// connection: the client reads an unexpected EOF.
	FaultTruncateBody
	// FaultStall waits (up to the fault's Stall, or until the request's
	// context ends), then answers normally.
	FaultStall
)

// String returns the kind's name, such as "internal-error".
func (k FaultKind) String() string {
	switch k {
	case 0:
		return "none"
	case FaultInternalError:
		return "internal-error"
	case FaultRateLimit:
		return "rate-limit"
	case FaultDropConnection:
		return "drop-connection"
	case FaultTruncateBody:
		return "truncate-body"
	case FaultStall:
		return "stall"
	}
	return fmt.Sprintf("FaultKind(%d)", int(k))
}

// Fault is a failure to inject into a request. Build one with
// [InternalError], [RateLimit], [DropConnection], [TruncateBody] or [Stall].
type Fault struct {
	Kind FaultKind
	// RetryAfter is the Retry-After header of a FaultRateLimit; empty
	// sends none.
	RetryAfter string
	// Stall is how long a FaultStall waits.
	Stall time.Duration
}

// InternalError returns a fault that answers 500 "Something went wrong".
func InternalError() Fault { return Fault{Kind: FaultInternalError} }

// RateLimit returns a fault that answers 429 with the header Retry-After:
// retryAfter (seconds, such as "2", or an HTTP date; "" sends no header).
func RateLimit(retryAfter string) Fault { return Fault{Kind: FaultRateLimit, RetryAfter: retryAfter} }

// DropConnection returns a fault that closes the connection with no answer.
func DropConnection() Fault { return Fault{Kind: FaultDropConnection} }

// TruncateBody returns a fault that sends the full answer's headers and
// about half its body, then aborts the connection.
func TruncateBody() Fault { return Fault{Kind: FaultTruncateBody} }

// Stall returns a fault that waits d, or until the request's context ends,
// then answers normally.
func Stall(d time.Duration) Fault { return Fault{Kind: FaultStall, Stall: d} }

// faults decides which requests fail. Safe for concurrent use.
type faults struct {
	mu       sync.Mutex
	queue    []Fault
	fraction float64
	rng      *rand.Rand
	choices  []Fault
}

// next returns the fault for the request that just arrived, if any. Queued
// faults (FailNext) come first; then the fraction draws, one draw per
// request in arrival order.
func (f *faults) next() (Fault, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.queue) > 0 {
		ft := f.queue[0]
		f.queue = f.queue[1:]
		return ft, true
	}
	if f.fraction > 0 && f.rng.Float64() < f.fraction {
		return f.choices[f.rng.IntN(len(f.choices))], true
	}
	return Fault{}, false
}

func (f *faults) failNext(n int, ft Fault) error {
	if n < 0 {
		return fmt.Errorf("ugctest: FailNext: negative count %d", n)
	}
	if ft.Kind < FaultInternalError || ft.Kind > FaultStall {
		return fmt.Errorf("ugctest: FailNext: unknown fault kind %v", ft.Kind)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for range n {
		f.queue = append(f.queue, ft)
	}
	return nil
}

func (f *faults) failFraction(p float64, seed uint64, choices []Fault) error {
	if !(p >= 0 && p <= 1) {
		return fmt.Errorf("ugctest: FailFraction: fraction %v is outside 0..1", p)
	}
	if p > 0 && len(choices) == 0 {
		return fmt.Errorf("ugctest: FailFraction: no faults to choose from")
	}
	for _, c := range choices {
		if c.Kind < FaultInternalError || c.Kind > FaultStall {
			return fmt.Errorf("ugctest: FailFraction: unknown fault kind %v", c.Kind)
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fraction = p
	f.rng = rand.New(rand.NewPCG(seed, seed^0x6a09e667f3bcc909))
	f.choices = append([]Fault(nil), choices...)
	return nil
}

func (f *faults) clear() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queue, f.fraction, f.choices = nil, 0, nil
}
