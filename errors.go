package ugc

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Sentinels for errors.Is. An [*APIError] matches the one for its status.
//
// What the SDK refuses before any request matches one of two, so that a
// service tells its caller's mistake (answer 400) from its own (answer 500,
// and fix it) without reading message text:
//
//	refused before any request                        matches
//	a cursor altered, or for another list             ErrInvalidParams (and ErrBadCursor)
//	a gallery ID: "", ".", "..", control characters   ErrInvalidParams
//	a filter the server would reject (*FilterError)   ErrInvalidParams
//	a negative Limit or Skip                          ErrMisuse
//	an Include other than IncludeLabels               ErrMisuse
//	an Option at a level it does not belong to, nil,  ErrMisuse
//	  or given a value it cannot take
//	a reserved header (x-api-key, User-Agent, Host)   ErrMisuse
//	a nil context                                     ErrMisuse
//	ResumeFrom with params that contradict the        ErrMisuse
//	  checkpoint's query
//	Page.Cursor on a walk's page                      ErrMisuse
//	NewClient: an empty or malformed API key or base  ErrMisuse
//	  URL, or a bad option
//
// A service that takes a limit, a skip or an include from its caller checks
// them itself. A next URL or checkpoint the client refuses matches
// [ErrBadNext].
var (
	// ErrBadRequest matches an APIError with status 400.
	ErrBadRequest = errors.New("ugc: bad request")
	// ErrUnauthorized matches an APIError with status 401: no valid API key.
	ErrUnauthorized = errors.New("ugc: unauthorized")
	// ErrNotFound matches an APIError with status 404.
	ErrNotFound = errors.New("ugc: not found")
	// ErrRateLimited matches an APIError with status 429, and a
	// [*ThrottleError].
	ErrRateLimited = errors.New("ugc: rate limited")
	// ErrRetryBudgetExhausted matches a call not retried because the
	// Client's [WithRetryBudget] ran out; errors.As reaches its error.
	ErrRetryBudgetExhausted = errors.New("ugc: the client's retry budget is exhausted")
	// ErrServer matches an APIError with any 5xx status.
	ErrServer = errors.New("ugc: server error")
	// ErrInvalidParams matches the caller's input refused before any
	// request: a cursor, a gallery ID, a filter (see the table in this group's doc).
	ErrInvalidParams = errors.New("ugc: invalid parameters")
	// ErrMisuse matches the program's own mistake refused before any
	// request (see the table in this group's doc).
	ErrMisuse = errors.New("ugc: misuse")
	// ErrForeignRedirect matches a redirect to another origin than the
	// base URL's, refused so that the API key stays there; not retried.
	ErrForeignRedirect = errors.New("ugc: redirect to another origin refused: the API key is only sent to the base URL's origin")
)

// misusedError is an error of the program that calls the SDK, with its own
// text: it matches [ErrMisuse] as well as what it wraps.
type misusedError struct{ err error }

// misused marks err as the calling program's error ([ErrMisuse]).
func misused(err error) error { return &misusedError{err} }

// Error returns the wrapped error's text.
func (e *misusedError) Error() string { return e.err.Error() }

// Unwrap returns the wrapped error.
func (e *misusedError) Unwrap() error { return e.err }

// Is reports whether target is [ErrMisuse].
func (e *misusedError) Is(target error) bool { return target == ErrMisuse }

// snippetLen is how much of an unexpected body an error quotes.
const snippetLen = 120

// APIError is a non-2xx answer from the API. Message is the API's JSON
// string decoded, a short text/plain body as it is, or else a printable
// snippet of the body (a proxy's HTML page). Body is the raw body, up to the
// size cap. The API key is masked in Message, Body and Header.
type APIError struct {
	Method     string // "GET"
	Endpoint   string // the path of the request, without the query
	StatusCode int
	Message    string
	Body       []byte
	Header     http.Header   // the last answer's
	RetryAfter time.Duration // the last answer's Retry-After; 0: none
	Attempts   int           // the call's, the last one included
}

// maxPlainMessage is the longest non-JSON body kept as the message as it is.
const maxPlainMessage = 200

func newAPIError(method, endpoint string, resp *http.Response, body []byte, m *masker) *APIError {
	e := &APIError{Method: method, Endpoint: endpoint, StatusCode: resp.StatusCode, Body: m.maskBytes(body), Header: m.maskHeader(resp.Header)}
	var msg string
	trimmed := strings.TrimSpace(string(body))
	switch {
	case json.Unmarshal(body, &msg) == nil && strings.TrimSpace(msg) != "":
		e.Message = m.mask(msg) // masked after decoding: escapes cannot hide the key
	case trimmed == "":
		e.Message = "(empty body)"
	case isPlainText(trimmed) && !json.Valid(body):
		e.Message = m.mask(trimmed)
	default:
		e.Message = "unexpected body: " + snippet(e.Body)
	}
	return e
}

// isPlainText reports whether s is a short line of printable text that is
// not markup, fit to be an error message as it is.
func isPlainText(s string) bool {
	if len(s) > maxPlainMessage || !utf8.ValidString(s) || strings.HasPrefix(s, "<") {
		return false
	}
	return strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) < 0
}

// Error returns, for example, "ugc: GET /v1/posts: 500 Internal Server
// Error (request ID edge-1): Something went wrong (after 5 attempts)": the
// request ID when the answer carried one, the attempts when the call was
// retried.
func (e *APIError) Error() string {
	s := fmt.Sprintf("ugc: %s %s: %d %s%s: %s", e.Method, e.Endpoint, e.StatusCode, http.StatusText(e.StatusCode), requestIDNote(e.Header), e.Message)
	if e.Attempts > 1 {
		s += fmt.Sprintf(" (after %d attempts)", e.Attempts)
	}
	return s
}

// requestIDHeaders are the conventional headers that carry a request ID,
// in the order [RequestID] looks for them.
var requestIDHeaders = []string{"X-Request-Id", "X-Amzn-Requestid", "X-Amz-Request-Id", "X-Correlation-Id", "Request-Id", "X-Trace-Id", "Cf-Ray"}

// RequestID returns the request ID of the answer err carries, or "": the
// first of X-Request-Id, X-Amzn-RequestId, X-Amz-Request-Id,
// X-Correlation-Id, Request-Id, X-Trace-Id and CF-Ray, the API key masked.
// It finds the first [*APIError], [*DecodeError] or [*ThrottleError] in
// err's chain; each has the method too.
func RequestID(err error) string {
	var r interface{ RequestID() string }
	if errors.As(err, &r) {
		return r.RequestID()
	}
	return ""
}

// RequestID returns the answer's request ID, or "" (see [RequestID]).
func (e *APIError) RequestID() string { return requestID(e.Header) }

func requestID(h http.Header) string {
	for _, k := range requestIDHeaders {
		if v := h.Get(k); v != "" {
			return v
		}
	}
	return ""
}

// requestIDNote is " (request ID <id>)" for an answer that carried one,
// for an error's text; "" otherwise.
func requestIDNote(h http.Header) string {
	if id := requestID(h); id != "" {
		return " (request ID " + id + ")"
	}
	return ""
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

// DecodeError is a 2xx answer that holds no page: a body cut short or over
// [WithMaxResponseBytes], not JSON, or an envelope whose count, next or
// nodes is missing, null or of another type. What a post deviates in is a
// [Deviation] on the page, not an error, unless [WithStrictDecoding].
type DecodeError struct {
	Method     string
	Endpoint   string
	StatusCode int
	Snippet    string // the start of the body, printable, the API key masked
	Err        error
	Header     http.Header // the API key masked
	Attempts   int         // the call's, the last one included
}

// RequestID returns the answer's request ID, or "" (see [RequestID]).
func (e *DecodeError) RequestID() string { return requestID(e.Header) }

// Error names the request, the status, the request ID if any, the cause,
// the start of the body, and the attempts when the call was retried.
func (e *DecodeError) Error() string {
	s := fmt.Sprintf("ugc: %s %s: %d%s: invalid response: %v (body starts %q)", e.Method, e.Endpoint, e.StatusCode, requestIDNote(e.Header), e.Err, e.Snippet)
	if e.Attempts > 1 {
		s += fmt.Sprintf(" (after %d attempts)", e.Attempts)
	}
	return s
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

// ErrDrift matches a [*DriftError].
var ErrDrift = errors.New("ugc: the list changed during iteration")

// DriftError ends a walk that could not go on without risking a post
// missed or repeated: the list's order changed, or the walk lost its place.
// Under [DriftFail], any sign of change.
type DriftError struct {
	Endpoint    string
	CountBefore int    // count of the earlier pages
	CountAfter  int    // count of the page that showed the change
	RepeatedID  string // set when a post came back out of order
	Reason      string // what was seen, in words
}

// Error says what changed.
func (e *DriftError) Error() string {
	msg := fmt.Sprintf("ugc: %s changed during iteration", e.Endpoint)
	switch {
	case e.Reason != "":
		msg += ": " + e.Reason
	case e.RepeatedID != "":
		msg += fmt.Sprintf(": post %s came back on a later page", e.RepeatedID)
	}
	return msg + fmt.Sprintf(" (count %d, then %d)", e.CountBefore, e.CountAfter)
}

// Is reports whether target is [ErrDrift].
func (e *DriftError) Is(target error) bool { return target == ErrDrift }

// ErrStalled matches the error that ends a walk that stopped moving on:
// two pages in a row, or 256 answers in a row, that moved it on by nothing.
var ErrStalled = errors.New("ugc: the walk makes no progress")

// ErrBadNext matches a next URL the client refuses: on another origin or
// endpoint, or one that does not advance skip.
var ErrBadNext = errors.New("ugc: refused next URL")

// ErrIncomplete matches an [*IncompleteError].
var ErrIncomplete = errors.New("ugc: the walk ended short of the list's count")

// IncompleteError ends a walk that reached the end of the list with fewer
// posts than its count said, by more than the list gained meanwhile: the
// server ended the list early or served pages from the wrong place.
type IncompleteError struct {
	Endpoint string
	Count    int // the count of the last page
	Skip     int // where the walk started
	Posts    int // posts yielded
}

// Error says how many posts the count promised and how many came.
func (e *IncompleteError) Error() string {
	msg := fmt.Sprintf("ugc: %s ended after %d posts, but its count is %d", e.Endpoint, e.Posts, e.Count)
	if e.Skip > 0 {
		msg += fmt.Sprintf(" (the walk started at skip %d)", e.Skip)
	}
	return msg
}

// Is reports whether target is [ErrIncomplete].
func (e *IncompleteError) Is(target error) bool { return target == ErrIncomplete }

// FilterError is a filter the server would reject; Message is the server's
// 400 text.
type FilterError struct {
	Message string
}

// Error returns "ugc: invalid filter: " and the server's message.
func (e *FilterError) Error() string { return "ugc: invalid filter: " + e.Message }

// Is reports whether target is [ErrInvalidParams].
func (e *FilterError) Is(target error) bool { return target == ErrInvalidParams }

// ThrottleError ends, at once, a call that would have waited for the quota
// past its [WithThrottleBudget] or its context's deadline. Wait is that
// wait: pass it on (a handler's own Retry-After). It matches
// [ErrRateLimited]; errors.As reaches the last throttled [*APIError], if any.
type ThrottleError struct {
	// Err is the call's last throttled answer; nil when it sent none
	// (another call's throttle paused the Client).
	Err *APIError
	// Waited is the time the call waited for the quota, Wait the wait it
	// would have had next, Budget its throttle budget.
	Waited, Wait, Budget time.Duration

	byDeadline bool // the context's deadline came before the budget's end
}

// Error says how long the call would have waited, and what bound it.
func (e *ThrottleError) Error() string {
	var s string
	if e.byDeadline {
		s = fmt.Sprintf("ugc: rate limited: the quota allows the next request in %v, after the context's deadline (waited %v)",
			e.Wait.Round(time.Millisecond), e.Waited.Round(time.Millisecond))
	} else {
		s = fmt.Sprintf("ugc: throttle budget of %v spent: waited %v for the quota, and the next request would wait %v more",
			e.Budget, e.Waited.Round(time.Millisecond), e.Wait.Round(time.Millisecond))
	}
	if e.Err != nil {
		s += "; last: " + e.Err.Error()
	}
	return s
}

// RequestID returns the last throttled answer's request ID, or "" (see
// [RequestID]).
func (e *ThrottleError) RequestID() string {
	if e.Err == nil {
		return ""
	}
	return e.Err.RequestID()
}

// Unwrap returns the last throttled answer, or nil.
func (e *ThrottleError) Unwrap() error {
	if e.Err == nil {
		return nil
	}
	return e.Err
}

// Is reports whether target is [ErrRateLimited].
func (e *ThrottleError) Is(target error) bool { return target == ErrRateLimited }
