// Package ugc is the Go client for the Content Posts Read API: the approved
// posts, a gallery's posts and the moderation inbox of one customer account,
// read over HTTP JSON with an API key.
//
// # Client
//
// Create one [Client] per program and share it; it is safe for concurrent
// use and holds no global state. The base URL is required (the API has no
// fixed address) and may carry a path prefix, which every request keeps:
//
//	client, err := ugc.NewClient("https://ugc.example.com/api", os.Getenv("UGC_API_KEY"))
//
// [NewClient] checks everything up front: an empty key, a relative or
// malformed URL, plain http:// to a host that is not loopback (unless
// [WithInsecureHTTP]) or a bad option is an error there, never later.
//
// # Calls
//
// Each call returns one [Page]: Count (the total), Next (the URL of the
// following page, "" on the last) and Nodes (the posts).
//
//   - [Client.Posts]: approved posts (GET /v1/posts), with [PostsParams]:
//     Limit (1 to 25; 0 sends 25), Skip, Market, Filter and Include.
//   - [Client.GalleryPosts]: the posts of a gallery by its shortId
//     (GET /v1/galleries/{id}/posts), with [GalleryPostsParams].
//   - [Client.Inbox]: posts pending moderation (GET /v1/inbox), with
//     [InboxParams]; each carries the member's email in UploadedBy.Email.
//   - [Client.NextPage]: the page at a saved Next URL.
//
// Params may be nil. Bad params are an error before any request.
//
// A service that pages for its own callers hands them [Page.Cursor], an
// opaque string that shows no host, and takes it back with [WithCursor] on
// the call for the list it serves: a cursor for another list (a gallery's
// replayed against the inbox), or altered, is refused before any request
// ([ErrBadCursor], which matches [ErrInvalidParams]).
//
// # Filters, labels and markets
//
// A [Filter] is a list of label conditions that a post must all meet:
//
//	params := &ugc.PostsParams{
//		Filter:  ugc.Filter{ugc.AnyLabel(summer, beach), ugc.AllLabels(featured)},
//		Include: []ugc.Include{ugc.IncludeLabels},
//		Market:  "de-de",
//	}
//
// The filter is validated by the server's own rules and messages (see
// [ParseFilter]), so a malformed label ID fails before the network with the
// text the server would have sent. [IncludeLabels] fills [Post.Labels] with
// every available label of the post, whatever the filter. Market (an ID or
// shortId) localizes captions, alt text and product details; label names are
// never translated.
//
// # Iteration
//
// [Client.AllPosts], [Client.AllGalleryPosts] and [Client.AllInbox] walk a
// whole list as an iter.Seq2[Post, error]; [Client.PostsPages] and its
// siblings walk it page by page. They yield an error once and stop, and
// leave nothing running after a break.
//
// The promise: every post that is in the list for the whole walk and keeps
// its place in the order comes exactly once, in order, in every mode, while
// posts are added and removed; or the walk ends with an error that says
// why; or it names, in [WalkSummary.Outcomes], what it saw that no client
// can check from outside (a server that ignores skip, a count that measures
// nothing, pages it could not place by a post it had yielded). A post that
// moves in the order, and the posts it passes, may be missed or come twice.
// The decisions are a pure state machine whose documentation states the
// promise, each named outcome and how a page is read, in one place:
// https://pkg.go.dev/github.com/ugcposts/ugc-go/internal/walk.
//
// Every request is the caller's query (filter, market, include) at a
// position: a next link gives only the position (a relative link is
// resolved against the request that returned it); one that leaves the
// query out is repaired, one that names other values is refused. A null
// next or an empty page ends the walk; a page shorter than its limit that
// gives a next link does not, and a count that disagrees with where the
// list ends is recorded, never a reason to stop. Each request starts just
// before the last post already yielded, the anchor (and asks for two posts
// more; at limits of 24 and 25 it starts at the anchor and asks for one),
// so that the answer shows whether the list moved since. A walk holds
// no OS thread of its own, and remembers the posts of its last pages, not
// of the whole list: its memory is bounded by the pages in flight.
//
//   - Prefetch (on by default, [WithReadAhead] 1): the next page is in
//     flight while the caller handles the current one.
//   - Parallel ([WithReadAhead] n): up to n pages in flight, posts still in
//     order, memory bounded by n pages; each boundary between pages is
//     checked as in a sequential walk, and requests a page proves wrong are
//     cancelled and sent again.
//   - Resume ([ResumeFrom]): start from a [Checkpoint] saved from a page or
//     a summary; the first page is placed by the checkpoint's post, so a
//     list that changed between the runs costs nothing, and a checkpoint
//     taken after the last page yields only what was added since.
//   - Drift ([WithDrift]): [DriftRepair] (the default) repairs a change as
//     above; [DriftFail] ends the walk at the first sign of one.
//   - Summary ([WithSummary]): after the loop, what the walk did and what
//     it forgave: pages, requests, posts, counts, short pages, next links
//     corrected, queries restored, count mismatches, re-anchors, pages it
//     could not check, repeats dropped, deviations, any shortfall against
//     the count, and the checkpoint after the last post handed out.
//
// A walk ends with an error rather than a silent gap or an endless loop: a
// next URL on another origin, on another endpoint, with another query, or
// that does not advance skip is refused ([ErrBadNext]) after the posts of
// the page that carried it, so the key never leaves the base URL's origin;
// two pages in a row that move the walk on by nothing end it with
// [ErrStalled]; a walk that could not check every page's place and ends
// short of its count ends with [ErrIncomplete]. A context that ends stops
// the loop at once, in the middle of a page too.
//
// # Reading pages: a tolerant reader
//
// The client is strict in what it sends and forgiving in what it reads,
// and says what it forgave. Each post is read on its own, so one that
// deviates from the contract never costs its neighbours, its page or the
// rest of a walk.
//
// Timestamps are read to the right instant in every form ISO 8601 allows
// with a zone: calendar (2024-05-01), ordinal (2024-122) and week
// (2024-W18-3) dates; the basic (20240501T101500Z) and extended formats;
// reduced precision (T10Z, T10:15Z); a fraction of the last unit given,
// after a dot or a comma (T10.5Z is 10:30); zones Z, ±hh, ±hhmm and
// ±hh:mm; 24:00 (the next day's start); a leap second (23:59:60, read as
// the next second); and PostgreSQL's text output (2024-05-01
// 12:15:00.123456+02). These are the contract's and no deviation. A
// timestamp without a zone (read as UTC), a date alone, one that mixes the
// basic and extended formats, or a Unix time is read and recorded.
//
// What else can be read is read: a number or boolean sent as a string
// ("10.00", "true", 1); null or nothing where a list is required (an empty
// list); a count sent as 25.0 or 2.5e1 (no deviation) or as "25"; a page
// after a UTF-8 byte-order mark; a member sent twice, read as
// encoding/json reads it (the last value; an object merged into the
// first; null leaving a value that is not a pointer); a member name in
// another case, matched as encoding/json matches it; a string with invalid
// UTF-8 or a lone surrogate escape (\ud800), kept with U+FFFD in its place
// as encoding/json keeps it. A value that cannot
// be read at all (a createdAt of "yesterday", an object where a string
// belongs) leaves the field at its zero value, and a required field
// missing is its zero value; the post still comes. A node that cannot be a
// post (not an object, or no id) is left out of the page. Each of these
// is a [Deviation] on [Page.Deviations]: the post's index and id (-1 for
// the page itself), the JSON path, a snippet of what was sent (never the
// API key) and what was kept; a walk's [WalkSummary] gathers them, and a
// client with [WithLogger] logs each as a warning. [WithStrictDecoding]
// makes any deviation a [*DecodeError] instead, for contract tests;
// ugctest's clients use it. Unknown media types and unknown members are
// not deviations: the contract does not list every value.
//
// The JSON itself is never forgiven: what encoding/json refuses (a bad
// escape, a control character in a string, nesting deeper than its limit
// of 10,000) is a [*DecodeError] that says where and what was found
// ("invalid JSON at offset 1234, in nodes[3].comment: depth limit
// reached"), and JSON cut short is retried as a body cut short.
//
// The reader is written for this schema, from one table per type that
// declares each member's name, how it is read and whether it is required,
// in one pass with no reflection: it reads a 25-post page several times
// faster than encoding/json, with fewer bytes and a sixth of its
// allocations (BENCHMARKS.md).
//
// # Errors
//
// A non-2xx answer is an [*APIError] with the status, the message the API
// sent as a bare JSON string (or a short text/plain body as it is), the raw
// body, the response headers, the Retry-After as a duration, the number of
// attempts made, and [APIError.RequestID]; errors.Is matches
// [ErrBadRequest], [ErrUnauthorized], [ErrNotFound], [ErrRateLimited] and
// [ErrServer]. A body that is not a page at all (cut short, HTML, no count,
// next or nodes, over the size cap) is a [*DecodeError] after retries (JSON
// cut short is retried like a body cut short on the wire). Bad input matches [ErrInvalidParams] (filters give a
// [*FilterError]); a refused redirect matches [ErrForeignRedirect]; an
// attempt that ran past [WithAttemptTimeout] while the caller's context was
// alive matches [ErrAttemptTimeout] (and still context.DeadlineExceeded). A
// context that ends before any attempt failed gives ctx.Err() as it is; one
// that ends during retries gives an error that matches ctx.Err() with
// errors.Is and still reaches the last attempt's [*APIError] with
// errors.As:
//
//	context deadline exceeded during retries, after 3 attempts; last: ugc: GET /v1/posts: 500 Internal Server Error: Something went wrong
//
// A final 429 after retries reads
//
//	ugc: GET /v1/posts: 429 Too Many Requests: Too many requests (after 5 attempts)
//
// No error, log line or fmt verb ever shows the API key, in any encoding a
// server may echo it in (raw, JSON-escaped, URL-encoded), where it stands
// as a token: a test key of "a" leaves "Internal Server Error" whole.
//
// # Options
//
// One [Option] type configures a Client ([NewClient]), one call and one
// walk, with the same names at every level: given to NewClient an option
// that shapes requests ([WithRetryMax], [WithAttemptTimeout], [WithHeader])
// or walks ([WithReadAhead], [WithDrift]) is the default of every call or
// walk; given to a call it changes that call only, on a Client shared by
// callers with different budgets (a call's [WithHeader] replaces the
// Client's value of that header). Options of one level only are errors
// elsewhere: [WithHTTPClient] on a call, [WithSummary] or [ResumeFrom] on a
// Client, [WithResponseInto] (status, headers and attempts of a successful
// answer) on a Client, [WithCursor] on a walk. Each option's documentation
// ends with where it may be given.
//
//	page, err := client.Posts(ctx, params, ugc.WithRetryMax(0), ugc.WithHeader("X-Request-Id", id))
//
// # Logging and observability
//
// With [WithLogger] the client logs each attempt through slog with the
// call's context (LogAttrs), so a trace-aware handler correlates the lines,
// with the attributes method, endpoint, attempt, status, duration, wait,
// outcome and error, and where they apply pause (a client-wide pause the
// answer started), quota_wait (the wait for the attempt's turn),
// ratelimit_remaining and ratelimit_rate (what the answer said of the
// quota): a failed attempt that is retried is a Warn, a success
// after retries an Info, a final failure an Error (a Warn for a 4xx), a
// plain success a Debug. For example:
//
//	level=WARN msg="ugc: attempt failed, retrying" method=GET endpoint=/v1/posts attempt=1 status=503 duration=2ms outcome=retry wait=480ms error="ugc: GET /v1/posts: 503 Service Unavailable: busy"
//	level=INFO msg="ugc: request succeeded after retries" method=GET endpoint=/v1/posts attempt=2 status=200 duration=3ms outcome=ok
//
// Without it the client writes nothing. [WithAttemptObserver] calls a
// function after each attempt, in order, with the call's context: enough
// for metrics, and for OpenTelemetry without the SDK depending on it:
// package github.com/ugcposts/ugc-go/otelugc, a module of its own, wires
// spans, events and metrics into a Client with one option
// (otelugc.Instrument), and examples/otel runs it.
//
// # Retries
//
// The client retries each call itself (go-retryablehttp's policy decides
// which transport errors are final), with a policy fit for a library:
//
//   - retried: connection errors, bodies cut short, 429, and 5xx but 501;
//     never other 4xx, a host that does not exist, or a refused redirect;
//   - up to [DefaultRetryMax] retries ([WithRetryMax]); the n-th waits a
//     random time between half and all of min·2ⁿ, from [DefaultRetryWaitMin]
//     capped at [DefaultRetryWaitMax] ([WithRetryWait]); a Retry-After
//     header of 0 on 429 or 503 retries at once; an ended context stops a
//     wait at once;
//   - each attempt is bounded by [DefaultAttemptTimeout] ([WithAttemptTimeout]);
//   - after the last attempt the server's answer is returned as an
//     [*APIError] ("Something went wrong" for a 500), not a generic
//     "giving up" error;
//   - nothing is written anywhere unless [WithLogger] is given.
//
// # Rate limits
//
// A Client paces itself, for every call and walk it makes together; the
// requests waiting for their turn go in the order they came:
//
//   - [WithRateLimit](rps, burst) caps it at the API key's quota (a
//     token bucket), kept 3 % under the rate and one request under the
//     burst, so that the client's bucket does not run ahead of the
//     server's when requests take more or less time in transit: set to
//     the quota, with a burst of 2 or more, a walk runs without a 429
//     (measured over HTTP up to 300 a second; at 700 to 1,000 with a
//     burst of 1 or 2 and read-ahead 16, a spacing little more than the
//     jitter of a loaded 2-core machine, about one walk in six met one;
//     BENCHMARKS.md),
//     and with a burst of 3 or more within 3 % of the quota's speed
//     (with 2, the client keeps bursts of one: a request its timer let
//     go late puts the next back by what it was late past its slack,
//     half a token less the spread of the recent round trips; 1.02 to
//     1.04 times the quota's time at 20 to 50 a second, 1.05 to 1.2 at
//     200, more on a loaded machine; BENCHMARKS.md). The Client sends
//     its burst, then waits for the first answer (a second at most) and
//     refills its bucket from there, as the server's refills from when
//     it counted the burst, late if it was slow to take its first
//     requests. The spare token then absorbs a request the server counts
//     up to one token's interval late, and the 3 % rebuild more while
//     the walk lasts. A request the server counts late, and the next one
//     counted early, come closer together than they were sent, by up to
//     what the recent round trips take past the quickest, or more where
//     the last seconds showed more, fading by half each second (the
//     jitter in transit: the client cannot tell the way in from the way
//     back, or from the server's time to answer, and takes all of it for
//     the way in; a delay rarer than the last 64 round trips comes
//     again). Past what the spare token and the 3 % absorb, each request is
//     taken as if it went out that much later: that costs the burst
//     after a lull, and, where the server's burst has no token to spare
//     for it, speed, but no 429 (simulated buckets of 1 to 1,000 a
//     second with up to 50 ms of jitter each way: 265 walks of 4,000
//     were refused 1,610 requests before, 24 one request each after, all
//     with a burst of one; BENCHMARKS.md). With a burst of one there is
//     no spare token: each request waits for the one before it to be
//     written, and is spaced from that write, and from its send plus the
//     excess of its round trip over the quickest the recent ones show
//     (their least, less a margin where they spread by more than the
//     3 %: the next may be quicker than any of them). For the first 16
//     answers, and then while they come back within the quota's
//     spacing, it also waits for an answer still out when it is due (a
//     second at most); and, where the recent round trips' median exceeds
//     their least by less than the 3 % of the spacing kept under the
//     quota, a request the pacing's timer let go late does not put the
//     later ones back. That costs speed (measured 1.02 to 1.11 times the
//     quota's time at 20 to 50 a second, 1.2 to 1.34 at 200;
//     BENCHMARKS.md). At 200 a second most of it is the timer: Go's
//     runtime, idle, wakes one up to a millisecond late, and a bucket of
//     one holds nothing to make that up with. A request whose round trip
//     is quicker than the margin allows can still be refused: only
//     spacing each request an interval from the answer before it would
//     rule that out, at the cost of a round trip on every request;
//   - a 429 or 503 that names a wait (Retry-After in seconds or as an HTTP
//     date, or the reset of a quota the headers show used up) pauses the
//     whole Client until then, and the requests waiting go one at a time
//     after it; an answer whose headers say nothing remains (RateLimit,
//     X-RateLimit-Remaining: 0) pauses it until the reset before any 429,
//     unless the server's policy is known and the Client expected that
//     (below);
//   - a server's RateLimit-Policy caps the Client's rate, under the
//     policy's, and the Client keeps to that quota as to one set with
//     [WithRateLimit] (above), jitter in transit included, with the burst
//     the server's Remaining has shown (one until it shows more). Each
//     answer's Remaining is compared with what the Client's own bucket
//     expected the server's to hold when it sent that request: while the
//     server holds that much, less a token at most, nothing changes, and an
//     answer that says nothing remains pauses it not at all with a burst of
//     2 or more, and with a burst of one a token's interval at most,
//     whatever its reset (many servers send it in whole seconds, rounded
//     up); once it holds a token or more less (another client spends the
//     key), the Client takes each Remaining as it comes, less a token for
//     every request in flight, and pauses until the reset when none remains.
//     The requests sent before the first answer told the quota owe the
//     tokens they may take: the next waits for them. A key that another
//     client spends at a tenth to a half of the announced rate still meets
//     429s: the Client keeps to the announced rate, which is not all its
//     own. Simulated buckets of 1 to 1,000 a second, bursts of 1 to 20, up
//     to 50 ms of jitter each way, 1 to 16 workers (4,000 walks, half with
//     resets to the millisecond, half in whole seconds): of the requests
//     sent after the first answer, none refused, where 187 walks were
//     refused some before; 3 walks under 0.9 of what the jitter leaves (all
//     with a burst of one), where 241 were (a bucket of one paused a second
//     at every answer that said none was left). Against the fake on the
//     loopback, 2,000 posts with a burst of 2: 1.03 times the quota's time
//     at 50 a second (1.07 to 1.10 before), 1.05 to 1.06 at 200 (1.22 to
//     1.26); BENCHMARKS.md;
//   - a server that says nothing but Retry-After has its quota learned:
//     after the first throttle, the client ramps its rate up from what
//     the server had accepted until the next throttle shows where the
//     quota is; it then works out, from which of its own requests were
//     accepted and which refused, the rates a token bucket of each size
//     would need to explain them, paces just under, and probes upward
//     slowly, by requests that succeeded (never while paused or idle),
//     on a curve that stays near the learned rate for at least 30 s (or
//     18 named waits) before it climbs; the first two estimates after
//     the ramp, which knows the quota to a factor of two at worst, are
//     probed after 4 s when their bounds are loose, but for the ramp's
//     own where they are within a fifth of it on a bucket of three
//     tokens or more: that one keeps its 30 s, so a walk of a few
//     hundred requests spends one named wait less (simulated buckets of
//     30 to 300 a second and 3 to 20 tokens: 9 walks in 10 take no
//     throttle but the ramp's in the 30 s after the first, where 2 in 3
//     did). Unless the phases leave only buckets of one or two, a
//     request that the client's timer let go late (Go's wake up to a
//     millisecond late), or that waited to be written, by up to an
//     interval in all, leaves the next one due when it was, so the client
//     sends at the learned rate itself, and the curve moves on by the
//     rate it was held to, the timers' lateness aside; once two requests
//     in a row that came sooner than the rate allows are refused under
//     the learned rate, never again (simulated buckets of 1 to 1,000 a
//     second with timers up to 1 ms late: 2,817 of 3,000 walks meet the
//     issue's property, where 2,702 did before late requests were
//     forgiven, and 6 fall under 0.7 of the quota or end far from it,
//     where 11 did). Where the phases prove a
//     bucket of two, one of one ruled out, a request let go late by up
//     to half a token's interval, less the spread of the recent round
//     trips, leaves the next one due when it was, as under
//     [WithRateLimit] with a burst of two, until the first request sent
//     sooner than the rate allows is refused under the learned rate
//     (simulated buckets of two at 20 to 500 a second, timers up to 1 ms
//     late: lateness costs 0.27 % of the quota on average, where it cost
//     3 %).
//     Where they leave only a bucket of one or two, once a refusal has
//     been taken for the jitter in transit, and while the round trips
//     spread by more than the 3 % the client keeps under its estimate,
//     the requests are spaced from their writes and answers as under
//     [WithRateLimit] with a burst of one (above), so that a request the
//     server counted late seldom has the next one refused and the
//     learned rate lowered (simulated stalls: no throttle storm, where
//     there were some). A parallel walk's requests in flight follow the
//     same rate, and its window opens as pages come (four requests at
//     first, one more for each page taken), so that the first throttle
//     finds a few of them in flight, not the whole read-ahead. A quota
//     that changes from a bucket of one or two tokens to a larger one at
//     a lower rate reads, phase by phase, as the small bucket at the rate
//     each phase was sent at, its throttle at the edge of the spacing;
//     once two phases in a row, each cut short by its throttle, miss what
//     the small bucket proved, the learner considers buckets as large as
//     the phase's count, and a second refusal of a request sent under
//     the learned rate before the plateau's end is learned from, not
//     taken for the jitter (simulated changes to 8 to 50 tokens at 0.4
//     to 1.5 times the rate: 6 of 400 walks take more throttles than one
//     per 30 s, where 191 did). From a larger bucket, where two phases in
//     a row, each cut short, miss the bounds before them and meet at a
//     bucket larger than any considered (one size and rate explain
//     both), it takes that bucket (changes from 3 to 8 tokens to 20 to
//     50: 3 of 400 walks take more throttles than one per 30 s, where 103
//     did). Simulated
//     token buckets of 1 to 1,000 req/s show it, and BENCHMARKS.md
//     measures it on the fake. A server that counts requests in a fixed
//     or sliding window instead, which gives back all of its count at
//     once, fits the model only roughly: simulated windows of 1 s to a
//     minute are paced at 0.7 of their rate or more over 6 minutes (0.93
//     on average; 1-s windows 0.87), with no throttle storm, but for a
//     fixed window of one request, whose edges let two requests through
//     close together. A 1-s window is the slow one to learn: its phases
//     read as a bucket of its count that refills at about 0.7 of its
//     rate, until a probe 30 s on shows more, so in the first minute
//     after the first throttle it is paced at 0.77 of its rate on average
//     (0.67 sliding, 0.55 at the least; 0.57 to 0.74 over HTTP in front
//     of the fake);
//   - several Clients that spend one key (processes of one program, or
//     other programs) each take its quota for their own. Give each its
//     share, [WithRateLimit](q/k, b/k) for k Clients on a quota of q a
//     second in bursts of b: with shares of two tokens or more, together
//     they are never refused (simulated keys of 2 or 3 Clients, 1 to
//     1,000 a second, with jitter in transit; and on the fake). Left to
//     learn it, they share it unevenly and are throttled more than one
//     alone: where the burst holds a token for each, together they use
//     0.8 of the quota or more, with at most 9 throttles in 30 s a Client
//     (simulated: 0.835 at the least, 3.1 at the most, and one Client got
//     a twenty-fourth of an even share); where it holds fewer, each request
//     finds the bucket emptied by another about as often as the others
//     use it, and their rates fall (a bucket of one shared by three at
//     654 a second: 0.06 of it; BENCHMARKS.md);
//   - a throttle is retried by time, not by attempts: it does not use up
//     [WithRetryMax]. A call may wait for the quota, pauses and pacing
//     included, [DefaultThrottleBudget] ([WithThrottleBudget], per call,
//     walk or Client) and no later than its context's deadline: a wait
//     beyond either is not begun, and the call ends at once with a
//     [*ThrottleError] that says how long the wait would have been (it
//     matches [ErrRateLimited]), observed and logged;
//   - a client-wide budget of [DefaultRetryBudget] retries
//     ([WithRetryBudget]), refilled by successes, stops retries of 5xx and
//     connection errors from multiplying the load during an outage
//     ([ErrRetryBudgetExhausted]).
//
// What the server said is on [ResponseInfo.RateLimit] and
// [AttemptInfo.RateLimit]; [AttemptInfo] and the log show each throttle
// and pause, and a [WalkSummary] the throttles, pauses, time waited and the
// final rate.
//
// # Security
//
// The key is attached to a request only when its scheme, host and port are
// the base URL's: redirects to another origin are refused, and so are next
// URLs on another origin. A server or proxy that echoes the key (in an
// error body, a header, a next link or a redirect's Location, raw,
// URL-encoded or JSON-escaped) has it masked in every error, at every layer
// of its chain, and in every log line and [AttemptInfo]. Response bodies are capped
// ([WithMaxResponseBytes]).
//
// # Testing code that uses this package
//
// Package [github.com/ugcposts/ugc-go/ugctest] is a fake of the whole API
// that runs in the test process: real pagination, filters, labels, markets,
// exact error texts, and injected faults. Prefer it to mocking HTTP. The
// command ugcfake serves the same fake for clients in other languages.
//
// To mock at the HTTP level with gock instead, either build the client with
// no [WithHTTPClient]: it then sends through http.DefaultTransport as it is
// at each request once something replaced it, so gock.New intercepts it
// whether it ran before or after [NewClient]; or give the client an
// *http.Client with a Transport, call gock.InterceptClient on it before
// [NewClient] (which copies it) and pass it with [WithHTTPClient]. Either
// way set WithRetryWait(0, 0) so that a request no mock matches is not
// retried for seconds; see the examples of NewClient and WithHTTPClient. For unit tests of your own
// code, declare the few methods you call as an interface on your side;
// *Client satisfies it (see examples/mocking).
package ugc
