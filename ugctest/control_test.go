package ugctest_test

import (
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ugcposts/ugc-go/ugctest"
)

// control sends a control API request the way a test in another language
// would: plain HTTP, a JSON body as text, the key in x-api-key.
func control(t *testing.T, srv *ugctest.Server, method, route, body string) answer {
	t.Helper()
	return send(t, method, srv.URL+ugctest.ControlPath+route, &srv.APIKey, body)
}

func TestControlAPIRules(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t, ugctest.WithControlAPI(), ugctest.WithBasePath("/api"))

	a := control(t, srv, http.MethodPost, "/rules", `{"name":"gallery outage","endpoint":"gallery","times":2,
		"fault":{"kind":"respond","status":503,"body":"\"Service unavailable\"","header":{"Retry-After":["1"]}}}`)
	require.Equal(t, http.StatusCreated, a.status, a.body)
	var created ugctest.RuleStatus
	require.NoError(t, json.Unmarshal([]byte(a.body), &created))
	assert.Equal(t, "gallery outage", created.Rule.Name)
	assert.Equal(t, ugctest.FaultRespond, created.Rule.Fault.Kind)

	assert.Equal(t, http.StatusOK, get(t, srv, "/v1/posts?limit=1").status)
	for range 2 {
		g := get(t, srv, "/v1/galleries/summer/posts")
		assert.Equal(t, http.StatusServiceUnavailable, g.status)
		assert.Equal(t, `"Service unavailable"`, g.body)
		assert.Equal(t, "1", g.header.Get("Retry-After"))
	}
	assert.Equal(t, http.StatusOK, get(t, srv, "/v1/galleries/summer/posts").status, "fired its two times")

	a = control(t, srv, http.MethodGet, "/rules", "")
	require.Equal(t, http.StatusOK, a.status)
	var rules []map[string]any
	require.NoError(t, json.Unmarshal([]byte(a.body), &rules))
	require.Len(t, rules, 1)
	assert.EqualValues(t, 3, rules[0]["matched"])
	assert.EqualValues(t, 2, rules[0]["fired"])
	assert.Equal(t, true, rules[0]["done"])

	id := created.ID
	assert.Equal(t, http.StatusNoContent, control(t, srv, http.MethodDelete, "/rules/"+itoa(id), "").status)
	assert.Equal(t, http.StatusNotFound, control(t, srv, http.MethodDelete, "/rules/"+itoa(id), "").status)
	assert.Empty(t, srv.Rules())

	for body, want := range map[string]string{
		`{"endpoint":"galleries","fault":{"kind":"internal-error"}}`: "unknown endpoint",
		`{"fault":{"kind":"explode"}}`:                               "unknown fault kind",
		`{"fault":{"kind":"internal-error"},"tims":2}`:               "unknown field",
		`{"fault":{"kind":"stall","stall":"forever"}}`:               "stall",
		`{"fault":{"kind":"internal-error"}} {}`:                     "trailing data",
		`not json`:                                                   "invalid character",
	} {
		a := control(t, srv, http.MethodPost, "/rules", body)
		assert.Equal(t, http.StatusBadRequest, a.status, body)
		var msg string
		require.NoError(t, json.Unmarshal([]byte(a.body), &msg), "a JSON string: %s", a.body)
		assert.Contains(t, msg, want, body)
	}

	srv.AddRule(ugctest.Rule{Fault: ugctest.InternalError(), Optional: true})
	assert.Equal(t, http.StatusNoContent, control(t, srv, http.MethodDelete, "/rules", "").status)
	assert.Empty(t, srv.Rules())
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestControlAPIDataAndLog(t *testing.T) {
	t.Parallel()
	ds := ugctest.DefaultDataset()
	srv := ugctest.NewServer(t, ugctest.WithDataset(ds), ugctest.WithControlAPI())
	stored := storedIDs(ds)

	post, err := json.Marshal(ugctest.Post{Post: ugctest.NewPost("new-1")})
	require.NoError(t, err)
	assert.Equal(t, http.StatusNoContent, control(t, srv, http.MethodPost, "/posts", `{"at":0,"posts":[`+string(post)+`]}`).status)
	assert.Equal(t, []string{"new-1", stored[0]}, ids(t, page(t, srv, "/v1/posts?limit=2")))

	assert.Equal(t, http.StatusNoContent, control(t, srv, http.MethodPost, "/posts/move", `{"id":"new-1","to":1}`).status)
	assert.Equal(t, []string{stored[0], "new-1"}, ids(t, page(t, srv, "/v1/posts?limit=2")))
	assert.Equal(t, http.StatusNoContent, control(t, srv, http.MethodPost, "/posts/remove", `{"ids":["new-1"]}`).status)
	assert.Equal(t, stored[:2], ids(t, page(t, srv, "/v1/posts?limit=2")))
	a := control(t, srv, http.MethodPost, "/posts/remove", `{"ids":["new-1"]}`)
	assert.Equal(t, http.StatusBadRequest, a.status)
	assert.Contains(t, a.body, "not present")
	assert.Equal(t, http.StatusNoContent, control(t, srv, http.MethodPost, "/posts/shuffle", `{"seed":4}`).status)
	assert.NotEqual(t, stored[:5], ids(t, page(t, srv, "/v1/posts?limit=5")))
	assert.Equal(t, http.StatusNoContent, control(t, srv, http.MethodPut, "/latency", `{"latency":"1ms"}`).status)
	assert.Equal(t, http.StatusBadRequest, control(t, srv, http.MethodPut, "/latency", `{"latency":"-1s"}`).status)
	assert.Equal(t, http.StatusNoContent, control(t, srv, http.MethodPut, "/latency", `{"latency":"0s"}`).status)

	a = control(t, srv, http.MethodGet, "/requests", "")
	require.Equal(t, http.StatusOK, a.status)
	assert.NotContains(t, a.body, srv.APIKey)
	var reqs []map[string]any
	require.NoError(t, json.Unmarshal([]byte(a.body), &reqs))
	require.Len(t, reqs, 4, "the API requests only, never the control ones")
	assert.Equal(t, "/v1/posts", reqs[0]["path"])
	assert.Equal(t, "limit=2", reqs[0]["rawQuery"])
	assert.Equal(t, []any{"[redacted]"}, reqs[0]["header"].(map[string]any)["X-Api-Key"])
	assert.Equal(t, http.StatusNoContent, control(t, srv, http.MethodDelete, "/requests", "").status)
	assert.Empty(t, srv.Requests())
}

func TestControlAPIGuards(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t, ugctest.WithControlAPI())
	wrong := "not-the-key"
	a := fetch(t, http.MethodGet, srv.URL+ugctest.ControlPath+"/rules", &wrong)
	assert.Equal(t, http.StatusUnauthorized, a.status)
	assert.Equal(t, `"No valid API key provided"`, a.body)
	assert.Equal(t, http.StatusUnauthorized, fetch(t, http.MethodPost, srv.URL+ugctest.ControlPath+"/rules", nil).status)
	assert.Equal(t, http.StatusMethodNotAllowed, control(t, srv, http.MethodGet, "/posts/remove", "").status)
	assert.Equal(t, http.StatusMethodNotAllowed, control(t, srv, http.MethodPatch, "/rules", "").status)
	assert.Equal(t, http.StatusNotFound, control(t, srv, http.MethodGet, "/nothing", "").status)
	a = control(t, srv, http.MethodPost, "/posts", `{"posts":[{"post":{"id":"x"}}]}`)
	assert.Equal(t, http.StatusBadRequest, a.status, "an invalid post")
	a = control(t, srv, http.MethodPost, "/rules", `{"name":"`+strings.Repeat("x", 9<<20)+`"}`)
	assert.Equal(t, http.StatusBadRequest, a.status)
	assert.Contains(t, a.body, "larger than")

	plain := ugctest.NewServer(t)
	assert.Equal(t, http.StatusNotFound, get(t, plain, ugctest.ControlPath+"/rules").status, "off unless asked for")
	assert.Empty(t, srv.Requests(), "control requests are not logged")
}

// TestControlAPIRoutes: every method on every route of the control API's
// table (ControlPath's doc) is served, a route of the table asked with
// another method is a 405 with an Allow header, anything else a 404.
func TestControlAPIRoutes(t *testing.T) {
	t.Parallel()
	served := map[string]bool{
		"GET /rules": true, "POST /rules": true, "DELETE /rules": true,
		"GET /requests": true, "DELETE /requests": true, "PUT /latency": true,
		"POST /posts": true, "POST /posts/remove": true, "POST /posts/move": true, "POST /posts/shuffle": true,
	}
	known := []string{"/rules", "/rules/1", "/rules/x", "/requests", "/latency", "/posts", "/posts/remove", "/posts/move", "/posts/shuffle"}
	unknown := []string{"", "/", "/rulesx", "/rules-1", "/request", "/latency/1", "/postsx", "/posts/", "/posts/remove/1", "/nothing"}
	methods := []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch}
	srv := ugctest.NewServer(t, ugctest.WithControlAPI())
	for _, m := range methods {
		for _, route := range known {
			a := control(t, srv, m, route, "")
			switch {
			case served[m+" "+route]:
				assert.NotContains(t, []int{http.StatusNotFound, http.StatusMethodNotAllowed}, a.status, "%s %s is served", m, route)
			case route == "/rules/1" || route == "/rules/x":
				if m == http.MethodDelete {
					assert.Equal(t, http.StatusNotFound, a.status, "%s %s: no such rule", m, route)
					assert.Equal(t, `"Rule not found"`, a.body)
					continue
				}
				fallthrough
			default:
				assert.Equal(t, http.StatusMethodNotAllowed, a.status, "%s %s", m, route)
				assert.NotEmpty(t, a.header.Get("Allow"), "%s %s", m, route)
			}
		}
		for _, route := range unknown {
			if m == http.MethodPost && strings.HasPrefix(route, "/posts") {
				continue // POST /posts... is the data API's, which answers 404 for a route it lacks
			}
			assert.Equal(t, http.StatusNotFound, control(t, srv, m, route, "").status, "%s %s", m, route)
		}
		for _, route := range []string{"/postsx", "/posts/", "/posts/remove/1"} {
			assert.Equal(t, http.StatusNotFound, control(t, srv, http.MethodPost, route, "{}").status, "POST %s", route)
		}
	}
}

// TestControlAPIQuota sets, reads, refuses and lifts a quota over HTTP.
func TestControlAPIQuota(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t, ugctest.WithControlAPI())
	a := control(t, srv, http.MethodGet, "/quota", "")
	require.Equal(t, http.StatusOK, a.status)
	assert.Equal(t, "null", a.body)

	require.Equal(t, http.StatusNoContent, control(t, srv, http.MethodPut, "/quota", `{"rps":0.5,"burst":1}`).status)
	q, ok := srv.Quota()
	require.True(t, ok)
	assert.Equal(t, ugctest.QuotaConfig{RPS: 0.5, Burst: 1}, q)
	assert.Equal(t, http.StatusOK, get(t, srv, "/v1/posts?limit=1").status)
	over := get(t, srv, "/v1/posts?limit=1")
	assert.Equal(t, http.StatusTooManyRequests, over.status)
	assert.Equal(t, `"Too many requests"`, over.body)
	assert.Equal(t, "2", over.header.Get("Retry-After"))
	assert.Equal(t, `"quota";q=1;w=2`, over.header.Get("RateLimit-Policy"))
	assert.Equal(t, http.StatusOK, control(t, srv, http.MethodGet, "/requests", "").status, "control requests are not counted")

	for _, body := range []string{`{"rps":0,"burst":1}`, `{"rps":5,"burst":0}`, `{"rps":5}`, `{"rate":5,"burst":1}`, `not json`} {
		a := control(t, srv, http.MethodPut, "/quota", body)
		assert.Equal(t, http.StatusBadRequest, a.status, body)
	}
	q, _ = srv.Quota()
	assert.Equal(t, ugctest.QuotaConfig{RPS: 0.5, Burst: 1}, q, "a refused change changes nothing")

	require.Equal(t, http.StatusNoContent, control(t, srv, http.MethodPut, "/quota", `{"rps":0.5,"burst":1,"retryAfterOnly":true}`).status)
	a = control(t, srv, http.MethodGet, "/quota", "")
	assert.JSONEq(t, `{"rps":0.5,"burst":1,"retryAfterOnly":true}`, a.body)
	assert.Equal(t, http.StatusOK, get(t, srv, "/v1/posts?limit=1").status)
	over = get(t, srv, "/v1/posts?limit=1")
	assert.Equal(t, http.StatusTooManyRequests, over.status)
	assert.Equal(t, "2", over.header.Get("Retry-After"))
	assert.Empty(t, over.header.Get("RateLimit-Policy"), "Retry-After alone")
	assert.Empty(t, over.header.Get("X-RateLimit-Remaining"), "Retry-After alone")

	require.Equal(t, http.StatusNoContent, control(t, srv, http.MethodDelete, "/quota", "").status)
	_, ok = srv.Quota()
	assert.False(t, ok)
	assert.Equal(t, http.StatusOK, get(t, srv, "/v1/posts?limit=1").status)
	assert.Equal(t, http.StatusMethodNotAllowed, control(t, srv, http.MethodPost, "/quota", "{}").status)
}

func TestWithQuotaRefusesBadValues(t *testing.T) {
	t.Parallel()
	for _, q := range []ugctest.QuotaConfig{
		{RPS: 0, Burst: 1}, {RPS: -1, Burst: 1}, {RPS: 1, Burst: 0}, {RPS: math.NaN(), Burst: 1}, {RPS: 2e6, Burst: 1},
		{RPS: 1e-12, Burst: 1}, // its wait for a token overflowed a time.Duration: Retry-After: 1, a negative window
	} {
		_, err := ugctest.NewHandler(nil, "k", ugctest.WithQuota(q.RPS, q.Burst))
		assert.Error(t, err, "%+v", q)
	}
	// the least rate: its wait and window still told whole
	slowest := ugctest.NewServer(t, ugctest.WithQuota(1e-6, 1))
	assert.Equal(t, http.StatusOK, get(t, slowest, "/v1/posts?limit=1").status)
	refused := get(t, slowest, "/v1/posts?limit=1")
	assert.Equal(t, http.StatusTooManyRequests, refused.status)
	assert.Equal(t, "1000000", refused.header.Get("Retry-After"))
	h, err := ugctest.NewHandler(nil, "k")
	require.NoError(t, err)
	assert.Error(t, h.SetQuota(1, 0))
	_, ok := h.Quota()
	assert.False(t, ok)
}
