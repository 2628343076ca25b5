package pace

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"
)

func TestExplore(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("EXPLORE_N"))
	if n == 0 {
		t.Skip()
	}
	length := 7 * time.Minute
	type row struct{ share, perMin float64 }
	var learned, cubic []row
	for seed := uint64(1); seed <= uint64(n); seed++ {
		c := generatedBucket(seed, length)
		for k, dst := range []*[]row{&learned, &cubic} {
			cc := c
			if k == 1 {
				cc.pacer = func() simPacer { return &cubicPacer{} }
			}
			r := cc.run()
			v := judge(cc, r)
			mins := (cc.length - r.resumed).Minutes()
			*dst = append(*dst, row{v.throughput, float64(v.episodes) / math.Max(mins, 1e-9)})
			if os.Getenv("EXPLORE_V") != "" && k == 0 {
				fmt.Printf("%v: share %.3f, %d eps (%.2f/min), final %.1f\n", cc, v.throughput, v.episodes, float64(v.episodes)/mins, r.finalRate)
			}
		}
	}
	sum := func(rs []row) string {
		var s, p float64
		shares := []float64{}
		for _, r := range rs {
			s += r.share
			p += r.perMin
			shares = append(shares, r.share)
		}
		sort.Float64s(shares)
		return fmt.Sprintf("share mean %.3f p10 %.3f min %.3f; 429 episodes/min %.2f", s/float64(len(rs)), shares[len(shares)/10], shares[0], p/float64(len(rs)))
	}
	fmt.Println("learned:", sum(learned))
	fmt.Println("cubic:  ", sum(cubic))
}

func TestTrace(t *testing.T) {
	seed, _ := strconv.Atoi(os.Getenv("TRACE_SEED"))
	if seed == 0 {
		t.Skip()
	}
	c := generatedBucket(uint64(seed), 7*time.Minute)
	if s := os.Getenv("TRACE_LEN"); s != "" {
		d, _ := time.ParseDuration(s)
		c.length = d
	}
	every, _ := strconv.Atoi(os.Getenv("TRACE_EVERY"))
	every = max(every, 1)
	n := 0
	c.trace = func(at time.Duration, ok bool, sent time.Duration, sp simPacer) {
		p := sp.(*Pacer)
		n++
		if !ok || n%every == 0 {
			q, _ := p.inForce()
			fmt.Printf("%9.3f ok=%v sent=%9.3f rate=%8.2f size=%d est=%v ramp=%.1f curve=%.1f kept=%d\n", at.Seconds(), ok, sent.Seconds(), p.Rate(), q.size, p.learner.est, p.learner.ramp, p.learner.curve, len(p.learner.kept))
		}
	}
	fmt.Println(c)
	r := c.run()
	fmt.Println(judge(c, r))
}

func TestKept(t *testing.T) {
	seed, _ := strconv.Atoi(os.Getenv("KEPT_SEED"))
	if seed == 0 {
		t.Skip()
	}
	c := generatedBucket(uint64(seed), 7*time.Minute)
	d, _ := time.ParseDuration(os.Getenv("KEPT_AT"))
	c.length = d
	var last *Pacer
	c.trace = func(at time.Duration, ok bool, sent time.Duration, sp simPacer) { last = sp.(*Pacer) }
	c.run()
	for _, k := range last.learner.kept {
		fmt.Printf("size %4.0f: [%8.2f, %8.2f)\n", k.size, k.lo, k.hi)
	}
	fmt.Println("est", last.learner.est, "jitter", last.rtts.jitter())
}

func TestPhases(t *testing.T) {
	seed, _ := strconv.Atoi(os.Getenv("PH_SEED"))
	if seed == 0 {
		t.Skip()
	}
	c := generatedBucket(uint64(seed), 7*time.Minute)
	d, _ := time.ParseDuration(os.Getenv("PH_LEN"))
	c.length = d
	debugLearn = func(s span, phase, kept []sizeBounds) {
		fmt.Printf("phase of %d recs (start %d, jitter %.4f, %.3f..%.3f s, given %.0f)\n", len(s.recs), s.start, s.jitter, s.recs[0].at, s.recs[len(s.recs)-1].at, s.given())
		for _, b := range []float64{1, 2, 5, 10, 20, 30, 45, 60} {
			hi := s.upper(b)
			lo := s.lower(b, hi)
			fmt.Printf("   size %4.0f: [%8.2f, %8.2f)\n", b, lo, hi)
		}
		if os.Getenv("PH_RECS") != "" {
			for _, r := range s.recs {
				fmt.Printf("     %.4f %d %v\n", r.at, r.outcome, r.paced)
			}
		}
		fmt.Printf("  kept before: %d\n", len(kept))
	}
	defer func() { debugLearn = nil }()
	c.run()
}

func TestTraceCubic(t *testing.T) {
	seed, _ := strconv.Atoi(os.Getenv("CTRACE_SEED"))
	if seed == 0 {
		t.Skip()
	}
	c := generatedBucket(uint64(seed), 7*time.Minute)
	c.pacer = func() simPacer { return &cubicPacer{} }
	n := 0
	c.trace = func(at time.Duration, ok bool, sent time.Duration, sp simPacer) {
		p := sp.(*cubicPacer)
		n++
		if !ok || n%200 == 0 {
			fmt.Printf("%9.3f ok=%v rate=%8.2f measured=%8.2f lastMax=%8.2f cap=%.1f\n", at.Seconds(), ok, p.fillRate, p.measured, p.lastMax, p.capacity)
		}
	}
	fmt.Println(c)
	r := c.run()
	fmt.Println(judge(c, r))
}

// TestRiseExplore: time to use a tenfold rise.
func TestRiseExplore(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("RISE_N"))
	if n == 0 {
		t.Skip()
	}
	for _, cubic := range []bool{false, true} {
		var times []float64
		for seed := uint64(1); seed <= uint64(n); seed++ {
			c := generatedBucket(seed, 0)
			s := &c.server
			s.rate = math.Round(logUniformOf(rngFor(seed), 1, 100)*10) / 10
			s.change = 100 * time.Second
			s.rate2, s.burst2 = 10*s.rate, s.burst
			s.retryAfter = retryTokenSeconds
			c.length = 100*time.Second + 4*time.Minute
			rtt := 2*(c.delay+c.jitter/2) + c.service
			c.workers = 1
			for float64(c.workers)/rtt.Seconds() < 1.5*s.rate2 && c.workers < 1024 {
				c.workers *= 2
			}
			c.jitter = min(c.jitter, time.Duration(min(0.050, max((s.burst-1)/s.rate2, 0.02/s.rate2))*1e9))
			if cubic {
				c.pacer = func() simPacer { return &cubicPacer{} }
			}
			r := c.run()
			found := c.length.Seconds() - 100
			for from := s.change; from+5*time.Second <= c.length; from += time.Second {
				if float64(r.acceptedIn(from, from+5*time.Second)) >= 0.8*5*s.rate2 {
					found = (from - s.change).Seconds()
					break
				}
			}
			times = append(times, found)
			if os.Getenv("RISE_V") != "" && !cubic {
				fmt.Printf("%v: found in %.0f s\n", c, found)
			}
		}
		sort.Float64s(times)
		fmt.Printf("cubic=%v: median %.0f s, p90 %.0f s, max %.0f s\n", cubic, times[len(times)/2], times[len(times)*9/10], times[len(times)-1])
	}
}

func rngFor(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 77)) }

func TestCubicSimple(t *testing.T) {
	if os.Getenv("CUBIC_SIMPLE") == "" {
		t.Skip()
	}
	c := simCase{seed: 1, length: 2 * time.Minute, workers: 8, delay: time.Millisecond, jitter: 200 * time.Microsecond, service: time.Millisecond}
	c.server = bucketServer{rate: 100, burst: 10, retryAfter: retryTokenSeconds}
	c.pacer = func() simPacer { return &cubicPacer{} }
	n := 0
	c.trace = func(at time.Duration, ok bool, sent time.Duration, sp simPacer) {
		p := sp.(*cubicPacer)
		n++
		if !ok || n%500 == 0 {
			fmt.Printf("%9.3f ok=%v rate=%8.2f measured=%8.2f lastMax=%8.2f cap=%.1f\n", at.Seconds(), ok, p.fillRate, p.measured, p.lastMax, p.capacity)
		}
	}
	r := c.run()
	fmt.Println(judge(c, r), r.accepted, r.refused)
}

func TestRiseTrace(t *testing.T) {
	seed, _ := strconv.Atoi(os.Getenv("RT_SEED"))
	if seed == 0 {
		t.Skip()
	}
	c := generatedBucket(uint64(seed), 0)
	s := &c.server
	s.rate = math.Round(logUniformOf(rngFor(uint64(seed)), 1, 100)*10) / 10
	s.change = 100 * time.Second
	s.rate2, s.burst2 = 10*s.rate, s.burst
	s.retryAfter = retryTokenSeconds
	c.length = 100*time.Second + 4*time.Minute
	rtt := 2*(c.delay+c.jitter/2) + c.service
	c.workers = 1
	for float64(c.workers)/rtt.Seconds() < 1.5*s.rate2 && c.workers < 1024 {
		c.workers *= 2
	}
	c.jitter = min(c.jitter, time.Duration(min(0.050, max((s.burst-1)/s.rate2, 0.02/s.rate2))*1e9))
	n := 0
	c.trace = func(at time.Duration, ok bool, sent time.Duration, sp simPacer) {
		p := sp.(*Pacer)
		n++
		if !ok || n%2000 == 0 {
			q, _ := p.inForce()
			fmt.Printf("%9.3f ok=%v rate=%8.2f size=%d est=%.1f/%d curve=%.1f plateau=%.1f sure=%.2f kept=%d\n", at.Seconds(), ok, p.Rate(), q.size, p.learner.est.rate, p.learner.est.size, p.learner.curve, p.learner.plateau, p.learner.sure, len(p.learner.kept))
		}
	}
	fmt.Println(c)
	c.run()
}

func TestRiseKept(t *testing.T) {
	seed, _ := strconv.Atoi(os.Getenv("RK_SEED"))
	if seed == 0 {
		t.Skip()
	}
	c := generatedBucket(uint64(seed), 0)
	s := &c.server
	s.rate = math.Round(logUniformOf(rngFor(uint64(seed)), 1, 100)*10) / 10
	s.change = 100 * time.Second
	s.rate2, s.burst2 = 10*s.rate, s.burst
	s.retryAfter = retryTokenSeconds
	d, _ := time.ParseDuration(os.Getenv("RK_AT"))
	c.length = d
	rtt := 2*(c.delay+c.jitter/2) + c.service
	c.workers = 1
	for float64(c.workers)/rtt.Seconds() < 1.5*s.rate2 && c.workers < 1024 {
		c.workers *= 2
	}
	c.jitter = min(c.jitter, time.Duration(min(0.050, max((s.burst-1)/s.rate2, 0.02/s.rate2))*1e9))
	var last *Pacer
	c.trace = func(at time.Duration, ok bool, sent time.Duration, sp simPacer) { last = sp.(*Pacer) }
	c.run()
	for _, k := range last.learner.kept {
		fmt.Printf("size %4.0f: [%8.2f, %8.2f)\n", k.size, k.lo, k.hi)
	}
	fmt.Println("est", last.learner.est, "most", last.learner.most)
}

func TestRiseWindows(t *testing.T) {
	seed, _ := strconv.Atoi(os.Getenv("RW_SEED"))
	if seed == 0 {
		t.Skip()
	}
	c := generatedBucket(uint64(seed), 0)
	s := &c.server
	s.rate = math.Round(logUniformOf(rngFor(uint64(seed)), 1, 100)*10) / 10
	s.change = 100 * time.Second
	s.rate2, s.burst2 = 10*s.rate, s.burst
	s.retryAfter = retryTokenSeconds
	c.length = 100*time.Second + 4*time.Minute
	rtt := 2*(c.delay+c.jitter/2) + c.service
	c.workers = 1
	for float64(c.workers)/rtt.Seconds() < 1.5*s.rate2 && c.workers < 1024 {
		c.workers *= 2
	}
	c.jitter = min(c.jitter, time.Duration(min(0.050, max((s.burst-1)/s.rate2, 0.02/s.rate2))*1e9))
	r := c.run()
	for from := s.change; from+5*time.Second <= c.length; from += 5 * time.Second {
		fmt.Printf("%v: %.1f/s (refused %d)\n", from, float64(r.acceptedIn(from, from+5*time.Second))/5, r.refusedBy(from+5*time.Second)-r.refusedBy(from))
	}
}
