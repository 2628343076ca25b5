// Package pace decides when a Client's requests may be sent. It does no
// I/O and reads no clock: a [Pacer] is told the time with every call, so
// the tests drive it with a simulated server on a virtual clock. A [Gate]
// is the shell that waits, on its [Clock]; [Parse] reads the headers.
//
// # What a caller can rely on
//
//   - A throttle pauses the whole Client: a 429, or a 503 that names a
//     wait, holds every request until the wait ends, for the pacer's bound
//     at most (five minutes by default). The calls that meet a longer
//     pause are told the wait the server named; the Client asks again when
//     the bound has passed.
//   - Waits are served in order: one line, first come first served. A
//     request that leaves it frees its place at once, and the waits told
//     to those behind it do not count it.
//   - A wait past the call's limit (its throttle budget, its deadline) is
//     not begun: [Gate.Turn] refuses it at once, with a [*WaitError] that
//     says the true wait.
//   - A configured rate keeps headroom under the quota. Nothing is paced
//     until a quota shows: a request costs an atomic load and its record.
//
// # The model
//
// A quota is a token bucket: it refills at r tokens a second, up to b; a
// request that finds a token when the server counts it takes it and is
// accepted, one that finds none is refused. The Client keeps a bucket of
// its own inside the tightest quota it knows of: the configured one
// (WithRateLimit); the one the server states (RateLimit-Policy, or
// X-RateLimit-Limit per window), one token larger than the most Remaining
// it showed, each answer's Remaining capping the Client's tokens (less
// those in flight, refilled since the request was sent, or, sent before
// the Client knew the quota, since the latest it may have been counted);
// where the server states none, the one it learns.
//
// # The Client's bucket
//
// Inside a quota means a rate 3 % under it ([Headroom]), and a bucket a
// token smaller (the spare token), so that a request the server counts up
// to a token's interval late still finds its token; smaller by the spread
// of the recent round trips where that is more (the jitter in transit):
// the slowest past the least, or, until a sixteenth answer shows how quick
// one may be, the whole of the slowest, which may be all jitter.
// A bucket of one token has none to spare. The server counted a request
// within its round trip, and the answer shows how late at most: the round
// trip past the quickest one may take (the least of the recent ones, less
// their quickest quarter's spread). So each request waits for the
// answer before it and goes the quota's interval after that latest count;
// the headroom lets a request a timer sent late be followed on time. Where
// answers come later than the interval, requests overlap, spaced by the
// spread more.
//
// Under a configured quota the Client sends its burst, then waits for the
// first answer (a second at most): a server slow to take its first
// requests counts them late, and the bucket refills from the answer. A
// pause empties the bucket, as the server's is, and it refills through the
// pause as the server's does.
//
// # Learning a quota nobody states
//
// The evidence is the times the Client sent its requests, and which the
// server accepted. A phase runs from one refusal (the anchor: the bucket
// then held less than a token) to the next; the first from the first
// request, which found the bucket full. For each size of bucket, the rates
// that explain a phase (at which such a bucket accepts every request the
// server accepted and refuses the one it refused, replayed on the times
// sent) form an interval [lo, hi): more rate only adds tokens. lo is as
// weak as the jitter allows (a request may have been counted up to half
// the round trips' spread after another); hi is at face value, so a
// refusal is explained by the rate, never by the jitter. Requests sent at
// the same instant reached the server in no known order: those sent with
// a refusal count before it.
//
// The learner keeps, size by size, the rates every phase since the quota
// last changed agrees on; where no size agrees, the quota changed, and
// the last phase alone is kept; where none considered explains it, twice
// the sizes are considered. The first phase, judged once the answers in
// flight at its refusal have come, bounds the sizes: a full bucket gave no
// more than its size and its refill. The estimate lies 0.3 of the way from
// the least rate kept to the most (a rate over the quota costs a pause, one
// under it only the rate until the next probe); the Client keeps the
// headroom under it, or the least rate kept where that is nearer. Its size
// is the smallest kept. It is a bucket on the send times, the way to the
// server in it: the Client keeps no room for the jitter beside it.
//
// # Settling and probing
//
// After the first throttle the rate ramps up from what the server gave
// until then, pause included (16 a second at least), doubling with every
// tenth of a second of requests sent at it, until the next throttle.
// After each later one it stays at the estimate for a plateau, then climbs
// on a cubic curve, as TCP CUBIC's: flat near the estimate, steep away
// from it, tenfold 20 s on. The plateau is 30 s, or 18 of the server's
// named waits if longer, shorter in proportion where the rates kept span
// more than a tenth of the estimate. The curve moves only while the Client
// sends at the rate. So a steady quota costs a throttle every 35 s or so,
// and a quota that rose tenfold is reached within a minute.
//
// A refusal of a request sent before the last pause ended is part of the
// episode already learned from. A phase that bounds the rate from nothing
// below (a refusal at once after a pause), and a refusal at the estimate
// that leaves the estimate where it was, say that the quota is not one the
// buckets kept explain: it fell, or another client spends the key. The
// learner forgets them, their size with them (requests go spaced at the
// rate), and goes on at the rate the server gave over the phase, pause
// included; 0.7 of the rate refused at least, CUBIC's cut.
//
// # Rules, and the tests that pin them
//
//	G1 requests wait for their turn     they go in the order they came     TestGateServesInOrder
//	G2 a request leaves the line        those behind it do not count it    TestGateLeaversHoldNoPlace,
//	                                                                       TestGateLineSkipsALeaverInTheMiddle
//	G3 a turn past the call's limit     refused at once, with the wait;    TestGateRefusesATurnBeyondTheLimit,
//	                                    asked again when a pause starts    TestGateAsksAgainWhenAPauseStarts
//	G4 the line moves on                the next in it is woken, no other  TestGateWakesOnlyTheNextInLine
//	P1 no throttle, no quota            nothing is paced                   TestNothingIsPacedUntilAQuotaShows
//	P2 a 429 or 503 names a wait        the Client pauses, the bound at    TestAPauseIsBoundedAndAsksAgain
//	                                    most; calls are told the wait
//	P3 a 429 or 503 names none          an ordinary failure                TestAThrottleThatNamesNoWaitTeachesNothing
//	P4 quotas known and learned         the Client keeps to the tightest   TestTheTightestQuotaHolds
//	P5 a known quota of 2+ tokens       3 % under it, a token smaller, or  TestConfiguredRateNeverRunsAhead,
//	                                    smaller by the round trips' spread TestConfiguredRateMakesRoomForTheJitter,
//	                                    (the slowest, until it is known)   TestTheSpreadIsTheWholeRoundTripUntilKnown
//	P6 a quota of one token             each request waits for the answer  TestABucketOfOneWaitsForEachAnswer
//	                                    before it, and its latest count    TestTheQuickestIsUnderTheLeast
//	P7 configured, no answer yet        the burst, then the first answer   TestGateHoldsPastTheBurstForTheFirstAnswer
//	P8 a stated quota's Remaining       caps the Client's tokens, refilled TestAStatedQuotaCapsTheTokens
//	                                    since the request was sent
//	P9 a pause                          the bucket empties, then refills   TestAPauseEmptiesTheBucket
//	P10 the bucket changes              tokens kept; its spread a spacing, TestAChangeKeepsTheTokensNotTheSpread,
//	                                    not a debt; the wait told is true  TestTheWaitToldIsTheTurnTaken
//	L1 the first throttle               the ramp, from what was given      TestTheRampStartsFromWhatTheServerGave
//	L2 a phase                          the rates that explain it          TestPhaseBoundsHoldTheTruth
//	L3 the quota changes                the phase's own rates              TestALearnedQuotaFollowsAChange
//	L4 the buckets kept                 the estimate and its size          TestTheEstimateFitsTheBucketsKept
//	L5 an estimate                      a plateau, then the cubic probe    TestTheCurveMovesOnlyWithTheRateUsed
//	L6 a refusal of the same episode    nothing learned                    TestARefusalOfTheSameEpisodeTeachesNothing
//	L7 nothing explains a phase, or a   the buckets are forgotten; the     TestAnUnexplainedPhaseBacksOff
//	   refusal at the estimate stays    rate the server gave, 0.7 at least
//
// property_test.go checks the whole over generated servers (the quota's
// share, the throttles, a rise, a service's latency, Clients sharing a
// key), beside TCP CUBIC as the AWS SDKs run it (cubic_test.go).
package pace
