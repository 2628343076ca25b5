package gallerysvc

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/otelugc"
	"github.com/ugcposts/ugc-go/ugctest"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// service is the handler under test, the fake API behind it, its log and
// its spans.
type service struct {
	h     http.Handler
	api   *ugctest.Server
	log   *bytes.Buffer
	spans *tracetest.InMemoryExporter
	tp    *sdktrace.TracerProvider
}

func newService(t *testing.T) *service {
	t.Helper()
	s := &service{api: ugctest.NewServer(t, ugctest.WithDataset(ugctest.Generate(120, 1))), log: &bytes.Buffer{}, spans: tracetest.NewInMemoryExporter()}
	s.tp = sdktrace.NewTracerProvider(sdktrace.WithSyncer(s.spans))
	logger := slog.New(slog.NewJSONHandler(s.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	api := s.api.Client(ugc.WithLogger(logger), otelugc.Instrument(s.api.URL, otelugc.WithTracerProvider(s.tp)))
	s.h = New(api, logger)
	return s
}

// get serves GET path within a span of the test, as a traced server would.
func (s *service) get(t *testing.T, path string) *httptest.ResponseRecorder {
	t.Helper()
	ctx, span := s.tp.Tracer("test").Start(context.Background(), "GET /gallery/{id}")
	defer span.End()
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil).WithContext(ctx))
	return rec
}

func TestPagesThroughAGalleryWithCursors(t *testing.T) {
	s := newService(t)
	var want []string
	for p, err := range s.api.Client().AllGalleryPosts(context.Background(), "summer", nil) {
		require.NoError(t, err)
		want = append(want, p.ID)
	}
	require.Greater(t, len(want), PageSize, "more than one page")

	before := len(s.api.Requests())
	var got []string
	path := "/gallery/summer"
	for pages := 0; ; pages++ {
		require.Less(t, pages, 100)
		rec := s.get(t, path)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		var page Page
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &page))
		for _, p := range page.Posts {
			got = append(got, p.ID)
		}
		if page.Next == "" {
			break
		}
		path = "/gallery/summer?cursor=" + url.QueryEscape(page.Next)
	}
	assert.Equal(t, want, got, "every post once, in order")

	for _, req := range s.api.Requests()[before:] {
		assert.NotEmpty(t, req.Header.Get("Traceparent"), "the trace goes upstream (W3C by default)")
	}
	assert.NotEmpty(t, s.spans.GetSpans())
}

func TestErrorsMapToTheRightStatus(t *testing.T) {
	t.Run("a forged cursor is the caller's 400", func(t *testing.T) {
		s := newService(t)
		rec := s.get(t, "/gallery/summer?cursor=AAAAAAAAAAAAAAAAAAAAAA")
		assert.Equal(t, http.StatusBadRequest, rec.Code)
		assert.Empty(t, s.api.Requests(), "refused before any request")
	})
	t.Run("an unknown gallery is a 404", func(t *testing.T) {
		s := newService(t)
		assert.Equal(t, http.StatusNotFound, s.get(t, "/gallery/no-such-gallery").Code)
	})
	t.Run("a quota wait past the budget is a 503 with Retry-After, at once", func(t *testing.T) {
		s := newService(t)
		s.api.FailNext(1, ugctest.RateLimit("60"))
		start := time.Now()
		rec := s.get(t, "/gallery/summer")
		assert.Equal(t, http.StatusServiceUnavailable, rec.Code)
		assert.Equal(t, "60", rec.Header().Get("Retry-After"))
		assert.Less(t, time.Since(start), 30*time.Second, "not the minute the server named")
	})
	t.Run("an upstream outage is a 502, its request ID in the log and on the span", func(t *testing.T) {
		s := newService(t)
		s.api.FailNext(5, ugctest.ErrorResponse(http.StatusInternalServerError, "Something went wrong").WithHeader("X-Request-Id", "edge-1"))
		rec := s.get(t, "/gallery/summer")
		assert.Equal(t, http.StatusBadGateway, rec.Code)
		assert.NotContains(t, rec.Body.String(), "edge-1", "upstream details stay in the log")
		assert.Contains(t, s.log.String(), `"upstream_request_id":"edge-1"`)
		assert.Contains(t, s.log.String(), `"request_id":"edge-1"`, "the SDK's own attempt lines")
		found := false
		for _, span := range s.spans.GetSpans() {
			for _, kv := range span.Attributes {
				found = found || string(kv.Key) == otelugc.AttributeRequestID && kv.Value.AsString() == "edge-1"
			}
		}
		assert.True(t, found, "the attempt's span has the request ID")
		for _, req := range s.api.Requests() {
			assert.Equal(t, "edge-1", req.ID, "the fake's log says the ID the client saw")
		}
	})
}

func TestNewClientBuildsTheProductionClient(t *testing.T) {
	c, err := NewClient("https://api.example.com", "key", slog.Default())
	require.NoError(t, err)
	assert.NotNil(t, c)
	_, err = NewClient("api.example.com", "key", slog.Default())
	assert.ErrorIs(t, err, ugc.ErrMisuse, "a deploy's bad base URL is the service's own bug")
}
