// Command otel shows OpenTelemetry traces and metrics for ugc-go with the
// importable package otelugc and the real OpenTelemetry SDK, while ugc-go
// itself depends on none of it (otelugc and this example are modules of
// their own).
//
// One option, otelugc.Instrument, given to ugc.NewClient, records each
// attempt as an HTTP client span (a child of the span in the call's
// context) with the semantic conventions' attributes, an exception event
// for a failed attempt and a throttle event for a throttled one, the
// http.client.request.duration histogram and the ugc.client.throttles
// counter. otelugc.Propagate sends the caller's traceparent with each
// request of a call or walk. Spans and metrics go to stdout.
//
// It runs against the embedded fake server (package ugctest), which answers
// 429 to one request of the call and one of the walk:
//
//	cd examples/otel && go run .
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"os"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/otelugc"
	"github.com/ugcposts/ugc-go/ugctest"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.39.0"
	"go.opentelemetry.io/otel/trace"
)

// apiKey is the fake server's key. Nothing the example exports holds it.
const apiKey = "otel-example-SECRET-key/+="

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "otel:", err)
		os.Exit(1)
	}
}

// run exports to out with the stdout exporters.
func run(ctx context.Context, out io.Writer) (err error) {
	spans, err := stdouttrace.New(stdouttrace.WithWriter(out), stdouttrace.WithPrettyPrint())
	if err != nil {
		return err
	}
	metrics, err := stdoutmetric.New(stdoutmetric.WithWriter(out), stdoutmetric.WithPrettyPrint())
	if err != nil {
		return err
	}
	res := resource.NewWithAttributes(semconv.SchemaURL, semconv.ServiceName("ugc-otel-example"))
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(spans), sdktrace.WithResource(res))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(metrics)), sdkmetric.WithResource(res))
	defer func() { // flushes what is left: the spans, then the metrics
		err = errors.Join(err, tp.Shutdown(ctx), mp.Shutdown(ctx))
	}()
	return demo(ctx, tp, mp)
}

// demo makes a call and a walk against the fake server, each answered 429
// once, inside spans of the program's own, traced and measured through tp
// and mp.
func demo(ctx context.Context, tp trace.TracerProvider, mp metric.MeterProvider) error {
	h, err := ugctest.NewHandler(ugctest.Generate(60, 7), apiKey)
	if err != nil {
		return err
	}
	throttle := ugctest.ErrorResponse(429, "Too many requests").WithHeader("Retry-After", "0")
	for _, r := range []ugctest.Rule{
		{Name: "the call's first attempt", Endpoint: ugctest.EndpointPosts, Times: 1, Fault: throttle},
		{Name: "the walk's third request", Endpoint: ugctest.EndpointPosts, After: 3, Times: 1, Fault: throttle},
	} {
		if _, err := h.AddRule(r); err != nil {
			return err
		}
	}
	srv := httptest.NewServer(h)
	defer srv.Close()

	// The one line that instruments the Client.
	telemetry := []otelugc.Option{otelugc.WithTracerProvider(tp), otelugc.WithMeterProvider(mp), otelugc.WithPropagators(propagation.TraceContext{})}
	client, err := ugc.NewClient(srv.URL, apiKey, otelugc.Instrument(srv.URL, telemetry...))
	if err != nil {
		return err
	}
	tracer := tp.Tracer("github.com/ugcposts/ugc-go/examples/otel")

	// A request handler's span, and the SDK's attempts under it.
	callCtx, span := tracer.Start(ctx, "GET /feed")
	_, err = client.Posts(callCtx, &ugc.PostsParams{Limit: 10}, otelugc.Propagate(callCtx, telemetry...)...)
	end(span, err)
	if err != nil {
		return err
	}

	// A job's span around a walk: an attempt span per request of the walk.
	walkCtx, span := tracer.Start(ctx, "export")
	var sum ugc.WalkSummary
	posts := 0
	opts := append([]ugc.Option{ugc.WithSummary(&sum)}, otelugc.Propagate(walkCtx, telemetry...)...)
	for _, err = range client.AllPosts(walkCtx, &ugc.PostsParams{Limit: 10}, opts...) {
		if err != nil {
			break
		}
		posts++
	}
	span.SetAttributes(attribute.Int("ugc.walk.posts", sum.Posts), attribute.Int("ugc.walk.requests", sum.Requests))
	end(span, err)
	if err != nil {
		return err
	}
	if posts != 60 {
		return fmt.Errorf("the walk yielded %d posts, not 60", posts)
	}
	return nil
}

// end ends a span of the program's own, with the error if any.
func end(span trace.Span, err error) {
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}
