package walk

import "strings"

// EventKind is what happened in a walk.
type EventKind uint8

const (
	// EventRepeats: N posts of a page were left out, already yielded.
	EventRepeats EventKind = iota
	// EventShortPage: a page held fewer nodes than its limit and gave a
	// next link; the walk read on.
	EventShortPage
	// EventNextCorrected: a next link did not go on from where the posts
	// ended, or a page ended the list before its count; the walk read
	// from where the posts ended.
	EventNextCorrected
	// EventCountMismatch: a page's count disagreed with where the list
	// ends.
	EventCountMismatch
	// EventReanchor: a page was not where it was asked for, or a read
	// went to find the walk's place again.
	EventReanchor
	// EventFollowNext: the server does not answer skip where asked; the
	// walk follows its next links as sent from here on.
	EventFollowNext
	// EventUnverified: a page whose place nothing on it could check.
	EventUnverified
	// EventShortfall: at the end of the list, the walk yielded N posts
	// fewer than the last count (less its skip and the nodes that could
	// not be posts).
	EventShortfall
)

// Event is one thing that happened in a walk, for its summary and its log.
// Those about a page name its request, count and nodes, and may say what
// happened in Msg.
type Event struct {
	Kind EventKind
	N    int
	// OfPage is set on an event about a page: Req, Count and Nodes are
	// then its.
	OfPage       bool
	Req          Request
	Count, Nodes int
	Msg          string
}

func pageEvent(kind EventKind, req Request, page *Page, msg string) Event {
	return Event{Kind: kind, OfPage: true, Req: req, Count: page.Count, Nodes: len(page.IDs), Msg: msg}
}

// EndKind is how a walk ended.
type EndKind uint8

const (
	// EndDone: the list ended, and every post the walk owes came (see
	// [Outcomes] for what it could not vouch for).
	EndDone EndKind = iota
	// EndRefused: a page's next link was refused; the shell says why.
	EndRefused
	// EndStalled: two pages in a row did not move the walk on.
	EndStalled
	// EndIncomplete: the walk cannot show that it yielded every post:
	// it ended short of its count after reading pages it could not check,
	// a page held one post twice in place of another, or the server sent
	// no post where its count says posts are.
	EndIncomplete
	// EndDrift: the pages show the order changed, or the walk could not
	// find its place again.
	EndDrift
)

// End is how a walk ended, and what it yielded.
type End struct {
	Kind EndKind
	// Reason says why, for an end that is an error; RepeatedID names the
	// post that came out of order, if one did.
	Reason     string
	RepeatedID string
	// CountAtStart and CountAtEnd are the counts of the first and last
	// pages; Skip where the walk started; Posts how many it yielded.
	CountAtStart, CountAtEnd int
	Skip, Posts              int
	// Outcomes is what the walk could not vouch for.
	Outcomes Outcomes
}

// Outcomes is a set of the named outcomes: what a walk saw that no client
// can check from outside (see the package documentation).
type Outcomes uint8

const (
	// UnverifiedPages: the walk read pages it could not place by a post
	// it had yielded: after a run of nodes that are not posts longer than
	// a page, from a server that sends one post a page, past an end, by a
	// walk that follows next links, at its own position; or it took a
	// page from where it began, not where it was asked (twice away from
	// there, or so shown by a check of its edge). If the server answered
	// such a page from elsewhere than asked, its posts may repeat posts
	// yielded before, or stand before the caller's skip, and nothing shows
	// it; posts it left out end the walk in [EndIncomplete] when the count
	// can tell.
	UnverifiedPages Outcomes = 1 << iota
	// FollowedNext: the server does not answer skip where asked; the walk
	// followed its next links as sent and placed pages by the posts they
	// held. A count that changes then ends the walk ([EndDrift]). Posts
	// its links skipped (a list that changed behind them while the count
	// stood still, as a removal and an addition together leave it) are
	// missing with no sign, and so is a post sent twice in place of
	// another that its links carried onto two pages.
	FollowedNext
	// CountUnreliable: a page's count measured nothing (0 or -1 under
	// posts, or the page's own length under a next link), or fell short
	// of the nodes the walk read (a stale or cached total). Where the list
	// ends rests on next links alone: a server that ends it early ends
	// the walk early, and posts an unverified page left out are missing,
	// with no sign.
	CountUnreliable
	// UnverifiedNodes: a page of [UnverifiedPages] held nodes that could
	// not be posts. Had the server sent them from elsewhere than asked,
	// they stand in the count for the posts that were there, and those
	// posts are missing with no sign.
	UnverifiedNodes
	// CountFell: the count fell during a walk with [UnverifiedPages]:
	// posts removed behind the walk and posts an unverified page left out
	// look the same to it, so the latter are missing with no sign.
	CountFell
	// FirstPageUnchecked: the walk began at a skip with no post to place
	// its first page by. A server that answered that page from elsewhere
	// than asked, and wrote its next link as if it had not, shows nothing:
	// its posts may stand before the skip, and the posts that stand where
	// it was asked are then missing.
	FirstPageUnchecked
	// PostSentTwice: a page held one post twice, in place of another: the
	// post it stands for is missing. A walk that reaches the end of the
	// list then ends in [EndIncomplete]; this outcome says it of a walk
	// stopped before.
	PostSentTwice
	// ResumeMayRepeat: a walk resumed from this walk's checkpoint may
	// yield a post this walk yielded. The walk stopped just after a page
	// it placed after an older post than its last, taking the last for
	// removed (it was not on the page, and posts the walk had not seen
	// stood where it would be): had it only been pushed past the page's
	// end (a server that ends a page early), the resumed walk yields it
	// again, as a checkpoint names one post to go on after and the posts
	// yielded stand on both sides of it (a walk that goes on sees the post
	// again and ends in [EndDrift]). Or the last page held a post twice
	// ([PostSentTwice]): a walk resumed between the two copies yields the
	// second. Only a walk stopped before its end says it.
	ResumeMayRepeat
)

var outcomeNames = []string{"unverified-pages", "followed-next", "count-unreliable", "unverified-nodes", "count-fell", "first-page-unchecked", "post-sent-twice", "resume-may-repeat"}

// String names the outcomes, comma-separated; "" for none.
func (o Outcomes) String() string {
	var names []string
	for i, name := range outcomeNames {
		if o&(1<<i) != 0 {
			names = append(names, name)
		}
	}
	return strings.Join(names, ",")
}
