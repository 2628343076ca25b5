package ugctest

import "strconv"

// requestIDHeader is the header that carries the ID the fake gives each
// answer: the first one ugc's RequestID methods read.
const requestIDHeader = "X-Request-Id"

// nextRequestID returns the ID of the handler's next answer: "ugcfake-1",
// "ugcfake-2", ... in the order requests arrive, so that a test can tell
// which answer an error came from and find it in the request log.
func (h *Handler) nextRequestID() string {
	return "ugcfake-" + strconv.FormatUint(h.requestIDs.Add(1), 10)
}
