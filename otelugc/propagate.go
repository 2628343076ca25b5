package otelugc

import (
	"context"

	"github.com/ugcposts/ugc-go"
	"go.opentelemetry.io/otel/propagation"
)

// Propagate returns the options that send the trace context of ctx on
// every request of one call or walk; none when ctx carries nothing to
// send. What it writes is [WithPropagators]' propagator if given, else
// [DefaultPropagator]'s: the program's global propagator once it has set
// one, W3C traceparent, tracestate and baggage until then. Give them to
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
