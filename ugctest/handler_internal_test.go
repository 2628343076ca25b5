package ugctest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPanicBecomesInternalError(t *testing.T) {
	t.Parallel()
	h, err := NewHandler(nil, "k")
	require.NoError(t, err)
	h.panicHook = func() { panic("boom") }
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	req, err := http.NewRequest(http.MethodGet, srv.URL+"/v1/posts", nil)
	require.NoError(t, err)
	req.Header.Set("x-api-key", "k")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, http.StatusInternalServerError, resp.StatusCode)
	assert.Equal(t, `"Something went wrong"`, string(b))
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	assert.Equal(t, http.StatusInternalServerError, h.Requests()[0].Status)
}
