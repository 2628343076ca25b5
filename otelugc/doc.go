// Package otelugc wires OpenTelemetry into a ugc-go Client, as otelhttp
// does into net/http: one option gives a Client a client span per attempt
// (the semantic conventions' HTTP client span, a child of the span in the
// call's context), events for throttles and errors, and the
// http.client.request.duration and ugc.client.throttles metrics.
//
//	client, err := ugc.NewClient(baseURL, key, otelugc.Instrument(baseURL))
//
// and, per call or walk, the trace context on every request:
//
//	page, err := client.Posts(ctx, params, otelugc.Propagate(ctx)...)
//
// It works through the SDK's own hooks ([ugc.WithAttemptObserver] and
// [ugc.WithHeader]), so ugc-go itself never depends on OpenTelemetry: this
// package is a module of its own. By default it uses the global tracer and
// meter providers (otel.GetTracerProvider, otel.GetMeterProvider) and
// [DefaultPropagator]: the global propagator once the program has set one,
// W3C Trace Context and Baggage until then (the global one writes nothing
// until set). [WithTracerProvider], [WithMeterProvider] and
// [WithPropagators] set others. Instrument adds its observer to the
// Client's others ([ugc.WithAttemptObserver]): each runs, in the order
// given.
//
// An attempt's span is recorded when the attempt has ended (the SDK tells
// its observer then), with the attempt's own start and end; so the
// traceparent a request carries names the caller's span, the parent of the
// attempt's span, not the attempt's span itself. The span has the
// answer's request ID, when it carried one, as ugc.request_id (see
// [ugc.RequestID]). Nothing recorded holds the API key: the key travels in
// a header the observer never sees, url.full is the base URL's origin and
// the request's path (without its query), and every error and request ID
// the SDK hands out has the key masked already.
package otelugc
