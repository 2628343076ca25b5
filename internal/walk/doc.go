// Package walk is the decisions of a walk over a paginated list, and the
// one place that says what a walk promises. It is a pure state machine: it
// is told each answer ([Machine.Take]: the request, the page as read) and
// says what to do next ([Machine.Wants]: the requests to have in flight;
// [Step]: the posts to yield, whether and how the walk ends, the events
// that happened). It has no goroutines, clocks or network: rereads and
// searches are requests it asks for like any other. The SDK's root
// package is the shell that does the I/O.
//
// # The promise
//
// Every post that is in the list for the whole walk and keeps its place in
// the order comes exactly once, in order, and nothing comes that was not
// in the list; or the walk ends with an error ([EndIncomplete],
// [EndStalled], [EndDrift], [EndRefused]) that says why; or the walk names
// what it saw that no client can check from outside ([Outcomes]), and
// only that lifts any part of the promise. This holds in every mode
// (sequential, prefetch, parallel, resumed from a checkpoint, from the
// caller's own skip) while posts are added and removed anywhere in the
// list. A post keeps its place in the order unless it moves (an edit that
// re-sorts it) or a moving post passes it: the order between two such
// posts changed, and either may be missed or come twice.
//
// The property test (property_test.go) checks exactly this, and holds no
// list of exempt cases: over generated servers (counts that lie, next
// links null a page early, skip honoured, ignored once or rounded, pages
// capped, runs of nodes that are not posts, a post sent twice in place of
// another, inserts, removals and moves at any point, moderators changing
// the list at every request, lists longer than the memory), every walk is
// exactly once, or an error, or an outcome that excuses what it names.
//
// # How a page is read, in one pass
//
//  1. Ask. Each request starts at the node before the last post yielded,
//     the anchor, and asks for two more ([plan.following]): the answer
//     shows whether the list moved since, and a post sent twice in place
//     of the one after the anchor shows on one page when changes the
//     count does not show moved the anchor back by one (further, the
//     anchor is found away from where it was asked, and read again). At
//     limits of 24 and 25, where that would cost requests, and on a server
//     that sends two nodes a page or fewer, it starts at the anchor and
//     asks for one more ([plan.overlap]). Past a run of nodes that are not
//     posts longer than a page, the read is blind: it starts as many nodes
//     back into the run, so that a post that removals behind the walk
//     moved back into it still comes. Read-ahead foresees the requests
//     after it as if every page were full ([plan.foreseen]); each starts
//     likewise before its predecessor's last node, so every boundary is
//     checked.
//  2. Place ([Machine.locate]). A page that holds the anchor is placed
//     after it. One that holds only older posts the walk remembers is
//     placed after the latest of them (posts after it were removed). A
//     page that holds none, or whose anchor moved by itself, cannot be
//     placed: the walk searches where the posts it saw say the anchor is
//     ([Machine.seek]). A page found away from where it was asked while
//     the count stood, or further than the count moved, is read again
//     before it is believed, and so is one answered before the page it
//     follows from a list of another count (its anchor may stand where
//     expected only by a post sent twice standing in for the shift; its
//     second answer, if not doubtful by itself, is placed as any page);
//     twice away in the same way, it is taken from where it began
//     ([Machine.settle]), or, when its next link agrees, the walk follows
//     the server's next links as sent from then on (a server that rounds
//     skip). A page whose anchor stands first, or at its start where
//     expected, on a list that lost posts is checked by asking for the
//     node before the page and its first ([Machine.checkEdge]): a post
//     sent twice in place of the one after the anchor, after removals
//     before it, would stand just there, and a server that rounds skip
//     down by as much as the removals moved the list would answer just
//     so. Two copies of a post end the walk as incomplete; a first node
//     one place earlier than the page put it takes the page from where
//     the check shows it began. A check answered with another count than
//     the page's shows nothing of its list: the page is read again.
//  3. Begin ([Machine.pageStart]). Where the page begins is where it was
//     asked, unless the walk follows next links, or a page read without
//     the anchor has a next link that says it began earlier. A first page
//     that is also the last, whose count does not confirm where it began,
//     is probed ([probe]): the same request a skip earlier, halving when
//     the server answers both from one place.
//  4. Commit ([Machine.commitPosts]). Its posts after the placement are
//     yielded, without any the walk remembers yielding.
//  5. Judge ([Machine.judge]). A null next or an empty page ends the list;
//     a short page with a next link does not. An end the count
//     contradicts (from where the server's next links or the page's
//     anchor put the walk, or from before the posts the walk took for
//     added behind it, when that is before where it has its posts end), or
//     that a read or search past it contradicted with posts it does not
//     remember, on a page it could not place or believe, is read on from,
//     twice at most, the server's next links as sent too; one still
//     contradicted by such posts then is incomplete (an end short of
//     one read before is read on from without counting, twice at most
//     until the walk moves on). A page that ends the
//     list where it did not show it began as asked (taken from before
//     where it was asked, placed elsewhere than asked, or a resumed walk's
//     first) is read on from once even where the count is met: a server
//     that answered from before where asked, with a count that rose by as
//     much, looks like a list that gained posts behind the walk. A resumed
//     walk whose first page showed its checkpoint ahead of the server
//     judges every end from that far back. A read on by a walk that
//     follows next links, at its own position, whose page holds no post
//     it yielded is unverified ([UnverifiedPages]).
//     Two pages in a row that do not move the walk past the furthest it
//     read end it as stalled; the first search's page among them is not
//     counted (it stands where the anchor was found, behind), and what
//     the walk read stands earlier by as far as a page shows its anchor
//     moved back. Whatever its rules ask for, a walk that takes 256
//     answers in a row that do not move it on ends as stalled too. At the
//     end, a walk that could not place
//     every page by its anchor and falls short of its count is
//     incomplete; so is one that saw a page hold one post twice.
//
// # What the memory holds
//
// A walk remembers the posts of the last pages it yielded, ten pages'
// worth beyond those in flight ([Config.Memory]), not one entry per post:
// a walk of ten million posts keeps a few MiB of heap. A post is known by
// its ID, byte for byte; no hash stands for it, so no post is ever dropped
// for another. Which repeats a real server produces, and what finding them
// needs:
//   - the anchor on the next page, and posts pushed onto it by additions
//     before it: placement skips them, by the anchor alone;
//   - a post listed twice on one page: the page alone;
//   - a page from elsewhere (a skip ignored or rounded, a stale cache): it
//     holds no post of the last pages, so it is not placed, and read again;
//   - a post moved from behind the walk to ahead of it: seen within the
//     memory (the order changed: [EndDrift]); from further back it comes
//     again. A move is not promised.
//
// Pages read without the anchor cannot be checked by any of these: they
// are named ([UnverifiedPages]).
//
// # Named outcomes
//
// The outcomes are the documentation of [Outcomes]'s constants:
// [UnverifiedPages], [FollowedNext], [CountUnreliable], [UnverifiedNodes],
// [CountFell], [FirstPageUnchecked], [PostSentTwice] and
// [ResumeMayRepeat]. Each is set only when the walk saw its cause, and
// each says what of the promise it lifts. The SDK's WalkSummary.Outcomes
// names them.
package walk
