package ugc

import "net/http"

// ResponseInfo describes the answer to a successful call.
type ResponseInfo struct {
	StatusCode int
	Header     http.Header // the API key masked
	Attempts   int         // the call's, the last one included
	RateLimit  *RateLimit  // what the headers said of the quota; nil: nothing
}

// RequestID returns the ID the server or a proxy gave the request (see
// [APIError.RequestID]), or "" if none.
func (r *ResponseInfo) RequestID() string { return requestID(r.Header) }
