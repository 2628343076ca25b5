package ugc_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
)

// TestEveryObserverRunsInTheOrderGiven: with 1 to 5 observers given to
// NewClient, among other options before, between and after them, each
// runs once after every attempt, in the order given: none replaces
// another, whichever comes last.
func TestEveryObserverRunsInTheOrderGiven(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t)
	for n := 1; n <= 5; n++ {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var calls []string
			opts := []ugc.Option{ugc.WithRetryMax(2)}
			for i := range n {
				opts = append(opts, ugc.WithAttemptObserver(func(_ context.Context, a ugc.AttemptInfo) {
					calls = append(calls, fmt.Sprintf("attempt %d: observer %d", a.Attempt, i))
				}), ugc.WithUserAgent(fmt.Sprint("between-", i)))
			}
			srv.FailNext(1, ugctest.InternalError())
			_, err := srv.Client(opts...).Inbox(context.Background(), nil)
			require.NoError(t, err)

			var want []string
			for attempt := 1; attempt <= 2; attempt++ {
				for i := range n {
					want = append(want, fmt.Sprintf("attempt %d: observer %d", attempt, i))
				}
			}
			assert.Equal(t, want, calls)
		})
	}
}
