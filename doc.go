// Package ugc is the Go client for the Content Posts Read API: the approved
// posts, a gallery's posts and the moderation inbox of one customer account,
// read over HTTP JSON with an API key.
//
// A [Client] makes calls, each of which returns one [Page], and walks, which
// iterate over a whole list with range-over-func. It retries what is worth
// retrying, paces itself to the API key's quota, reads pages as a tolerant
// reader, and never lets the key leave the base URL's origin or appear in an
// error or log line:
//
//	client, err := ugc.NewClient("https://ugc.example.com/api", os.Getenv("UGC_API_KEY"))
//	if err != nil {
//		return err
//	}
//	for post, err := range client.AllPosts(ctx, &ugc.PostsParams{Market: "de-de"}) {
//		if err != nil {
//			return err
//		}
//		fmt.Println(post.ID, post.Comment)
//	}
//
// # Client
//
// Create one Client per program and share it: it is safe for concurrent use
// and holds no global state. The base URL is required (the API has no fixed
// address) and may carry a path prefix, which every request keeps.
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
//   - [Client.NextPage]: the page at a saved Next URL, for a job's own state.
//
// Params may be nil; bad params are an error before any request.
//
// A service that pages for its own callers hands them [Page.Cursor], an
// opaque string that shows no host, and takes it back with [WithCursor] on
// the call for the list it serves. A cursor for another list, or altered, is
// refused before any request. Cursors are checksummed, not signed: anyone can
// forge one for any position in the list the service serves them, so never
// use a cursor for authorisation.
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
// The filter is checked by the server's own rules and messages ([ParseFilter]),
// so a malformed label ID fails before the network with the text the server
// would have sent. [IncludeLabels] fills [Post.Labels] with every available
// label of the post, whatever the filter. Market (an ID or shortId) localizes
// captions, alt text and product details; label names are never translated.
//
// # Iteration
//
// [Client.AllPosts], [Client.AllGalleryPosts] and [Client.AllInbox] walk a
// whole list as an iter.Seq2[Post, error]; [Client.PostsPages] and its
// siblings walk it page by page, for a job that checkpoints. A walk yields an
// error once and stops, and leaves nothing running after a break.
//
// The promise: every post that is in the list for the whole walk and keeps
// its place in the order comes exactly once, in order, while posts are added
// and removed; or the walk ends with an error that says why ([ErrBadNext],
// [ErrStalled], [ErrIncomplete], a [*DriftError]); or it names, in
// [WalkSummary.Outcomes], what it saw that no client can check from outside.
// A post that moves in the order, and the posts it passes, may be missed or
// come twice. The walk's rules are those of package internal/walk
// (https://pkg.go.dev/github.com/ugcposts/ugc-go/internal/walk).
//
// Every request is the caller's query at a position: a next link gives only
// the position, and one on another origin or endpoint, or with another query,
// is refused after its page's posts, so the key never leaves the base URL's
// origin. A null next or an empty page ends the walk. Each request starts at
// the last post already yielded, so that its answer shows whether the list
// moved. A walk's memory is bounded: the pages in flight, and the IDs of ten pages more.
//
//   - [WithReadAhead](n): n page requests on the wire while you handle a page
//     (default 1); posts still come in order.
//   - [ResumeFrom]: start from a [Checkpoint] saved from a page or a summary;
//     it neither repeats nor skips a post if the list changed meanwhile.
//   - [WithDrift]: [DriftRepair] (the default) repairs a change;
//     [DriftFail] ends the walk at its first sign.
//   - [WithSummary]: after the loop, a [WalkSummary] of what the walk did,
//     forgave and waited for, and its final checkpoint.
//
// # Reading pages
//
// The client is strict in what it sends and forgiving in what it reads, and
// says what it forgave. Each post is read on its own: a value of another type
// ("10.00" for a number), a timestamp in another ISO 8601 form, a required
// field missing, is read as far as it can be, and the post still comes. A node
// that cannot be a post is left out. Each is a [Deviation] on
// [Page.Deviations] (gathered in [WalkSummary.Deviations], logged as a warning
// with [WithLogger]). [WithStrictDecoding] makes any deviation a
// [*DecodeError], for contract tests. A body that is not a page (HTML, JSON
// cut short, no count, next or nodes, over [WithMaxResponseBytes]) is a
// [*DecodeError].
//
// # Errors for a service
//
// A handler that serves its own callers from this API tells four cases apart,
// none by reading message text:
//
//   - [ErrInvalidParams]: its caller's input (a cursor, a gallery ID, a
//     filter) was refused before any request; answer 400.
//   - [ErrMisuse]: the program's own mistake (an option at the wrong level, a
//     reserved header, a negative Limit); answer 500 and fix the code. The
//     table at [ErrInvalidParams] lists every case.
//   - [*ThrottleError] (matches [ErrRateLimited]): the call would have waited
//     for the quota longer than it may. Its Wait is the time to pass on, as
//     the handler's own Retry-After.
//   - anything else: the API failed ([*APIError], matching [ErrServer],
//     [ErrUnauthorized] and the like, or [*DecodeError]); answer 502.
//
// For example:
//
//	page, err := client.GalleryPosts(r.Context(), r.PathValue("id"), nil,
//		ugc.WithThrottleBudget(time.Second), ugc.WithCursor(r.FormValue("cursor")))
//	var te *ugc.ThrottleError
//	switch {
//	case errors.Is(err, ugc.ErrInvalidParams):
//		http.Error(w, err.Error(), http.StatusBadRequest)
//	case errors.As(err, &te):
//		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(te.Wait.Seconds()))))
//		http.Error(w, "busy", http.StatusServiceUnavailable)
//	case err != nil:
//		slog.ErrorContext(r.Context(), "gallery", "err", err, "request_id", ugc.RequestID(err))
//		http.Error(w, "upstream failed", http.StatusBadGateway)
//	default:
//		_ = page // render it
//	}
//
// [RequestID] reaches the server's request ID through any of the three error
// types; it is also in their text, in the log line and on otelugc's span. A
// throttle that ends the call reads:
//
//	ugc: throttle budget of 1s spent: waited 0s for the quota, and the next request would wait 1m0s more; last: ugc: GET /v1/posts: 429 Too Many Requests (request ID ugcfake-1): Too many requests
//
// A deadline that ends a call names the call, still matches
// context.DeadlineExceeded, and keeps the last failed attempt's error for
// errors.As:
//
//	ugc: GET /v1/posts: context deadline exceeded during retries; last: 500 Internal Server Error: Something went wrong
//
// A 429 that names no wait is an ordinary failure, retried; after the last
// attempt it reads:
//
//	ugc: GET /v1/posts: 429 Too Many Requests: Too many requests (after 5 attempts)
//
// # Options
//
// One [Option] type configures a Client ([NewClient]), one call and one
// walk, with the same names at every level. Given to NewClient, an option
// that shapes requests ([WithRetryMax], [WithThrottleBudget], [WithHeader])
// or walks ([WithReadAhead], [WithDrift]) is the default of every call or
// walk; given to a call, it changes that call only, so a handler and a batch
// job share one Client with their own bounds. An option given at a level it
// does not belong to is an error matching [ErrMisuse]. Each option's
// documentation ends with the levels it may be given to.
//
//	page, err := client.Posts(ctx, params, ugc.WithRetryMax(0), ugc.WithHeader("X-Request-Id", id))
//
// # Logging and observability
//
// With [WithLogger] the client logs each attempt through slog, with the
// call's context, at Debug for a success, Info for a success after retries,
// Warn for a retry or a throttle, Error for a final failure (Warn for a 4xx):
//
//	level=WARN msg="ugc: attempt failed, retrying" method=GET endpoint=/v1/posts attempt=1 status=503 duration=2ms outcome=retry request_id=ugcfake-1 wait=480ms error="ugc: GET /v1/posts: 503 Service Unavailable (request ID ugcfake-1): busy"
//	level=INFO msg="ugc: request succeeded after retries" method=GET endpoint=/v1/posts attempt=2 status=200 duration=3ms outcome=ok request_id=ugcfake-2
//
// Without it the client writes nothing. [WithAttemptObserver] calls a function
// after each attempt with an [AttemptInfo]: enough for metrics. Package
// github.com/ugcposts/ugc-go/otelugc, a module of its own, records spans,
// events and metrics with one option (otelugc.Instrument); observers given
// together all run.
//
// # Retries
//
// Connection errors, bodies cut short, 429 and 5xx but 501 are retried; other
// 4xx, a host that does not exist and a refused redirect are not. Every retry
// counts against [WithRetryMax] (default [DefaultRetryMax]), throttled or
// not: an answer is an attempt. The n-th retry waits a random time between
// half and all of min·2ⁿ ([WithRetryWait]); a throttle waits the time it
// names, and Retry-After: 0 names none (the backoff applies). Each attempt is
// bounded by [WithAttemptTimeout]. A client-wide [WithRetryBudget] stops
// retries from multiplying the load during an outage; throttles do not spend
// it, nor does a local resource running out (too many open files, no
// ephemeral port). After the last attempt the server's own answer is the
// error.
//
// # Rate limits
//
// A throttle (a 429 or a 503 that names a wait) pauses the whole Client, for
// five minutes at most by default ([WithMaxPause]): calls that meet a longer
// pause fail at once with a [*ThrottleError] whose Wait is the wait the server
// named, and the Client asks again when the bound passes. Requests waiting
// for their turn are served in order.
//
// [WithThrottleBudget] bounds how long a call may wait for the quota, pauses
// and pacing included. The default, 5 minutes, suits a batch job; a request
// handler wants a second or so. A wait past a call's budget or its deadline
// is not begun: the call fails at once with a *ThrottleError.
//
// [WithRateLimit](q, b) paces every call and walk of the Client together,
// 3 % under q, in bursts of b−1, so that requests the server counts late do
// not find its bucket empty (with b=1, each request waits for the answer to
// the one before it). A server that states its quota (RateLimit-Policy,
// X-RateLimit-*) is kept to as if configured. One that says only Retry-After
// has its quota learned: the Client finds the token bucket that explains
// which of its requests were accepted and refused, paces just under it,
// holds that rate for 30 s, then probes upward. A steady quota so costs a
// throttle at each probe, a plateau apart, and a quota that rose tenfold is
// reached within a minute. Several Clients sharing one key should each be given their share
// with WithRateLimit.
//
// [WalkSummary] reports the throttles, pauses, time waited for the quota and
// the final rate; [AttemptInfo] and the log show each throttle and pause.
// BENCHMARKS.md has the measured figures.
//
// # Security
//
// The key is attached to a request only when its scheme, host and port are
// the base URL's: redirects and next links to another origin are refused
// ([ErrForeignRedirect], [ErrBadNext]). A server or proxy that echoes the key
// (raw, URL-encoded or JSON-escaped) has it masked in every error, log line,
// [AttemptInfo] and fmt verb. Response bodies are capped
// ([WithMaxResponseBytes]). Cursors are not secrets (see Calls).
//
// # Testing code that uses this package
//
// Package [github.com/ugcposts/ugc-go/ugctest] is a fake of the whole API in
// the test process: real pagination, filters, labels, markets, exact error
// texts, quotas and injected faults. Its Server.Client never sleeps on a
// fault, so a test of a 429 path runs in milliseconds:
//
//	srv := ugctest.NewServer(t)
//	srv.FailNext(1, ugctest.RateLimit("60"))
//	_, err := srv.Client().Posts(ctx, nil, ugc.WithThrottleBudget(time.Second))
//	// err is a *ugc.ThrottleError whose Wait is a minute, at once
//
// The command ugcfake serves the same fake for other languages.
//
// To mock HTTP with gock instead, either build the client with no
// [WithHTTPClient] (it then sends through http.DefaultTransport as it is at
// each request, so gock.New intercepts it), or call gock.InterceptClient on
// an *http.Client with a Transport before passing it to [WithHTTPClient]
// (which copies it). Either way set WithRetryWait(0, 0), so that a request no
// mock matches is not retried for seconds. For unit tests of your own code,
// declare the few methods you call as an interface on your side; *Client
// satisfies it (see examples/mocking).
package ugc
