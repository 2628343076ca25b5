package ugctest

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ControlPath is where the control API lives, under the base path: a path
// the contract does not use. [WithControlAPI] turns it on; cmd/ugcfake
// always has it. It lets a test in any language do over HTTP what a Go
// test does with the [Handler]'s methods, with the same API key:
//
//	GET    /_ugcfake/rules            the rules, as []RuleStatus
//	POST   /_ugcfake/rules            add a Rule (its JSON form); 201 with its RuleStatus
//	DELETE /_ugcfake/rules            remove every rule (ClearFaults)
//	DELETE /_ugcfake/rules/{id}       remove one rule
//	GET    /_ugcfake/requests         the request log, as []Request
//	DELETE /_ugcfake/requests         empty the request log
//	POST   /_ugcfake/posts            insert approved posts: {"at": 0, "posts": [Post, ...]}
//	POST   /_ugcfake/posts/remove     {"ids": ["..."]}
//	POST   /_ugcfake/posts/move       {"id": "...", "to": 0}
//	POST   /_ugcfake/posts/shuffle    {"seed": 1}
//	PUT    /_ugcfake/latency          {"latency": "50ms"}
//	GET    /_ugcfake/quota            the quota, as QuotaConfig; null when none
//	PUT    /_ugcfake/quota            {"rps": 20, "burst": 5}: set the quota (see WithQuota);
//	                                  "retryAfterOnly": true for one that says nothing but Retry-After
//	DELETE /_ugcfake/quota            lift the quota
//
// For example, with curl:
//
//	curl -H "x-api-key: $KEY" -d '{"endpoint":"gallery","times":2,
//	  "fault":{"kind":"respond","status":503,"body":"\"Service unavailable\""}}' \
//	  "$URL/_ugcfake/rules"
//
// Errors are 400 (a body that cannot be read, or a change the handler
// refuses), 401, 404 (no such rule or route) and 405, each with a JSON
// string message. Control requests are not logged and no rule matches them.
const ControlPath = "/_ugcfake"

// WithControlAPI serves the control API at [ControlPath].
func WithControlAPI() Option { return func(c *config) { c.control = true } }

// maxControlBody bounds a control request's body.
const maxControlBody = 8 << 20

// controlRequest reports whether r is for the control API, and its route
// after ControlPath.
func (h *Handler) controlRequest(r *http.Request) (string, bool) {
	if !h.control {
		return "", false
	}
	rest, ok := strings.CutPrefix(r.URL.Path, h.basePath+ControlPath)
	if !ok || rest != "" && rest[0] != '/' {
		return "", false
	}
	return rest, true
}

// serveControl answers a control API request.
func (h *Handler) serveControl(w http.ResponseWriter, r *http.Request, route string) {
	if subtle.ConstantTimeCompare([]byte(r.Header.Get("x-api-key")), h.key) != 1 {
		controlAnswer(w, http.StatusUnauthorized, MsgUnauthorized)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxControlBody)
	status, v := h.doControl(r, route)
	controlAnswer(w, status, v)
}

// controlRoutes are the control API's routes, after ControlPath; a
// request for one of them with another method is a 405.
var controlRoutes = []string{"/rules", "/requests", "/latency", "/quota", "/posts", "/posts/remove", "/posts/move", "/posts/shuffle"}

// doControl carries out one control request and returns the answer.
func (h *Handler) doControl(r *http.Request, route string) (int, any) {
	if strings.HasPrefix(route, "/rules/") {
		if r.Method != http.MethodDelete {
			return http.StatusMethodNotAllowed, MsgMethodNotAllowed
		}
		return h.controlRemoveRule(route)
	}
	switch r.Method + " " + route {
	case "GET /rules":
		return http.StatusOK, h.Rules()
	case "POST /rules":
		return h.controlAddRule(r)
	case "DELETE /rules":
		h.ClearFaults()
		return http.StatusNoContent, nil
	case "GET /requests":
		return http.StatusOK, h.Requests()
	case "DELETE /requests":
		h.ResetRequests()
		return http.StatusNoContent, nil
	case "PUT /latency":
		return h.controlSetLatency(r)
	case "GET /quota", "PUT /quota", "DELETE /quota":
		return h.controlQuota(r)
	}
	if r.Method == http.MethodPost && strings.HasPrefix(route, "/posts") {
		return h.controlPosts(r, route)
	}
	if slices.Contains(controlRoutes, route) {
		return http.StatusMethodNotAllowed, MsgMethodNotAllowed
	}
	return http.StatusNotFound, MsgNotFound
}

// controlAddRule adds the rule in the body and answers with its status.
func (h *Handler) controlAddRule(r *http.Request) (int, any) {
	var rule Rule
	if err := readJSON(r, &rule); err != nil {
		return http.StatusBadRequest, err.Error()
	}
	id, err := h.addRule(rule)
	if err != nil {
		return http.StatusBadRequest, err.Error()
	}
	for _, st := range h.Rules() {
		if st.ID == id {
			return http.StatusCreated, st
		}
	}
	return http.StatusCreated, RuleStatus{ID: id, Rule: rule}
}

// controlRemoveRule removes the rule whose ID ends route ("/rules/{id}").
func (h *Handler) controlRemoveRule(route string) (int, any) {
	id, err := strconv.Atoi(route[len("/rules/"):])
	if err != nil || !h.RemoveRule(id) {
		return http.StatusNotFound, "Rule not found"
	}
	return http.StatusNoContent, nil
}

// controlSetLatency sets the latency in the body.
func (h *Handler) controlSetLatency(r *http.Request) (int, any) {
	var v struct {
		Latency string `json:"latency"`
	}
	if err := readJSON(r, &v); err != nil {
		return http.StatusBadRequest, err.Error()
	}
	d, err := time.ParseDuration(v.Latency)
	if err != nil || d < 0 {
		return http.StatusBadRequest, fmt.Sprintf("latency %q is not a duration of at least 0", v.Latency)
	}
	h.SetLatency(d)
	return http.StatusNoContent, nil
}

// controlQuota reads, sets (from the body) or lifts the quota.
func (h *Handler) controlQuota(r *http.Request) (int, any) {
	switch r.Method {
	case http.MethodGet:
		if q, ok := h.Quota(); ok {
			return http.StatusOK, q
		}
		return http.StatusOK, json.RawMessage("null")
	case http.MethodDelete:
		h.ClearQuota()
		return http.StatusNoContent, nil
	}
	var q QuotaConfig
	if err := readJSON(r, &q); err != nil {
		return http.StatusBadRequest, err.Error()
	}
	if err := h.SetQuotaConfig(q); err != nil {
		return http.StatusBadRequest, err.Error()
	}
	return http.StatusNoContent, nil
}

// controlPosts changes the approved posts.
func (h *Handler) controlPosts(r *http.Request, route string) (int, any) {
	var err error
	switch route {
	case "/posts":
		var v struct {
			At    int    `json:"at"`
			Posts []Post `json:"posts"`
		}
		if err = readJSON(r, &v); err == nil {
			err = h.data.insert(v.At, v.Posts)
		}
	case "/posts/remove":
		var v struct {
			IDs []string `json:"ids"`
		}
		if err = readJSON(r, &v); err == nil {
			err = h.data.remove(v.IDs)
		}
	case "/posts/move":
		var v struct {
			ID string `json:"id"`
			To int    `json:"to"`
		}
		if err = readJSON(r, &v); err == nil {
			err = h.data.move(v.ID, v.To)
		}
	case "/posts/shuffle":
		var v struct {
			Seed uint64 `json:"seed"`
		}
		if err = readJSON(r, &v); err == nil {
			h.ShufflePosts(v.Seed)
		}
	default:
		return http.StatusNotFound, MsgNotFound
	}
	if err != nil {
		return http.StatusBadRequest, err.Error()
	}
	return http.StatusNoContent, nil
}

// readJSON decodes the request body into v: one JSON value, no unknown
// fields.
func readJSON(r *http.Request, v any) error {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return fmt.Errorf("body is larger than %d bytes", tooLarge.Limit)
		}
		return fmt.Errorf("reading the body: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("body: %w", err)
	}
	if dec.More() {
		return errors.New("body: trailing data after the JSON value")
	}
	return nil
}

// controlAnswer writes v as JSON (a string for an error); nil writes no
// body.
func controlAnswer(w http.ResponseWriter, status int, v any) {
	hdr := w.Header()
	if status == http.StatusMethodNotAllowed {
		hdr.Set("Allow", "GET, POST, PUT, DELETE")
	}
	if v == nil {
		w.WriteHeader(status)
		return
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		status, buf = http.StatusInternalServerError, *bytes.NewBuffer(appendJSONString(nil, MsgInternal))
	}
	body := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	hdr.Set("Content-Type", "application/json")
	hdr.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
