// Command otel is a recipe: OpenTelemetry traces and metrics for ugc-go,
// with the real OpenTelemetry SDK, while ugc-go itself depends on none of
// it (this example is a module of its own).
//
// Each call and each walk gets a client span, started around it; the
// client's attempt observer ([ugc.WithAttemptObserver]) adds an event to
// that span per attempt and per throttle (a 429 or 503 the client retries),
// with the HTTP client attributes of the semantic conventions
// (http.request.method, url.full, server.address, server.port,
// http.response.status_code, error.type); it records
// http.client.request.duration per attempt and counts throttles in
// ugc.client.throttles. Each request carries the span's W3C traceparent.
// Spans and metrics go to stdout.
//
// It runs against the embedded fake server (package ugctest), which
// throttles one request of the call and one of the walk:
//
//	cd examples/otel && go run .
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"net/url"
	"os"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/metric"
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

// demo makes a call and a walk against the fake server, each throttled
// once, traced and measured through tp and mp.
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

	base, err := url.Parse(srv.URL)
	if err != nil {
		return err
	}
	tel, err := NewTelemetry(tp, mp, base)
	if err != nil {
		return err
	}
	client, err := ugc.NewClient(srv.URL, apiKey, ugc.WithAttemptObserver(tel.Observe))
	if err != nil {
		return err
	}

	// A call: one span, an event per attempt.
	callCtx, span, traceparent := tel.Start(ctx, "ugc.Posts")
	_, err = client.Posts(callCtx, &ugc.PostsParams{Limit: 10}, traceparent)
	tel.End(span, err)
	if err != nil {
		return err
	}

	// A walk: one span for all its pages, an event per attempt of each.
	walkCtx, span, traceparent := tel.Start(ctx, "ugc.AllPosts")
	var sum ugc.WalkSummary
	posts := 0
	for _, err = range client.AllPosts(walkCtx, &ugc.PostsParams{Limit: 10}, ugc.WithSummary(&sum), traceparent) {
		if err != nil {
			break
		}
		posts++
	}
	tel.EndWalk(span, sum, err)
	if err != nil {
		return err
	}
	if posts != 60 {
		return fmt.Errorf("the walk yielded %d posts, not 60", posts)
	}
	return nil
}
