package ugc

import (
	"errors"

	"github.com/ugcposts/ugc-go/internal/testkit"
)

// The door of the test kit: package ugctest gives the clients it hands out
// a clock and a transport of its own through internal/testkit, which no
// code outside this module can import.
func init() {
	testkit.ClientOption = func(h testkit.Hooks) any {
		return Option(func(s *settings) error {
			if s.client == nil {
				return errors.New("the test kit's hooks configure a Client")
			}
			if h.Clock != nil {
				s.client.clock = h.Clock
			}
			s.client.wrapTransport = h.Transport
			return nil
		})
	}
}
