package pace

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// announced is a 200 whose headers tell a quota of 10 requests a second
// with remaining tokens left, and reset until the next when none is.
func announced(remaining int, reset time.Duration) Answer {
	return Answer{Status: http.StatusOK, Limit: Limit{Limit: 10, Window: time.Second, Remaining: remaining, Reset: reset}, Found: true}
}

// TestPacerOwesTheTokensOfRequestsSentBeforeTheQuotaWasKnown: four
// requests go at once, before any answer; the first answer tells a quota
// of 10 a second with one token left, a burst of 2: the three in flight may
// each take a token, and the next request waits for the three past the one
// left, and its own (it keeps one spare). The answers of the others, which
// expected nothing, leave that debt as it is.
func TestPacerOwesTheTokensOfRequestsSentBeforeTheQuotaWasKnown(t *testing.T) {
	t.Parallel()
	p := New(0, 0)
	var tickets []Ticket
	for range 4 {
		tickets = append(tickets, p.Send(simEpoch))
	}
	now := simEpoch.Add(10 * time.Millisecond)
	p.Answered(now, tickets[0], announced(1, 0))
	interval := p.Interval()
	require.Equal(t, intervalAt(10*(1-Headroom)), interval)
	assert.Equal(t, now.Add(4*interval), p.Earliest(now), "three tokens owed, and one spare")
	p.Answered(now.Add(time.Millisecond), tickets[1], announced(0, 0))
	assert.Equal(t, now.Add(4*interval), p.Earliest(now), "a later answer that expected nothing keeps the debt")
}

// TestPacerTrustsItsBucketWhileTheServerAgrees: under a quota of 10 a
// second, burst 5, that the server announces, the client's bucket expects
// the server's to hold its own tokens and the spare one after each request.
// Answers that say so change nothing; one that says none is left, where the
// client expected the spare one, does not pause the client until the
// reset, even one in whole seconds (RateLimit's t, rounded up). After a
// lull, one that says the server holds fewer by a token or more (another
// client spends the key) makes the client take the server's word from then
// on: the answer that says none is left pauses it until the reset.
func TestPacerTrustsItsBucketWhileTheServerAgrees(t *testing.T) {
	t.Parallel()
	p := New(0, 0)
	first := p.Send(simEpoch)
	now := simEpoch.Add(10 * time.Millisecond)
	p.Answered(now, first, announced(4, 0)) // burst 5: the client keeps 4, and has 3 left
	interval := p.Interval()
	var tickets []Ticket
	for range 3 {
		require.Equal(t, now, p.Earliest(now))
		tickets = append(tickets, p.Send(now))
	}
	for i, ticket := range tickets {
		e := p.Answered(now.Add(10*time.Millisecond), ticket, announced(3-i, 0))
		assert.Zero(t, e.Pause)
	}
	assert.Equal(t, now.Add(interval), p.Earliest(now), "the client's own bucket: empty, a token an interval on")
	assert.False(t, p.contradicted)

	at := now.Add(interval)
	last := p.Send(at)
	// The server had 1 and refilled 0.97 of a token since: after this
	// one, 0.97, and the next token 3 ms on, which RateLimit's t says as
	// a second.
	e := p.Answered(at.Add(10*time.Millisecond), last, announced(0, time.Second))
	assert.Zero(t, e.Pause, "as the client expected: no pause until the reset")
	assert.Equal(t, at.Add(interval), p.Earliest(at), "the client's own bucket")
	assert.False(t, p.contradicted)

	at = at.Add(time.Second) // a lull: the client's bucket holds its 4 again
	shared := p.Send(at)
	e = p.Answered(at.Add(10*time.Millisecond), shared, announced(0, 300*time.Millisecond))
	assert.True(t, p.contradicted, "the server held fewer than 1 where the client expected 4")
	assert.Equal(t, 300*time.Millisecond, e.Pause, "the server's word: none left until its reset")
}
