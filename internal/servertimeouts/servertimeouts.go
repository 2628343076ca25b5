// Package servertimeouts holds the timeouts of the fake server's
// http.Server, shared by ugctest.NewServer and cmd/ugcfake, so that an idle
// or slow client cannot hold a connection, or the server, open.
package servertimeouts

import (
	"net/http"
	"time"
)

// The timeouts [Set] gives a server.
const (
	ReadHeader = 10 * time.Second // to read a request's headers
	Read       = 30 * time.Second // to read a whole request
	Write      = 60 * time.Second // to write a response, stalls and latency included
	Idle       = 60 * time.Second // an idle keep-alive connection stays open
)

// Set gives s the timeouts above, leaving its other fields alone.
func Set(s *http.Server) {
	s.ReadHeaderTimeout = ReadHeader
	s.ReadTimeout = Read
	s.WriteTimeout = Write
	s.IdleTimeout = Idle
}
