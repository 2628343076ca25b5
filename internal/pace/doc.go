// Package pace is a Client's pacing, apart from its I/O: what the answers
// of a server said about its quota (the header reader), when each request
// may be sent (a configured rate, a rate learned from throttles, and a
// pause the server named), and the budget of retries for failures that are
// not throttles.
//
// Decisions are pure: a [Pacer] is told the time with every call and
// never reads a clock, so the tests drive it with a simulated token bucket
// on a virtual clock. A [Gate] is the thin shell that waits: a line of
// requests served in order, on a [Clock] it is given (real time in
// production).
//
// Package ugc adapts it; package ugctest gives the clients it hands out a
// clock of its own through [Virtual] (a test kit that never sleeps on a
// fault).
package pace
