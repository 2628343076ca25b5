package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// recorder holds the in-memory providers a test reads back.
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

// span returns the ended span named name.
func (r *recorder) span(t *testing.T, name string) tracetest.SpanStub {
	t.Helper()
	for _, s := range r.spans.GetSpans() {
		if s.Name == name {
			return s
		}
	}
	require.Failf(t, "no span", "no span named %s", name)
	return tracetest.SpanStub{}
}

func (r *recorder) metrics(t *testing.T) metricdata.ResourceMetrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, r.reader.Collect(context.Background(), &rm))
	return rm
}

// metric returns the data of the metric named name.
func metricNamed(t *testing.T, rm metricdata.ResourceMetrics, name string) metricdata.Aggregation {
	t.Helper()
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == name {
				return m.Data
			}
		}
	}
	require.Failf(t, "no metric", "no metric named %s", name)
	return nil
}

func attrs(kvs []attribute.KeyValue) map[string]attribute.Value {
	out := map[string]attribute.Value{}
	for _, kv := range kvs {
		out[string(kv.Key)] = kv.Value
	}
	return out
}

func events(s tracetest.SpanStub, name string) []map[string]attribute.Value {
	var out []map[string]attribute.Value
	for _, e := range s.Events {
		if e.Name == name {
			out = append(out, attrs(e.Attributes))
		}
	}
	return out
}

// assertNoKey checks everything recorded, as the exporters would write it,
// for the key: raw, URL-encoded or JSON-escaped, each keeps "SECRET".
func assertNoKey(t *testing.T, r *recorder) {
	t.Helper()
	spans, err := json.Marshal(r.spans.GetSpans())
	require.NoError(t, err)
	metrics, err := json.Marshal(r.metrics(t))
	require.NoError(t, err)
	for _, out := range []string{string(spans), string(metrics), fmt.Sprintf("%+v", r.spans.GetSpans())} {
		assert.NotContains(t, strings.ToLower(out), "secret")
	}
	assert.Contains(t, string(spans), "url.full", "the control: attributes were exported")
}

func TestACallAndAWalkAreTracedAndMeasured(t *testing.T) {
	t.Parallel()
	r := newRecorder(t)
	require.NoError(t, demo(context.Background(), r.tp, r.mp))

	call := r.span(t, "ugc.Posts")
	walk := r.span(t, "ugc.AllPosts")
	for _, s := range []tracetest.SpanStub{call, walk} {
		assert.Equal(t, trace.SpanKindClient, s.SpanKind, s.Name)
		a := attrs(s.Attributes)
		assert.Equal(t, "GET", a["http.request.method"].AsString(), s.Name)
		assert.Equal(t, "127.0.0.1", a["server.address"].AsString(), s.Name)
		assert.NotZero(t, a["server.port"].AsInt64(), s.Name)
		assert.Regexp(t, `^http://127\.0\.0\.1:\d+/v1/posts$`, a["url.full"].AsString(), s.Name)
		assert.Equal(t, int64(200), a["http.response.status_code"].AsInt64(), s.Name)
		assert.Equal(t, codes.Unset, s.Status.Code, s.Name)
		require.Len(t, events(s, eventThrottle), 1, s.Name)
		throttle := events(s, eventThrottle)[0]
		assert.Equal(t, int64(429), throttle["http.response.status_code"].AsInt64())
		assert.Equal(t, "429", throttle["error.type"].AsString())
		assert.Regexp(t, `^http://127\.0\.0\.1:\d+/v1/posts$`, throttle["url.full"].AsString())
	}

	// The call: a 429, then a 200, each an attempt event; the second is a resend.
	attempts := events(call, eventAttempt)
	require.Len(t, attempts, 2)
	assert.Equal(t, int64(429), attempts[0]["http.response.status_code"].AsInt64())
	assert.Equal(t, int64(1), attempts[1]["http.request.resend_count"].AsInt64())
	assert.Equal(t, int64(200), attempts[1]["http.response.status_code"].AsInt64())
	_, hasErrorType := attempts[1]["error.type"]
	assert.False(t, hasErrorType, "a success has no error.type")

	// The walk: 60 posts, its requests and the one throttled retry as events.
	w := attrs(walk.Attributes)
	assert.Equal(t, int64(60), w["ugc.walk.posts"].AsInt64())
	assert.Equal(t, int64(1), w["ugc.walk.retries"].AsInt64())
	walkAttempts := len(events(walk, eventAttempt))
	assert.Equal(t, w["ugc.walk.requests"].AsInt64()+1, int64(walkAttempts), "one attempt event per request, and one per retry")

	rm := r.metrics(t)
	throttles, ok := metricNamed(t, rm, metricThrottle).(metricdata.Sum[int64])
	require.True(t, ok)
	total := int64(0)
	for _, dp := range throttles.DataPoints {
		total += dp.Value
		status, _ := dp.Attributes.Value("http.response.status_code")
		assert.Equal(t, int64(429), status.AsInt64())
	}
	assert.Equal(t, int64(2), total, "one throttle in the call, one in the walk")
	durations, ok := metricNamed(t, rm, "http.client.request.duration").(metricdata.Histogram[float64])
	require.True(t, ok)
	count := uint64(0)
	for _, dp := range durations.DataPoints {
		count += dp.Count
	}
	assert.Equal(t, uint64(2+walkAttempts), count, "one duration per attempt")

	assertNoKey(t, r)
}

// TestFailuresAreTracedWithoutTheKey: a server that echoes the key in its
// error message, and a gateway that writes it into next before the
// connection drops: the spans say what failed (error.type, status) and
// hold the key nowhere.
func TestFailuresAreTracedWithoutTheKey(t *testing.T) {
	t.Parallel()
	r := newRecorder(t)
	h, err := ugctest.NewHandler(ugctest.Generate(5, 1), apiKey)
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	next, err := json.Marshal(srv.URL + "/v1/posts?limit=1&skip=1&key=" + url.QueryEscape(apiKey))
	require.NoError(t, err)
	page := fmt.Sprintf(`{"count":3,"next":%s,"nodes":[{"id":"p1","createdAt":"2024-01-02T03:04:05Z","media":{"location":"m"},"taggedProducts":[]}]}`, next)
	for _, rule := range []ugctest.Rule{
		{Endpoint: ugctest.EndpointInbox, Fault: ugctest.ErrorResponse(500, "upstream refused key "+apiKey)},
		{Endpoint: ugctest.EndpointPosts, Times: 1, Fault: ugctest.Respond(200, page)},
		{Endpoint: ugctest.EndpointPosts, Fault: ugctest.DropConnection()},
	} {
		_, err := h.AddRule(rule)
		require.NoError(t, err)
	}
	base, err := url.Parse(srv.URL)
	require.NoError(t, err)
	tel, err := NewTelemetry(r.tp, r.mp, base)
	require.NoError(t, err)
	client, err := ugc.NewClient(srv.URL, apiKey, ugc.WithAttemptObserver(tel.Observe), ugc.WithRetryMax(1), ugc.WithRetryWait(0, 0))
	require.NoError(t, err)

	ctx, span, traceparent := tel.Start(context.Background(), "ugc.Inbox")
	_, err = client.Inbox(ctx, nil, traceparent)
	require.ErrorIs(t, err, ugc.ErrServer)
	tel.End(span, err)

	ctx, span, traceparent = tel.Start(context.Background(), "ugc.AllPosts")
	var sum ugc.WalkSummary
	// The walk sends its own query on every request (here a market that
	// echoes the key), never what a next link adds beyond the position.
	for _, err = range client.AllPosts(ctx, &ugc.PostsParams{Limit: 1, Market: apiKey}, ugc.WithSummary(&sum), traceparent) {
		if err != nil {
			break
		}
	}
	require.Error(t, err)
	tel.EndWalk(span, sum, err)

	inbox := r.span(t, "ugc.Inbox")
	assert.Equal(t, codes.Error, inbox.Status.Code)
	assert.Contains(t, inbox.Status.Description, "upstream refused key [redacted]")
	assert.Equal(t, "500", attrs(inbox.Attributes)["error.type"].AsString())
	assert.Len(t, events(inbox, eventAttempt), 2)
	assert.Empty(t, events(inbox, eventThrottle), "a 500 is no throttle")

	walk := r.span(t, "ugc.AllPosts")
	assert.Equal(t, codes.Error, walk.Status.Code)
	assert.Equal(t, "transport", attrs(walk.Attributes)["error.type"].AsString())
	assert.Contains(t, walk.Status.Description, "[redacted]", "the walk's query's echo of the key, masked in the transport's error")
	assertNoKey(t, r)
}

// TestRunExportsToStdout: the program itself, with the stdout exporters.
func TestRunExportsToStdout(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out))
	for _, want := range []string{`"ugc.Posts"`, `"ugc.AllPosts"`, `"ugc.throttle"`, `"ugc.client.throttles"`, `"http.client.request.duration"`, `"url.full"`} {
		assert.Contains(t, out.String(), want)
	}
	assert.NotContains(t, strings.ToLower(out.String()), "secret")
}
