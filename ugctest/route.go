package ugctest

import (
	"net/url"
	"strings"
)

// endpoint kinds.
const (
	routeNone = iota
	routePosts
	routeGallery
	routeInbox
)

// route maps an escaped path to an endpoint; gallery is the decoded
// shortId. Each segment is decoded on its own, so "/v1/%70osts" is the
// posts list and a shortId may hold an escaped "/".
func (h *Handler) route(escaped string) (kind int, gallery string) {
	rest, ok := strings.CutPrefix(escaped, h.basePath)
	if !ok {
		return routeNone, ""
	}
	var seg [5]string
	n := 0
	for s := range strings.SplitSeq(rest, "/") {
		if n == len(seg) {
			return routeNone, ""
		}
		u, err := url.PathUnescape(s)
		if err != nil {
			return routeNone, ""
		}
		seg[n] = u
		n++
	}
	if seg[0] != "" || seg[1] != "v1" {
		return routeNone, ""
	}
	switch {
	case n == 3 && seg[2] == "posts":
		return routePosts, ""
	case n == 3 && seg[2] == "inbox":
		return routeInbox, ""
	case n == 5 && seg[2] == "galleries" && seg[3] != "" && seg[4] == "posts":
		return routeGallery, seg[3]
	}
	return routeNone, ""
}
