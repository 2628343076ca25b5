package otelugc

import (
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Option configures the instrumentation.
type Option func(*config)

type config struct {
	tp          trace.TracerProvider
	mp          metric.MeterProvider
	propagators propagation.TextMapPropagator
}

// newConfig applies opts over the global providers and the default
// propagator ([DefaultPropagator]).
func newConfig(opts []Option) config {
	c := config{tp: otel.GetTracerProvider(), mp: otel.GetMeterProvider(), propagators: DefaultPropagator()}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return c
}

// DefaultPropagator returns what [Propagate] writes without
// [WithPropagators]: the global propagator once the program has set one
// (otel.SetTextMapPropagator with a propagator that writes any header),
// and until then W3C Trace Context (traceparent, tracestate) and W3C
// Baggage (baggage), which the global propagator, a no-op until set,
// would not write.
func DefaultPropagator() propagation.TextMapPropagator {
	if global := otel.GetTextMapPropagator(); len(global.Fields()) > 0 {
		return global
	}
	return w3c
}

// w3c is W3C Trace Context and Baggage.
var w3c = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})

// WithTracerProvider sets the tracer provider of the attempts' spans; nil
// keeps the global one.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(c *config) {
		if tp != nil {
			c.tp = tp
		}
	}
}

// WithMeterProvider sets the meter provider of the metrics; nil keeps the
// global one.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(c *config) {
		if mp != nil {
			c.mp = mp
		}
	}
}

// WithPropagators sets what [Propagate] writes into the requests' headers,
// such as propagation.TraceContext{}; nil keeps [DefaultPropagator].
func WithPropagators(p propagation.TextMapPropagator) Option {
	return func(c *config) {
		if p != nil {
			c.propagators = p
		}
	}
}
