package otelugc_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/otelugc"
	"github.com/ugcposts/ugc-go/ugctest"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// startFake serves the fake API for key; stop closes it.
func startFake(key string) (url string, stop func()) {
	h, err := ugctest.NewHandler(nil, key)
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(h)
	return srv.URL, srv.Close
}

// A service's handler span, and under it a client span per attempt of the
// SDK's call; the request carries the handler's traceparent.
func ExampleInstrument() {
	baseURL, stop := startFake("key")
	defer stop()
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	client, err := ugc.NewClient(baseURL, "key", otelugc.Instrument(baseURL, otelugc.WithTracerProvider(tp)))
	if err != nil {
		log.Fatal(err)
	}

	ctx, span := tp.Tracer("feed").Start(context.Background(), "GET /feed")
	_, err = client.GalleryPosts(ctx, "summer", nil, otelugc.Propagate(ctx, otelugc.WithPropagators(propagation.TraceContext{}))...)
	span.End()
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range spans.GetSpans() {
		fmt.Println(s.Name, s.SpanKind)
	}
	// Output:
	// GET /v1/galleries/{id}/posts client
	// GET /feed internal
}

// Your own observer and the instrumentation's, on one Client: both run
// after each attempt, in the order given.
func ExampleInstrument_ownObserver() {
	baseURL, stop := startFake("key")
	defer stop()
	attempts := 0
	client, err := ugc.NewClient(baseURL, "key",
		otelugc.Instrument(baseURL),
		ugc.WithAttemptObserver(func(context.Context, ugc.AttemptInfo) { attempts++ }))
	if err != nil {
		log.Fatal(err)
	}
	if _, err := client.Inbox(context.Background(), nil); err != nil {
		log.Fatal(err)
	}
	fmt.Println(attempts, "attempt")
	// Output: 1 attempt
}

// The options Propagate returns carry the trace context of a span.
func ExamplePropagate() {
	tp := sdktrace.NewTracerProvider()
	ctx, span := tp.Tracer("feed").Start(context.Background(), "GET /feed")
	defer span.End()
	fmt.Println(len(otelugc.Propagate(ctx, otelugc.WithPropagators(propagation.TraceContext{}))), "header: traceparent")
	fmt.Println(len(otelugc.Propagate(context.Background(), otelugc.WithPropagators(propagation.TraceContext{}))), "without a span")
	// Output:
	// 1 header: traceparent
	// 0 without a span
}
