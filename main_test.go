package ugc_test

import (
	"flag"
	"os"
	"runtime"
	"strconv"
	"testing"
)

// TestMain runs eight tests at once, or GOMAXPROCS where that is more,
// unless -test.parallel says otherwise, the race detector is on or the
// heavy runs are asked for (their timing-sensitive cases keep one test a
// core): most of this package's tests wait on the wall clock (a quota's
// pacing, a stalled attempt, a server slow to answer), not on a core, and
// with one test a core the README's command left both idle a third of
// its time.
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set && !raceEnabled() && !heavy() {
		_ = flag.Set("test.parallel", strconv.Itoa(max(8, runtime.GOMAXPROCS(0))))
	}
	os.Exit(m.Run())
}
