package ugc

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/ugcposts/ugc-go/internal/pace"
)

// Defaults of the options, documented on each option.
const (
	DefaultRetryMax         = 4
	DefaultRetryWaitMin     = 500 * time.Millisecond
	DefaultRetryWaitMax     = 20 * time.Second
	DefaultAttemptTimeout   = 30 * time.Second
	DefaultMaxResponseBytes = 8 << 20
	// DefaultThrottleBudget bounds the time a call waits for the quota
	// (see [WithThrottleBudget]).
	DefaultThrottleBudget = 5 * time.Minute
	// DefaultRetryBudget is the client-wide budget of retries (see
	// [WithRetryBudget]).
	DefaultRetryBudget = 100
	// DefaultMaxPause bounds how long one answer pauses a whole Client
	// (see [WithMaxPause]).
	DefaultMaxPause = pace.DefaultMaxPause
)

// Option configures a [Client], given to [NewClient], or one call or walk,
// given to [Client.Posts], [Client.AllPosts] and their siblings: one set of
// names for every level, as openai-go's RequestOption. An option that sets
// how each request is sent (such as [WithRetryMax] or [WithHeader]) or how a
// walk reads (such as [WithReadAhead]) given to NewClient is the Client's
// default; given to a call or walk it overrides that default for it alone.
// An option that belongs to one level only is an error elsewhere: a
// Client's transport ([WithHTTPClient]) on a call, a walk's summary
// ([WithSummary]) on a Client or a single call; the error says where it
// belongs and matches [ErrMisuse].
type Option func(*settings) error

// settings is what an option is applied to: one of a Client's options
// (while NewClient builds it), a call's configuration, or a walk's.
type settings struct {
	client *options
	call   *callConfig
	walk   *iterConfig
}

// Where an option that is not about the level it was given at goes.
var (
	// errDefault: given to NewClient, the option is kept as the default of
	// every call or walk.
	errDefault = errors.New("a default for every call")
	// errEachRequest: given to a walk, the option is kept for each of its
	// requests.
	errEachRequest = errors.New("for each request")
)

// clientOption is an option that configures a Client only.
func clientOption(name string, set func(*options) error) Option {
	return func(s *settings) error {
		if s.client == nil {
			return fmt.Errorf("%s configures a Client: give it to NewClient", name)
		}
		return set(s.client)
	}
}

// callOption is an option of one call, or of each request of a walk; given
// to NewClient, the default of every call (unless once: an output of one
// call).
func callOption(name string, once bool, set func(*callConfig) error) Option {
	return func(s *settings) error {
		switch {
		case s.call != nil:
			return set(s.call)
		case s.walk != nil:
			return errEachRequest
		case once:
			return fmt.Errorf("%s belongs to one call or walk, not to a Client", name)
		}
		return errDefault
	}
}

// walkOption is an option of a walk; given to NewClient, the default of
// every walk (unless once: an output or a start of one walk).
func walkOption(name string, once bool, set func(*iterConfig) error) Option {
	return func(s *settings) error {
		switch {
		case s.walk != nil:
			return set(s.walk)
		case s.call != nil:
			return fmt.Errorf("%s applies to a walk (AllPosts, PostsPages and their siblings), not to one call", name)
		case once:
			return fmt.Errorf("%s belongs to one walk, not to a Client", name)
		}
		return errDefault
	}
}

type options struct {
	httpClient     *http.Client
	strict         bool
	retryMax       int
	waitMin        time.Duration
	waitMax        time.Duration
	attemptTimeout time.Duration
	logger         *slog.Logger
	uaSuffix       string
	maxBody        int64
	insecureHTTP   bool
	observer       AttemptObserver
	rateLimit      float64 // requests per second; 0: none
	rateBurst      int
	throttleBudget time.Duration
	maxPause       time.Duration
	retryBudget    int
	clock          pace.Clock // the pacing's; ugctest gives its clients one of its own
	// wrapTransport, from ugctest's clients only, wraps each attempt's
	// transport (see internal/testkit).
	wrapTransport func(http.RoundTripper) http.RoundTripper
	// callDefaults and walkDefaults are the options given to NewClient
	// that configure every call, or every walk.
	callDefaults, walkDefaults []Option
}

// WithHTTPClient sets the *http.Client that sends each attempt, under the
// retry layer. The client is copied, not changed: the copy refuses redirects
// to another origin and attaches the API key only to requests for the base
// URL's origin. Its Timeout, if set, bounds each attempt and takes the place
// of [WithAttemptTimeout]. Use it to set a proxy, TLS settings, or a test
// transport. Because the client is copied here, anything that wraps its
// Transport (such as gock.InterceptClient) must do so before NewClient, and
// the client should have a Transport of its own (gock panics on a nil one).
// Without this option, the client reaches gock.New's interception whenever
// it was built, and opens at most 256 connections to the API's host: a
// request beyond them waits for one to be free. The transport given here is
// used as it is, its own limits included. See the package documentation on
// testing.
//
// Given to: NewClient.
func WithHTTPClient(hc *http.Client) Option {
	return clientOption("WithHTTPClient", func(o *options) error {
		if hc == nil {
			return errors.New("WithHTTPClient: nil *http.Client")
		}
		o.httpClient = hc
		return nil
	})
}

// WithRetryMax sets how many times a failed attempt is retried (0 disables
// retries, throttles' included). Default: [DefaultRetryMax]. Retried:
// connection errors, bodies cut short, 5xx other than 501, and a 429 that
// names no wait. Never retried: other 4xx. A throttle that names a wait (a
// 429, or a 503 with Retry-After) is retried after that wait without
// counting here: [WithThrottleBudget] and the context's deadline bound it,
// by time, so that a batch job behind a quota is not failed by a run of
// throttles while a handler fails at once. Given to a call or walk, it
// holds for that call alone.
//
// Given to: NewClient (every call's default), a call, a walk (each request's).
func WithRetryMax(n int) Option {
	return func(s *settings) error {
		switch {
		case n < 0:
			return fmt.Errorf("WithRetryMax: negative count %d", n)
		case s.call != nil:
			s.call.retryMax = &n
		case s.walk != nil:
			return errEachRequest
		default:
			s.client.retryMax = n
		}
		return nil
	}
}

// WithRetryWait sets the bounds of the wait between attempts. The n-th retry
// waits a random time between half and all of min·2ⁿ, capped at max. A 429
// or 503 that names a wait (Retry-After in seconds or as an HTTP date, or a
// used-up quota's reset) is waited for in full, by the whole Client, within
// [WithThrottleBudget]; a Retry-After of 0 counts as no wait. Defaults: [DefaultRetryWaitMin], [DefaultRetryWaitMax]. Zero for both
// retries at once, which tests use.
//
// Given to: NewClient.
func WithRetryWait(minWait, maxWait time.Duration) Option {
	return clientOption("WithRetryWait", func(o *options) error {
		if minWait < 0 || maxWait < minWait {
			return fmt.Errorf("WithRetryWait: need 0 <= min <= max, got %v, %v", minWait, maxWait)
		}
		o.waitMin, o.waitMax = minWait, maxWait
		return nil
	})
}

// WithAttemptTimeout bounds each attempt, from sending the request to reading
// the last byte of the body; an attempt that runs over is retried, and the
// call's error, if it is the last one's, matches [ErrAttemptTimeout] (and
// context.DeadlineExceeded). Default:
// [DefaultAttemptTimeout]; 0 leaves attempts unbounded (the context still
// applies). Given to NewClient, it is ignored when the client given to
// [WithHTTPClient] has a Timeout; given to a call or walk, it holds for that
// call alone.
//
// Given to: NewClient (every call's default), a call, a walk (each request's).
func WithAttemptTimeout(d time.Duration) Option {
	return func(s *settings) error {
		switch {
		case d < 0:
			return fmt.Errorf("WithAttemptTimeout: negative duration %v", d)
		case s.call != nil:
			s.call.attemptTimeout = &d
		case s.walk != nil:
			return errEachRequest
		default:
			s.client.attemptTimeout = d
		}
		return nil
	}
}

// WithLogger makes the client log each attempt through l, with the call's
// context and structured attributes: method, endpoint, attempt, status,
// duration and outcome on every line, and, only when they apply,
// request_id (the answer's, see [RequestID]), error, wait, pause,
// quota_wait, ratelimit_remaining (the answer said it) and ratelimit_rate
// (the answer sent its policy). A success at Debug, a success after
// retries at Info, a failed attempt that will be retried at Warn, a final
// failure at Error (Warn for a 4xx answer, which is the caller's to handle),
// a call abandoned by its context at Info. Without it the client writes
// nothing anywhere. No line carries the API key.
//
// Given to: NewClient.
func WithLogger(l *slog.Logger) Option {
	return clientOption("WithLogger", func(o *options) error {
		if l == nil {
			return errors.New("WithLogger: nil *slog.Logger")
		}
		o.logger = l
		return nil
	})
}

// WithUserAgent appends suffix to the User-Agent, which is
// "ugc-go/<Version>" alone by default.
//
// Given to: NewClient.
func WithUserAgent(suffix string) Option {
	return clientOption("WithUserAgent", func(o *options) error {
		if strings.ContainsAny(suffix, "\r\n") {
			return errors.New("WithUserAgent: suffix contains a line break")
		}
		o.uaSuffix = strings.TrimSpace(suffix)
		return nil
	})
}

// WithMaxResponseBytes caps the size of a response body; a larger one is a
// [*DecodeError]. Default: [DefaultMaxResponseBytes].
//
// Given to: NewClient.
func WithMaxResponseBytes(n int64) Option {
	return clientOption("WithMaxResponseBytes", func(o *options) error {
		if n <= 0 {
			return fmt.Errorf("WithMaxResponseBytes: need a positive size, got %d", n)
		}
		o.maxBody = n
		return nil
	})
}

// WithStrictDecoding makes every deviation from the contract in a page (a
// value of another type, a timestamp in another form, a required field
// missing, a node that is not a post) a [*DecodeError] that names the post
// and the field, instead of a [Deviation] on the page. Contract tests use
// it; ugctest's Server.Client sets it, so the fake and the client stay
// exact to the contract. Without it the client is a tolerant reader (see
// [Page.Deviations]).
//
// Given to: NewClient.
func WithStrictDecoding() Option {
	return clientOption("WithStrictDecoding", func(o *options) error {
		o.strict = true
		return nil
	})
}

// WithInsecureHTTP allows a plain http:// base URL on a host that is not a
// loopback address. The API key then crosses the network in clear text; use
// it only on a network you trust. Loopback hosts (localhost, 127.0.0.0/8,
// ::1) are allowed over http:// without it.
//
// Given to: NewClient.
func WithInsecureHTTP() Option {
	return clientOption("WithInsecureHTTP", func(o *options) error {
		o.insecureHTTP = true
		return nil
	})
}

// WithAttemptObserver calls obs after each attempt of every call made by
// the Client. It is enough to count attempts, retries and failures by
// status, or to add an event per attempt to a span started around the call.
// The SDK does not depend on OpenTelemetry; package
// github.com/ugcposts/ugc-go/otelugc, a module of its own, is an observer
// that records each attempt as an OpenTelemetry span, with events and
// metrics (otelugc.Instrument gives it to a Client). Several observers
// (otelugc.Instrument and your own, say) all run, one after the other, in
// the order they were given to NewClient: none replaces another.
//
// Given to: NewClient.
func WithAttemptObserver(obs AttemptObserver) Option {
	return clientOption("WithAttemptObserver", func(o *options) error {
		if obs == nil {
			return errors.New("WithAttemptObserver: nil AttemptObserver")
		}
		o.observer = o.observer.then(obs)
		return nil
	})
}

// WithHeader adds a header to the requests, such as a request ID or a W3C
// traceparent. Several WithHeader with one name, at one level, add several
// values; given to a call or walk, it replaces the Client's values of that
// name for that call or walk alone. The headers the client sets itself are
// an error that names what sets them: the API key header (x-api-key, in
// any case: NewClient's key), User-Agent ([WithUserAgent]) and Host (the
// base URL's). Values may not contain line breaks.
//
// Given to: NewClient (every request's), a call, a walk (each request's).
func WithHeader(key, value string) Option {
	return callOption("WithHeader", false, func(c *callConfig) error {
		k := http.CanonicalHeaderKey(strings.TrimSpace(key))
		switch {
		case k == "":
			return fmt.Errorf("WithHeader: empty header name")
		case strings.ContainsAny(k, " \t\r\n:") || strings.ContainsAny(value, "\r\n\x00"):
			return fmt.Errorf("WithHeader: header %q has a line break or an invalid name", k)
		}
		if err := reservedHeader(k); err != nil {
			return err
		}
		if c.header == nil {
			c.header = http.Header{}
		}
		c.header[k] = append(c.header[k], value)
		return nil
	})
}

// WithResponseInto stores in *into the status, headers and attempt count
// of the call's successful answer (for a walk: of each page in turn). A
// failed call leaves it unchanged: its error carries the same facts.
//
// Given to: a call, a walk (each page's answer in turn).
func WithResponseInto(into *ResponseInfo) Option {
	return callOption("WithResponseInto", true, func(c *callConfig) error {
		if into == nil {
			return fmt.Errorf("WithResponseInto: nil *ResponseInfo")
		}
		c.response = into
		return nil
	})
}

// MaxReadAhead is the most page requests a walk keeps on the wire; a
// larger [WithReadAhead] is refused.
const MaxReadAhead = 64

// WithReadAhead sets n, how many page requests the walk keeps on the wire
// while you handle a page: 0 none (each page is requested when the loop
// asks for it), 1 the next page (the default), n the next n pages.
//
// Each request foreseen is the one a sequential walk would send if every
// page before it were full; it leaves once a request before it has its
// body, so the walk never has more than n on the wire, and that page is
// decoded while the next request travels (a walk holds no OS thread of
// its own, so thousands of walks at once are as cheap as their requests).
// A walk's memory is bounded by its pages: n+1 in flight, and the one you
// handle. The walks of one Client share 256 requests ahead of the pages
// they wait for: when thousands run at once (their requests queue for the
// transport's connections anyway), a walk that finds none free asks for
// its pages one at a time, and holds one. n of 2 or more opens as answers
// come: four requests at first, one more for each page taken, up to n, so
// that a walk that meets a quota at its first requests has a few of them
// refused at the first throttle, not all n. More than [MaxReadAhead], or a
// negative n, is an error that matches [ErrMisuse], yielded before any
// request.
//
// Posts are yielded in the list's order whatever n, and the guarantees of
// a sequential walk hold: each request starts at the last post of the page
// before it, so every boundary between pages is checked as in a sequential
// walk. A page that proves the requests after it wrong (a short page, a
// list that changed) has them cancelled, not awaited, and sent again from
// where the walk stands. Nothing is foreseen while the walk is unsure of
// its next page, or follows a server's next links as sent.
//
// Given to: NewClient (every walk's default), a walk.
func WithReadAhead(n int) Option {
	return walkOption("WithReadAhead", false, func(c *iterConfig) error {
		if n < 0 || n > MaxReadAhead {
			return fmt.Errorf("WithReadAhead(%d): need 0 to %d requests in flight", n, MaxReadAhead)
		}
		c.readAhead = n
		return nil
	})
}

// DriftPolicy says what a walk does when the list changes under it.
type DriftPolicy int

const (
	// DriftRepair, the default, keeps the walk exactly-once while posts
	// are added and removed: each page is placed by the last post already
	// yielded, and when that post is not where it was, the walk finds it
	// again (reading back if needed) and goes on after it. Every post that
	// is in the list for the whole walk, and keeps its place in the order,
	// is yielded exactly once; a post added or removed meanwhile may or may
	// not be. A change of order ends the walk with a [*DriftError] when the
	// pages show it; see the package documentation for what moves cost.
	DriftRepair DriftPolicy = iota
	// DriftFail ends the walk with a [*DriftError] at the first sign of
	// change: a count that differs from the first page's, or a page whose
	// posts are not where they were asked for.
	DriftFail
)

// WithDrift sets the drift policy of walks; the default is [DriftRepair].
//
// Given to: NewClient (every walk's default), a walk.
func WithDrift(p DriftPolicy) Option {
	return walkOption("WithDrift", false, func(c *iterConfig) error {
		if p != DriftRepair && p != DriftFail {
			return fmt.Errorf("WithDrift: unknown policy %d", p)
		}
		c.drift = p
		return nil
	})
}

// ResumeFrom starts the walk at a checkpoint saved from an earlier walk
// ([Page.Checkpoint] or [WalkSummary.Checkpoint]) instead of at the first
// page. The checkpoint's URL carries every parameter of the original
// request, so the call's params may be nil; it must be for the same
// endpoint (and gallery), on the client's origin ([ErrBadNext] otherwise),
// and params that state a filter, market or include other than the
// checkpoint's are an error that names the difference (matching
// [ErrMisuse]), before any request. The walk starts at the checkpoint's
// post and places its first page by it, as it places every page, so the
// resumed walk neither repeats nor skips a post when posts were added or
// removed between the two runs; a checkpoint taken after the last page
// yields only the posts added since. A checkpoint with an After but no URL
// reads from the first page, passing over the posts up to After.
//
// Given to: a walk.
func ResumeFrom(cp Checkpoint) Option {
	return walkOption("ResumeFrom", true, func(c *iterConfig) error {
		c.resume = cp
		return nil
	})
}

// WithSummary makes the walk write what it did into s when the loop ends,
// however it ends (the end of the list, an error, or a break):
//
//	var sum ugc.WalkSummary
//	for post, err := range client.AllPosts(ctx, params, ugc.WithSummary(&sum)) {
//		...
//	}
//	log.Printf("%d posts in %d requests, %d re-anchors", sum.Posts, sum.Requests, sum.Reanchors)
//
// s must not be read while the loop runs.
//
// Given to: a walk.
func WithSummary(s *WalkSummary) Option {
	return walkOption("WithSummary", true, func(c *iterConfig) error {
		if s == nil {
			return errors.New("WithSummary: nil *WalkSummary")
		}
		c.summary = s
		return nil
	})
}

// callConfig is what the options of one call set; the zero value keeps the
// Client's settings.
type callConfig struct {
	retryMax       *int
	attemptTimeout *time.Duration
	throttleBudget *time.Duration
	header         http.Header
	response       *ResponseInfo
	cursor         string // WithCursor: where a single call's page is
}

// newCallConfig applies the Client's defaults, then opts, in order; a
// header opts set replaces the Client's of that name.
func (c *Client) newCallConfig(opts []Option) (callConfig, error) {
	var cfg callConfig
	for i, list := range [][]Option{c.callDefaults, opts} {
		var clientHeader http.Header
		if i == 1 {
			clientHeader, cfg.header = cfg.header, nil
		}
		for _, o := range list {
			if o == nil {
				return cfg, fmt.Errorf("%w: nil Option", ErrMisuse)
			}
			if err := o(&settings{call: &cfg}); err != nil {
				return cfg, fmt.Errorf("%w: %w", ErrMisuse, err)
			}
		}
		cfg.header = callHeader(clientHeader, cfg.header)
	}
	return cfg, nil
}

// iterConfig is what the options of one walk set.
type iterConfig struct {
	// readAhead is how many page requests the walk keeps on the wire while
	// the caller handles a page (see [WithReadAhead]).
	readAhead int
	drift     DriftPolicy
	resume    Checkpoint
	summary   *WalkSummary
	call      []Option // applied to each request of the walk
	err       error    // an option given a value it cannot take
}

// newIterConfig applies the Client's defaults, then opts, in order; the
// options for each request are kept for them.
func (c *Client) newIterConfig(opts []Option) iterConfig {
	cfg := iterConfig{readAhead: 1}
	for _, list := range [][]Option{c.walkDefaults, opts} {
		for _, o := range list {
			var err error
			if o == nil {
				err = errors.New("nil Option")
			} else {
				err = o(&settings{walk: &cfg})
			}
			switch {
			case errors.Is(err, errEachRequest):
				cfg.call = append(cfg.call, o)
			case err != nil && cfg.err == nil:
				cfg.err = fmt.Errorf("%w: %w", ErrMisuse, err)
			}
		}
	}
	return cfg
}

// applyClientOptions applies opts to o: a Client's own settings, and the
// defaults of every call and walk (each checked once here, so that a bad
// one fails NewClient, not a later call).
func applyClientOptions(o *options, opts []Option) error {
	for _, opt := range opts {
		if opt == nil {
			return errors.New("nil Option")
		}
		err := opt(&settings{client: o})
		if !errors.Is(err, errDefault) {
			if err != nil {
				return err
			}
			continue
		}
		callErr := opt(&settings{call: &callConfig{}})
		if callErr == nil {
			o.callDefaults = append(o.callDefaults, opt)
			continue
		}
		switch walkErr := opt(&settings{walk: &iterConfig{}}); {
		case walkErr == nil:
			o.walkDefaults = append(o.walkDefaults, opt)
		case errors.Is(walkErr, errEachRequest): // a call option with a bad value
			return callErr
		default:
			return walkErr
		}
	}
	return nil
}

// WithRateLimit paces every call and walk of the Client together to at
// most rps requests a second, with bursts of up to burst requests, by a
// token bucket kept 3 % under rps and one request under burst: a client
// whose bucket ran exactly at the server's would run ahead of it whenever
// a request spent less time in transit than the one before, and each such
// request would be refused. Requests wait for their turn in the order
// they came; the wait ends early with the context, counts against the
// call's [WithThrottleBudget] (a turn later than the call may wait is
// refused at once with a [*ThrottleError]), and is counted in
// [AttemptInfo.QuotaWait] and [WalkSummary.QuotaWait]. Set to the API
// key's quota, with a burst of 2 or more, a walk runs without a 429, in
// every mode, two walks sharing the Client, and with a burst of 3 or more
// within 3 % of the quota's speed (BENCHMARKS.md; with a burst of 2 the
// client keeps bursts of one: within 4 % at 20 to 50 requests a second,
// 5 to 20 % at 200, more on a loaded machine). The Client sends its
// burst at once, then waits for the first answer (a second at most, and
// no longer than a call's bound), and its bucket refills from there: a
// server slow to take its first requests counts them late, and a bucket
// refilled from the sends would run ahead of its own. After that, the
// spare token absorbs a request the server counts up to one token's
// interval late, and the 3 % rebuild more while the walk lasts. Where the
// round trips spread by more than that (jitter in transit), each request
// is taken as if the server counted it as late as they spread: that costs
// speed where the server's burst has no tokens to spare for it, not
// 429s. With a burst of 1 there is no spare token: see the package
// documentation, "Rate limits".
//
// Without it the client is adaptive: it sends as fast as it is asked to
// until a server throttles it (a 429, or a 503 naming a wait) or tells it
// its quota (the RateLimit-Policy header), then paces itself: under the
// policy's rate, or under the rate it learns from which of its requests
// the server accepted (see the package documentation, "Rate limits"), and
// probes upward while answers succeed (see [WalkSummary.FinalRate]). The
// adaptive rate also applies below a configured one. It returns an error
// for a rate outside 1e-6 (a request in 11.6 days) to 1e9 requests a
// second, or a burst below 1; a burst larger than the rate refills in a
// year paces as that one.
//
// Given to: NewClient.
func WithRateLimit(rps float64, burst int) Option {
	return clientOption("WithRateLimit", func(o *options) error {
		if !(rps >= minRateLimit && rps <= maxRateLimit) {
			return fmt.Errorf("WithRateLimit: need a rate from %v (a request in 11.6 days) to %v requests a second, got %v", minRateLimit, maxRateLimit, rps)
		}
		if burst < 1 {
			return fmt.Errorf("WithRateLimit: need a burst of at least 1, got %d", burst)
		}
		o.rateLimit, o.rateBurst = rps, burst
		return nil
	})
}

// The rates WithRateLimit takes, in requests a second.
const (
	minRateLimit = 1e-6
	maxRateLimit = 1e9
)

// WithThrottleBudget bounds the time a call may wait for the quota: for
// its turn in the Client's pacing (a client-wide pause a server named, the
// rate of [WithRateLimit] or the rate the Client learned) and for the
// waits its own throttles name. A 429, or a 503 that names a wait, is
// retried after that wait without using up [WithRetryMax], which is for
// 5xx and connection errors, as long as the wait fits in what is left of
// the budget and ends before the context's deadline. A wait that would
// not fit is not begun: the call ends at once with a [*ThrottleError]
// (matching [ErrRateLimited]) that says how long the wait would have been,
// observed by [WithAttemptObserver] and logged by [WithLogger] as the
// attempt that was not sent. So a request handler with a one-second
// deadline, on a Client that another call's Retry-After of a minute has
// paused, fails in microseconds with the wait to pass on, not after a
// silent second with a bare context error.
//
// Given to NewClient it is every call's default; given to a call or walk
// it holds for that call, or for each request of the walk, alone: a
// handler and a patient batch job share one Client, each with its own
// bound. Default: [DefaultThrottleBudget]; 0 fails at the first wait for
// the quota. With [WithRetryMax] of 0, a throttle is not retried either.
//
// Given to: NewClient (every call's default), a call, a walk (each request's).
func WithThrottleBudget(d time.Duration) Option {
	return func(s *settings) error {
		switch {
		case d < 0:
			return fmt.Errorf("WithThrottleBudget: negative duration %v", d)
		case s.call != nil:
			s.call.throttleBudget = &d
		case s.walk != nil:
			return errEachRequest
		default:
			s.client.throttleBudget = d
		}
		return nil
	}
}

// WithMaxPause bounds how long one answer pauses the whole Client: a 429
// (or a 503) that names a longer wait (a Retry-After of a day, a reset
// far off) pauses it for d, the calls that meet the pause fail at once
// with a [*ThrottleError] that says the wait the server named (unless
// their throttle budget holds it), and the Client asks the server again
// when d has passed. So one answer cannot take a service down for a day.
// Default: [DefaultMaxPause]; d must be positive.
//
// Given to: NewClient.
func WithMaxPause(d time.Duration) Option {
	return clientOption("WithMaxPause", func(o *options) error {
		if d <= 0 {
			return fmt.Errorf("WithMaxPause: need a positive duration, got %v", d)
		}
		o.maxPause = d
		return nil
	})
}

// WithRetryBudget sets the client-wide budget of retries for failures that
// are not throttles (5xx, connection errors, bodies cut short), shared by
// every call and walk: each retry takes one of n tokens, and a call that
// succeeds gives back its retries' tokens and a fifth of one more. While a
// server is down the budget runs out, and calls then fail at their first
// error (with an error matching [ErrRetryBudgetExhausted] and carrying the
// last attempt's) instead of multiplying the load by their retries.
// Default: [DefaultRetryBudget]; 0 turns the budget off.
//
// Given to: NewClient.
func WithRetryBudget(n int) Option {
	return clientOption("WithRetryBudget", func(o *options) error {
		if n < 0 {
			return fmt.Errorf("WithRetryBudget: negative count %d", n)
		}
		o.retryBudget = n
		return nil
	})
}
