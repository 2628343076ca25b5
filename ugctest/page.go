package ugctest

import (
	"net"
	"net/http"
	"net/url"
	"strconv"
)

// servePage answers a list request whose parameters are checked: the list
// (a gallery, the inbox, the posts filtered or not), the page of it that
// shape plans (the contract's, or a misbehaving server's), then its JSON.
func (h *Handler) servePage(dst []byte, r *http.Request, q url.Values, kind int, gallery string, p pageRequest, shape Fault) response {
	h.data.mu.RLock()
	defer h.data.mu.RUnlock()
	var (
		refs   []ref
		base   int            // the position in the list of refs[0]
		filter compiledFilter // nil: the list is not filtered
		total  int
		err    error
	)
	switch kind {
	case routeInbox:
		total = len(h.data.inbox)
	case routeGallery:
		refs, err = h.data.galleryRefs(gallery)
		if err != nil {
			return errorResponse(dst, http.StatusNotFound, MsgGalleryNotFound)
		}
		total = len(refs)
	case routePosts:
		refs, total = h.data.order, len(h.data.order)
		if len(p.filter) > 0 {
			filter = h.data.compile(p.filter)
			_, total = h.data.filtered(filter, 0, 0)
		}
	}
	pg := planPage(total, p.skip, p.limit, shape)
	if filter != nil { // refs is the page alone
		refs, _ = h.data.filtered(filter, pg.from, pg.len())
		base = pg.from
	}
	dst = append(dst, `{"count":`...)
	dst = strconv.AppendInt(dst, int64(total), 10)
	dst = append(dst, `,"next":`...)
	if pg.next >= 0 {
		dst = appendJSONString(dst, h.nextURL(r, q, kind, gallery, pg.next, p.limit, pg.nextForm))
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"nodes":[`...)
	for k := range pg.len() {
		if k > 0 {
			dst = append(dst, ',')
		}
		if dst, err = h.appendNode(dst, kind, refs, pg.at(k)-base, p, pg.at(k) == pg.odd); err != nil {
			return errorResponse(dst[:0], http.StatusInternalServerError, MsgInternal)
		}
	}
	dst = append(dst, "]}"...)
	return response{status: http.StatusOK, body: dst}
}

// appendNode appends the item at index i of the list: an inbox post, or
// the post refs[i] localized and labelled as p asks; odd sends it with an
// odd member (FaultOddPost).
func (h *Handler) appendNode(dst []byte, kind int, refs []ref, i int, p pageRequest, odd bool) ([]byte, error) {
	start := len(dst)
	var err error
	if kind == routeInbox {
		dst = append(dst, h.data.inbox[i]...)
	} else if dst, err = h.data.appendPost(dst, refs[i], p.market, p.labels); err != nil {
		return dst, err
	}
	if odd {
		return makeOdd(dst, start)
	}
	return dst, nil
}

// nextURL is the URL of the page after the one that ends at skip: the
// request's scheme, host, base path and query, with skip and limit set,
// written in the form a fault asks for (a zero Fault: absolute).
func (h *Handler) nextURL(r *http.Request, q url.Values, kind int, gallery string, skip, limit int, form Fault) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	next := make(url.Values, len(q)+2)
	for k, v := range q {
		next[k] = v
	}
	next["skip"] = []string{strconv.Itoa(skip)}
	next["limit"] = []string{strconv.Itoa(limit)}
	host := r.Host
	if host == "" { // an HTTP/1.0 request without Host: the address it reached
		if addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
			host = addr.String()
		}
	}
	return nextOrigin(scheme, host, form) + escapedPath(h.basePath, kind, gallery, form) + "?" + next.Encode()
}
