package ugctest

import (
	"strings"
	"time"
)

// Option configures a [Server] or a [Handler].
type Option func(*config)

type config struct {
	dataset   *Dataset
	apiKey    string
	basePath  string
	latency   time.Duration
	logLimit  int
	onRequest func(Request)
	control   bool
	quota     *QuotaConfig
}

func newConfig(opts []Option) config {
	c := config{logLimit: DefaultRequestLogLimit}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return c
}

// DefaultRequestLogLimit is how many requests the log keeps unless
// [WithRequestLogLimit] says otherwise; older ones are dropped first.
const DefaultRequestLogLimit = 10000

// WithDataset serves ds instead of [DefaultDataset]. For [NewHandler] it is
// used only when the ds argument is nil.
func WithDataset(ds *Dataset) Option { return func(c *config) { c.dataset = ds } }

// WithAPIKey sets the API key the server accepts. [NewServer] otherwise
// makes a random one per server; for [NewHandler] it is used only when the
// apiKey argument is empty.
func WithAPIKey(key string) Option { return func(c *config) { c.apiKey = key } }

// WithBasePath mounts every endpoint under a path prefix such as "/api":
// the posts list is then /api/v1/posts, and every next URL carries the
// prefix. A missing leading slash is added and a trailing one dropped.
func WithBasePath(p string) Option {
	return func(c *config) {
		p = strings.TrimRight(p, "/")
		if p != "" && !strings.HasPrefix(p, "/") {
			p = "/" + p
		}
		c.basePath = p
	}
}

// WithLatency delays every response by d (see also [Handler.SetLatency]).
// A request whose context ends first is answered at once.
func WithLatency(d time.Duration) Option { return func(c *config) { c.latency = d } }

// WithRequestLogLimit keeps at most n requests in the log of
// [Handler.Requests]; 0 keeps none and a negative n keeps all.
func WithRequestLogLimit(n int) Option { return func(c *config) { c.logLimit = n } }

// WithRequestHook calls f once per request, after the answer is decided and
// before it is written. f must be safe for concurrent use; the Request never
// holds the API key.
func WithRequestHook(f func(Request)) Option { return func(c *config) { c.onRequest = f } }
