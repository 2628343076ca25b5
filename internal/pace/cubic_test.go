package pace

import (
	"math"
	"net/http"
	"time"
)

// cubicPacer is the reference the learned pacing is measured against: the
// adaptive rate limiter of the AWS SDKs' "adaptive" retry mode, a plain,
// published algorithm (TCP CUBIC's window curve applied to a request
// rate), with the client-wide pause a throttle names that the SDK keeps
// for every pacing. It measures the rate it sends at in half-second
// buckets (smoothed by 0.8); at a throttle it remembers the lower of that
// and its own rate as the last maximum and drops to 0.7 of it; after a
// success it sets its rate on the cubic curve 0.4·(t−K)³ + last maximum,
// K being the time the curve takes back to that maximum, and never above
// twice the rate measured; it cuts once a congestion event, as TCP CUBIC
// does (a throttle of a request sent before the last pause ended is part
// of the event already taken); a token bucket of that rate, holding as many
// tokens as a second brings (one at least), spaces the requests. Before
// the first throttle nothing is paced.
type cubicPacer struct {
	enabled                  bool
	fillRate, capacity       float64
	tokens                   float64
	refilled                 time.Time
	measured, bucketStart    float64
	count                    float64
	lastMax, window          float64
	lastThrottle, pauseUntil time.Time
	calculated               float64
	started                  bool
}

const (
	cubicSmooth  = 0.8
	cubicBeta    = 0.7
	cubicScale   = 0.4
	cubicMinFill = 0.5
)

func (c *cubicPacer) Hold() (<-chan struct{}, time.Time, bool) { return nil, time.Time{}, false }

func (c *cubicPacer) refill(now time.Time) {
	if !c.refilled.IsZero() {
		c.tokens = min(c.capacity, c.tokens+now.Sub(c.refilled).Seconds()*c.fillRate)
	}
	c.refilled = now
}

func (c *cubicPacer) Earliest(now time.Time) time.Time {
	at := later(now, c.pauseUntil)
	if !c.enabled {
		return at
	}
	c.refill(now)
	if c.tokens >= 1 {
		return at
	}
	return later(at, now.Add(time.Duration((1-c.tokens)/c.fillRate*float64(time.Second))))
}

func (c *cubicPacer) Send(now time.Time) Ticket {
	if c.enabled {
		c.refill(now)
		c.tokens--
	}
	return Ticket{Sent: now}
}

func (c *cubicPacer) Answered(now time.Time, t Ticket, a Answer) Effect {
	var e Effect
	secs := float64(now.UnixNano()) / 1e9
	if !c.started {
		c.started, c.bucketStart, c.lastThrottle = true, math.Floor(secs*2)/2, now
	}
	c.measure(secs)
	if a.Status == http.StatusTooManyRequests {
		e.Wait = a.Limit.NamedWait()
		e.Throttled = e.Wait > 0
	}
	if a.Status == http.StatusTooManyRequests && t.Sent.Before(c.pauseUntil) {
		return e // the same congestion event: TCP CUBIC cuts once a loss event
	}
	if a.Status == http.StatusTooManyRequests {
		rate := c.measured
		if c.enabled {
			rate = min(rate, c.fillRate)
		}
		c.lastMax, c.lastThrottle = rate, now
		c.calculated = rate * cubicBeta
		c.enabled = true
		if e.Throttled && now.Add(e.Wait).After(c.pauseUntil) {
			c.pauseUntil = now.Add(e.Wait)
		}
	} else {
		dt := now.Sub(c.lastThrottle).Seconds()
		c.calculated = cubicScale*math.Pow(dt-c.window, 3) + c.lastMax
	}
	c.window = math.Cbrt(c.lastMax * (1 - cubicBeta) / cubicScale)
	rate := min(c.calculated, 2*c.measured)
	if c.enabled {
		c.refill(now)
		c.fillRate = max(rate, cubicMinFill)
		c.capacity = max(rate, 1)
		c.tokens = min(c.tokens, c.capacity)
	}
	return e
}

// measure counts an answer in the half-second bucket of secs.
func (c *cubicPacer) measure(secs float64) {
	c.count++
	if b := math.Floor(secs*2) / 2; b > c.bucketStart {
		c.measured = c.count/(b-c.bucketStart)*cubicSmooth + c.measured*(1-cubicSmooth)
		c.count, c.bucketStart = 0, b
	}
}

func (c *cubicPacer) Rate() float64 {
	if !c.enabled {
		return 0
	}
	return c.fillRate
}
