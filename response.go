package ugc

import "net/http"

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
