// Package gallerysvc is the install check's consumer: a service that
// serves GET /gallery/{id}?cursor= from the Content Posts Read API, as a
// newcomer would write it from ugc-go's docs, with a throttle budget, slog
// and OpenTelemetry. It lives outside the library's module (.ci/ is not
// part of ./...) and is built against the release's modules at their
// version, with no replace line.
package gallerysvc

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/otelugc"
)

// PageSize is the number of posts a page of the service holds.
const PageSize = 10

// Budget is how long a request may wait for the upstream quota: a
// handler's bound, not a batch job's five minutes.
const Budget = 2 * time.Second

// NewClient returns the upstream client of the service: its log lines go
// to logger, its attempts are traced and measured with OpenTelemetry's
// global providers.
func NewClient(baseURL, key string, logger *slog.Logger) (*ugc.Client, error) {
	return ugc.NewClient(baseURL, key, ugc.WithLogger(logger), otelugc.Instrument(baseURL), ugc.WithThrottleBudget(Budget))
}

// Handler serves the gallery pages.
type Handler struct {
	api    *ugc.Client
	logger *slog.Logger
	mux    *http.ServeMux
}

// New returns the service's handler over api.
func New(api *ugc.Client, logger *slog.Logger) *Handler {
	h := &Handler{api: api, logger: logger, mux: http.NewServeMux()}
	h.mux.HandleFunc("GET /gallery/{id}", h.gallery)
	return h
}

// ServeHTTP routes a request.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// Post is a post as the service shows it.
type Post struct {
	ID      string `json:"id"`
	Caption string `json:"caption,omitempty"`
	Media   string `json:"media"`
}

// Page is the service's answer: a page of posts and the cursor of the
// next one ("" after the last).
type Page struct {
	Posts []Post `json:"posts"`
	Next  string `json:"next,omitempty"`
}

func (h *Handler) gallery(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	opts := append([]ugc.Option{ugc.WithCursor(r.URL.Query().Get("cursor")), ugc.WithThrottleBudget(Budget)}, otelugc.Propagate(ctx)...)
	page, err := h.api.GalleryPosts(ctx, r.PathValue("id"), &ugc.GalleryPostsParams{Limit: PageSize}, opts...)
	if err != nil {
		h.fail(ctx, w, err)
		return
	}
	next, err := page.Cursor()
	if err != nil {
		h.fail(ctx, w, err)
		return
	}
	out := Page{Posts: make([]Post, 0, len(page.Nodes)), Next: next}
	for _, p := range page.Nodes {
		post := Post{ID: p.ID, Media: p.Media.Location}
		if p.HideCaption == nil || !*p.HideCaption {
			post.Caption = p.Comment
		}
		out.Posts = append(out.Posts, post)
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

// fail answers the error of an upstream call: the caller's bad input is
// its 400, the service's own bug a 500, a quota wait past the budget a
// 503 with the wait to retry after, an unknown gallery a 404, anything
// else upstream a 502. The upstream error and its request ID go to the
// log, never to the caller.
func (h *Handler) fail(ctx context.Context, w http.ResponseWriter, err error) {
	status := http.StatusBadGateway
	var throttled *ugc.ThrottleError
	switch {
	case errors.Is(err, ugc.ErrInvalidParams):
		status = http.StatusBadRequest
	case errors.Is(err, ugc.ErrMisuse):
		status = http.StatusInternalServerError
	case errors.As(err, &throttled):
		status = http.StatusServiceUnavailable
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(throttled.Wait.Seconds()))))
	case errors.Is(err, ugc.ErrNotFound):
		status = http.StatusNotFound
	case errors.Is(err, context.DeadlineExceeded):
		status = http.StatusGatewayTimeout
	}
	h.logger.LogAttrs(ctx, slog.LevelError, "gallery: upstream call failed",
		slog.Int("status", status), slog.String("upstream_request_id", ugc.RequestID(err)), slog.String("error", err.Error()))
	http.Error(w, http.StatusText(status), status)
}
