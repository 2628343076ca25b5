package ugctest

import (
	"net/textproto"
	"strconv"
)

// requestIDHeader is the header that carries the ID the fake gives each
// answer: the first one ugc's RequestID methods read.
const requestIDHeader = "X-Request-Id"

// requestID returns the request ID of the answer f writes: the first
// X-Request-Id its Header sets (a Respond fault's own, in any case of the
// name), which replaces id, the handler's, in the answer.
func (f Fault) requestID(id string) string {
	for k, vs := range f.Header {
		if textproto.CanonicalMIMEHeaderKey(k) == requestIDHeader && len(vs) > 0 {
			return vs[0]
		}
	}
	return id
}

// nextRequestID returns the ID of the handler's next answer: "ugcfake-1",
// "ugcfake-2", ... in the order requests arrive, so that a test can tell
// which answer an error came from and find it in the request log.
func (h *Handler) nextRequestID() string {
	return "ugcfake-" + strconv.FormatUint(h.requestIDs.Add(1), 10)
}
