package servertimeouts

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSetSetsEveryTimeoutAndNothingElse: a server given its timeouts keeps
// its handler and error log, and reads a request in less time than it may
// take to write the answer.
func TestSetSetsEveryTimeoutAndNothingElse(t *testing.T) {
	t.Parallel()
	h := http.NotFoundHandler()
	s := &http.Server{Handler: h, Addr: "127.0.0.1:0"}
	Set(s)
	assert.Equal(t, ReadHeader, s.ReadHeaderTimeout)
	assert.Equal(t, Read, s.ReadTimeout)
	assert.Equal(t, Write, s.WriteTimeout)
	assert.Equal(t, Idle, s.IdleTimeout)
	assert.Equal(t, "127.0.0.1:0", s.Addr)
	assert.NotNil(t, s.Handler)
	assert.LessOrEqual(t, ReadHeader, Read)
	assert.LessOrEqual(t, Read, Write)
}
