// Package ugctest is a fake Content Posts Read API for tests: a real HTTP
// server, in the test's process, that follows the contract exactly, pages for
// real, and fails on demand.
//
// Use [NewServer] in a test; it listens on a loopback port and closes when
// the test ends:
//
//	srv := ugctest.NewServer(t)                     // DefaultDataset, random key
//	c := srv.Client()                               // a *ugc.Client that never sleeps on a fault
//	srv.FailNext(2, ugctest.InternalError())        // the next two requests answer 500
//	page, err := c.Posts(ctx, &ugc.PostsParams{Limit: 5})
//	assert.Len(t, srv.Requests(), 3)                 // two failures, one success
//
// [NewHandler] returns the same API as an [http.Handler] to mount anywhere;
// the command cmd/ugcfake serves it for programs in other languages.
//
// # Data
//
// A [Dataset] holds approved posts in stored order, inbox posts, galleries,
// labels and markets with their localized text. [DefaultDataset] is small
// and realistic (its JSON form is testdata/default.json); [Generate] builds
// up to a billion posts deterministically from a seed, on demand, so a
// million posts cost a few MiB. [LoadDataset] and [Dataset.Save] read and
// write datasets as JSON.
//
// # Faults and drift
//
// A [Rule] injects a [Fault] into the requests it matches: by endpoint
// ([EndpointGallery]), by path pattern, by query parameter; the next n
// (Times), after the first k (After), every k-th (Every) or a seeded
// fraction (Fraction, Seed). A fault is any answer ([Respond],
// [ErrorResponse], [ProxyPage], with any header), a transport failure
// ([DropConnection], [TruncateBody], [CutJSON], [Stall]), or one of the
// ways real servers misbehave: [ShortPage], [ShortPageSkipping],
// [EndEarly], [RelativeNext], [ForeignNext], [EscapedNext], [OddPost],
// [ShuffledPage], [IgnoreSkip], [StalePage]:
//
//	srv.AddRule(ugctest.Rule{Endpoint: ugctest.EndpointGallery, Times: 2,
//		Fault: ugctest.ErrorResponse(503, "Service unavailable")})
//
// On a [Server], a rule that never fired fails the test when it ends,
// unless it is Optional ([Handler.NeverFired] lists them; cmd/ugcfake logs
// them at shutdown), and an error from a setup method fails the test too,
// so a test may call them without checking. [Handler.FailNext] and
// [Handler.FailFraction] are rules too, for any endpoint.
// [WithLatency] and [Handler.SetLatency] delay every answer;
// [Handler.InsertPosts], [Handler.RemovePosts], [Handler.MovePost] and
// [Handler.ShufflePosts] change the data while a client pages;
// [Handler.Requests] is the log of what arrived, headers (never the key's
// value) and query as sent included. Every answer carries an X-Request-Id
// (ugcfake-1, ugcfake-2, ..., or the one a fault sets), which ugc.RequestID
// reads and the log holds as [Request.ID]. All are safe to call while the server
// serves, and nothing is global: servers never share state.
//
// [WithControlAPI] serves all of this over HTTP at [ControlPath], for test
// suites in other languages; cmd/ugcfake always does.
//
// # Quotas
//
// [WithQuota] puts the server behind a token bucket per API key that
// tells its state in rate-limit headers (RateLimit, RateLimit-Policy,
// X-RateLimit-*); [WithQuotaConfig] with RetryAfterOnly, behind one that
// says nothing but Retry-After in whole seconds, as the contract allows
// and most of the web does. [Handler.SetQuotaConfig] changes it while the
// server serves.
//
// # Test kit
//
// The client [Server.Client] hands out waits no real time on a fault: the
// wait a fault's 429 or 503 names (RateLimit("1"), a Respond with
// Retry-After) pauses it on a virtual clock that skips the wait, and a
// [Stall] is answered at once with its length, so that the client answers
// or times out as it would have, now. What the client reports
// (AttemptInfo.Pause, a *ugc.ThrottleError's Wait) is in the time the
// fault named. A downstream test of a 429 path so runs in milliseconds:
//
//	srv.FailNext(1, ugctest.RateLimit("60"))
//	_, err := srv.Client().Posts(ctx, nil, ugc.WithThrottleBudget(time.Second))
//	// err is a *ugc.ThrottleError whose Wait is a minute, at once
//
// A quota the test asks for runs by the wall clock, and so does the
// client's pacing while the server has one: a quota is its time. A stall
// that outlasts an attempt with at most a second left is waited out, so
// that a caller's short deadline ends the call as in production. Clients
// built with ugc.NewClient wait in real time for everything.
//
// # Decisions
//
// Where the contract is silent or inconsistent, the fake decides as
// follows. Tests pin each of these: the package tests, and for the
// cmd/ugcfake key that command's tests.
//
//	Subject                          Decision
//	-------------------------------  ----------------------------------------------------------------
//	Order of checks                  auth (401), then path (404), then method (405), then the query
//	                                 string, limit, skip, include, filter, market (400), then
//	                                 gallery (404).
//	Undecodable query                400 "Query string is not valid: <why>" for a bad escape (%ZZ)
//	                                 or a ";" separator; 400 "Query has more than 1000 parameters".
//	                                 Never a query read in part.
//	No Host header (HTTP/1.0)        next is on the address the request reached.
//	Auth                             every path, known or not, needs x-api-key equal to the key;
//	                                 missing, empty or wrong gives 401 "No valid API key provided".
//	limit absent                     25 (the contract says 25 in §4.1 and 10 in §4.6).
//	limit above 25                   capped at 25; next then carries limit=25. An integer too large
//	                                 for int is capped the same way.
//	limit < 1 or not an integer      400 "limit must be an integer of at least 1" (empty, "1.5",
//	                                 "abc" included); all three endpoints.
//	skip < 0 or not an integer       400 "skip must be an integer of at least 0"; "nullable" in §4.1
//	                                 means the parameter may be left out (then 0). Huge skip: empty.
//	Repeated parameter               the first value counts (an invalid later value is ignored, an
//	                                 invalid first one is 400). next has limit and skip once and
//	                                 keeps every value of the other parameters, in order.
//	Unknown parameters               ignored; kept in next. market/filter/include on the inbox and
//	                                 filter/include on a gallery are ignored (not parameters there).
//	skip >= count                    200 with nodes [] and next null.
//	next                             absolute: scheme of the request (https if TLS), r.Host, base
//	                                 path, endpoint path, and the request's whole query with skip
//	                                 and limit replaced; keys sorted. null when skip+len(nodes) >=
//	                                 count.
//	count                            total items matching (after filter), not the page length.
//	Order                            stored order (Dataset order; generated posts newest first);
//	                                 stable across requests. A gallery lists its posts in the
//	                                 gallery's order.
//	filter                           parsed by the rules ugc.ParseFilter applies; its *FilterError
//	                                 Message is the 400 body. "" and "[]" mean no filtering. Elements are ANDed; OR:
//	                                 any value, AND: all values; empty values matches nothing;
//	                                 IDs compare case-insensitively; operators are case-sensitive.
//	Filter and unavailable labels    only available labels count: a removed or inaccessible label's
//	                                 ID matches nothing, like an unknown ID.
//	Filter size                      bounded, so one request's cost is: a filter parameter over 64 KiB
//	                                 (URL-decoded) is 400 "Filter is longer than 65536 bytes", unparsed;
//	                                 more than 1000 values in all elements together is 400 "Filter
//	                                 has more than 1000 values", after parsing (its messages first).
//	include                          comma-separated, spaces around values trimmed, case-sensitive.
//	                                 "include=" or an empty item ("labels,"): 400 "include must
//	                                 not be empty"; another value: 400 "Include <value> is not
//	                                 supported" (so "labels,foo" is 400); "labels,labels" is fine.
//	labels                           with include=labels: the post's available labels in stored
//	                                 order, duplicates once, [] when none; name null if unnamed;
//	                                 never localized; independent of the filter. Without include:
//	                                 no labels key.
//	market                           by 24-hex ID (any case) or shortId (exact case). Unknown:
//	                                 400 "Market <value> not found". Empty market= is no market.
//	                                 Localizes comment, alt, videoCaptions, videoDescription and
//	                                 tagged products' title, price and url; nothing else.
//	Gallery                          unknown shortId: 404 "Gallery not found". A gallery lists only
//	                                 posts still approved; its posts are byte-identical to their
//	                                 /v1/posts entries for the same market.
//	Inbox                            posts always carry uploadedBy.email; approved posts never do
//	                                 (an email given for one is dropped when the server starts).
//	Unknown path, trailing slash     404 "Not found".
//	Method other than GET            405 "Method not allowed" with Allow: GET (HEAD too).
//	Internal failure or panic        500 "Something went wrong".
//	Injected 429                     body "Too many requests", Retry-After as configured.
//	Quota                            per API key, by arrival time; a refused request takes no token;
//	                                 Retry-After is the seconds to the next token, rounded up, at
//	                                 least 1. RetryAfterOnly sends that header alone, on 429s only.
//	Error bodies                     a JSON string; every response has Content-Type
//	                                 application/json and a Content-Length.
//	Optional fields                  left out when absent, never null; only next and a label's
//	                                 name can be null. No HTML escaping (">" stays ">").
//	Default API key                  NewServer: random per server; cmd/ugcfake: "ugcfake-dev-key".
//	Request log                      the last 10,000 requests (WithRequestLogLimit); never the key.
//	Rules                            tried in the order added, FailFraction's last; the first that
//	                                 fires decides. Page faults match only requests with the key and
//	                                 leave an answer that is not a page (400, 404) as it is.
//	Control API                      under <base path>/_ugcfake, same key; its requests are neither
//	                                 logged nor matched by rules.
//	Path segments                    decoded one by one: /v1/%70osts is the posts list; a shortId
//	                                 may hold an escaped "/" (then it names no gallery).
package ugctest
