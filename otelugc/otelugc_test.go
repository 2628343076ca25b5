package otelugc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/otelugc"
	"github.com/ugcposts/ugc-go/ugctest"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// apiKey holds "SECRET", which no span, event or metric may show.
const apiKey = "otelugc-SECRET-key/+="

// recorder holds in-memory providers that a test reads back.
type recorder struct {
	spans  *tracetest.InMemoryExporter
	reader *sdkmetric.ManualReader
	tp     *sdktrace.TracerProvider
	mp     *sdkmetric.MeterProvider
}

func newRecorder(t *testing.T) *recorder {
	t.Helper()
	r := &recorder{spans: tracetest.NewInMemoryExporter(), reader: sdkmetric.NewManualReader()}
	r.tp = sdktrace.NewTracerProvider(sdktrace.WithSyncer(r.spans))
	r.mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(r.reader))
	t.Cleanup(func() {
		assert.NoError(t, r.tp.Shutdown(context.Background()))
		assert.NoError(t, r.mp.Shutdown(context.Background()))
	})
	return r
}

func (r *recorder) options() []otelugc.Option {
	return []otelugc.Option{otelugc.WithTracerProvider(r.tp), otelugc.WithMeterProvider(r.mp), otelugc.WithPropagators(propagation.TraceContext{})}
}

// spansNamed returns the ended spans named name, in the order they ended.
func (r *recorder) spansNamed(name string) []tracetest.SpanStub {
	var out []tracetest.SpanStub
	for _, s := range r.spans.GetSpans() {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

func (r *recorder) metric(t *testing.T, name string) metricdata.Aggregation {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, r.reader.Collect(context.Background(), &rm))
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == name {
				return m.Data
			}
		}
	}
	return nil
}

func attrs(kvs []attribute.KeyValue) map[string]attribute.Value {
	out := map[string]attribute.Value{}
	for _, kv := range kvs {
		out[string(kv.Key)] = kv.Value
	}
	return out
}

// TestOneOptionTracesAndMeasuresEveryAttempt: with Instrument, each attempt
// of a call is a client span, a child of the caller's span, with the
// semantic conventions' HTTP client attributes; a failed attempt has its
// status, error.type and an exception event; the duration metric counts
// every attempt; Propagate sends the caller's traceparent on each request;
// nothing recorded shows the key.
func TestOneOptionTracesAndMeasuresEveryAttempt(t *testing.T) {
	t.Parallel()
	r := newRecorder(t)
	srv := ugctest.NewServer(t, ugctest.WithAPIKey(apiKey), ugctest.WithBasePath("/api"))
	srv.FailNext(1, ugctest.InternalError())
	client := srv.Client(otelugc.Instrument(srv.URL, r.options()...))

	ctx, parent := r.tp.Tracer("test").Start(context.Background(), "GET /feed")
	_, err := client.Posts(ctx, &ugc.PostsParams{Limit: 5}, otelugc.Propagate(ctx, r.options()...)...)
	require.NoError(t, err)
	_, err = client.GalleryPosts(ctx, "summer", nil, otelugc.Propagate(ctx, r.options()...)...)
	require.NoError(t, err)
	parent.End()

	attempts := r.spansNamed("GET /v1/posts")
	require.Len(t, attempts, 2, "a 500, then a 200")
	for i, s := range attempts {
		assert.Equal(t, trace.SpanKindClient, s.SpanKind)
		assert.Equal(t, parent.SpanContext().SpanID(), s.Parent.SpanID(), "a child of the caller's span")
		a := attrs(s.Attributes)
		assert.Equal(t, "GET", a["http.request.method"].AsString())
		assert.Equal(t, srv.URL+"/v1/posts", a["url.full"].AsString())
		assert.Equal(t, "/v1/posts", a["url.template"].AsString())
		assert.Equal(t, "127.0.0.1", a["server.address"].AsString())
		assert.Positive(t, a["server.port"].AsInt64())
		assert.Equal(t, int64(i+1), a["ugc.attempt"].AsInt64())
		assert.False(t, s.StartTime.After(s.EndTime))
	}
	failed, ok := attrs(attempts[0].Attributes), attrs(attempts[1].Attributes)
	assert.Equal(t, int64(500), failed["http.response.status_code"].AsInt64())
	assert.Equal(t, "500", failed["error.type"].AsString())
	assert.True(t, failed["ugc.retry"].AsBool())
	assert.Equal(t, codes.Error, attempts[0].Status.Code)
	require.NotEmpty(t, attempts[0].Events)
	assert.Equal(t, "exception", attempts[0].Events[0].Name)
	assert.Equal(t, int64(200), ok["http.response.status_code"].AsInt64())
	assert.Equal(t, int64(1), ok["http.request.resend_count"].AsInt64())
	_, hasErrorType := ok["error.type"]
	assert.False(t, hasErrorType, "a success has no error.type")
	assert.Equal(t, codes.Unset, attempts[1].Status.Code)

	gallery := r.spansNamed("GET /v1/galleries/{id}/posts")
	require.Len(t, gallery, 1, "a gallery's ID is not in the span's name")
	assert.Equal(t, srv.URL+"/v1/galleries/summer/posts", attrs(gallery[0].Attributes)["url.full"].AsString())

	hist, isHist := r.metric(t, "http.client.request.duration").(metricdata.Histogram[float64])
	require.True(t, isHist)
	var n uint64
	for _, dp := range hist.DataPoints {
		n += dp.Count
	}
	assert.Equal(t, uint64(3), n, "one duration per attempt")

	reqs := srv.Requests()
	require.Len(t, reqs, 3)
	for _, req := range reqs {
		assert.Contains(t, req.Header.Get("Traceparent"), parent.SpanContext().TraceID().String(), "the caller's trace on every request")
	}

	spans, err := json.Marshal(r.spans.GetSpans())
	require.NoError(t, err)
	assert.NotContains(t, strings.ToLower(string(spans)+fmt.Sprintf("%+v", r.spans.GetSpans())), "secret")
}

// TestThrottlesAndTimeoutsAreNamed: the observer, given a throttled
// attempt, adds a throttle event with the wait and pause and counts it; an
// attempt timeout is error.type "timeout".
func TestThrottlesAndTimeoutsAreNamed(t *testing.T) {
	t.Parallel()
	r := newRecorder(t)
	observe := otelugc.NewObserver("https://ugc.example.com/api", r.options()...)
	observe(context.Background(), ugc.AttemptInfo{Method: "GET", Endpoint: "/api/v1/inbox", Attempt: 1, StatusCode: 429,
		Err: &ugc.APIError{StatusCode: 429}, Duration: time.Millisecond, Retry: true, Wait: 9 * time.Second, Throttled: true, Pause: 9 * time.Second})
	srv := ugctest.NewServer(t)
	srv.FailNext(1, ugctest.Stall(time.Minute))
	client := srv.Client(otelugc.Instrument(srv.URL, r.options()...), ugc.WithRetryMax(0))
	_, err := client.Inbox(context.Background(), nil, ugc.WithAttemptTimeout(10*time.Millisecond))
	require.ErrorIs(t, err, ugc.ErrAttemptTimeout)

	spans := r.spansNamed("GET /v1/inbox")
	require.Len(t, spans, 2)
	throttled := spans[0]
	a := attrs(throttled.Attributes)
	assert.Equal(t, "https://ugc.example.com/api/v1/inbox", a["url.full"].AsString())
	assert.Equal(t, int64(443), a["server.port"].AsInt64())
	var throttle []attribute.KeyValue
	for _, e := range throttled.Events {
		if e.Name == otelugc.EventThrottle {
			throttle = e.Attributes
		}
	}
	require.NotNil(t, throttle)
	assert.Equal(t, "9s", attrs(throttle)["ugc.throttle.pause"].AsString())
	sum, isSum := r.metric(t, otelugc.MetricThrottles).(metricdata.Sum[int64])
	require.True(t, isSum)
	require.Len(t, sum.DataPoints, 1)
	assert.Equal(t, int64(1), sum.DataPoints[0].Value)

	assert.Equal(t, "timeout", attrs(spans[1].Attributes)["error.type"].AsString())
}

// TestPropagateWithoutATraceSendsNothing: a context with no span gives no
// option, so a call sends no empty traceparent.
func TestPropagateWithoutATraceSendsNothing(t *testing.T) {
	t.Parallel()
	assert.Empty(t, otelugc.Propagate(context.Background(), otelugc.WithPropagators(propagation.TraceContext{})))
}

// TestInstrumentAndOwnObserverBothRun: otelugc.Instrument and an observer
// of the program's own, given in either order, both see every attempt,
// in the order given.
func TestInstrumentAndOwnObserverBothRun(t *testing.T) {
	t.Parallel()
	for _, instrumentFirst := range []bool{true, false} {
		t.Run(fmt.Sprintf("Instrument first: %v", instrumentFirst), func(t *testing.T) {
			t.Parallel()
			r := newRecorder(t)
			srv := ugctest.NewServer(t)
			srv.FailNext(1, ugctest.InternalError())
			var order []string
			own := ugc.WithAttemptObserver(func(_ context.Context, a ugc.AttemptInfo) {
				order = append(order, fmt.Sprintf("own %d, spans before: %d", a.Attempt, len(r.spansNamed("GET /v1/inbox"))))
			})
			opts := []ugc.Option{own, otelugc.Instrument(srv.URL, r.options()...)}
			if instrumentFirst {
				opts = []ugc.Option{opts[1], opts[0]}
			}
			_, err := srv.Client(opts...).Inbox(context.Background(), nil)
			require.NoError(t, err)

			assert.Len(t, r.spansNamed("GET /v1/inbox"), 2, "a span per attempt")
			if instrumentFirst { // each attempt's span is recorded before the own observer runs
				assert.Equal(t, []string{"own 1, spans before: 1", "own 2, spans before: 2"}, order)
			} else {
				assert.Equal(t, []string{"own 1, spans before: 0", "own 2, spans before: 1"}, order)
			}
		})
	}
}

// TestSpanCarriesTheRequestID: an attempt's span has the answer's
// request ID, the one the call's error quotes, masked where a server
// echoed the key; a span for an attempt with no answer has none.
func TestSpanCarriesTheRequestID(t *testing.T) {
	t.Parallel()
	r := newRecorder(t)
	srv := ugctest.NewServer(t, ugctest.WithAPIKey(apiKey))
	srv.FailNext(1, ugctest.ErrorResponse(502, "bad gateway").WithHeader("X-Request-Id", "edge-1"))
	srv.FailNext(1, ugctest.ErrorResponse(404, "not found").WithHeader("X-Request-Id", "echo-"+apiKey))
	client := srv.Client(otelugc.Instrument(srv.URL, r.options()...))

	_, err := client.Posts(context.Background(), nil)
	require.ErrorIs(t, err, ugc.ErrNotFound)
	spans := r.spansNamed("GET /v1/posts")
	require.Len(t, spans, 2)
	assert.Equal(t, "edge-1", attrs(spans[0].Attributes)[otelugc.AttributeRequestID].AsString())
	echoed := attrs(spans[1].Attributes)[otelugc.AttributeRequestID].AsString()
	assert.Equal(t, ugc.RequestID(err), echoed, "the span's ID is the error's")
	assert.NotEmpty(t, echoed)
	assert.NotContains(t, strings.ToLower(echoed), "secret")

	_, err = client.Inbox(context.Background(), nil)
	require.NoError(t, err)
	inbox := r.spansNamed("GET /v1/inbox")
	require.Len(t, inbox, 1)
	assert.Equal(t, srv.Requests()[2].ID, attrs(inbox[0].Attributes)[otelugc.AttributeRequestID].AsString(), "a success's ID too")

	observe := otelugc.NewObserver("https://ugc.example.com", r.options()...)
	observe(context.Background(), ugc.AttemptInfo{Method: "GET", Endpoint: "/v1/inbox", Attempt: 1, Err: context.DeadlineExceeded})
	_, has := attrs(r.spansNamed("GET /v1/inbox")[1].Attributes)[otelugc.AttributeRequestID]
	assert.False(t, has, "no answer, no request ID")
}

// TestPropagateDefaultsToW3CUntilAGlobalIsSet: without WithPropagators,
// Propagate writes W3C traceparent and baggage while the program has set
// no global propagator, and the global one once it has; WithPropagators
// wins over both. Not parallel: it sets the global propagator, and
// leaves one that writes nothing (the state it found).
func TestPropagateDefaultsToW3CUntilAGlobalIsSet(t *testing.T) {
	tp := sdktrace.NewTracerProvider()
	ctx, span := tp.Tracer("test").Start(context.Background(), "GET /feed")
	defer span.End()
	member, err := baggage.NewMember("tenant", "acme")
	require.NoError(t, err)
	bag, err := baggage.New(member)
	require.NoError(t, err)
	ctx = baggage.ContextWithBaggage(ctx, bag)

	headers := func(opts ...otelugc.Option) map[string]string {
		srv := ugctest.NewServer(t)
		_, err := srv.Client().Inbox(ctx, nil, otelugc.Propagate(ctx, opts...)...)
		require.NoError(t, err)
		out := map[string]string{}
		for k := range srv.Requests()[0].Header {
			out[strings.ToLower(k)] = srv.Requests()[0].Header.Get(k)
		}
		return out
	}

	got := headers()
	assert.Contains(t, got["traceparent"], span.SpanContext().TraceID().String(), "W3C Trace Context by default")
	assert.Equal(t, "tenant=acme", got["baggage"], "and W3C Baggage")

	otel.SetTextMapPropagator(b3like{})
	t.Cleanup(func() { otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator()) })
	got = headers()
	assert.Equal(t, span.SpanContext().TraceID().String(), got["x-trace"], "the global propagator, once set")
	assert.NotContains(t, got, "traceparent")

	got = headers(otelugc.WithPropagators(propagation.Baggage{}))
	assert.Equal(t, "tenant=acme", got["baggage"], "WithPropagators wins")
	assert.NotContains(t, got, "x-trace")
	assert.NotContains(t, got, "traceparent")
}

// b3like is a propagator of another format: the trace ID in X-Trace.
type b3like struct{}

func (b3like) Inject(ctx context.Context, c propagation.TextMapCarrier) {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		c.Set("X-Trace", sc.TraceID().String())
	}
}
func (b3like) Extract(ctx context.Context, _ propagation.TextMapCarrier) context.Context { return ctx }
func (b3like) Fields() []string                                                          { return []string{"X-Trace"} }
