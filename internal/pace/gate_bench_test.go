package pace

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"
)

// BenchmarkGateLine queues 100, 1,000 or 5,000 requests at once on a gate
// whose configured quota lets 500 a second go, on the wall clock, each
// with a call's default throttle budget and answered as soon as it goes. It reports the time over the ideal
// (requests ÷ 500 a second): what a line costs beyond the waits it is
// for.
//
//	go test -run '^$' -bench GateLine -benchtime 1x ./internal/pace
func BenchmarkGateLine(b *testing.B) {
	for _, n := range []int{100, 1000, 5000} {
		b.Run(fmt.Sprintf("waiting=%d", n), func(b *testing.B) {
			var elapsed time.Duration
			for b.Loop() {
				g := NewGate(New(500, 1, 0), Real{})
				start := time.Now()
				var wg sync.WaitGroup
				for range n {
					wg.Add(1)
					go func() {
						defer wg.Done()
						ticket, _, err := g.Turn(context.Background(), 5*time.Minute) // a call's default budget
						if err != nil {
							b.Error(err)
							return
						}
						g.Pacer().Answered(time.Now(), ticket, Answer{Status: http.StatusOK})
					}()
				}
				wg.Wait()
				elapsed += time.Since(start)
			}
			ideal := time.Duration(n) * time.Second / 500
			b.ReportMetric(float64(elapsed)/float64(b.N)/float64(ideal), "x-ideal")
		})
	}
}
