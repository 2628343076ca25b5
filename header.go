package ugc

import (
	"fmt"
	"net/http"
)

// reservedHeader says why a header name is not one [WithHeader] may set,
// naming what sets it instead; nil for any other name. k is canonical.
func reservedHeader(k string) error {
	switch k {
	case canonicalKeyHeader:
		return fmt.Errorf("WithHeader: the %s header carries the API key given to NewClient, and only to the base URL's origin", apiKeyHeader)
	case "User-Agent":
		return fmt.Errorf("WithHeader: the User-Agent is the client's (%q); append to it with WithUserAgent", "ugc-go/"+Version)
	case "Host":
		return fmt.Errorf("WithHeader: the Host is the base URL's; give NewClient another base URL")
	}
	return nil
}

// callHeader is the extra header of one request: the Client's ([WithHeader]
// given to NewClient), with each name the call sets replaced by the call's
// values.
func callHeader(client, call http.Header) http.Header {
	if len(client) == 0 {
		return call
	}
	if len(call) == 0 {
		return client
	}
	out := make(http.Header, len(client)+len(call))
	for k, vs := range client {
		out[k] = vs
	}
	for k, vs := range call {
		out[k] = vs
	}
	return out
}
