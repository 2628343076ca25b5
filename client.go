package ugc

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/ugcposts/ugc-go/internal/pace"
)

// Version is the SDK's version; the User-Agent header carries it as
// "ugc-go/<Version>".
const Version = "0.1.0"

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
	http      *http.Client    // one attempt; the retries are getPage's
	masker    *masker         // the key in every encoding, for errors
	userAgent []string        // the User-Agent header's value
	maxBody   int64
	logger    *slog.Logger    // nil: the client writes nothing
	strict    bool            // deviations are errors (WithStrictDecoding)
	observer  AttemptObserver // nil: none

	retryMax         int
	waitMin, waitMax time.Duration
	attemptTimeout   time.Duration // 0: unbounded

	// callDefaults and walkDefaults are the options given to NewClient
	// that configure every call, or every walk.
	callDefaults, walkDefaults []Option
	throttleBudget             time.Duration // the default of every call
	pace                       *pace.Gate    // pacing and pauses, client-wide
	retries                    *retryBudget  // client-wide budget of retries

	bodies     sync.Pool  // *bytes.Buffer, so a page costs no new buffer
	responseMu sync.Mutex // for WithResponseInto, written by a parallel walk
	// readAheads counts the requests its walks have in flight ahead of the
	// pages they wait for (see maxReadAheads).
	readAheads atomic.Int64
}

// NewClient returns a Client for the API at baseURL, authenticating with
// apiKey. baseURL must be absolute (https://host or https://host/prefix);
// every request keeps its path prefix. It returns an error for an empty key,
// a relative or malformed base URL, a base URL with a query, fragment or
// user info, plain http:// to a non-loopback host without
// [WithInsecureHTTP], or a bad option; each matches [ErrMisuse]. No error
// text contains the key.
func NewClient(baseURL, apiKey string, opts ...Option) (*Client, error) {
	o := options{
		retryMax:       DefaultRetryMax,
		waitMin:        DefaultRetryWaitMin,
		waitMax:        DefaultRetryWaitMax,
		attemptTimeout: DefaultAttemptTimeout,
		maxBody:        DefaultMaxResponseBytes,
		throttleBudget: DefaultThrottleBudget,
		maxPause:       DefaultMaxPause,
		retryBudget:    DefaultRetryBudget,
		clock:          pace.Real{},
	}
	if err := applyClientOptions(&o, opts); err != nil {
		return nil, misused(fmt.Errorf("ugc: NewClient: %w", err))
	}
	if strings.TrimSpace(apiKey) == "" {
		return nil, misused(errors.New("ugc: NewClient: empty API key"))
	}
	if strings.IndexFunc(apiKey, unicode.IsControl) >= 0 { // no header may carry one, and masking need not know their escapes
		return nil, misused(errors.New("ugc: NewClient: API key contains a control character"))
	}
	base, err := parseBaseURL(baseURL, o.insecureHTTP)
	if err != nil {
		return nil, misused(fmt.Errorf("ugc: NewClient: %w", err))
	}

	ua := "ugc-go/" + Version
	if o.uaSuffix != "" {
		ua += " " + o.uaSuffix
	}
	hc := newHTTPClient(o, base, apiKey)
	timeout := o.attemptTimeout
	if hc.Timeout > 0 {
		timeout = 0 // the caller's client bounds each attempt already
	}
	keyHeader := []string{apiKey}
	m := newMasker(apiKey)
	return &Client{
		base: base, apiKey: func() []string { return keyHeader }, http: hc, masker: m,
		userAgent: []string{ua}, maxBody: o.maxBody, logger: maskedLogger(o.logger, m), strict: o.strict, observer: o.observer,
		retryMax: o.retryMax, waitMin: o.waitMin, waitMax: o.waitMax, attemptTimeout: timeout,
		callDefaults: o.callDefaults, walkDefaults: o.walkDefaults,
		throttleBudget: o.throttleBudget, pace: pace.NewGate(pace.New(o.rateLimit, o.rateBurst, o.maxPause), o.clock), retries: newRetryBudget(o.retryBudget),
	}, nil
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
	if err := checkBaseURL(u, insecureHTTP); err != nil {
		return nil, err
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = strings.TrimRight(u.RawPath, "/")
	return u, nil
}

// checkBaseURL says what makes u unusable as a base URL, if anything.
func checkBaseURL(u *url.URL, insecureHTTP bool) error {
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return errors.New("base URL must be absolute, with scheme https (or http)")
	case u.Host == "" || u.Hostname() == "":
		return errors.New("base URL has no host")
	case u.User != nil:
		return errors.New("base URL must not carry user info")
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return errors.New("base URL must not carry a query or fragment")
	case u.Scheme == "http" && !insecureHTTP && !isLoopback(u.Hostname()):
		return fmt.Errorf("base URL http://%s is plain http to a non-loopback host; use https, or WithInsecureHTTP to accept sending the key in clear text", u.Host)
	}
	return checkPort(u.Port())
}

// checkPort says what is wrong with a base URL's port, if anything ("" is
// the scheme's default).
func checkPort(p string) error {
	if n, err := strconv.Atoi(p); p != "" && (err != nil || n < 1 || n > 65535) {
		return fmt.Errorf("base URL has an invalid port %s", p)
	}
	return nil
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// String describes the client by its base URL; it never shows the key.
func (c *Client) String() string { return "ugc.Client{base: " + c.base.String() + "}" }

// Format writes [Client.String] for every verb, so no fmt verb can print the
// client's fields and, through them, the API key.
func (c *Client) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, c.String()) }

// BaseURL returns a copy of the base URL the client was created with.
func (c *Client) BaseURL() *url.URL { u := *c.base; return &u }
