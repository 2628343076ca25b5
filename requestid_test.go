package ugc

// Tests of the request ID: one way to read it from any error a call
// returns (RequestID), and the same ID in the error's text, the attempt's
// log line and the observer's AttemptInfo, masked like everything else.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// failureKinds are the ways a call ends with an answer that carried a
// request ID: each answers with header k = id, and returns the call's
// options.
var failureKinds = map[string]func(k, id string) ([]func(*http.Request) (*http.Response, error), []Option){
	"APIError": func(k, id string) ([]func(*http.Request) (*http.Response, error), []Option) {
		return []func(*http.Request) (*http.Response, error){withHeader(reply(http.StatusNotFound, `"Gallery not found"`), k, id)}, nil
	},
	"DecodeError": func(k, id string) ([]func(*http.Request) (*http.Response, error), []Option) {
		return []func(*http.Request) (*http.Response, error){withHeader(reply(http.StatusOK, `<html>maintenance</html>`), k, id)}, nil
	},
	"ThrottleError": func(k, id string) ([]func(*http.Request) (*http.Response, error), []Option) {
		throttle := withHeader(withHeader(reply(http.StatusTooManyRequests, `"Too many requests"`), "Retry-After", "60"), k, id)
		return []func(*http.Request) (*http.Response, error){throttle}, []Option{WithThrottleBudget(time.Second)}
	},
	"retries exhausted": func(k, id string) ([]func(*http.Request) (*http.Response, error), []Option) {
		return []func(*http.Request) (*http.Response, error){withHeader(reply(http.StatusBadGateway, `"bad gateway"`), k, id)}, []Option{WithRetryMax(2)}
	},
}

// withHeader adds a header to a scripted answer.
func withHeader(step func(*http.Request) (*http.Response, error), k, v string) func(*http.Request) (*http.Response, error) {
	return func(r *http.Request) (*http.Response, error) {
		resp, err := step(r)
		if resp != nil {
			resp.Header.Set(k, v)
		}
		return resp, err
	}
}

// TestRequestIDReachesEveryReader: for generated request IDs, in every
// header the SDK reads them from, on every kind of failed call, the ID
// (the key masked where a server echoed it) is what RequestID returns
// from the error as returned and wrapped again, what the error's text
// quotes, what the final attempt's log line has as request_id and what
// the observer's AttemptInfo holds; the key is in none of them.
func TestRequestIDReachesEveryReader(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(49, 4))
	for i := range 60 {
		header := requestIDHeaders[r.IntN(len(requestIDHeaders))]
		id := fmt.Sprintf("%s-%x", []string{"edge", "req", "8a1b", "lb"}[r.IntN(4)], r.Uint64())
		if r.IntN(4) == 0 {
			id += "-" + retryTestKey // a server that echoes the key in its ID
		}
		for kind, script := range failureKinds {
			t.Run(fmt.Sprintf("%d/%s/%s", i, header, kind), func(t *testing.T) {
				t.Parallel()
				steps, opts := script(header, id)
				h := &recordingHandler{}
				var infos []AttemptInfo
				opts = append(opts, WithLogger(slog.New(h)), WithAttemptObserver(func(_ context.Context, a AttemptInfo) { infos = append(infos, a) }))
				c := newScriptedClient(t, &scripted{steps: steps}, opts...)

				_, err := c.GalleryPosts(context.Background(), "summer", nil)
				require.Error(t, err)
				got := RequestID(err)
				require.NotEmpty(t, got)
				if !strings.Contains(id, retryTestKey) {
					assert.Equal(t, id, got)
				}
				assert.NotContains(t, got, retryTestKey)
				assert.Equal(t, got, RequestID(fmt.Errorf("handler: %w", err)), "through any wrap")
				assert.Contains(t, err.Error(), "(request ID "+got+")")
				assert.NotContains(t, err.Error(), retryTestKey)

				require.NotEmpty(t, h.records)
				last := attrs(h.records[len(h.records)-1])
				assert.Equal(t, got, last["request_id"])
				require.NotEmpty(t, infos)
				assert.Equal(t, got, infos[len(infos)-1].RequestID)
				for _, rec := range h.records {
					assert.NotContains(t, fmt.Sprint(attrs(rec)), retryTestKey)
				}
			})
		}
	}
}

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
		"ThrottleError, nothing sent": {&ThrottleError{Wait: time.Minute}, ""},
		"abandoned":                   {abandoned("/v1/posts", context.DeadlineExceeded, api), "edge-1"},
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

// TestRateLimitFieldsAreLoggedWhenTheAnswerSaidThem: ratelimit_remaining
// is on a line only when the answer said how many requests remain (0
// included), never as -1 for "not sent"; ratelimit_rate only when it sent
// its policy.
func TestRateLimitFieldsAreLoggedWhenTheAnswerSaidThem(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		header             http.Header
		remaining, hasRate bool
	}{
		"Retry-After only":      {http.Header{"Retry-After": {"0"}}, false, false},
		"X-RateLimit-Remaining": {http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Limit": {"10"}}, true, false},
		"a policy and its rest": {http.Header{"Ratelimit-Policy": {`"default";q=100;w=60`}, "Ratelimit": {`"default";r=40;t=30`}}, true, true},
		"a policy alone":        {http.Header{"Ratelimit-Policy": {`"default";q=100;w=60`}}, false, true},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := &recordingHandler{}
			answer := func(r *http.Request) (*http.Response, error) {
				resp, err := reply(http.StatusOK, retryTestPage)(r)
				for k, vs := range tc.header {
					resp.Header[k] = vs
				}
				return resp, err
			}
			c := newScriptedClient(t, &scripted{steps: []func(*http.Request) (*http.Response, error){answer}}, WithLogger(slog.New(h)))
			_, err := c.Posts(context.Background(), nil)
			require.NoError(t, err)
			require.NotEmpty(t, h.records)
			a := attrs(h.records[0])
			remaining, ok := a["ratelimit_remaining"]
			assert.Equal(t, tc.remaining, ok, "ratelimit_remaining=%q", remaining)
			assert.NotEqual(t, "-1", remaining)
			_, ok = a["ratelimit_rate"]
			assert.Equal(t, tc.hasRate, ok)
		})
	}
}
