package otelugc

import (
	"context"

	"github.com/ugcposts/ugc-go"
	"go.opentelemetry.io/otel/propagation"
)

// Propagate returns the options that send the trace context of ctx (with
// the default propagator, W3C traceparent and tracestate) on every request
// of one call or walk; none when ctx carries nothing to send. Give them to
// the call, after its own options:
//
//	page, err := client.Posts(ctx, params, otelugc.Propagate(ctx)...)
//
// Each is a [ugc.WithHeader], which, given to a call, replaces the Client's
// value of its header.
func Propagate(ctx context.Context, opts ...Option) []ugc.Option {
	carrier := propagation.MapCarrier{}
	newConfig(opts).propagators.Inject(ctx, carrier)
	out := make([]ugc.Option, 0, len(carrier))
	for _, k := range carrier.Keys() {
		out = append(out, ugc.WithHeader(k, carrier.Get(k)))
	}
	return out
}
