package otelugc

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/ugcposts/ugc-go"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.39.0"
	"go.opentelemetry.io/otel/semconv/v1.39.0/httpconv"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName names the tracer and the meter.
const ScopeName = "github.com/ugcposts/ugc-go/otelugc"

// Names of what the instrumentation records besides the semantic
// conventions' own.
const (
	// AttributeRequestID is the attribute of an attempt's span that holds
	// the answer's request ID ([ugc.AttemptInfo.RequestID]), when it
	// carried one.
	AttributeRequestID = "ugc.request_id"
	// EventThrottle is the event on an attempt's span that the server
	// throttled (a 429, or a 503 naming a wait), with the wait it named
	// and the Client's pause.
	EventThrottle = "ugc.throttle"
	// MetricThrottles counts the throttled attempts.
	MetricThrottles = "ugc.client.throttles"
)

// Instrument returns the option that wires OpenTelemetry into a Client for
// baseURL (the one given to ugc.NewClient): a span, a duration and, for a
// throttle, an event and a count per attempt (see the package
// documentation). It is a [ugc.WithAttemptObserver]: with observers of
// your own on the same Client, each runs after every attempt, in the
// order the options were given, whichever comes first.
func Instrument(baseURL string, opts ...Option) ugc.Option {
	return ugc.WithAttemptObserver(NewObserver(baseURL, opts...))
}

// NewObserver returns the [ugc.AttemptObserver] that [Instrument] gives a
// Client. An instrument the meter provider cannot make is reported to
// otel.Handle and left out, as otelhttp does.
func NewObserver(baseURL string, opts ...Option) ugc.AttemptObserver {
	c := newConfig(opts)
	meter := c.mp.Meter(ScopeName)
	duration, err := httpconv.NewClientRequestDuration(meter)
	if err != nil {
		otel.Handle(err)
	}
	throttles, err := meter.Int64Counter(MetricThrottles, metric.WithUnit("{throttle}"),
		metric.WithDescription("Attempts the server throttled: a 429, or a 503 naming a wait"))
	if err != nil {
		otel.Handle(err)
	}
	o := &observer{tracer: c.tp.Tracer(ScopeName, trace.WithSchemaURL(semconv.SchemaURL)), duration: duration, throttles: throttles}
	o.origin, o.host, o.port = serverOf(baseURL)
	return o.observe
}

// observer records the attempts of one Client.
type observer struct {
	tracer    trace.Tracer
	duration  httpconv.ClientRequestDuration
	throttles metric.Int64Counter
	origin    string // scheme://host[:port] of the base URL
	host      string
	port      int
}

// serverOf returns the origin, host and port of a base URL (the port the
// scheme's when it names none).
func serverOf(baseURL string) (origin, host string, port int) {
	u, err := url.Parse(baseURL)
	if err != nil {
		return "", "", 0
	}
	port, _ = strconv.Atoi(u.Port())
	if port == 0 {
		port = 443
		if u.Scheme == "http" {
			port = 80
		}
	}
	return u.Scheme + "://" + u.Host, u.Hostname(), port
}

// observe records one attempt that has just ended: its span, from its start
// to now, a child of the span in ctx; its duration; and a throttle.
func (o *observer) observe(ctx context.Context, a ugc.AttemptInfo) {
	end := time.Now()
	template := urlTemplate(a.Endpoint)
	attrs := []attribute.KeyValue{
		semconv.HTTPRequestMethodKey.String(a.Method),
		semconv.URLFull(o.origin + a.Endpoint),
		semconv.URLTemplate(template),
		semconv.ServerAddress(o.host),
		semconv.ServerPort(o.port),
		attribute.Int("ugc.attempt", a.Attempt),
	}
	if a.Attempt > 1 {
		attrs = append(attrs, semconv.HTTPRequestResendCount(a.Attempt-1))
	}
	var metricAttrs []attribute.KeyValue
	if a.RequestID != "" {
		attrs = append(attrs, attribute.String(AttributeRequestID, a.RequestID))
	}
	if a.StatusCode != 0 {
		attrs = append(attrs, semconv.HTTPResponseStatusCode(a.StatusCode))
		metricAttrs = append(metricAttrs, semconv.HTTPResponseStatusCode(a.StatusCode))
	}
	if a.Err != nil {
		et := semconv.ErrorTypeKey.String(errorType(a.Err))
		attrs = append(attrs, et)
		metricAttrs = append(metricAttrs, et)
	}
	if a.Retry {
		attrs = append(attrs, attribute.Bool("ugc.retry", true), attribute.String("ugc.retry.wait", a.Wait.String()))
	}
	if a.QuotaWait >= time.Millisecond { // below, the turn cost only its bookkeeping
		attrs = append(attrs, attribute.String("ugc.quota_wait", a.QuotaWait.String()))
	}
	_, span := o.tracer.Start(ctx, a.Method+" "+template, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithTimestamp(end.Add(-a.Duration)), trace.WithAttributes(attrs...))
	if a.Throttled {
		span.AddEvent(EventThrottle, trace.WithTimestamp(end), trace.WithAttributes(
			attribute.String("ugc.throttle.wait", a.Wait.String()), attribute.String("ugc.throttle.pause", a.Pause.String())))
		o.throttles.Add(ctx, 1, metric.WithAttributes(semconv.HTTPRequestMethodKey.String(a.Method),
			semconv.ServerAddress(o.host), semconv.HTTPResponseStatusCode(a.StatusCode)))
	}
	if a.Err != nil {
		span.RecordError(a.Err, trace.WithTimestamp(end))
		span.SetStatus(codes.Error, a.Err.Error())
	}
	span.End(trace.WithTimestamp(end))
	o.duration.Record(ctx, a.Duration.Seconds(), httpconv.RequestMethodGet, o.host, o.port, metricAttrs...)
}

// urlTemplate is the endpoint of a request path, without the base path and
// with a gallery's ID as {id}: low in cardinality, as span names must be.
func urlTemplate(path string) string {
	for _, t := range []string{"/v1/posts", "/v1/inbox"} {
		if strings.HasSuffix(path, t) && !strings.Contains(path, "/v1/galleries/") {
			return t
		}
	}
	if strings.Contains(path, "/v1/galleries/") && strings.HasSuffix(path, "/posts") {
		return "/v1/galleries/{id}/posts"
	}
	return "/v1/{unknown}"
}

// errorType is the error.type of an error, low in cardinality as the
// semantic conventions want it: the status code of an answer that was an
// error, "timeout" for an attempt or a context that ran out of time,
// "canceled", "transport" for a connection that failed, the SDK's error
// otherwise.
func errorType(err error) string {
	var apiErr *ugc.APIError
	var decErr *ugc.DecodeError
	var urlErr *url.Error
	var netErr net.Error
	switch {
	case errors.As(err, &apiErr):
		return strconv.Itoa(apiErr.StatusCode)
	case errors.Is(err, ugc.ErrAttemptTimeout), errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.As(err, &decErr):
		return "ugc.DecodeError"
	case errors.Is(err, ugc.ErrForeignRedirect):
		return "ugc.ErrForeignRedirect"
	case errors.As(err, &urlErr):
		return "transport"
	}
	return semconv.ErrorTypeOther.Value.AsString()
}
