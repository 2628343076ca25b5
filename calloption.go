package ugc

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// CallOption changes one call ([Client.Posts], [Client.GalleryPosts],
// [Client.Inbox], [Client.NextPage]) or, given to an iterator such as
// [Client.AllPosts], each request of its walk. It overrides the Client's
// setting for that call only; other calls on the same Client are not
// affected. A CallOption is also an [IterOption].
type CallOption func(*callConfig) error

// applyIter keeps the option for each request of the walk.
func (o CallOption) applyIter(c *iterConfig) { c.call = append(c.call, o) }

// callConfig is what the options of one call set; the zero value keeps the
// Client's settings.
type callConfig struct {
	retryMax       *int
	attemptTimeout *time.Duration
	header         http.Header
	response       *ResponseInfo
}

// newCallConfig applies opts in order.
func newCallConfig(opts []CallOption) (callConfig, error) {
	var cfg callConfig
	for _, o := range opts {
		if o == nil {
			return cfg, fmt.Errorf("%w: nil CallOption", ErrInvalidParams)
		}
		if err := o(&cfg); err != nil {
			return cfg, fmt.Errorf("%w: %w", ErrInvalidParams, err)
		}
	}
	return cfg, nil
}

// WithCallRetryMax sets how many times this call's failed attempts are
// retried (0: none), in place of the Client's [WithRetryMax]. A request
// handler with a tight budget uses it to fail fast on a Client shared with
// a patient batch job.
func WithCallRetryMax(n int) CallOption {
	return func(c *callConfig) error {
		if n < 0 {
			return fmt.Errorf("WithCallRetryMax: negative count %d", n)
		}
		c.retryMax = &n
		return nil
	}
}

// WithCallAttemptTimeout bounds each attempt of this call (0: unbounded),
// in place of the Client's [WithAttemptTimeout]. The context still bounds
// the call as a whole.
func WithCallAttemptTimeout(d time.Duration) CallOption {
	return func(c *callConfig) error {
		if d < 0 {
			return fmt.Errorf("WithCallAttemptTimeout: negative duration %v", d)
		}
		c.attemptTimeout = &d
		return nil
	}
}

// WithHeader adds a header to this call's requests, such as a request ID or
// a W3C traceparent. It cannot set the API key header (x-api-key), and
// values may not contain line breaks. Several WithHeader with one key add
// several values.
func WithHeader(key, value string) CallOption {
	return func(c *callConfig) error {
		k := http.CanonicalHeaderKey(strings.TrimSpace(key))
		switch {
		case k == "":
			return fmt.Errorf("WithHeader: empty header name")
		case k == canonicalKeyHeader:
			return fmt.Errorf("WithHeader: the %s header is the client's own", apiKeyHeader)
		case strings.ContainsAny(k, " \t\r\n:") || strings.ContainsAny(value, "\r\n\x00"):
			return fmt.Errorf("WithHeader: header %q has a line break or an invalid name", k)
		}
		if c.header == nil {
			c.header = http.Header{}
		}
		c.header[k] = append(c.header[k], value)
		return nil
	}
}

// ResponseInfo describes the answer to a successful call.
type ResponseInfo struct {
	StatusCode int
	// Header holds the response headers, the API key masked.
	Header http.Header
	// Attempts is how many attempts the call made, the last one included.
	Attempts int
	// RateLimit is what the answer's headers said about the quota
	// (RateLimit, RateLimit-Policy, X-RateLimit-*); nil when they said
	// nothing.
	RateLimit *RateLimit
}

// RequestID returns the ID the server or a proxy gave the request (see
// [APIError.RequestID]), or "" if none.
func (r *ResponseInfo) RequestID() string { return requestID(r.Header) }

// WithResponseInto stores in *into the status, headers and attempt count
// of the call's successful answer (for an iterator: of each page in turn).
// A failed call leaves it unchanged: its error carries the same facts.
func WithResponseInto(into *ResponseInfo) CallOption {
	return func(c *callConfig) error {
		if into == nil {
			return fmt.Errorf("WithResponseInto: nil *ResponseInfo")
		}
		c.response = into
		return nil
	}
}
