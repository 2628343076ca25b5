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

// Option configures a [Client] (given to [NewClient]), or one call or walk
// (given to [Client.Posts], [Client.AllPosts] and their siblings), with one
// set of names for every level. Given to NewClient, an option that shapes
// requests or walks is the default of every call or walk; given to a call or
// walk, it overrides that default for it alone. An option given at a level it
// does not belong to is an error that says where it belongs and matches
// [ErrMisuse].
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

// WithHTTPClient sets the *http.Client that sends each attempt, for a proxy,
// TLS settings or a test transport. It is copied, not changed: the copy
// refuses redirects to another origin and sends the API key only to the base
// URL's origin. Its Timeout, if set, replaces [WithAttemptTimeout]. Wrap its
// Transport (gock.InterceptClient) before NewClient. Its transport is used as
// it is; without this option, the client opens at most 256 connections per
// host, and a request beyond them waits for one.
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

// WithRetryMax sets how many times a failed attempt is retried; 0 disables
// retries. Default: [DefaultRetryMax]. Every retry counts, a throttle's
// included: an answer is an attempt. Retried: connection errors, bodies cut
// short, 429, and 5xx other than 501; never other 4xx. A throttle is retried
// after the wait it names, within [WithThrottleBudget].
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

// WithRetryWait sets the backoff: the n-th retry waits a random time between
// half and all of min·2ⁿ, capped at max. A throttle waits the time it names
// instead; Retry-After: 0 names none. Defaults: [DefaultRetryWaitMin],
// [DefaultRetryWaitMax]. Zero for both retries at once, for tests.
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

// WithAttemptTimeout bounds each attempt, from sending the request to the last
// byte of the body. An attempt over it is retried; if it was the last, the
// call's error matches [ErrAttemptTimeout] and context.DeadlineExceeded.
// Default: [DefaultAttemptTimeout]; 0 leaves attempts unbounded. A Timeout on
// [WithHTTPClient]'s client replaces the Client's default.
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

// WithLogger logs each attempt through l, with the call's context (levels and
// an example: the package documentation). Every line has method, endpoint,
// attempt, status, duration and outcome; request_id, error, wait, pause,
// quota_wait, ratelimit_remaining and ratelimit_rate only when the attempt has
// them. Without it the client writes nothing. No line holds the API key.
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

// WithStrictDecoding makes every [Deviation] from the contract in a page a
// [*DecodeError] that names the post and the field. Contract tests use it, as
// do ugctest's clients.
//
// Given to: NewClient.
func WithStrictDecoding() Option {
	return clientOption("WithStrictDecoding", func(o *options) error {
		o.strict = true
		return nil
	})
}

// WithInsecureHTTP allows a plain http:// base URL on a host that is not
// loopback (localhost, 127.0.0.0/8 and ::1 need no option). The API key then
// crosses the network in clear text.
//
// Given to: NewClient.
func WithInsecureHTTP() Option {
	return clientOption("WithInsecureHTTP", func(o *options) error {
		o.insecureHTTP = true
		return nil
	})
}

// WithAttemptObserver calls obs after each attempt of every call of the
// Client, for metrics and traces (otelugc.Instrument is one). Several
// observers all run, in the order given; none replaces another.
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

// WithHeader adds a header to the requests, such as a request ID. Given to a
// call or walk, it replaces the Client's values of that name. x-api-key,
// User-Agent ([WithUserAgent]) and Host are the client's own, and an error
// ([ErrMisuse]); so is a value with a line break.
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

// WithResponseInto stores in *into the status, headers and attempt count of
// the successful answer (for a walk: of each page in turn). A failed call
// leaves it unchanged: its error carries the same facts.
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

// WithReadAhead sets n, how many page requests a walk keeps on the wire while
// you handle a page: 0 none, 1 the next page (the default), at most
// [MaxReadAhead]. Posts still come in order, each page is checked as in a
// sequential walk, and memory is bounded: n+1 pages, and the IDs of ten pages more. The walks of one Client
// share 256 requests ahead; a walk that finds none free reads one page at a
// time. A negative n or more than MaxReadAhead matches [ErrMisuse].
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
	// DriftRepair, the default, keeps the walk exactly-once while posts are added
	// and removed: when the last post yielded is not where it was, the walk finds
	// it again and goes on after it. A change of order ends the walk with a
	// [*DriftError].
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

// ResumeFrom starts a walk at a checkpoint saved from an earlier one
// ([Page.Checkpoint], [WalkSummary.Checkpoint]). The walk places its first
// page by the checkpoint's post, so it neither repeats nor skips a post if the
// list changed meanwhile; after the last page, it yields only posts added
// since. params may be nil. A checkpoint for another endpoint or origin
// matches [ErrBadNext]; params whose filter, market or include differ from the
// checkpoint's match [ErrMisuse].
//
// Given to: a walk.
func ResumeFrom(cp Checkpoint) Option {
	return walkOption("ResumeFrom", true, func(c *iterConfig) error {
		c.resume = cp
		return nil
	})
}

// WithSummary makes the walk write what it did into s when the loop ends,
// however it ends:
//
//	var sum ugc.WalkSummary
//	for post, err := range client.AllPosts(ctx, params, ugc.WithSummary(&sum)) {
//		...
//	}
//	log.Printf("%d posts in %d requests, %d throttles", sum.Posts, sum.Requests, sum.Throttles)
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

// WithRateLimit paces every call and walk of the Client together to the API
// key's quota of rps requests a second in bursts of burst: 3 % under rps, in
// bursts of burst−1, so that requests the server counts late do not find its
// bucket empty (with a burst of 1, each request waits for the answer to the
// one before it). Requests wait for their turn in order; the wait counts
// against [WithThrottleBudget] and shows in [AttemptInfo.QuotaWait]. A quota
// the server states or the Client learns applies too, where lower. rps must be
// from 1e-6 to 1e9, burst at least 1.
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

// WithThrottleBudget bounds how long a call may wait for the quota: its turn
// in the Client's pacing, a client-wide pause, and the waits its own throttles
// name. A wait that would pass the budget or the context's deadline is not
// begun: the call ends at once with a [*ThrottleError] whose Wait is that
// wait. Default: [DefaultThrottleBudget], a batch job's; a request handler
// wants a second or so. 0 fails at the first wait. Each throttled answer is
// also an attempt: [WithRetryMax] ends a call at its retries, throttled or
// not, whatever budget is left.
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

// WithMaxPause bounds how long one answer pauses the whole Client. Calls that
// meet a longer named wait (a Retry-After of a day) fail at once with a
// [*ThrottleError] whose Wait is the wait the server named, unless their
// throttle budget holds it, and the Client asks again after d. Default:
// [DefaultMaxPause]; d must be positive.
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

// WithRetryBudget sets the Client's budget of retries for failures that are
// not throttles: each retry takes one of n tokens, and a call that succeeds
// gives back its retries' and a fifth more. Once it runs out (a server down),
// calls fail at their first error, matching [ErrRetryBudgetExhausted]. A local
// resource running out (too many open files, no ephemeral port) takes no
// token. Default: [DefaultRetryBudget]; 0 turns it off.
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
