// Package testkit is the door through which package ugctest makes the
// clients it hands out (Server.Client) a test kit that never sleeps on a
// fault: a clock that skips the waits a fault named, and a transport that
// lets the fake answer a stall at once. Package ugc opens the door (it
// sets [ClientOption]); nothing outside this module can reach it, so no
// user of the SDK can make a production client skip a server's Retry-After.
package testkit

import (
	"net/http"

	"github.com/ugcposts/ugc-go/internal/pace"
)

// Hooks are what a test kit's client is given.
type Hooks struct {
	// Clock is the pacing's clock.
	Clock pace.Clock
	// Transport wraps the transport each attempt is sent through, under
	// the key's.
	Transport func(http.RoundTripper) http.RoundTripper
}

// ClientOption returns a ugc.Option (as any: this package cannot name the
// type) that gives a Client the hooks. Package ugc sets it when it is
// initialised.
var ClientOption func(Hooks) any
