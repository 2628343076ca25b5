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

// newConfig applies opts over the global providers and propagator.
func newConfig(opts []Option) config {
	c := config{tp: otel.GetTracerProvider(), mp: otel.GetMeterProvider(), propagators: otel.GetTextMapPropagator()}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return c
}

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
// such as propagation.TraceContext{}; nil keeps the global propagator.
func WithPropagators(p propagation.TextMapPropagator) Option {
	return func(c *config) {
		if p != nil {
			c.propagators = p
		}
	}
}
