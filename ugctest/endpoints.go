package ugctest

import (
	"errors"
	"net/http"

	"github.com/ugcposts/ugc-go/internal/filterrules"
)

// serve answers the API request: auth, route, method, parameters, page
// (shaped by the fault shape).
func (h *Handler) serve(dst []byte, r *http.Request, keyValid bool, shape Fault) response {
	if h.panicHook != nil {
		h.panicHook()
	}
	if !keyValid {
		return errorResponse(dst, http.StatusUnauthorized, MsgUnauthorized)
	}
	kind, gallery := h.route(r.URL.EscapedPath())
	if kind == routeNone {
		return errorResponse(dst, http.StatusNotFound, MsgNotFound)
	}
	if r.Method != http.MethodGet {
		return errorResponse(dst, http.StatusMethodNotAllowed, MsgMethodNotAllowed)
	}
	q, msg := parseQuery(r.URL.RawQuery)
	if msg != "" {
		return errorResponse(dst, http.StatusBadRequest, msg)
	}
	limit, skip, msg := pagingParams(q)
	if msg != "" {
		return errorResponse(dst, http.StatusBadRequest, msg)
	}
	p := pageRequest{limit: limit, skip: skip, market: -1}
	if kind != routeInbox {
		if kind == routePosts {
			if p.labels, msg = includeParam(q); msg != "" {
				return errorResponse(dst, http.StatusBadRequest, msg)
			}
			f, err := parseFilter(q.Get("filter"))
			if err != nil {
				var fe *filterrules.Error
				if errors.As(err, &fe) {
					return errorResponse(dst, http.StatusBadRequest, fe.Message)
				}
				return errorResponse(dst, http.StatusBadRequest, err.Error())
			}
			p.filter = f
		}
		if m := q.Get("market"); m != "" {
			mi, ok := h.data.market(m)
			if !ok {
				return errorResponse(dst, http.StatusBadRequest, "Market "+m+" not found")
			}
			p.market = mi
		}
	}
	return h.servePage(dst, r, q, kind, gallery, p, shape)
}

// pageRequest is a list request's checked parameters.
type pageRequest struct {
	limit, skip int
	market      int // -1: none
	labels      bool
	filter      []filterrules.Label
}
