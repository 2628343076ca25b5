package ugc

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"
)

// ErrAttemptTimeout matches an attempt that ran past [WithAttemptTimeout]
// while the caller's context was alive; it also matches
// context.DeadlineExceeded. A caller's own deadline never gives it.
var ErrAttemptTimeout = errors.New("ugc: attempt timed out")

// errAttemptDeadline is the cause of an attempt's context that ended at the
// attempt's bound, which tells it apart from the caller's deadline.
var errAttemptDeadline = errors.New("attempt deadline")

// attemptTimeoutError is an attempt's error when the attempt ran past its
// bound: the transport's or the body's error, and the bound.
type attemptTimeoutError struct {
	timeout time.Duration
	err     error
}

// Error names the bound and the option that sets it, then the cause.
func (e *attemptTimeoutError) Error() string {
	return fmt.Sprintf("attempt ran past its timeout of %v (WithAttemptTimeout): %v", e.timeout, e.err)
}

// Is matches [ErrAttemptTimeout] and context.DeadlineExceeded.
func (e *attemptTimeoutError) Is(target error) bool {
	return target == ErrAttemptTimeout || target == context.DeadlineExceeded
}

// Unwrap returns the transport's or the body's error.
func (e *attemptTimeoutError) Unwrap() error { return e.err }

// Timeout reports true, as a net.Error that timed out does.
func (e *attemptTimeoutError) Timeout() bool { return true }

// attemptTimedOut returns err marked as an attempt timeout when the
// attempt's context ctx ended at its own bound (not the caller's), and err
// as it is otherwise. An answer's status ([*APIError]) is left as it is: it
// says what the server said. A transport's *url.Error stays one, which the
// retry policy reads, and a [*DecodeError] keeps its type.
func attemptTimedOut(ctx context.Context, timeout time.Duration, err error) error {
	if err == nil || context.Cause(ctx) != errAttemptDeadline {
		return err
	}
	var apiErr *APIError
	var urlErr *url.Error
	var decErr *DecodeError
	switch {
	case errors.As(err, &apiErr):
		return err
	case errors.As(err, &urlErr) && urlErr == err:
		marked := *urlErr
		marked.Err = &attemptTimeoutError{timeout: timeout, err: urlErr.Err}
		return &marked
	case errors.As(err, &decErr) && decErr == err:
		decErr.Err = &attemptTimeoutError{timeout: timeout, err: decErr.Err}
		return decErr
	}
	return &attemptTimeoutError{timeout: timeout, err: err}
}
