package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// TestTheProgramsSpansHoldTheSDKsAttempts: the handler's span holds the
// call's two attempts (a 429, then a 200), the job's span one attempt per
// request of the walk and its retry; the duration metric counts them all;
// nothing exported shows the key.
func TestTheProgramsSpansHoldTheSDKsAttempts(t *testing.T) {
	t.Parallel()
	spans, reader := tracetest.NewInMemoryExporter(), sdkmetric.NewManualReader()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer func() { _ = tp.Shutdown(context.Background()); _ = mp.Shutdown(context.Background()) }()
	require.NoError(t, demo(context.Background(), tp, mp))

	byName := map[string]tracetest.SpanStub{}
	children := map[trace.SpanID][]tracetest.SpanStub{}
	for _, s := range spans.GetSpans() {
		byName[s.Name] = s
		children[s.Parent.SpanID()] = append(children[s.Parent.SpanID()], s)
	}
	feed, export := byName["GET /feed"], byName["export"]
	call := children[feed.SpanContext.SpanID()]
	require.Len(t, call, 2, "the call's two attempts")
	assert.Equal(t, "GET /v1/posts", call[0].Name)
	assert.Equal(t, trace.SpanKindClient, call[0].SpanKind)
	walk := children[export.SpanContext.SpanID()]
	throttled := 0
	for _, s := range walk {
		if s.Status.Description != "" {
			throttled++
		}
	}
	assert.GreaterOrEqual(t, len(walk), 7, "the walk's requests (60 posts, 10 a page) and its retry")
	assert.Equal(t, 1, throttled, "the 429 of the walk's third request")

	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(context.Background(), &rm))
	exported, err := json.Marshal(struct {
		Spans   any
		Metrics any
	}{spans.GetSpans(), rm})
	require.NoError(t, err)
	assert.Contains(t, string(exported), "http.client.request.duration")
	assert.NotContains(t, strings.ToLower(string(exported)+fmt.Sprintf("%+v", spans.GetSpans())), "secret")
}

// TestRunExportsToStdout: the program as CI runs it writes spans and metrics.
func TestRunExportsToStdout(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out))
	assert.Contains(t, out.String(), `"Name": "GET /v1/posts"`)
	assert.Contains(t, out.String(), "http.client.request.duration")
	assert.NotContains(t, strings.ToLower(out.String()), "secret")
}
