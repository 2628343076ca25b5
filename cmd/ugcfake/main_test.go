package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
)

// TestMain runs the command itself when the test binary is started by
// startCommand, so the tests need no separate build.
func TestMain(m *testing.M) {
	if os.Getenv("UGCFAKE_RUN_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// lockedBuffer collects stderr safely while the process writes it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startCommand starts ugcfake with args and returns its banner.
func startCommand(t *testing.T, args ...string) (*exec.Cmd, banner, *lockedBuffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "UGCFAKE_RUN_MAIN=1")
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err, "stderr: %s", stderr.String())
	var b banner
	dec := json.NewDecoder(strings.NewReader(line))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&b), "first line is one JSON object: %s", line)
	go func() { _, _ = io.Copy(io.Discard, out) }()
	return cmd, b, stderr
}

func TestCommandServesAndExitsCleanlyOnSIGINT(t *testing.T) {
	t.Parallel()
	cmd, b, stderr := startCommand(t, "-key", "secret-dev-key", "-base-path", "/api")
	assert.True(t, strings.HasPrefix(b.URL, "http://127.0.0.1:"), b.URL)
	assert.True(t, strings.HasSuffix(b.URL, "/api"), b.URL)
	assert.Equal(t, "secret-dev-key", b.APIKey)
	assert.Equal(t, []string{"summer", "videos"}, b.Galleries)
	require.Len(t, b.Markets, 2)

	c, err := ugc.NewClient(b.URL, b.APIKey, ugc.WithRetryMax(0))
	require.NoError(t, err)
	page, err := c.Posts(context.Background(), &ugc.PostsParams{Limit: 3, Market: b.Markets[0].ID})
	require.NoError(t, err)
	assert.Len(t, page.Nodes, 3)
	assert.Equal(t, 36, page.Count)
	_, err = c.GalleryPosts(context.Background(), b.Galleries[0], nil)
	require.NoError(t, err)

	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	require.NoError(t, cmd.Wait(), "exit status 0")
	log := stderr.String()
	assert.Contains(t, log, "GET /api/v1/posts?limit=3&market="+b.Markets[0].ID+" 200 key=true")
	assert.Contains(t, log, "GET /api/v1/galleries/summer/posts?limit=25 200")
	assert.NotContains(t, log, "secret-dev-key", "the key is never logged")
}

func TestCommandWithGeneratedAndFileDatasets(t *testing.T) {
	t.Parallel()
	t.Run("generated", func(t *testing.T) {
		t.Parallel()
		cmd, b, _ := startCommand(t, "-posts", "1000", "-seed", "4")
		assert.Equal(t, DefaultKey, b.APIKey)
		req, err := http.NewRequest(http.MethodGet, b.URL+"/v1/posts?limit=1", nil)
		require.NoError(t, err)
		req.Header.Set("x-api-key", b.APIKey)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Contains(t, string(body), `{"count":1000,`)
		require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
		require.NoError(t, cmd.Wait())
	})
	t.Run("file", func(t *testing.T) {
		t.Parallel()
		ds := &ugctest.Dataset{}
		ds.AddGallery("only")
		path := filepath.Join(t.TempDir(), "ds.json")
		f, err := os.Create(path)
		require.NoError(t, err)
		require.NoError(t, ds.Save(f))
		require.NoError(t, f.Close())
		cmd, b, _ := startCommand(t, "-data", path)
		assert.Equal(t, []string{"only"}, b.Galleries)
		assert.Empty(t, b.Markets)
		require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
		require.NoError(t, cmd.Wait())
	})
}

func TestRunRejectsBadFlags(t *testing.T) {
	t.Parallel()
	for name, args := range map[string][]string{
		"data and posts": {"-data", "x.json", "-posts", "3"},
		"missing file":   {"-data", filepath.Join(t.TempDir(), "none.json")},
		"empty key":      {"-key", ""},
		"bad addr":       {"-addr", "nope"},
		"extra argument": {"serve"},
		"unknown flag":   {"-port", "1"},
		"quota of 0":     {"-quota", "0"},
		"quota burst 0":  {"-quota", "5,0"},
		"quota not rps":  {"-quota", "fast"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var out, errOut bytes.Buffer
			err := run(context.Background(), args, &out, &errOut)
			assert.Error(t, err)
			assert.Empty(t, out.String(), "no banner")
		})
	}
}

// TestCommandBannerAndLogForOtherLanguages: -addr :0 gives a URL a client
// can connect to; the banner carries the labels a filter needs and the
// counts of each list; an answer carries a request ID; a %0A in a path cannot forge a log line.
func TestCommandBannerAndLogForOtherLanguages(t *testing.T) {
	t.Parallel()
	cmd, b, stderr := startCommand(t, "-addr", ":0")
	assert.True(t, strings.HasPrefix(b.URL, "http://127.0.0.1:"), b.URL)
	assert.Equal(t, bannerCounts{Posts: 36, Inbox: 10, Galleries: 2}, b.Counts)
	require.NotEmpty(t, b.Labels)

	c, err := ugc.NewClient(b.URL, b.APIKey, ugc.WithRetryMax(0))
	require.NoError(t, err)
	label := b.Labels[0].ID
	var info ugc.ResponseInfo
	page, err := c.Posts(context.Background(), &ugc.PostsParams{Filter: ugc.Filter{ugc.AnyLabel(label)}}, ugc.WithResponseInto(&info))
	require.NoError(t, err)
	assert.Positive(t, page.Count, "the banner's label filters posts")
	assert.Equal(t, "ugcfake-1", info.RequestID(), "every answer carries a request ID")

	resp, err := http.Get(b.URL + "/v1/galleries/x%0A2026-01-01%20forged%20line/posts")
	require.NoError(t, err)
	resp.Body.Close()
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	require.NoError(t, cmd.Wait())
	for _, line := range strings.Split(stderr.String(), "\n") {
		assert.False(t, strings.HasPrefix(line, "2026-01-01 forged"), "a forged line: %q", line)
	}
	assert.Contains(t, stderr.String(), `x\n2026-01-01 forged line`)
}

// controlCall sends one control API request as a suite in another language
// would: the JSON body as text, the key in x-api-key.
func controlCall(t *testing.T, b banner, method, route, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, b.Control+route, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("x-api-key", b.APIKey)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(out)
}

// TestCommandFaultsFromOutside: a rule from -rule and one from the control
// API fire on their endpoints only; the request log tells what arrived.
func TestCommandFaultsFromOutside(t *testing.T) {
	t.Parallel()
	cmd, b, stderr := startCommand(t, "-rule", `{"name":"inbox down","endpoint":"inbox","fault":{"kind":"internal-error"}}`)
	assert.Equal(t, b.URL+"/_ugcfake", b.Control)

	status, body := controlCall(t, b, http.MethodPost, "/rules",
		`{"endpoint":"gallery","times":1,"fault":{"kind":"respond","status":503,"body":"\"Service unavailable\""}}`)
	require.Equal(t, http.StatusCreated, status, body)

	c, err := ugc.NewClient(b.URL, b.APIKey, ugc.WithRetryMax(0))
	require.NoError(t, err)
	ctx := context.Background()
	_, err = c.Posts(ctx, &ugc.PostsParams{Limit: 1})
	assert.NoError(t, err, "posts are untouched")
	_, err = c.GalleryPosts(ctx, "summer", nil)
	var apiErr *ugc.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusServiceUnavailable, apiErr.StatusCode)
	_, err = c.GalleryPosts(ctx, "summer", nil)
	assert.NoError(t, err, "the rule fired once")
	_, err = c.Inbox(ctx, nil)
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusInternalServerError, apiErr.StatusCode)

	status, body = controlCall(t, b, http.MethodGet, "/requests", "")
	require.Equal(t, http.StatusOK, status)
	var reqs []ugctest.Request
	require.NoError(t, json.Unmarshal([]byte(body), &reqs))
	require.Len(t, reqs, 4)
	assert.Equal(t, []int{200, 503, 200, 500}, []int{reqs[0].Status, reqs[1].Status, reqs[2].Status, reqs[3].Status})
	assert.Equal(t, "inbox down", reqs[3].Rule)
	assert.Contains(t, reqs[0].Header.Get("User-Agent"), "ugc-go")
	assert.NotContains(t, body, b.APIKey)

	status, _ = controlCall(t, b, http.MethodPost, "/posts/shuffle", `{"seed":3}`)
	assert.Equal(t, http.StatusNoContent, status)
	status, _ = controlCall(t, b, http.MethodDelete, "/rules", "")
	assert.Equal(t, http.StatusNoContent, status)
	_, err = c.Inbox(ctx, nil)
	assert.NoError(t, err)

	status, _ = controlCall(t, b, http.MethodPost, "/rules", `{"name":"never","endpoint":"gallery","fault":{"kind":"stall","stall":"1s"}}`)
	require.Equal(t, http.StatusCreated, status)
	status, _ = controlCall(t, b, http.MethodPost, "/rules", `{"name":"maybe","endpoint":"gallery","optional":true,"fault":{"kind":"stall","stall":"1s"}}`)
	require.Equal(t, http.StatusCreated, status)

	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	require.NoError(t, cmd.Wait())
	assert.Contains(t, stderr.String(), `GET /v1/inbox?limit=25 500 key=true fault=internal-error rule="inbox down"`)
	assert.Contains(t, stderr.String(), "ugcfake: never (stall) never fired: it matched 0 requests", "reported at shutdown")
	assert.NotContains(t, stderr.String(), "maybe (stall) never fired", "unless optional")
}

func TestCommandRejectsABadRule(t *testing.T) {
	t.Parallel()
	for _, rule := range []string{`{"fault":{"kind":"nope"}}`, `{"endpoint":"x","fault":{"kind":"stall"}}`, `{"tims":1}`} {
		var out, errOut bytes.Buffer
		err := run(context.Background(), []string{"-rule", rule}, &out, &errOut)
		assert.Error(t, err, rule)
		assert.Empty(t, out.String(), "no banner")
	}
}

// TestCommandQuota: -quota puts the server behind a quota, which the
// control API reads, changes and lifts.
func TestCommandQuota(t *testing.T) {
	t.Parallel()
	_, b, _ := startCommand(t, "-quota", "1,2")
	status, body := controlCall(t, b, http.MethodGet, "/quota", "")
	require.Equal(t, http.StatusOK, status)
	assert.JSONEq(t, `{"rps":1,"burst":2}`, body)

	get := func() *http.Response {
		req, err := http.NewRequest(http.MethodGet, b.URL+"/v1/posts?limit=1", nil)
		require.NoError(t, err)
		req.Header.Set("x-api-key", b.APIKey)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp
	}
	codes := []int{get().StatusCode, get().StatusCode}
	over := get()
	assert.Equal(t, []int{200, 200}, codes, "the burst")
	assert.Equal(t, http.StatusTooManyRequests, over.StatusCode)
	assert.Equal(t, "1", over.Header.Get("Retry-After"))

	status, _ = controlCall(t, b, http.MethodDelete, "/quota", "")
	assert.Equal(t, http.StatusNoContent, status)
	assert.Equal(t, http.StatusOK, get().StatusCode, "lifted")
	status, body = controlCall(t, b, http.MethodGet, "/quota", "")
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, "null", body)
}

// TestCommandQuotaRetryAfterOnly: -quota rps,burst,retry-after-only puts
// the server behind a quota that says nothing but Retry-After.
func TestCommandQuotaRetryAfterOnly(t *testing.T) {
	t.Parallel()
	_, b, _ := startCommand(t, "-quota", "1,1,retry-after-only")
	status, body := controlCall(t, b, http.MethodGet, "/quota", "")
	require.Equal(t, http.StatusOK, status)
	assert.JSONEq(t, `{"rps":1,"burst":1,"retryAfterOnly":true}`, body)
	var last *http.Response
	for range 2 {
		req, err := http.NewRequest(http.MethodGet, b.URL+"/v1/posts?limit=1", nil)
		require.NoError(t, err)
		req.Header.Set("x-api-key", b.APIKey)
		last, err = http.DefaultClient.Do(req)
		require.NoError(t, err)
		last.Body.Close()
		assert.Empty(t, last.Header.Get("X-RateLimit-Limit"), "no rate-limit header")
	}
	assert.Equal(t, http.StatusTooManyRequests, last.StatusCode)
	assert.Equal(t, "1", last.Header.Get("Retry-After"))
}

func TestParseQuota(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]ugctest.QuotaConfig{
		"20":                       {RPS: 20, Burst: 1},
		"20,5":                     {RPS: 20, Burst: 5},
		"0.5, 2, retry-after-only": {RPS: 0.5, Burst: 2, RetryAfterOnly: true},
	} {
		got, err := parseQuota(v)
		require.NoError(t, err, v)
		assert.Equal(t, want, got, v)
	}
	for _, v := range []string{"", "0", "x,1", "1,0", "1,2,headers", "1,2,retry-after-only,3"} {
		_, err := parseQuota(v)
		assert.Error(t, err, v)
	}
}
