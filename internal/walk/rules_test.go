package walk

// The rules of "How a page is read" (doc.go), each pinned by a test of its
// own: a scripted server, a walk driven to its end, and what the rule says
// it does, asked of the requests, the posts, the events and the end.

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ugcposts/ugc-go/internal/walk/walkmodel"
)

// scripted is a server a rule's test scripts: it answers from list as a
// server that keeps the contract does, unless its fields bend it.
type scripted struct {
	list []string
	// count, when set, writes a page's count from the list's length.
	count func(n int) int
	// cap is the most nodes it sends a page (0: the limit asked).
	cap int
	// roundTo, when set, serves skip rounded down to a multiple of it,
	// its next link going on from where its posts end.
	roundTo int
	// endAt, when set, sends a null next on the page that reaches it.
	endAt int
	// before runs before each answer: the list may change.
	before func(s *scripted, req Request)
	// back, when set, serves the n-th answer that many nodes before where
	// it was asked (a lagging replica), its next link written as if it had
	// not been.
	back func(n uint64) int
	// asked logs the requests answered, in order.
	asked []Request
	n     uint64
}

func (s *scripted) answer(req Request) *Page {
	s.n++
	if s.before != nil {
		s.before(s, req)
	}
	s.asked = append(s.asked, req)
	from, shift := req.Skip, 0
	if s.roundTo > 0 {
		from -= from % s.roundTo
	}
	if s.back != nil {
		shift = min(s.back(s.n), from)
		from -= shift
	}
	served := req.Limit
	if s.cap > 0 {
		served = min(served, s.cap)
	}
	from = min(from, len(s.list))
	to := min(from+served, len(s.list))
	page := &Page{Count: len(s.list), IDs: slices.Clone(s.list[from:to]), Answered: s.n}
	if s.count != nil {
		page.Count = s.count(len(s.list))
	}
	if to < len(s.list) && to > from && !(s.endAt > 0 && to >= s.endAt) {
		page.Next = Next{Present: true, Skip: to + shift, Limit: req.Limit}
	}
	return page
}

// walked is what a walk did: the posts it yielded, every event, and how
// it ended.
type walked struct {
	posts  []string
	events []Event
	end    *End
}

// kinds counts the events of each kind.
func (w walked) kinds() map[EventKind]int {
	out := map[EventKind]int{}
	for _, e := range w.events {
		out[e.Kind]++
	}
	return out
}

// walkScripted drives m against s, taking each answer as it is asked for,
// to the walk's end (200 answers at most).
func walkScripted(t *testing.T, m *Machine, s *scripted) walked {
	t.Helper()
	var w walked
	var wants []Request
	var held *Page
	for range 200 {
		wants, _ = m.Wants(wants)
		require.NotEmpty(t, wants)
		page := s.answer(wants[0])
		step := m.Take(wants[0], page)
		w.events = append(w.events, step.Events...)
		src := page
		if step.Earlier {
			src = held // the page the walk probed or checked for
		}
		if wants[0].Purpose != Probe {
			held = page
		}
		for _, i := range step.Yield {
			w.posts = append(w.posts, src.IDs[i])
		}
		if step.End != nil {
			w.end = step.End
			return w
		}
	}
	t.Fatalf("the walk did not end in 200 answers")
	return w
}

func ids(n int) []string { return walkmodel.MakeIDs("p", n) }

// TestRuleTheFirstRequestIsTheCallers (rule 1): the walk's first request
// is the caller's own, as built; each later one starts at the node before
// the anchor and asks for two more, so that every answer shows whether
// the list moved (rule 2).
func TestRuleTheFirstRequestIsTheCallers(t *testing.T) {
	t.Parallel()
	s := &scripted{list: ids(30)}
	w := walkScripted(t, New(Config{Skip: 0, Limit: 10}), s)
	require.Equal(t, EndDone, w.end.Kind)
	assert.Equal(t, ids(30), w.posts)
	assert.Equal(t, Request{Skip: 0, Limit: 10, First: true}, s.asked[0])
	assert.Equal(t, Request{Skip: 8, Limit: 12}, s.asked[1], "from the node before the anchor (p0009), two more")
	assert.Equal(t, Request{Skip: 18, Limit: 12}, s.asked[2])
}

// TestRuleAtTheLargestLimitsARequestStartsAtTheAnchor (rule 2): at limits
// of 24 and 25 a request starts at the anchor and asks for one more, so
// that a page still brings a full page of new posts; so does a walk on a
// server that sends two nodes a page or fewer.
func TestRuleAtTheLargestLimitsARequestStartsAtTheAnchor(t *testing.T) {
	t.Parallel()
	s := &scripted{list: ids(60)}
	w := walkScripted(t, New(Config{Limit: 25}), s)
	require.Equal(t, EndDone, w.end.Kind)
	assert.Equal(t, Request{Skip: 24, Limit: 25}, s.asked[1], "from the anchor, one more (the contract's most)")
	small := &scripted{list: ids(9), cap: 2}
	w = walkScripted(t, New(Config{Limit: 10}), small)
	require.Equal(t, EndDone, w.end.Kind)
	assert.Equal(t, ids(9), w.posts)
	assert.Equal(t, Request{Skip: 1, Limit: 11}, small.asked[1], "pages of two nodes: from the anchor")
}

// TestRuleABlindReadPastARunOfNonPosts (rule 3): past a run of nodes that
// are not posts longer than a page, the request starts after the anchor,
// blind, as many nodes back into the run as the overlap; its page is
// named unverified, with nodes that are not posts.
func TestRuleABlindReadPastARunOfNonPosts(t *testing.T) {
	t.Parallel()
	list := append(append(ids(5), slices.Repeat([]string{""}, 30)...), walkmodel.MakeIDs("q", 5)...)
	s := &scripted{list: list}
	w := walkScripted(t, New(Config{Limit: 10}), s)
	require.Equal(t, EndDone, w.end.Kind)
	assert.Equal(t, append(ids(5), walkmodel.MakeIDs("q", 5)...), w.posts)
	assert.True(t, slices.ContainsFunc(s.asked, func(r Request) bool { return r.Blind }), "a blind read")
	assert.NotZero(t, w.end.Outcomes&UnverifiedPages)
	assert.NotZero(t, w.end.Outcomes&UnverifiedNodes)
}

// TestRuleReadAheadForeseesFullPages (rule 4): a walk that reads ahead
// wants the requests after the one it waits for as if every page were
// full, each from the node before its predecessor's last; none past the
// count.
func TestRuleReadAheadForeseesFullPages(t *testing.T) {
	t.Parallel()
	s := &scripted{list: ids(45)}
	m := New(Config{Limit: 10, Ahead: 3})
	wants, _ := m.Wants(nil)
	require.Len(t, wants, 1, "nothing foreseen before the first count")
	m.Take(wants[0], s.answer(wants[0]))
	wants, _ = m.Wants(nil)
	assert.Equal(t, []Request{{Skip: 8, Limit: 12}, {Skip: 18, Limit: 12}, {Skip: 28, Limit: 12}, {Skip: 38, Limit: 12}}, wants)
	m.Take(wants[0], s.answer(wants[0]))
	wants, _ = m.Wants(nil)
	assert.Equal(t, []Request{{Skip: 18, Limit: 12}, {Skip: 28, Limit: 12}, {Skip: 38, Limit: 12}}, wants, "none at or past the count (45)")
}

// TestRuleAPageIsPlacedAfterItsAnchor (rule 5): a page that holds the
// anchor is placed after it, wherever it stands: posts added before it
// pushed it on, and only the posts after it are new; the move is an
// event, and the posts the count shows added behind are not owed.
func TestRuleAPageIsPlacedAfterItsAnchor(t *testing.T) {
	t.Parallel()
	s := &scripted{list: ids(30)}
	s.before = func(s *scripted, req Request) {
		if s.n == 2 { // posts added before the anchor, between the first two requests
			s.list = append(walkmodel.MakeIDs("n", 3), s.list...)
		}
	}
	w := walkScripted(t, New(Config{Limit: 10}), s)
	require.Equal(t, EndDone, w.end.Kind)
	assert.Equal(t, ids(30), w.posts, "every post of the list as it was, once")
	assert.Positive(t, w.kinds()[EventReanchor])
	assert.Zero(t, w.end.Outcomes)
}

// TestRuleAPageOfOlderPostsIsPlacedAfterTheLatest (rule 6): a page that
// does not hold the anchor but holds an older post the walk yielded, and
// reaches past where the anchor would be, is placed after that post: the
// anchor (and any post yielded after that one) was removed.
func TestRuleAPageOfOlderPostsIsPlacedAfterTheLatest(t *testing.T) {
	t.Parallel()
	s := &scripted{list: ids(30)}
	s.before = func(s *scripted, req Request) {
		if s.n == 2 { // the anchor, p0009, removed: the page from 8 holds p0008, then p0010
			s.list = slices.Delete(s.list, 9, 10)
		}
	}
	w := walkScripted(t, New(Config{Limit: 10}), s)
	require.Equal(t, EndDone, w.end.Kind)
	assert.Equal(t, ids(30), w.posts, "every post once (p0009 came before it was removed)")
	assert.Equal(t, Request{Skip: 8, Limit: 12}, s.asked[1])
	assert.Len(t, s.asked, 3, "placed as it came, after p0008: no search")
	assert.Positive(t, w.kinds()[EventReanchor])
}

// TestRuleAPageThatCannotBePlacedIsSearchedFor (rule 7): a page that holds
// no post the walk remembers cannot be placed: the walk searches where the
// posts it saw say the anchor is, 12 reads at most, then ends in drift.
func TestRuleAPageThatCannotBePlacedIsSearchedFor(t *testing.T) {
	t.Parallel()
	s := &scripted{list: ids(60)}
	s.before = func(s *scripted, req Request) {
		if s.n == 2 { // ten posts added before the anchor: the page asked holds none it knows
			s.list = append(walkmodel.MakeIDs("n", 10), s.list...)
		}
	}
	w := walkScripted(t, New(Config{Limit: 5}), s)
	require.Equal(t, EndDone, w.end.Kind)
	assert.Equal(t, ids(60), w.posts)
	assert.True(t, slices.ContainsFunc(s.asked, func(r Request) bool { return r.Purpose == Search }), "a search")

	gone := &scripted{list: ids(60)}
	gone.before = func(s *scripted, req Request) {
		if s.n == 2 {
			s.list = walkmodel.MakeIDs("x", 60) // every post replaced: nothing to find
		}
	}
	w = walkScripted(t, New(Config{Limit: 5}), gone)
	require.Equal(t, EndDrift, w.end.Kind)
	assert.Contains(t, w.end.Reason, "could not be found again after 13 reads")
}

// TestRuleAnOrderChangedEndsInDrift (rule 8): posts the walk remembers
// that come in another order than it yielded them end the walk in drift,
// naming the post.
func TestRuleAnOrderChangedEndsInDrift(t *testing.T) {
	t.Parallel()
	s := &scripted{list: ids(30)}
	s.before = func(s *scripted, req Request) {
		if s.n == 2 {
			s.list[8], s.list[9] = s.list[9], s.list[8]
		}
	}
	w := walkScripted(t, New(Config{Limit: 10}), s)
	require.Equal(t, EndDrift, w.end.Kind)
	assert.Equal(t, "p0008", w.end.RepeatedID)
}

// TestRuleFailOnChangeEndsAtTheFirstChange (rule 9): under FailOnChange
// a count that changed ends the walk in drift.
func TestRuleFailOnChangeEndsAtTheFirstChange(t *testing.T) {
	t.Parallel()
	s := &scripted{list: ids(30)}
	s.before = func(s *scripted, req Request) {
		if s.n == 2 {
			s.list = append(s.list, "n0000")
		}
	}
	w := walkScripted(t, New(Config{Limit: 10, FailOnChange: true}), s)
	require.Equal(t, EndDrift, w.end.Kind)
	assert.Equal(t, "the count changed", w.end.Reason)
}

// TestRuleASuspectPageIsReadAgainThenSettled (rule 10): a page whose
// anchor stands away from where it was asked while the count stood (a
// lagging replica answered from two nodes before) is read again before it
// is believed; twice away in the same way, it is taken from where its
// anchor shows it began, named unverified, and every post comes once.
func TestRuleASuspectPageIsReadAgainThenSettled(t *testing.T) {
	t.Parallel()
	s := &scripted{list: ids(40), back: func(n uint64) int {
		if n == 2 || n == 3 {
			return 2
		}
		return 0
	}}
	w := walkScripted(t, New(Config{Limit: 10}), s)
	require.Equal(t, EndDone, w.end.Kind)
	assert.Equal(t, ids(40), w.posts)
	assert.Equal(t, Reread, s.asked[2].Purpose, "the second answer is a read again")
	assert.Equal(t, 1, w.kinds()[EventUnverified], "settled, taken from where it began")
	assert.NotZero(t, w.end.Outcomes&UnverifiedPages)
}

// TestRuleAServerThatRoundsSkipIsFollowedByItsNextLinks (rule 11): a page
// found away from where it was asked whose next link agrees with where it
// began is read again; twice, the walk follows the server's next links as
// sent from then on, every post once, and names followed-next.
func TestRuleAServerThatRoundsSkipIsFollowedByItsNextLinks(t *testing.T) {
	t.Parallel()
	s := &scripted{list: ids(60), roundTo: 10}
	w := walkScripted(t, New(Config{Limit: 10}), s)
	require.Equal(t, EndDone, w.end.Kind)
	assert.Equal(t, ids(60), w.posts)
	assert.Equal(t, 1, w.kinds()[EventFollowNext])
	assert.NotZero(t, w.end.Outcomes&FollowedNext)
}

// TestRuleAPostSentTwiceIsIncomplete (rules 12 and 16): a page that holds
// one post twice, in place of another, names post-sent-twice, and a walk
// that reaches the end of the list ends incomplete: the post it stands for
// is missing.
func TestRuleAPostSentTwiceIsIncomplete(t *testing.T) {
	t.Parallel()
	list := ids(30)
	list[15] = list[14]
	w := walkScripted(t, New(Config{Limit: 10}), &scripted{list: list})
	require.Equal(t, EndIncomplete, w.end.Kind)
	assert.Contains(t, w.end.Reason, "post p0014 came twice on one page")
	assert.NotZero(t, w.end.Outcomes&PostSentTwice)
}

// TestRuleAnAnchorFirstOnAShrunkListHasItsEdgeChecked (rule 12): a page
// whose anchor stands first, where expected, on a list whose count fell,
// has the node before it asked (two nodes, a probe) before it is taken.
func TestRuleAnAnchorFirstOnAShrunkListHasItsEdgeChecked(t *testing.T) {
	t.Parallel()
	s := &scripted{list: ids(40)}
	s.before = func(s *scripted, req Request) {
		if s.n == 2 { // a post removed behind the walk: the anchor moves back by one
			s.list = slices.Delete(s.list, 3, 4)
		}
	}
	w := walkScripted(t, New(Config{Limit: 10}), s)
	require.Equal(t, EndDone, w.end.Kind)
	assert.Equal(t, ids(40), w.posts, "p0003 came before it was removed")
	assert.Equal(t, Request{Skip: 7, Limit: 2, Purpose: Probe}, s.asked[2], "the anchor, p0009, first on the page from 8: the node before it asked")
}

// TestRuleAFirstPageBegunEarlierLeavesOutWhatStandsBeforeTheSkip (rule
// 13): a first page from the caller's skip, answered from before it by a
// server that rounds skip, begins where its next link says: what stands
// before the skip is left out, and the page named unverified.
func TestRuleAFirstPageBegunEarlierLeavesOutWhatStandsBeforeTheSkip(t *testing.T) {
	t.Parallel()
	s := &scripted{list: ids(30), roundTo: 10}
	w := walkScripted(t, New(Config{Skip: 13, Limit: 10}), s)
	require.Equal(t, EndDone, w.end.Kind)
	assert.Equal(t, ids(30)[13:], w.posts)
	assert.NotZero(t, w.end.Outcomes&UnverifiedPages)
	assert.NotZero(t, w.end.Outcomes&FirstPageUnchecked)
}

// TestRuleAFirstPageThatIsAlsoTheLastIsProbed (rule 14): a first page from
// a skip that is also the last, whose count does not confirm where it
// began, has where it began asked: a skip earlier, then by halving; the
// posts before the skip are left out.
func TestRuleAFirstPageThatIsAlsoTheLastIsProbed(t *testing.T) {
	t.Parallel()
	s := &scripted{list: ids(30), roundTo: 10}
	w := walkScripted(t, New(Config{Skip: 23, Limit: 10}), s)
	require.Equal(t, EndDone, w.end.Kind)
	assert.Equal(t, ids(30)[23:], w.posts)
	assert.True(t, slices.ContainsFunc(s.asked, func(r Request) bool { return r.Purpose == Probe }), "probed: %v", s.asked)
}

// TestRuleRepeatsAreLeftOut (rule 15): a post a page holds that the walk
// remembers yielding is left out, and counted: here one listed twice, one
// after the other, which also ends the walk incomplete (rule 16: the copy
// may stand in place of another post).
func TestRuleRepeatsAreLeftOut(t *testing.T) {
	t.Parallel()
	list := slices.Insert(ids(30), 15, "p0014")
	w := walkScripted(t, New(Config{Limit: 10}), &scripted{list: list})
	assert.Equal(t, ids(30), w.posts, "p0014 once")
	assert.Equal(t, 1, w.kinds()[EventRepeats])
	assert.Equal(t, EndIncomplete, w.end.Kind)
}

// TestRuleAShortPageWithANextLinkGoesOn (rule 17): a page shorter than
// asked, with a next link, does not end the list: the walk goes on from
// where its posts end (the next request starts at its anchor), records
// the short page, and foresees by the pages the server sends.
func TestRuleAShortPageWithANextLinkGoesOn(t *testing.T) {
	t.Parallel()
	s := &scripted{list: ids(60), cap: 7}
	m := New(Config{Limit: 20, Ahead: 2})
	w := walkScripted(t, m, s)
	require.Equal(t, EndDone, w.end.Kind)
	assert.Equal(t, ids(60), w.posts)
	assert.Positive(t, w.kinds()[EventShortPage])
	assert.Equal(t, Request{Skip: 5, Limit: 22}, s.asked[1], "from the node before the short page's last post")
	assert.Equal(t, 7, m.plan.served, "the server's page size, learned")
	assert.Zero(t, w.end.Outcomes)
}

// TestRuleANextLinkAwayFromThePostsIsCorrected (rule 17): a next link whose
// skip is not where the page's posts end is recorded; the walk reads on
// from where the posts ended.
func TestRuleANextLinkAwayFromThePostsIsCorrected(t *testing.T) {
	t.Parallel()
	s := &scripted{list: ids(30)}
	m := New(Config{Limit: 10})
	var w walked
	var wants []Request
	for w.end == nil {
		wants, _ = m.Wants(wants)
		page := s.answer(wants[0])
		if page.Next.Present {
			page.Next.Skip += 5 // skip plus limit, under a page the server cut short
		}
		step := m.Take(wants[0], page)
		w.events = append(w.events, step.Events...)
		for _, i := range step.Yield {
			w.posts = append(w.posts, page.IDs[i])
		}
		w.end = step.End
	}
	assert.Equal(t, EndDone, w.end.Kind)
	assert.Equal(t, ids(30), w.posts)
	assert.Positive(t, w.kinds()[EventNextCorrected])
}

// TestRuleANullNextEndsTheList (rule 18): a null next ends the list, and a
// count that disagrees with where it ends is recorded, never a reason to
// stop; so does an empty page.
func TestRuleANullNextEndsTheList(t *testing.T) {
	t.Parallel()
	w := walkScripted(t, New(Config{Limit: 10}), &scripted{list: ids(25), count: func(int) int { return 0 }})
	require.Equal(t, EndDone, w.end.Kind)
	assert.Equal(t, ids(25), w.posts)
	assert.Positive(t, w.kinds()[EventCountMismatch])
	w = walkScripted(t, New(Config{Limit: 10}), &scripted{list: nil})
	assert.Equal(t, EndDone, w.end.Kind, "an empty page")
	assert.Empty(t, w.posts)
}

// TestRuleAnEndTheCountContradictsIsReadOn (rule 19): a page with posts
// that ends the list where the count says more posts follow is read on
// from, twice at most: a server that ends the list early loses no post.
func TestRuleAnEndTheCountContradictsIsReadOn(t *testing.T) {
	t.Parallel()
	s := &scripted{list: ids(50), endAt: 30}
	w := walkScripted(t, New(Config{Limit: 10}), s)
	require.Equal(t, EndDone, w.end.Kind)
	assert.Equal(t, ids(50), w.posts, "the posts past the early end")
	assert.Positive(t, w.kinds()[EventNextCorrected])
	short := &scripted{list: ids(30), count: func(n int) int { return n + 5 }}
	w = walkScripted(t, New(Config{Limit: 10}), short)
	assert.Equal(t, EndDone, w.end.Kind, "read on twice, then believed: a walk placed by its anchors vouches for itself")
	assert.Equal(t, 2, w.kinds()[EventNextCorrected])
}

// TestRuleTwoPagesThatDoNotMoveTheWalkOnStallIt (rule 21): two pages in a
// row that bring nothing new end the walk as stalled.
func TestRuleTwoPagesThatDoNotMoveTheWalkOnStallIt(t *testing.T) {
	t.Parallel()
	m := New(Config{Limit: 5})
	s := &scripted{list: ids(30)}
	var end *End
	var wants []Request
	for i := 0; end == nil; i++ {
		wants, _ = m.Wants(wants)
		page := s.answer(Request{Skip: 0, Limit: wants[0].Limit}) // a server that ignores skip
		page.Next = Next{Present: true, Skip: wants[0].Skip + len(page.IDs), Limit: wants[0].Limit}
		end = m.Take(wants[0], page).End
		require.Less(t, i, 50)
	}
	assert.Equal(t, EndStalled, end.Kind, "%+v", end)
	assert.Contains(t, end.Reason, "2 pages in a row did not move the walk on")
}

// TestRuleAShortfallIsIncompleteOnlyWhenTheWalkCannotVouch (rule 23): a
// walk that ends short of its count is complete when it placed every page
// by its anchor (the count is wrong), and incomplete when it read pages
// it could not check.
func TestRuleAShortfallIsIncompleteOnlyWhenTheWalkCannotVouch(t *testing.T) {
	t.Parallel()
	high := func(n int) int { return n + 3 }
	w := walkScripted(t, New(Config{Limit: 10}), &scripted{list: ids(30), count: high})
	assert.Equal(t, EndDone, w.end.Kind, "every page placed by its anchor")
	list := append(append(ids(5), slices.Repeat([]string{""}, 30)...), walkmodel.MakeIDs("q", 5)...)
	w = walkScripted(t, New(Config{Limit: 10}), &scripted{list: list, count: high})
	assert.Equal(t, EndIncomplete, w.end.Kind, "a blind read, and a count above what it found")
}

// TestRuleARefusedNextEndsAfterThePage (rule 24): a next link the shell
// refused ends the walk after the page that carried it.
func TestRuleARefusedNextEndsAfterThePage(t *testing.T) {
	t.Parallel()
	m := New(Config{Limit: 10})
	wants, _ := m.Wants(nil)
	page := (&scripted{list: ids(30)}).answer(wants[0])
	page.Next = Next{Refused: true}
	step := m.Take(wants[0], page)
	require.NotNil(t, step.End)
	assert.Equal(t, EndRefused, step.End.Kind)
	assert.Len(t, step.Yield, 10, "the page's posts first")
}

// TestRuleAResumedWalkIsPlacedByItsCheckpointsPost (rule 25): a walk
// resumed after a post places its first page by it, wherever the list
// moved it; one that never finds it ends in drift.
func TestRuleAResumedWalkIsPlacedByItsCheckpointsPost(t *testing.T) {
	t.Parallel()
	list := append(walkmodel.MakeIDs("n", 4), ids(30)...) // four posts added before it since
	w := walkScripted(t, New(Config{Skip: 13, After: "p0012", Limit: 10}), &scripted{list: list})
	require.Equal(t, EndDone, w.end.Kind)
	assert.Equal(t, ids(30)[13:], w.posts)
	w = walkScripted(t, New(Config{Skip: 0, After: "gone", Limit: 10}), &scripted{list: ids(30)})
	assert.Equal(t, EndDrift, w.end.Kind)
	assert.Contains(t, w.end.Reason, "post gone of the checkpoint is no longer in the list")
}

// TestRuleACountThatMeasuresNothingExcusesAShortfall (rule 26): a count
// that measures nothing (0 under posts, or the page's own length under a
// next link) names count-unreliable; the list's end rests on next links
// alone.
func TestRuleACountThatMeasuresNothingExcusesAShortfall(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		count func(int) int
	}{{"zero", func(int) int { return 0 }}, {"page length", func(int) int { return 10 }}} {
		t.Run(tc.name, func(t *testing.T) {
			w := walkScripted(t, New(Config{Limit: 10}), &scripted{list: ids(25), count: tc.count})
			require.Equal(t, EndDone, w.end.Kind)
			assert.Equal(t, ids(25), w.posts)
			assert.NotZero(t, w.end.Outcomes&CountUnreliable, "%s", fmt.Sprint(w.end.Outcomes))
		})
	}
}
