// Package pace decides when a Client's requests may be sent, and keeps the
// Client's budget of retries. It does no I/O and reads no clock: a [Pacer]
// is told the time with every call, so its tests drive it with a simulated
// server on a virtual clock. A [Gate] is the thin shell that waits, on the
// [Clock] it is given; [Parse] reads what an answer's headers say of the
// quota.
//
// # What a caller can rely on
//
//   - A throttle pauses the whole Client. A 429, or a 503 that names a
//     wait (Retry-After, or a used-up quota's reset), holds every request
//     of the Client until the wait ends, but no longer than the pacer's
//     bound (ugc.WithMaxPause, five minutes by default). The calls that
//     meet a longer pause are told the wait the server named, and the
//     Client asks again when the bound has passed.
//   - Waits are served in order. Requests wait in one line and go in the
//     order they came; one that leaves the line (its context ended, or its
//     turn would come too late) frees its place at once, and the waits
//     told to those behind it do not count it.
//   - A wait past the call's limit is not begun. [Gate.Turn] refuses at
//     once, with a [*WaitError] that says the true wait, a turn that would
//     come later than the call may wait (its throttle budget, its
//     deadline).
//   - A configured rate keeps headroom under the quota: WithRateLimit(q, b)
//     sends under q in bursts under b (see "The Client's bucket").
//   - Until a server throttles or states a quota, nothing is paced: a
//     request costs an atomic load and the record of its sending.
//
// # The model
//
// A quota is a token bucket: it refills at r tokens a second, up to b; a
// request that finds a token when the server counts it takes it and is
// accepted, and one that finds none is refused. The Client keeps a bucket
// of its own inside the server's, so that each request it lets go finds a
// token. It keeps inside the tightest quota it knows of:
//
//   - the one it was configured with (WithRateLimit);
//   - the one the server states (RateLimit-Policy, or X-RateLimit-Limit
//     per window), of a size one more than the most Remaining it showed;
//     each answer's Remaining also caps the Client's tokens: the server's
//     tokens when it counted the request, refilled since, less the
//     requests still in flight;
//   - where the server states none, the one it learns from its throttles.
//
// # The Client's bucket
//
// Inside a quota means: a rate 3 % under the quota's ([Headroom]), and a
// bucket a token smaller, so that a request the server counts up to a
// token's interval late still finds its token (the spare token). Where
// the recent round trips spread by more than that interval, the bucket is
// smaller by their spread: a request the jitter in transit brings late
// and the next brought early come that much closer together.
//
// A bucket of one token has none to spare. The server counted a request
// somewhere within its round trip, and its answer shows how late at most:
// the round trip past the quickest. So each request waits for the answer
// to the one before it, and goes an interval after the latest the server
// may have counted that one. Where the answers come back later than the
// interval, requests overlap by design: they are spaced by the spread of
// the round trips more instead.
//
// Under a configured quota the Client sends its burst, then waits for the
// first answer (a second at most): a server slow to take its first
// requests counts them late, and the Client's bucket refills from when
// the first answer shows they had been counted.
//
// A pause empties the Client's bucket, as the server's that named it is
// empty, and it refills through the pause as the server's does.
//
// # Learning a quota nobody states
//
// The evidence is the times the Client sent its requests and which the
// server accepted. A phase is the requests from one refusal (the anchor:
// the server's bucket then held less than a token) to the next; the first
// phase runs from the Client's first request, which is taken to have found
// the bucket full. For each size b a bucket may have, the rates that
// explain a phase, at which a bucket of b accepts every request the server
// accepted and refuses the one it refused, replayed on the times they were
// sent, form an interval [lo, hi): more rate only adds tokens. lo is taken
// as weak as the jitter allows (a request may have been counted up to half
// the round trips' spread later than another), hi at face value: a refusal
// is always explained by the rate, so a refusal the jitter caused lowers
// the estimate a little, which is what a bucket too small for the jitter
// needs. Requests sent at the same instant reached the server in no known
// order: those sent with a refusal count before it.
//
// The learner keeps, size by size, the rates that every phase since the
// quota last changed agrees on. Where no size agrees, the quota changed,
// and the last phase's own are kept; where no size considered explains a
// phase, sizes twice as large are considered. The first phase bounds the
// sizes: a bucket that was full gave no more than its size and its refill.
// It is judged at the second throttle, once the answers in flight at the
// first have come.
//
// The estimate lies between the least and the most rate kept, 0.3 of the
// way, nearer the least: a rate over the quota costs a throttle and its
// pause, one under it only the rate until the next probe. Its size is the
// smallest kept. The learned quota is a bucket on the times the Client
// sends, the way to the server in it: the Client keeps the headroom, which
// covers the estimate's place between its bounds, and the spare token, not
// the jitter's room.
//
// # Settling and probing
//
// After the first throttle nothing is known but that the bucket emptied:
// the rate ramps up, from what the server gave until then, pause included
// (8 a second at least), doubling with every tenth of a second of
// requests sent at it (and at least with every success), until the next
// throttle, which gives the first estimate.
//
// After a throttle the rate stays at the estimate for a plateau, then
// climbs on a cubic curve, as TCP CUBIC's: flat near the estimate and
// steep away from it, ten times the estimate 20 s after the plateau. The
// plateau is 30 s, or 18 of the server's named waits if longer, so that a
// probe, which costs a pause, costs a small share of the time; it is
// shorter in proportion where the rates kept span more than a tenth of
// the estimate. The curve moves only while the Client sends at the rate:
// one that sends slower than it may proves nothing of a higher rate. So
// a steady quota costs a throttle every 35 s or so, and a quota that rose
// tenfold is found within a minute.
//
// A refusal of a request sent before the last pause ended is part of the
// episode already learned from, and teaches nothing. A phase that nothing
// explains, or that bounds the rate from nothing below (a refusal at once
// after a pause: another client spends the key, or the quota fell),
// backs the rate off to 0.7 of what it was, as CUBIC does.
//
// # Rules, and the tests that pin them
//
//	#   when                                    the pacer                                      test
//	G1  requests wait for their turn            they go in the order they came                 TestGateServesInOrder
//	G2  a request leaves the line               its place is freed; those behind it are        TestGateLeaversHoldNoPlace
//	                                            told waits that do not count it
//	G3  a turn would come past the call's limit it is refused at once, with the wait           TestGateRefusesATurnBeyondTheLimit
//	P1  no throttle, no quota                   nothing is paced                               TestNothingIsPacedUntilAQuotaShows
//	P2  a 429 or 503 names a wait               the whole Client pauses, the bound at most;    TestAPauseIsBoundedAndAsksAgain
//	                                            calls that meet it are told the named wait
//	P3  a 429 or 503 names no wait              an ordinary failure: no pause, nothing learned TestAThrottleThatNamesNoWaitTeachesNothing
//	P4  quotas configured, stated, learned      the Client keeps inside the tightest           TestTheTightestQuotaHolds
//	P5  a known quota of two tokens or more     3 % under its rate, a token smaller, or        TestConfiguredRateNeverRunsAhead
//	                                            smaller by the round trips' spread
//	P6  a quota of one token                    each request waits for the answer before it    TestABucketOfOneWaitsForEachAnswer
//	                                            and goes an interval after its latest count
//	P7  configured, before the first answer     the burst, then the first answer               TestGateHoldsPastTheBurstForTheFirstAnswer
//	P8  a stated quota's Remaining              caps the Client's tokens                       TestAStatedQuotaCapsTheTokens
//	P9  a pause                                 the bucket empties, and refills through it     TestAPauseEmptiesTheBucket
//	L1  the first throttle                      the ramp, from what the server gave            TestTheRampStartsFromWhatTheServerGave
//	L2  a phase                                 the rates that explain it, size by size        TestPhaseBoundsHoldTheTruth
//	L3  phases since the quota changed          the rates all agree on; none: the last's       TestALearnedQuotaFollowsAChange
//	L4  the buckets kept                        the estimate, 0.3 between the least and most;  TestTheEstimateFitsTheBucketsKept
//	                                            the size, the smallest
//	L5  an estimate                             a plateau, then a cubic probe, moving only     TestTheCurveMovesOnlyWithTheRateUsed
//	                                            while the Client uses the rate
//	L6  a refusal sent before the pause ended   nothing learned                                TestARefusalOfTheSameEpisodeTeachesNothing
//	L7  nothing explains a phase                the rate backs off to 0.7                      TestAnUnexplainedPhaseBacksOff
//
// The properties over generated buckets (property_test.go) check the whole
// against the quota's share, the throttles, a rise found, Clients sharing
// a key and a service's latency, beside TCP CUBIC as the AWS SDKs run it
// (cubic_test.go), the reference every rule must beat.
package pace
