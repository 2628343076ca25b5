package main

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strconv"
	"time"

	"github.com/ugcposts/ugc-go"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.39.0"
	"go.opentelemetry.io/otel/semconv/v1.39.0/httpconv"
	"go.opentelemetry.io/otel/trace"
)

// instrumentationName names the tracer and the meter.
const instrumentationName = "github.com/ugcposts/ugc-go/examples/otel"

// Event and metric names of the recipe. The attempt and throttle events
// carry the HTTP client attributes of the semantic conventions.
const (
	eventAttempt   = "ugc.attempt"
	eventThrottle  = "ugc.throttle"
	metricThrottle = "ugc.client.throttles"
)

// Telemetry turns what ugc-go reports into OpenTelemetry: a span per call
// and per walk (started by the caller around it), an event on that span per
// attempt and per throttle (from the client's [ugc.AttemptObserver]), the
// semantic conventions' http.client.request.duration histogram per attempt,
// and a counter of throttles. The SDK itself depends on none of it.
//
// Nothing it records holds the API key: the key travels in a header the
// observer never sees, url.full is the base URL's origin and the path
// (AttemptInfo has no query), and every error ugc-go hands out has the key
// masked already.
type Telemetry struct {
	tracer    trace.Tracer
	duration  httpconv.ClientRequestDuration
	throttles metric.Int64Counter
	origin    string // scheme://host[:port] of the base URL
	host      string
	port      int
}

// NewTelemetry returns the recipe's instruments for a client of baseURL.
func NewTelemetry(tp trace.TracerProvider, mp metric.MeterProvider, baseURL *url.URL) (*Telemetry, error) {
	meter := mp.Meter(instrumentationName)
	duration, err := httpconv.NewClientRequestDuration(meter)
	if err != nil {
		return nil, err
	}
	throttles, err := meter.Int64Counter(metricThrottle, metric.WithUnit("{throttle}"),
		metric.WithDescription("Attempts the server throttled (429, or 503 retried after its wait) and the client retried"))
	if err != nil {
		return nil, err
	}
	port, _ := strconv.Atoi(baseURL.Port())
	if port == 0 {
		port = 443
		if baseURL.Scheme == "http" {
			port = 80
		}
	}
	return &Telemetry{
		tracer:   tp.Tracer(instrumentationName, trace.WithSchemaURL(semconv.SchemaURL)),
		duration: duration, throttles: throttles,
		origin: baseURL.Scheme + "://" + baseURL.Host, host: baseURL.Hostname(), port: port,
	}, nil
}

// Start starts the span of a call or a walk, as a client span with the
// request method and the server's address. It returns, with the context
// that carries the span, the per-call option that sends the span's W3C
// traceparent with every request of the call or walk.
func (t *Telemetry) Start(ctx context.Context, name string) (context.Context, trace.Span, ugc.Option) {
	ctx, span := t.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(semconv.HTTPRequestMethodGet, semconv.ServerAddress(t.host), semconv.ServerPort(t.port)))
	carrier := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, carrier)
	return ctx, span, ugc.WithHeader("traceparent", carrier.Get("traceparent"))
}

// End ends the span of a call: an error sets its status and error.type.
func (t *Telemetry) End(span trace.Span, err error) {
	if err != nil {
		span.SetAttributes(semconv.ErrorTypeKey.String(errorType(err)))
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// EndWalk ends the span of a walk with what its summary says.
func (t *Telemetry) EndWalk(span trace.Span, sum ugc.WalkSummary, err error) {
	span.SetAttributes(
		attribute.Int("ugc.walk.pages", sum.Pages),
		attribute.Int("ugc.walk.requests", sum.Requests),
		attribute.Int("ugc.walk.retries", sum.Retries),
		attribute.Int("ugc.walk.posts", sum.Posts),
	)
	t.End(span, err)
}

// Observe is the client's [ugc.AttemptObserver]: it adds an event per
// attempt (and one per throttle) to the span in ctx, records the attempt's
// duration and counts throttles. It is called on the goroutines of a
// parallel walk too; spans and instruments are safe for that.
func (t *Telemetry) Observe(ctx context.Context, a ugc.AttemptInfo) {
	attrs := []attribute.KeyValue{
		semconv.HTTPRequestMethodKey.String(a.Method),
		semconv.URLFull(t.origin + a.Endpoint),
		semconv.ServerAddress(t.host),
		semconv.ServerPort(t.port),
		attribute.Int("ugc.attempt", a.Attempt),
	}
	if a.Attempt > 1 {
		attrs = append(attrs, semconv.HTTPRequestResendCount(a.Attempt-1))
	}
	metricAttrs := []attribute.KeyValue{}
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
		attrs = append(attrs, attribute.String("ugc.retry.wait", a.Wait.String()))
	}
	span := trace.SpanFromContext(ctx)
	// The span says where its last attempt went and how it was answered.
	span.SetAttributes(semconv.URLFull(t.origin + a.Endpoint))
	if a.StatusCode != 0 {
		span.SetAttributes(semconv.HTTPResponseStatusCode(a.StatusCode))
	}
	end := time.Now()
	span.AddEvent(eventAttempt, trace.WithTimestamp(end), trace.WithAttributes(attrs...))
	t.duration.Record(ctx, a.Duration.Seconds(), httpconv.RequestMethodGet, t.host, t.port, metricAttrs...)
	if throttled(a) {
		span.AddEvent(eventThrottle, trace.WithTimestamp(end), trace.WithAttributes(attrs...))
		t.throttles.Add(ctx, 1, metric.WithAttributes(semconv.HTTPRequestMethodKey.String(a.Method),
			semconv.ServerAddress(t.host), semconv.HTTPResponseStatusCode(a.StatusCode)))
	}
}

// throttled reports whether the server throttled the attempt: a 429, or a
// 503, that the client retries after the wait the server named (or its own
// backoff).
func throttled(a ugc.AttemptInfo) bool {
	return a.Retry && (a.StatusCode == 429 || a.StatusCode == 503)
}

// errorType is the error.type of an error, low in cardinality as the
// semantic conventions want it: the status code of an answer that was an
// error, "timeout" and "canceled" for the context's ends, "transport" for
// a connection that failed, the SDK's error otherwise.
func errorType(err error) string {
	var apiErr *ugc.APIError
	var decErr *ugc.DecodeError
	var urlErr *url.Error
	var netErr net.Error
	switch {
	case errors.As(err, &apiErr):
		return strconv.Itoa(apiErr.StatusCode)
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.As(err, &decErr):
		return "ugc.DecodeError"
	case errors.Is(err, ugc.ErrForeignRedirect):
		return "ugc.ErrForeignRedirect"
	case errors.Is(err, ugc.ErrBadNext):
		return "ugc.ErrBadNext"
	case errors.As(err, &urlErr):
		return "transport"
	}
	return semconv.ErrorTypeOther.Value.AsString()
}
