package ugc_test

// Bounded decoding: a body is read up to WithMaxResponseBytes and no
// further, however the server sends it, and a 200 that is not a valid page
// ends a walk with one *DecodeError, with no part of that page yielded.
// errors_test.go checks single calls with malformed 200s; here are the
// size cap over real connections and malformed pages in the middle of a
// walk.

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ugcposts/ugc-go"
)

const (
	bodyCap   = 64 << 10
	pageStart = `{"count":1,"next":null,"nodes":[`
)

// endlessPage writes the start of a page, then posts until the client
// hangs up: a body with no end and no Content-Length.
func endlessPage(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	post := []byte(`{"id":"p","createdAt":"2024-01-02T03:04:05Z","media":{"location":"m"},"taggedProducts":[]},`)
	chunk := bytes.Repeat(post, 100)
	if _, err := w.Write([]byte(pageStart)); err != nil {
		return
	}
	for r.Context().Err() == nil {
		if _, err := w.Write(chunk); err != nil {
			return
		}
	}
}

// gzipBomb is a 200 that inflates to 16 MiB of spaces from about 16 KiB on
// the wire. Go's transport asks for gzip itself and inflates transparently,
// so the cap must apply to the inflated bytes.
func gzipBomb(t *testing.T) http.HandlerFunc {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, err := zw.Write([]byte(pageStart))
	require.NoError(t, err)
	spaces := bytes.Repeat([]byte{' '}, 1<<20)
	for range 16 {
		_, err = zw.Write(spaces)
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	bomb := buf.Bytes()
	require.Less(t, len(bomb), 100<<10)
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Length", strconv.Itoa(len(bomb)))
		_, _ = w.Write(bomb)
	}
}

// bigPage is a complete, valid page of 2 × bodyCap bytes with its
// Content-Length.
func bigPage(w http.ResponseWriter, _ *http.Request) {
	comment := strings.Repeat("x", 2*bodyCap)
	body := pageStart + `{"id":"p","createdAt":"2024-01-02T03:04:05Z","media":{"location":"m"},"taggedProducts":[],"comment":"` + comment + `"}]}`
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	_, _ = w.Write([]byte(body))
}

func TestBodyOverTheCapIsADecodeError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		handler func(t *testing.T) http.HandlerFunc
	}{
		{"endless body", func(*testing.T) http.HandlerFunc { return endlessPage }},
		{"large page with Content-Length", func(*testing.T) http.HandlerFunc { return bigPage }},
		{"gzip bomb", gzipBomb},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var calls atomic.Int32
			h := tt.handler(t)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				h(w, r)
			}))
			t.Cleanup(srv.Close)
			c, err := ugc.NewClient(srv.URL+"/api", secretKey, ugc.WithMaxResponseBytes(bodyCap), ugc.WithRetryMax(3), ugc.WithRetryWait(0, 0))
			require.NoError(t, err)

			done := make(chan error, 1)
			go func() {
				page, err := c.Posts(context.Background(), &ugc.PostsParams{Limit: 1})
				assert.Nil(t, page)
				done <- err
			}()
			err = await(t, done)
			var de *ugc.DecodeError
			require.ErrorAs(t, err, &de)
			assert.Equal(t, http.MethodGet, de.Method)
			assert.Equal(t, "/api/v1/posts", de.Endpoint)
			assert.Equal(t, http.StatusOK, de.StatusCode)
			assert.True(t, strings.HasPrefix(de.Snippet, pageStart), "snippet %q", de.Snippet)
			assert.LessOrEqual(t, len(de.Snippet), 120)
			assert.Contains(t, err.Error(), "exceeds the size cap")
			assert.Contains(t, err.Error(), "ugc: GET /api/v1/posts: 200: invalid response")
			assert.Equal(t, int32(1), calls.Load(), "an oversized body is not retried")
		})
	}
}

// TestErrorBodyOverTheCapIsCut: an error answer's body is read up to the
// cap too, and APIError.Body holds at most the cap.
func TestErrorBodyOverTheCapIsCut(t *testing.T) {
	t.Parallel()
	for _, retries := range []int{0, 2} {
		t.Run(fmt.Sprintf("retries=%d", retries), func(t *testing.T) {
			t.Parallel()
			var calls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				w.WriteHeader(http.StatusBadGateway)
				chunk := bytes.Repeat([]byte("<p>bad gateway</p>\n"), 100)
				for r.Context().Err() == nil {
					if _, err := w.Write(chunk); err != nil {
						return
					}
				}
			}))
			t.Cleanup(srv.Close)
			c, err := ugc.NewClient(srv.URL, secretKey, ugc.WithMaxResponseBytes(bodyCap), ugc.WithRetryMax(retries), ugc.WithRetryWait(0, 0))
			require.NoError(t, err)

			done := make(chan error, 1)
			go func() {
				_, err := c.Inbox(context.Background(), nil)
				done <- err
			}()
			err = await(t, done)
			var apiErr *ugc.APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, http.StatusBadGateway, apiErr.StatusCode)
			assert.Equal(t, bodyCap, len(apiErr.Body), "APIError.Body holds the body up to the cap")
			assert.True(t, strings.HasPrefix(apiErr.Message, "unexpected body: <p>bad gateway</p>"), apiErr.Message)
			assert.Equal(t, int32(retries+1), calls.Load())
		})
	}
}

// TestMalformedPageMidWalk serves good pages of five posts up to post 9,
// then a malformed page wherever post 10 would be: every mode yields the
// ten good posts, then one *DecodeError, and nothing of the bad page.
func TestMalformedPageMidWalk(t *testing.T) {
	t.Parallel()
	const good = `{"id":"ok","createdAt":"2024-01-02T03:04:05Z","media":{"location":"m"},"taggedProducts":[]}`
	bad := []struct {
		name, body, wantInErr string
	}{
		{"HTML page", "<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>", "invalid JSON at offset 0"},
		{"empty body", "", "unexpected end of JSON input"},
		{"nodes null", `{"count":20,"next":null,"nodes":null}`, "nodes: required field is missing"},
		{"count a string that is no integer", `{"count":"twenty","next":null,"nodes":[]}`, "count"},
		{"next a number", `{"count":20,"next":3,"nodes":[]}`, "next"},
		{"count missing", `{"next":null,"nodes":[]}`, "count: required field is missing"},
		{"truncated JSON", `{"count":20,"next":null,"nodes":[` + good, "unexpected end of JSON input"},
		{"a JSON string", `"Something went wrong"`, "a page must be a JSON object"},
	}
	for _, b := range bad {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				skip, _ := strconv.Atoi(r.URL.Query().Get("skip"))
				limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
				w.Header().Set("Content-Type", "application/json")
				if skip <= 10 && 10 < skip+limit { // the page that holds post 10
					_, _ = w.Write([]byte(b.body))
					return
				}
				page := ugc.Page{Count: 20, Next: "http://" + r.Host + "/v1/posts?limit=5&skip=" + strconv.Itoa(skip+limit)}
				for i := range limit {
					page.Nodes = append(page.Nodes, testPost(fmt.Sprintf("p%02d", skip+i)))
				}
				if skip+limit >= 20 {
					page.Next = ""
				}
				body, err := page.MarshalJSON()
				assert.NoError(t, err)
				_, _ = w.Write(body)
			}))
			t.Cleanup(srv.Close)
			c, err := ugc.NewClient(srv.URL, secretKey, ugc.WithRetryWait(0, 0))
			require.NoError(t, err)
			for _, mode := range iterModes {
				ids, err := collectIDs(c.AllPosts(context.Background(), &ugc.PostsParams{Limit: 5}, mode.opts...))
				assert.Equal(t, []string{"p00", "p01", "p02", "p03", "p04", "p05", "p06", "p07", "p08", "p09"}, ids, mode.name)
				var de *ugc.DecodeError
				if assert.True(t, errors.As(err, &de), "%s: %v", mode.name, err) {
					assert.Equal(t, "/v1/posts", de.Endpoint)
					assert.Equal(t, http.StatusOK, de.StatusCode)
					assert.Equal(t, strings.TrimSpace(b.body[:min(len(b.body), 120)]), strings.TrimSpace(de.Snippet))
					assert.Contains(t, err.Error(), b.wantInErr)
				}
			}
		})
	}
}
