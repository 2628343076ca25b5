package ugctest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// FaultKind is the kind of an injected [Fault].
type FaultKind int

// The kinds of fault a [Rule] can inject. The first group replaces the
// answer; the second shapes a list page the way real servers misbehave,
// and leaves any other answer (an error, a 401) as it is.
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
	// FaultRespond answers with the fault's Status, Body and Header: any
	// answer at all, such as a 401, a 503 or a proxy's HTML page.
	FaultRespond
	// FaultCutJSON answers with the first half of the body and a
	// Content-Length that matches it: the HTTP framing is complete, the
	// JSON is cut short.
	FaultCutJSON

	// FaultShortPage serves only the first Keep posts of the page; next
	// points just after them (null if none are left). The contract says a
	// short page ends the list, so a client that believes it stops early.
	FaultShortPage
	// FaultShortPageSkipping serves only the first Keep posts of the page
	// with the next of the full page: a client that follows it misses the
	// posts left out.
	FaultShortPageSkipping
	// FaultEndEarly serves only the first Keep posts of the page with a
	// null next, while count still says more follow.
	FaultEndEarly
	// FaultRelativeNext writes next as a path-absolute relative reference
	// ("/v1/posts?limit=…"), without scheme and host.
	FaultRelativeNext
	// FaultForeignNext writes next on the fault's Host (by default
	// "ugcfake.invalid"): a client must not send its key there.
	FaultForeignNext
	// FaultEscapedNext escapes next's path differently, with the same
	// meaning: a gallery's shortId is percent-encoded byte by byte, the
	// last segment of the other lists has its first letter encoded.
	FaultEscapedNext
	// FaultOddPost sends the page's post at Index (counted from the end
	// when negative) with createdAt as a number instead of a date string.
	FaultOddPost
	// FaultShuffledPage sends the page's posts in an order shuffled with
	// the fault's Seed.
	FaultShuffledPage
	// FaultIgnoreSkip serves the first page whatever skip asks for; count
	// and next are those of the page asked for.
	FaultIgnoreSkip
	// FaultStalePage serves the page Offset posts away from the one asked
	// for (a negative Offset: earlier), as a lagging replica does; count
	// and next are those of the page asked for.
	FaultStalePage

	faultKinds = iota + 1 // one past the last kind
)

var faultNames = [...]string{
	"none", "internal-error", "rate-limit", "drop-connection", "truncate-body", "stall",
	"respond", "cut-json", "short-page", "short-page-skipping", "end-early",
	"relative-next", "foreign-next", "escaped-next", "odd-post", "shuffled-page",
	"ignore-skip", "stale-page",
}

// String returns the kind's name, such as "internal-error".
func (k FaultKind) String() string {
	if k >= 0 && int(k) < len(faultNames) {
		return faultNames[k]
	}
	return fmt.Sprintf("FaultKind(%d)", int(k))
}

// MarshalText writes the kind's name.
func (k FaultKind) MarshalText() ([]byte, error) {
	if !k.valid() && k != 0 {
		return nil, fmt.Errorf("ugctest: unknown fault kind %d", int(k))
	}
	return []byte(k.String()), nil
}

// UnmarshalText reads a kind's name, such as "internal-error".
func (k *FaultKind) UnmarshalText(b []byte) error {
	for i, name := range faultNames {
		if name == string(b) {
			*k = FaultKind(i)
			return nil
		}
	}
	return fmt.Errorf("ugctest: unknown fault kind %q (one of %s)", b, strings.Join(faultNames[1:], ", "))
}

func (k FaultKind) valid() bool { return k >= FaultInternalError && k < faultKinds }

// shapesPage reports whether the kind changes a list page rather than the
// whole answer.
func (k FaultKind) shapesPage() bool { return k >= FaultShortPage && k < faultKinds }

// Fault is what a [Rule] does to a request it fires on. Build one with a
// constructor such as [InternalError], [Respond] or [ShortPage]; only the
// fields of its Kind count.
type Fault struct {
	Kind FaultKind
	// RetryAfter is the Retry-After header of a FaultRateLimit; empty
	// sends none.
	RetryAfter string
	// Stall is how long a FaultStall waits.
	Stall time.Duration
	// Status and Body are the answer of a FaultRespond; the body is sent
	// as is, with Content-Type application/json unless Header sets one.
	Status int
	Body   string
	// Header holds headers added to the answer, whatever the kind (a
	// dropped connection has none).
	Header http.Header
	// Keep is how many posts a short page keeps (0: none).
	Keep int
	// Index is the odd post's place on the page; negative counts from
	// the end (-1: the last).
	Index int
	// Offset is how far a FaultStalePage's page is from the one asked for.
	Offset int
	// Host is where a FaultForeignNext points ("" for ugcfake.invalid).
	Host string
	// Seed orders a FaultShuffledPage.
	Seed uint64
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

// Respond returns a fault that answers status with body, sent as is (with
// Content-Type application/json unless [Fault.WithHeader] sets another).
func Respond(status int, body string) Fault {
	return Fault{Kind: FaultRespond, Status: status, Body: body}
}

// ErrorResponse returns a fault that answers status with msg as a JSON
// string, the way the API writes its errors: ErrorResponse(401,
// MsgUnauthorized) is a key the server stopped accepting, ErrorResponse(503,
// "Service unavailable") an outage.
func ErrorResponse(status int, msg string) Fault {
	return Respond(status, string(appendJSONString(nil, msg)))
}

// ProxyPage returns a fault that answers status with an HTML page, as a
// proxy or load balancer in front of the API does (502 Bad Gateway, 504
// Gateway Timeout).
func ProxyPage(status int) Fault {
	text := fmt.Sprintf("%d %s", status, http.StatusText(status))
	body := "<html><head><title>" + text + "</title></head><body><center><h1>" + text +
		"</h1></center><hr><center>nginx</center></body></html>\n"
	return Respond(status, body).WithHeader("Content-Type", "text/html")
}

// CutJSON returns a fault whose answer is the first half of the body with
// a Content-Length to match: complete to HTTP, cut short to JSON.
func CutJSON() Fault { return Fault{Kind: FaultCutJSON} }

// ShortPage returns a fault that serves only the first keep posts of the
// page, with a next just after them.
func ShortPage(keep int) Fault { return Fault{Kind: FaultShortPage, Keep: keep} }

// ShortPageSkipping returns a fault that serves only the first keep posts
// of the page, with the next of the full page.
func ShortPageSkipping(keep int) Fault { return Fault{Kind: FaultShortPageSkipping, Keep: keep} }

// EndEarly returns a fault that serves only the first keep posts of the
// page and a null next, though count says more follow.
func EndEarly(keep int) Fault { return Fault{Kind: FaultEndEarly, Keep: keep} }

// RelativeNext returns a fault that writes next without scheme and host.
func RelativeNext() Fault { return Fault{Kind: FaultRelativeNext} }

// ForeignNext returns a fault that writes next on host ("" for
// ugcfake.invalid).
func ForeignNext(host string) Fault { return Fault{Kind: FaultForeignNext, Host: host} }

// EscapedNext returns a fault that escapes next's path differently.
func EscapedNext() Fault { return Fault{Kind: FaultEscapedNext} }

// OddPost returns a fault that sends the page's post at index (negative:
// from the end) with createdAt as a number.
func OddPost(index int) Fault { return Fault{Kind: FaultOddPost, Index: index} }

// ShuffledPage returns a fault that sends the page's posts in an order
// shuffled with seed.
func ShuffledPage(seed uint64) Fault { return Fault{Kind: FaultShuffledPage, Seed: seed} }

// IgnoreSkip returns a fault that serves the first page whatever skip is.
func IgnoreSkip() Fault { return Fault{Kind: FaultIgnoreSkip} }

// StalePage returns a fault that serves the page offset posts away from the
// one asked for (negative: earlier).
func StalePage(offset int) Fault { return Fault{Kind: FaultStalePage, Offset: offset} }

// WithHeader returns a copy of f that also sends the header key: value.
func (f Fault) WithHeader(key, value string) Fault {
	f.Header = f.Header.Clone()
	if f.Header == nil {
		f.Header = http.Header{}
	}
	f.Header.Add(key, value)
	return f
}

// check returns why f cannot be injected, or nil.
func (f Fault) check() error {
	switch {
	case !f.Kind.valid():
		return fmt.Errorf("unknown fault kind %v", f.Kind)
	case f.Kind == FaultRespond && (f.Status < 200 || f.Status > 599):
		return fmt.Errorf("respond: status %d is not 200..599", f.Status)
	case f.Stall < 0:
		return fmt.Errorf("stall: negative duration %v", f.Stall)
	case f.Keep < 0:
		return fmt.Errorf("%v: negative keep %d", f.Kind, f.Keep)
	case strings.ContainsAny(f.Host, "/?#@ "):
		return fmt.Errorf("foreign-next: host %q is not a host", f.Host)
	}
	for k, vs := range f.Header {
		for _, v := range append([]string{k}, vs...) {
			if strings.ContainsAny(v, "\r\n") {
				return fmt.Errorf("header %q: a line break", k)
			}
		}
	}
	return nil
}

// faultJSON is the JSON form of a Fault: the stall as a duration string
// such as "2s", empty fields left out.
type faultJSON struct {
	Kind       FaultKind   `json:"kind"`
	RetryAfter string      `json:"retryAfter,omitempty"`
	Stall      string      `json:"stall,omitempty"`
	Status     int         `json:"status,omitempty"`
	Body       string      `json:"body,omitempty"`
	Header     http.Header `json:"header,omitempty"`
	Keep       int         `json:"keep,omitempty"`
	Index      int         `json:"index,omitempty"`
	Offset     int         `json:"offset,omitempty"`
	Host       string      `json:"host,omitempty"`
	Seed       uint64      `json:"seed,omitempty"`
}

// MarshalJSON writes {"kind": "stall", "stall": "2s", ...}, the form the
// control API of cmd/ugcfake reads.
func (f Fault) MarshalJSON() ([]byte, error) {
	v := faultJSON{Kind: f.Kind, RetryAfter: f.RetryAfter, Status: f.Status, Body: f.Body,
		Header: f.Header, Keep: f.Keep, Index: f.Index, Offset: f.Offset, Host: f.Host, Seed: f.Seed}
	if f.Stall != 0 {
		v.Stall = f.Stall.String()
	}
	return json.Marshal(v)
}

// UnmarshalJSON reads the form MarshalJSON writes. Header names are
// canonicalized.
func (f *Fault) UnmarshalJSON(b []byte) error {
	var v faultJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*f = Fault{Kind: v.Kind, RetryAfter: v.RetryAfter, Status: v.Status, Body: v.Body,
		Keep: v.Keep, Index: v.Index, Offset: v.Offset, Host: v.Host, Seed: v.Seed}
	if v.Stall != "" {
		d, err := time.ParseDuration(v.Stall)
		if err != nil {
			return fmt.Errorf("stall: %w", err)
		}
		f.Stall = d
	}
	for k, vs := range v.Header {
		for _, s := range vs {
			*f = f.WithHeader(k, s)
		}
	}
	return nil
}
