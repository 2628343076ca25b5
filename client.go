package ugc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/go-querystring/query"
	"github.com/hashicorp/go-retryablehttp"
)

// Version is the SDK's version; the User-Agent header carries it as
// "ugc-go/<Version>".
const Version = "0.1.0"

// Defaults of the options, documented on each option.
const (
	DefaultRetryMax         = 4
	DefaultRetryWaitMin     = 500 * time.Millisecond
	DefaultRetryWaitMax     = 20 * time.Second
	DefaultAttemptTimeout   = 30 * time.Second
	DefaultMaxResponseBytes = 8 << 20
)

// apiKeyHeader is the header that carries the API key (contract §5);
// canonicalKeyHeader is its key in an http.Header.
const (
	apiKeyHeader       = "x-api-key"
	canonicalKeyHeader = "X-Api-Key"
)

// Client calls the Content Posts Read API. Create one with [NewClient]. A
// Client is safe for concurrent use by many goroutines and holds no global
// state; reuse one for the life of the program so connections are reused.
//
// Formatting a Client with fmt (any verb) never shows its API key.
type Client struct {
	base      *url.URL        // scheme, host and path prefix, without a trailing slash
	apiKey    func() []string // a func: fmt shows only an address, whatever the verb
	http      *retryablehttp.Client
	userAgent []string // the User-Agent header's value
	maxBody   int64
	bodies    sync.Pool // *pageBody, so a page costs no new buffer
}

// Option configures a [Client] in [NewClient].
type Option func(*options) error

type options struct {
	httpClient     *http.Client
	retryMax       int
	waitMin        time.Duration
	waitMax        time.Duration
	attemptTimeout time.Duration
	logger         *slog.Logger
	uaSuffix       string
	maxBody        int64
	insecureHTTP   bool
}

// WithHTTPClient sets the *http.Client that sends each attempt, under the
// retry layer. The client is copied, not changed: the copy refuses redirects
// to another origin and attaches the API key only to requests for the base
// URL's origin. Its Timeout, if set, bounds each attempt and takes the place
// of [WithAttemptTimeout]. Use it to set a proxy, TLS settings, or a test
// transport. Because the client is copied here, anything that wraps its
// Transport (such as gock.InterceptClient) must do so before NewClient, and
// the client should have a Transport of its own (gock panics on a nil one).
// See the package documentation on testing.
func WithHTTPClient(hc *http.Client) Option {
	return func(o *options) error {
		if hc == nil {
			return errors.New("WithHTTPClient: nil *http.Client")
		}
		o.httpClient = hc
		return nil
	}
}

// WithRetryMax sets how many times a failed attempt is retried (0 disables
// retries). Default: [DefaultRetryMax]. Retried: connection errors, bodies
// cut short, 429 and 5xx other than 501. Never retried: other 4xx.
func WithRetryMax(n int) Option {
	return func(o *options) error {
		if n < 0 {
			return fmt.Errorf("WithRetryMax: negative count %d", n)
		}
		o.retryMax = n
		return nil
	}
}

// WithRetryWait sets the bounds of the wait between attempts. The n-th retry
// waits a random time between half and all of min·2ⁿ, capped at max; a
// Retry-After header (seconds or HTTP date) on a 429 or 503 is honoured up to
// max. Defaults: [DefaultRetryWaitMin], [DefaultRetryWaitMax]. Zero for both
// retries at once, which tests use.
func WithRetryWait(minWait, maxWait time.Duration) Option {
	return func(o *options) error {
		if minWait < 0 || maxWait < minWait {
			return fmt.Errorf("WithRetryWait: need 0 <= min <= max, got %v, %v", minWait, maxWait)
		}
		o.waitMin, o.waitMax = minWait, maxWait
		return nil
	}
}

// WithAttemptTimeout bounds each attempt, from sending the request to reading
// the last byte of the body; an attempt that runs over is retried. Default:
// [DefaultAttemptTimeout]; 0 leaves attempts unbounded (the context still
// applies). Ignored when the client given to [WithHTTPClient] has a Timeout.
func WithAttemptTimeout(d time.Duration) Option {
	return func(o *options) error {
		if d < 0 {
			return fmt.Errorf("WithAttemptTimeout: negative duration %v", d)
		}
		o.attemptTimeout = d
		return nil
	}
}

// WithLogger sends debug lines (each request, each retry) and errors to l.
// Without it the client writes nothing anywhere. No line carries the API key.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) error {
		if l == nil {
			return errors.New("WithLogger: nil *slog.Logger")
		}
		o.logger = l
		return nil
	}
}

// WithUserAgent appends suffix to the User-Agent, which is
// "ugc-go/<Version>" alone by default.
func WithUserAgent(suffix string) Option {
	return func(o *options) error {
		if strings.ContainsAny(suffix, "\r\n") {
			return errors.New("WithUserAgent: suffix contains a line break")
		}
		o.uaSuffix = strings.TrimSpace(suffix)
		return nil
	}
}

// WithMaxResponseBytes caps the size of a response body; a larger one is a
// [*DecodeError]. Default: [DefaultMaxResponseBytes].
func WithMaxResponseBytes(n int64) Option {
	return func(o *options) error {
		if n <= 0 {
			return fmt.Errorf("WithMaxResponseBytes: need a positive size, got %d", n)
		}
		o.maxBody = n
		return nil
	}
}

// WithInsecureHTTP allows a plain http:// base URL on a host that is not a
// loopback address. The API key then crosses the network in clear text; use
// it only on a network you trust. Loopback hosts (localhost, 127.0.0.0/8,
// ::1) are allowed over http:// without it.
func WithInsecureHTTP() Option {
	return func(o *options) error {
		o.insecureHTTP = true
		return nil
	}
}

// NewClient returns a Client for the API at baseURL, authenticating with
// apiKey. baseURL must be absolute (https://host or https://host/prefix);
// every request keeps its path prefix. It returns an error for an empty key,
// a relative or malformed base URL, a base URL with a query, fragment or
// user info, plain http:// to a non-loopback host without
// [WithInsecureHTTP], or a bad option. No error text contains the key.
func NewClient(baseURL, apiKey string, opts ...Option) (*Client, error) {
	o := options{
		retryMax:       DefaultRetryMax,
		waitMin:        DefaultRetryWaitMin,
		waitMax:        DefaultRetryWaitMax,
		attemptTimeout: DefaultAttemptTimeout,
		maxBody:        DefaultMaxResponseBytes,
	}
	for _, opt := range opts {
		if opt == nil {
			return nil, errors.New("ugc: NewClient: nil Option")
		}
		if err := opt(&o); err != nil {
			return nil, fmt.Errorf("ugc: NewClient: %w", err)
		}
	}
	if strings.TrimSpace(apiKey) == "" {
		return nil, errors.New("ugc: NewClient: empty API key")
	}
	if strings.ContainsAny(apiKey, "\r\n\x00") {
		return nil, errors.New("ugc: NewClient: API key contains a control character")
	}
	base, err := parseBaseURL(baseURL, o.insecureHTTP)
	if err != nil {
		return nil, fmt.Errorf("ugc: NewClient: %w", err)
	}

	ua := "ugc-go/" + Version
	if o.uaSuffix != "" {
		ua += " " + o.uaSuffix
	}
	hc := newHTTPClient(o, base, apiKey, ua)
	rc := &retryablehttp.Client{
		HTTPClient:   hc,
		RetryMax:     o.retryMax,
		RetryWaitMin: o.waitMin,
		RetryWaitMax: o.waitMax,
		CheckRetry:   checkRetry,
		Backoff:      backoff,
		ErrorHandler: retryablehttp.PassthroughErrorHandler,
	}
	if o.logger != nil {
		rc.Logger = o.logger // *slog.Logger is a retryablehttp.LeveledLogger
	}
	keyHeader := []string{apiKey}
	return &Client{base: base, apiKey: func() []string { return keyHeader }, http: rc, userAgent: []string{ua}, maxBody: o.maxBody}, nil
}

// parseBaseURL checks and normalises the base URL. Its errors never quote
// raw: a caller who swaps NewClient's arguments passes the key as the URL.
func parseBaseURL(raw string, insecureHTTP bool) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL
		}
		return nil, fmt.Errorf("malformed base URL: %w", err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, errors.New("base URL must be absolute, with scheme https (or http)")
	case u.Host == "" || u.Hostname() == "":
		return nil, errors.New("base URL has no host")
	case u.User != nil:
		return nil, errors.New("base URL must not carry user info")
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return nil, errors.New("base URL must not carry a query or fragment")
	case u.Scheme == "http" && !insecureHTTP && !isLoopback(u.Hostname()):
		return nil, fmt.Errorf("base URL http://%s is plain http to a non-loopback host; use https, or WithInsecureHTTP to accept sending the key in clear text", u.Host)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("base URL has an invalid port %s", p)
		}
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = strings.TrimRight(u.RawPath, "/")
	return u, nil
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// sameOrigin reports whether u has the scheme, host and port of base.
func sameOrigin(u, base *url.URL) bool {
	return strings.EqualFold(u.Scheme, base.Scheme) && strings.EqualFold(u.Hostname(), base.Hostname()) && port(u) == port(base)
}

func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}

// String describes the client by its base URL; it never shows the key.
func (c *Client) String() string { return "ugc.Client{base: " + c.base.String() + "}" }

// Format writes [Client.String] for every verb, so no fmt verb can print the
// client's fields and, through them, the API key.
func (c *Client) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, c.String()) }

// BaseURL returns a copy of the base URL the client was created with.
func (c *Client) BaseURL() *url.URL { u := *c.base; return &u }

// getPage sends one GET to u and decodes the page. labels says whether every
// post must carry labels (the request asked for include=labels).
func (c *Client) getPage(ctx context.Context, u *url.URL, labels bool) (*Page, error) {
	if ctx == nil {
		return nil, fmt.Errorf("%w: nil context", ErrInvalidParams)
	}
	if err := ctx.Err(); err != nil {
		return nil, err // as is, and before a transport sees the request
	}
	header := http.Header{"User-Agent": c.userAgent, "Accept": acceptJSON}
	if sameOrigin(u, c.base) { // always, by construction; keyTransport checks again
		header[canonicalKeyHeader] = c.apiKey()
	}
	hreq := (&http.Request{Method: http.MethodGet, URL: u, Host: u.Host, Header: header,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}).WithContext(ctx)
	req, err := retryablehttp.FromRequest(hreq)
	if err != nil {
		return nil, fmt.Errorf("ugc: GET %s: %w", u.Path, err)
	}
	body := c.pageBody()
	defer c.bodies.Put(body)
	req.SetResponseHandler(body.handler)

	resp, err := c.http.Do(req)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, ctxErr
		}
		if resp != nil && body.err != nil {
			return nil, c.decodeError(u.Path, resp.StatusCode, body.buf.Bytes(), body.err)
		}
		return nil, fmt.Errorf("ugc: GET %s: %w", u.Path, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		body.buf.Reset()
		_ = c.readBody(resp.Body, &body.buf) // a cut-short error body still says what it can
		return nil, newAPIError(http.MethodGet, u.Path, resp.StatusCode, c.redact(body.buf.Bytes()))
	}
	page, err := decodePage(body.buf.Bytes())
	if err != nil {
		return nil, c.decodeError(u.Path, resp.StatusCode, body.buf.Bytes(), err)
	}
	if labels {
		for i := range page.Nodes {
			if page.Nodes[i].Labels == nil {
				return nil, c.decodeError(u.Path, resp.StatusCode, body.buf.Bytes(), fmt.Errorf("nodes[%d].labels: %w (the request asked for include=labels)", i, errMissing))
			}
		}
	}
	return page, nil
}

var acceptJSON = []string{"application/json"}

// pageBody holds the body of a 2xx answer, read inside the retry loop so
// that a body cut short is retried like a dropped connection.
type pageBody struct {
	c       *Client
	buf     bytes.Buffer
	err     error // of the last read; a body over the cap is not retried
	handler retryablehttp.ResponseHandlerFunc
}

// pageBody returns a pooled pageBody, ready for a call.
func (c *Client) pageBody() *pageBody {
	b, _ := c.bodies.Get().(*pageBody)
	if b == nil {
		b = &pageBody{c: c}
		b.handler = b.read // bound once: no allocation per call
	}
	b.buf.Reset()
	b.err = nil
	return b
}

// read is the response handler: it reads a 2xx body and leaves any other
// for getPage to read once the retries are over.
func (b *pageBody) read(resp *http.Response) error {
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil
	}
	b.buf.Reset()
	b.err = b.c.readBody(resp.Body, &b.buf)
	return b.err
}

// errBodyTooLarge is a body over the client's cap.
var errBodyTooLarge = errors.New("response body exceeds the size cap")

// readBody reads all of body into buf, up to the client's cap, and closes it.
func (c *Client) readBody(body io.ReadCloser, buf *bytes.Buffer) error {
	defer body.Close()
	for {
		buf.Grow(bytes.MinRead)
		free := buf.AvailableBuffer()
		n, err := body.Read(free[:cap(free)])
		buf.Write(free[:n])
		if int64(buf.Len()) > c.maxBody {
			buf.Truncate(int(c.maxBody)) // what proved the excess is not part of the body kept
			return fmt.Errorf("%w of %d bytes", errBodyTooLarge, c.maxBody)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func (c *Client) decodeError(path string, status int, body []byte, err error) error {
	return &DecodeError{Method: http.MethodGet, Endpoint: path, StatusCode: status, Snippet: snippet(c.redact(body)), Err: err}
}

// redact returns a copy of a body that an error keeps, with the API key
// masked in case a server or proxy echoed it.
func (c *Client) redact(body []byte) []byte {
	out := bytes.ReplaceAll(body, []byte(c.apiKey()[0]), []byte("[redacted]"))
	if out == nil {
		return []byte{} // an empty body stays empty, not nil
	}
	return out
}

// checkRetry is the retry policy: connection errors, bodies cut short, 429
// and 5xx but 501. A refused redirect, an oversized body and an ended
// context are final.
func checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	if errors.Is(err, errForeignRedirect) || errors.Is(err, errBodyTooLarge) {
		return false, err
	}
	return retryablehttp.DefaultRetryPolicy(ctx, resp, err)
}

// backoff is exponential with jitter: the n-th retry waits between half and
// all of min·2ⁿ, capped at max. A Retry-After on a 429 or 503 wins, capped at
// max.
func backoff(minWait, maxWait time.Duration, attempt int, resp *http.Response) time.Duration {
	if resp != nil && (resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable) {
		if d, ok := parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
			return min(d, maxWait)
		}
	}
	ceiling := maxWait
	switch {
	case minWait == 0:
		ceiling = 0
	case attempt >= 0 && attempt < 63 && minWait <= maxWait>>attempt:
		ceiling = minWait << attempt // cannot overflow: at most maxWait
	}
	if ceiling <= 0 {
		return 0
	}
	half := ceiling / 2
	return half + rand.N(ceiling-half+1)
}

// parseRetryAfter reads a Retry-After value: delay seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		if secs > int64(24*time.Hour/time.Second) {
			secs = int64(24 * time.Hour / time.Second)
		}
		return time.Duration(secs) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// MaxLimit is the largest page the API returns (contract §8). A request with
// no Limit asks for MaxLimit, because the contract states the server's own
// default inconsistently (25 or 10).
const MaxLimit = 25

func limitOrMax(limit int) int {
	if limit == 0 {
		return MaxLimit
	}
	return limit
}

// checkPaging checks a request's limit (0 meaning unset) and skip.
func checkPaging(limit, skip int) error {
	if limit < 0 || limit > MaxLimit {
		return fmt.Errorf("%w: limit %d is outside 1..%d", ErrInvalidParams, limit, MaxLimit)
	}
	if skip < 0 {
		return fmt.Errorf("%w: skip %d is negative", ErrInvalidParams, skip)
	}
	return nil
}

// endpoint returns the URL of /v1/<segments...> under the base URL, each
// segment escaped on its own, with params encoded as the query.
func (c *Client) endpoint(params any, segments ...string) (*url.URL, error) {
	q, err := query.Values(params)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidParams, err)
	}
	u := *c.base
	u.Path += "/v1"
	u.RawPath = c.base.EscapedPath() + "/v1"
	for _, s := range segments {
		u.Path += "/" + s
		u.RawPath += "/" + url.PathEscape(s)
	}
	u.RawQuery = q.Encode()
	return &u, nil
}
