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
// What the SDK refuses before any request matches one of two sentinels, so
// that a service tells its own caller's mistake (answer 400) from a bug in
// its own code or configuration (answer 500, and fix it) without reading
// message text. [ErrInvalidParams] is for the values a service passes on
// from its caller: a position, a resource, a selection. [ErrMisuse] is for
// everything the program itself decides: how it calls, how much it asks
// for, its options, headers and contexts.
//
//	refused before any request                        matches
//	a cursor altered, or for another list             ErrInvalidParams (and ErrBadCursor)
//	a gallery ID: "", ".", "..", control characters   ErrInvalidParams
//	a filter the server would reject (*FilterError):  ErrInvalidParams
//	  a label ID not 24 hexadecimal characters, ...
//	a negative Limit or Skip                          ErrMisuse
//	an Include other than IncludeLabels               ErrMisuse
//	an Option at a level it does not belong to, nil,  ErrMisuse
//	  or given a value it cannot take
//	a reserved header (WithHeader: x-api-key,         ErrMisuse
//	  User-Agent, Host)
//	a nil context                                     ErrMisuse
//	ResumeFrom with params that contradict the        ErrMisuse
//	  checkpoint's query
//	Page.Cursor on a walk's page                      ErrMisuse
//	NewClient: an empty or malformed API key or base  ErrMisuse
//	  URL, or a bad option
//
// A service that takes a limit, a skip or an include from its own caller
// checks them itself (and answers 400) before it calls the SDK. A next URL
// or checkpoint the client refuses (another origin or endpoint) matches
// [ErrBadNext], neither of the two.
var (
	// ErrBadRequest matches an APIError with status 400.
	ErrBadRequest = errors.New("ugc: bad request")
	// ErrUnauthorized matches an APIError with status 401: no valid API key.
	ErrUnauthorized = errors.New("ugc: unauthorized")
	// ErrNotFound matches an APIError with status 404.
	ErrNotFound = errors.New("ugc: not found")
	// ErrRateLimited matches an APIError with status 429, and a
	// [*ThrottleError]: a call that would have waited for the quota
	// longer than it may.
	ErrRateLimited = errors.New("ugc: rate limited")
	// ErrRetryBudgetExhausted matches the error of a call that was not
	// retried because the Client's retry budget ran out (see
	// [WithRetryBudget]); errors.As still reaches the attempt's error.
	ErrRetryBudgetExhausted = errors.New("ugc: the client's retry budget is exhausted")
	// ErrServer matches an APIError with any 5xx status.
	ErrServer = errors.New("ugc: server error")
	// ErrInvalidParams matches input a service passes on from its own
	// caller, refused before any request: a cursor, a gallery ID, a
	// filter (a [*FilterError]). The table of the sentinels'
	// documentation lists every case; a service answers its caller 400.
	ErrInvalidParams = errors.New("ugc: invalid parameters")
	// ErrMisuse matches a programming or configuration error in the code
	// that calls the SDK, refused before any request: a negative limit, an
	// option at the wrong level, a reserved header, a nil context, a bad
	// NewClient argument. The table of the sentinels' documentation
	// lists every case; a service answers 500 and fixes its code, never
	// its caller 400.
	ErrMisuse = errors.New("ugc: misuse")
	// ErrForeignRedirect matches a redirect to an origin other than the base
	// URL's, which the client refuses so that the API key stays on that
	// origin. It is never retried.
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

// APIError is a non-2xx answer from the API.
//
// Message is the error text: the API sends it as a bare JSON string (for
// example "No valid API key provided" with 401), which is decoded; a short
// printable body that is not JSON (a text/plain answer) is the message as it
// is; any other body (a proxy's HTML page, an empty body) gives a short,
// printable snippet of it instead. Body holds the raw body, up to the
// client's size cap. The API key is masked in Message, Body and Header, in
// every encoding a server may echo it in (raw, JSON-escaped, URL-encoded).
type APIError struct {
	Method     string // "GET"
	Endpoint   string // the path of the request, without the query
	StatusCode int
	Message    string
	Body       []byte
	// Header holds the response headers of the last attempt.
	Header http.Header
	// RetryAfter is the last answer's Retry-After (seconds or HTTP date) as
	// a duration; 0 when it had none.
	RetryAfter time.Duration
	// Attempts is how many attempts the call made, the last one included.
	Attempts int
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

// Error returns "ugc: GET /v1/posts: 401 Unauthorized (request ID
// edge-1): No valid API key provided (after 5 attempts)": the request ID
// when the answer carried one, the attempts when the call was retried.
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

// RequestID returns the ID the server or a proxy gave the answer err
// carries, or "": the first of X-Request-Id, X-Amzn-RequestId,
// X-Amz-Request-Id, X-Correlation-Id, Request-Id, X-Trace-Id and CF-Ray,
// the API key masked. It unwraps err, wrapped or not, to the first
// [*APIError], [*DecodeError] or [*ThrottleError] (its last throttled
// answer's; "" when it sent nothing), each of which has the method too.
// The same ID is in the error's text, [AttemptInfo.RequestID], the log
// line ([WithLogger]) and otelugc's span.
func RequestID(err error) string {
	var r interface{ RequestID() string }
	if errors.As(err, &r) {
		return r.RequestID()
	}
	return ""
}

// RequestID returns the ID the server or a proxy gave the failed request,
// or "" if none (see [RequestID]).
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

// DecodeError is a 2xx answer that holds no page: a body cut short or
// over the size cap ([WithMaxResponseBytes]), a body that is not valid
// JSON (HTML, text), or a page whose envelope cannot be read (count, next
// or nodes missing, null or of another type). Inside the nodes the reader
// is tolerant: a post with a field missing, null or of another type is
// kept with what could be read, and the deviation is on the page
// ([Page.Deviations]), not an error; with [WithStrictDecoding] every such
// deviation is a DecodeError too. The page it came from is never returned
// in part.
type DecodeError struct {
	Method     string
	Endpoint   string
	StatusCode int
	Snippet    string // the start of the body, printable, the API key masked
	Err        error
	// Header holds the response headers, the API key masked.
	Header http.Header
	// Attempts is how many attempts the call made, the last one included.
	Attempts int
}

// RequestID returns the ID the server or a proxy gave the request, or ""
// if none (see [RequestID]).
func (e *DecodeError) RequestID() string { return requestID(e.Header) }

// Error names the request, the status, its request ID if any, the cause
// and the start of the body, then the attempts when the call was retried:
// "ugc: GET /v1/posts: 200 (request ID edge-1): invalid response: ...
// (body starts "...") (after 3 attempts)".
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

// DriftError reports that a walk could not go on without risking a post
// missed or repeated: the order of the list changed, or the walk could not
// find again where it stood after the list changed. Under [DriftFail] it is
// also any sign of change: a count that changed, or a page whose posts were
// not where they were asked for.
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

// ErrStalled matches the error that ends a walk which stopped making
// progress: two pages in a row that moved it on by no post and no node
// (a server that ignores skip and writes no next link that helps, say),
// or 256 answers in a row that did not, whatever they were asked for (a
// server whose pages no rule of the walk foresaw): a walk that no longer
// moves on does not send requests until its context ends.
var ErrStalled = errors.New("ugc: the walk makes no progress")

// ErrBadNext matches an error for a next URL the client refuses to follow:
// one on another origin (the API key would go there), on another endpoint,
// or one that does not advance skip (an endless loop).
var ErrBadNext = errors.New("ugc: refused next URL")

// ErrIncomplete matches an [*IncompleteError].
var ErrIncomplete = errors.New("ugc: the walk ended short of the list's count")

// IncompleteError ends a walk that reached the end of the list (a null next
// or an empty page) with fewer posts than the list's count said, by more
// than the list gained while it was walked, or that found no posts at all
// where an unchanged count says they are: the server ended the list early
// or served pages from the wrong place, and the posts it left out were
// never seen.
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

// FilterError is a filter the server would reject. Message is the exact text
// of the server's 400 answer (contract §7).
type FilterError struct {
	Message string
}

// Error returns "ugc: invalid filter: " and the server's message.
func (e *FilterError) Error() string { return "ugc: invalid filter: " + e.Message }

// Is reports whether target is [ErrInvalidParams].
func (e *FilterError) Is(target error) bool { return target == ErrInvalidParams }

// ThrottleError ends a call that would have waited for the quota longer
// than it may (see [WithThrottleBudget]): the wait a server named, or its
// turn in the Client's pacing, would have passed its throttle budget or
// its context's deadline. The call ends at once instead of waiting: Wait
// says how long the wait would have been, the time to pass on to whoever
// retries (a handler's own Retry-After). It matches [ErrRateLimited];
// errors.As reaches the last throttled answer's [*APIError], when the
// call had one.
type ThrottleError struct {
	// Err is the call's last throttled answer; nil when the call sent
	// nothing (its first turn would have come too late, as in a pause
	// that another call's throttle started).
	Err *APIError
	// Waited is how long the call had waited for the quota; Wait is the
	// wait it would have had next (a pause ends, or its turn comes, that
	// long after the error); Budget is the call's throttle budget.
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

// RequestID returns the request ID of the last throttled answer, or ""
// when the call sent nothing or the answer carried none (see [RequestID]).
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
