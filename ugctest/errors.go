package ugctest

// Messages of the error bodies, each sent as a JSON string.
const (
	MsgUnauthorized     = "No valid API key provided"
	MsgInternal         = "Something went wrong"
	MsgTooManyRequests  = "Too many requests"
	MsgNotFound         = "Not found"
	MsgMethodNotAllowed = "Method not allowed"
	MsgGalleryNotFound  = "Gallery not found"
	MsgLimit            = "limit must be an integer of at least 1"
	MsgSkip             = "skip must be an integer of at least 0"
	MsgIncludeEmpty     = "include must not be empty"
)

// errorResponse is status with msg as a JSON string.
func errorResponse(dst []byte, status int, msg string) response {
	return response{status: status, body: appendJSONString(dst, msg)}
}
