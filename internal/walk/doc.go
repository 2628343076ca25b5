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
// # The model
//
// A walk stands at its anchor: the last post it yielded, and where that
// post stands in the list. Each request starts just before the anchor, so
// that each answer shows whether the list moved: a page that holds the
// anchor is placed after it, and only its posts after the anchor are new.
// A null next or an empty page ends the list. That is the contract's
// path: Ask, Place, Commit, Judge below, in machine.go, place.go,
// commit.go and judgement.go. Every other rule is there because the list
// changed under the walk (the anchor moved, or is gone: it is found again)
// or because the server is outside the contract (outside.go, behind one
// entry point, review: pages from elsewhere than asked, ends that come
// early, counts that lie).
//
// A walk does one thing at a time, its phase: reading (on from its
// anchor, with read-ahead), reading on (past an end the count
// contradicts), rereading (a page it could not believe), searching (for
// its anchor), checking an edge, probing (where a first page began), or
// ended. What it decides by is in four values: its position (the anchor,
// where the list goes on, what it yielded), its evidence (what the pages
// showed of the server: counts and their trust, a post sent twice, the
// named outcomes), its end judgement (pages and answers in a row that did
// not move it on, reads past an end) and what it keeps of a server outside
// the contract; with its plan (what it asks for) and its memory (the
// posts it yielded last).
//
// # How a page is read
//
// Each rule: when → the walk does → what it tells (an [EventKind], an
// [Outcomes] name, an [EndKind]) → the test that pins it (in this
// package; TestServersThePropertyFound/<seed> replays a generated server
// the property found).
//
// Ask:
//
//  1. The first request → is the caller's own, as built → — →
//     TestRuleTheFirstRequestIsTheCallers.
//  2. Any later request → starts at the node before the anchor and asks
//     for two nodes more than the limit, so that an answer shows whether
//     the list moved, and a post sent twice in place of the one after the
//     anchor shows on one page; at limits of 24 and 25, and on a server
//     that sends two nodes a page or fewer, it starts at the anchor and
//     asks for one more ([plan.following]) → — →
//     TestRuleTheFirstRequestIsTheCallers,
//     TestRuleAtTheLargestLimitsARequestStartsAtTheAnchor,
//     TestServersThePropertyFound/1256546.
//  3. Nodes that are not posts follow the anchor further than a page
//     reaches → the request starts after the anchor, as many nodes back
//     into the run as it would have before the anchor: blind, nothing on
//     its page can show where it came from → unverified-pages,
//     unverified-nodes → TestRuleABlindReadPastARunOfNonPosts,
//     TestServersThePropertyFound/775958.
//  4. The walk reads ahead ([Config.Ahead] n) → it wants n requests after
//     the one it waits for, foreseen as if every page were full, each
//     from the node before its predecessor's last; none past the count,
//     none while a page did not move the walk on or it reads on, none
//     while it follows next links ([plan.foreseen]) → — →
//     TestRuleReadAheadForeseesFullPages.
//
// Place ([Machine.locate]):
//
//  5. The page holds the anchor → placed after it, wherever it stands;
//     the posts the count shows added before it are not owed
//     ([position.behind]) → EventReanchor when it moved →
//     TestRuleAPageIsPlacedAfterItsAnchor.
//  6. It holds no anchor but an older post the walk yielded, and reaches
//     past where the anchor would be → placed after that post: the anchor
//     was removed → EventReanchor; resume-may-repeat until a page is
//     placed by its anchor → TestRuleAPageOfOlderPostsIsPlacedAfterTheLatest,
//     TestServersThePropertyFound/24771.
//  7. It holds no post the walk remembers, or its anchor moved by itself
//     (further on than the count rose, behind another post than the one
//     yielded before it) → a search where the posts seen say the anchor
//     is ([Machine.seek]), 12 reads at most → EventReanchor; then
//     EndDrift (EndIncomplete when the server sent nothing where its
//     count says posts are) → TestRuleAPageThatCannotBePlacedIsSearchedFor.
//  8. Posts the walk remembers come in another order than it yielded them
//     → the walk ends → EndDrift naming the post →
//     TestRuleAnOrderChangedEndsInDrift.
//  9. [Config.FailOnChange], and the count changed or the page is not
//     where it was asked for → the walk ends → EndDrift →
//     TestRuleFailOnChangeEndsAtTheFirstChange.
//
// Review (outside.go: pages from a server outside the contract; a page
// from one that keeps it passes, begun where it was asked):
//
//  10. The page is suspect: its anchor moved while the count stood, or
//     further than the count changed, or it was answered before the page
//     it follows from a list of another count ([Machine.suspect]) → read
//     again; twice away in the same way, taken from where its anchor shows
//     it began ([Machine.settle]) → EventReanchor; EventUnverified,
//     unverified-pages → TestRuleASuspectPageIsReadAgainThenSettled,
//     TestAPageReadAgainOnlyForItsOrderIsPlacedWhereAsked,
//     TestServersThePropertyFound/143680,
//     TestServersThePropertyFound/145165.
//  11. The page moved, and its next link goes on from where it began → read
//     again; twice, the walk follows the server's next links as sent from
//     then on, placing pages by the posts they hold; a count that changes
//     then ends it → EventFollowNext, followed-next; EndDrift →
//     TestRuleAServerThatRoundsSkipIsFollowedByItsNextLinks.
//  12. The anchor stands at the page's start where expected, on a list
//     whose count fell ([Machine.needsEdgeCheck]) → the node before the
//     page and its first are asked ([Machine.checkEdge]): a post twice
//     there, or the page's first node one place earlier (taken from
//     there), or a check of another count (the page is read again) →
//     post-sent-twice → TestRuleAnAnchorFirstOnAShrunkListHasItsEdgeChecked,
//     TestServersThePropertyFound/58489,
//     TestServersThePropertyFound/1229904,
//     TestServersThePropertyFound/179223.
//  13. Where the page begins ([Machine.pageStart]) → where it was asked;
//     following next links, where the next link says; with no post
//     yielded, or read blind, where its next link says if that is
//     earlier, what stands before the skip left out → unverified-pages;
//     first-page-unchecked on a first page from a skip →
//     TestRuleAFirstPageBegunEarlierLeavesOutWhatStandsBeforeTheSkip.
//  14. A first page from a skip that is also the last, whose count does
//     not confirm where it began → asked a skip earlier, then by halving
//     ([pageProbe]) → EventReanchor →
//     TestRuleAFirstPageThatIsAlsoTheLastIsProbed.
//
// Commit ([Machine.commit]):
//
//  15. Its posts after the placement → yielded, but any the walk remembers
//     yielding → EventRepeats → TestRuleRepeatsAreLeftOut.
//  16. One post at two places of one answer → the post it stands in for is
//     missing → post-sent-twice; EndIncomplete at the end →
//     TestRuleAPostSentTwiceIsIncomplete.
//
// Judge ([Machine.judge]):
//
//  17. A page with a next link, shorter than asked too → the walk goes
//     on, from its anchor, foreseeing by the server's page size
//     ([plan.learn]); a next link whose skip is not where the posts end is
//     read from where they end → EventShortPage; EventNextCorrected →
//     TestRuleAShortPageWithANextLinkGoesOn,
//     TestRuleANextLinkAwayFromThePostsIsCorrected.
//  18. A null next, or an empty page → the list ends (but see 19); a count
//     that disagrees with where it ends is recorded, never a reason to
//     stop → EventCountMismatch; EventShortfall, EndDone →
//     TestRuleANullNextEndsTheList.
//  19. That end has posts, and the count says more follow, or a read past
//     an earlier end brought posts the walk could not place
//     ([Machine.endContradicted]) → read on from where the posts end,
//     twice at most, and without counting from an end short of one read
//     on from before; then believed, or EndIncomplete while posts beyond
//     it stay unplaced → EventNextCorrected →
//     TestRuleAnEndTheCountContradictsIsReadOn,
//     TestServersThePropertyFound/136564,
//     TestServersThePropertyFound/166180.
//  20. The count is read from where the server's positions put the walk,
//     when they run behind its own ([Machine.lag]: a next link from
//     before where the posts end, an anchor that began earlier, posts
//     taken for added behind, a resumed walk's offset; one place at least
//     when the page's start is not vouched for) → — →
//     TestServersThePropertyFound/1192325,
//     TestServersThePropertyFound/336852,
//     TestServersThePropertyFound/1390396.
//  21. Two pages in a row do not move the walk on (the first search's page
//     among them not counted: it stands where the anchor was found,
//     behind) → the walk ends → EndStalled →
//     TestRuleTwoPagesThatDoNotMoveTheWalkOnStallIt,
//     TestChangesTheWalkOnceStalledOn.
//  22. 256 answers in a row do not move it on, whatever its rules asked
//     them for → the walk ends → EndStalled →
//     TestAWalkThatDoesNotMoveOnEndsAtTheBound.
//  23. The list ends short of its count ([Machine.finish]) → complete when
//     every page was placed by its anchor (the count is wrong), or the
//     shortfall is posts added behind, or the count measures nothing;
//     otherwise incomplete → EventShortfall; EndIncomplete →
//     TestRuleAShortfallIsIncompleteOnlyWhenTheWalkCannotVouch.
//  24. The shell refused the page's next link → the page's posts, then the
//     end → EndRefused → TestRuleARefusedNextEndsAfterThePage.
//
// Resume and counts:
//
//  25. A walk resumed after a checkpoint's post ([Config.After]) → its
//     first page is placed by that post, wherever the list moved it; from
//     skip 0 the walk passes pages over until the post shows; one that
//     never does ends → EndDrift →
//     TestRuleAResumedWalkIsPlacedByItsCheckpointsPost.
//  26. A count that measures nothing (0 or less under posts, the page's own
//     length under a next link) or that the walk read past → where the
//     list ends rests on next links alone → count-unreliable →
//     TestRuleACountThatMeasuresNothingExcusesAShortfall.
//
// # What the memory holds
//
// A walk remembers the posts of the last pages it yielded, ten pages'
// worth beyond those in flight ([Config.Memory]), not one entry per post:
// a walk of ten million posts keeps under 16 MiB of heap (TestLongWalkKeepsTheHeapBounded). The memory grows
// with the posts yielded, up to that bound: a walk of three pages holds
// three pages' worth, whatever its read-ahead. A post is known by
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
