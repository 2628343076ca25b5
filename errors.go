package ugc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// Sentinels for errors.Is. An [*APIError] matches the one for its status;
// bad input caught before any request matches [ErrInvalidParams].
var (
	// ErrBadRequest matches an APIError with status 400.
	ErrBadRequest = errors.New("ugc: bad request")
	// ErrUnauthorized matches an APIError with status 401: no valid API key.
	ErrUnauthorized = errors.New("ugc: unauthorized")
	// ErrNotFound matches an APIError with status 404.
	ErrNotFound = errors.New("ugc: not found")
	// ErrRateLimited matches an APIError with status 429.
	ErrRateLimited = errors.New("ugc: rate limited")
	// ErrServer matches an APIError with any 5xx status.
	ErrServer = errors.New("ugc: server error")
	// ErrInvalidParams matches bad input refused before any request: a limit
	// out of range, a negative skip, an unusable gallery ID, an unsupported
	// include, an invalid filter (a [*FilterError]) or a foreign next URL.
	ErrInvalidParams = errors.New("ugc: invalid parameters")
)

// snippetLen is how much of an unexpected body an error quotes.
const snippetLen = 120

// APIError is a non-2xx answer from the API.
//
// Message is the error text: the API sends it as a bare JSON string (for
// example "No valid API key provided" with 401), which is decoded; any other
// body (a proxy's HTML page, an empty body) gives a short, printable snippet
// of it instead. Body holds the raw body, up to the client's size cap.
type APIError struct {
	Method     string // "GET"
	Endpoint   string // the path of the request, without the query
	StatusCode int
	Message    string
	Body       []byte
}

func newAPIError(method, endpoint string, status int, body []byte) *APIError {
	e := &APIError{Method: method, Endpoint: endpoint, StatusCode: status, Body: body}
	var msg string
	if json.Unmarshal(body, &msg) == nil && strings.TrimSpace(msg) != "" {
		e.Message = msg
	} else if len(bytes.TrimSpace(body)) == 0 {
		e.Message = "(empty body)"
	} else {
		e.Message = "unexpected body: " + snippet(body)
	}
	return e
}

// Error returns "ugc: GET /v1/posts: 401 Unauthorized: No valid API key provided".
func (e *APIError) Error() string {
	return fmt.Sprintf("ugc: %s %s: %d %s: %s", e.Method, e.Endpoint, e.StatusCode, http.StatusText(e.StatusCode), e.Message)
}

// Is reports whether target is the sentinel for e's status.
func (e *APIError) Is(target error) bool {
	switch target {
	case ErrBadRequest:
		return e.StatusCode == http.StatusBadRequest
	case ErrUnauthorized:
		return e.StatusCode == http.StatusUnauthorized
	case ErrNotFound:
		return e.StatusCode == http.StatusNotFound
	case ErrRateLimited:
		return e.StatusCode == http.StatusTooManyRequests
	case ErrServer:
		return e.StatusCode >= 500 && e.StatusCode <= 599
	}
	return false
}

// DecodeError is a response that could not be read as the contract
// describes: a truncated or oversized body, HTML, null where a list is
// required, a missing required field. The page it came from is never
// returned in part.
type DecodeError struct {
	Method     string
	Endpoint   string
	StatusCode int
	Snippet    string // the start of the body, printable
	Err        error
}

// Error names the request, the status, the cause and the start of the body.
func (e *DecodeError) Error() string {
	return fmt.Sprintf("ugc: %s %s: %d: invalid response: %v (body starts %q)", e.Method, e.Endpoint, e.StatusCode, e.Err, e.Snippet)
}

// Unwrap returns the underlying decoding error.
func (e *DecodeError) Unwrap() error { return e.Err }

// snippet returns the start of b as valid, printable UTF-8 of at most
// snippetLen bytes.
func snippet(b []byte) string {
	if len(b) > snippetLen {
		b = b[:snippetLen]
	}
	return strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(string(b), ""))
}
