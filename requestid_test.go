package ugc

// Tests of the request ID: one way to read it from any error a call
// returns (RequestID), and the same ID in the error's text.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestRequestIDOfTheThreeErrorTypes: each has the method, RequestID reads
// it through any wrap, and an error without an answer has none.
func TestRequestIDOfTheThreeErrorTypes(t *testing.T) {
	t.Parallel()
	h := http.Header{"X-Request-Id": {"edge-1"}}
	api := &APIError{Method: "GET", Endpoint: "/v1/posts", StatusCode: 429, Message: "slow down", Header: h}
	dec := &DecodeError{Method: "GET", Endpoint: "/v1/posts", StatusCode: 200, Err: errors.New("eof"), Header: h}
	for name, tc := range map[string]struct {
		err  error
		want string
	}{
		"APIError":                    {api, "edge-1"},
		"DecodeError":                 {dec, "edge-1"},
		"ThrottleError":               {&ThrottleError{Err: api, Wait: time.Minute}, "edge-1"},
		"abandoned":                   {abandoned("/v1/posts", context.DeadlineExceeded, api), "edge-1"},
		"ThrottleError, nothing sent": {&ThrottleError{Wait: time.Minute}, ""},
		"retry budget":                {fmt.Errorf("%w: %w", ErrRetryBudgetExhausted, dec), "edge-1"},
		"a transport error":           {fmt.Errorf("ugc: GET /v1/posts: %w", errors.New("connection reset")), ""},
		"nil":                         {nil, ""},
		"an answer without an ID":     {&APIError{StatusCode: 500, Header: http.Header{}}, ""},
	} {
		assert.Equal(t, tc.want, RequestID(tc.err), name)
		assert.Equal(t, tc.want, RequestID(fmt.Errorf("wrapped: %w", tc.err)), name)
	}
	assert.Equal(t, "edge-1", api.RequestID())
	assert.Equal(t, "edge-1", dec.RequestID())
	assert.Equal(t, "ugc: GET /v1/posts: 429 Too Many Requests (request ID edge-1): slow down", api.Error())
	assert.Equal(t, `ugc: GET /v1/posts: 200 (request ID edge-1): invalid response: eof (body starts "")`, dec.Error())
	assert.Equal(t, "ugc: GET /v1/posts: 429 Too Many Requests: slow down", (&APIError{Method: "GET", Endpoint: "/v1/posts", StatusCode: 429, Message: "slow down"}).Error(),
		"no ID, no note")
}
