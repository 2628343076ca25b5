package ugc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
)

// Deviation is one place where a page differed from the contract and the
// client read it anyway (see [Page.Deviations]): a post with a value of
// another type, a timestamp in another form, a required field missing, a
// member sent twice, a node that could not be a post at all; or, for the
// page itself, a count sent as a string or a leading byte-order mark.
type Deviation struct {
	// Index is the node's index in the page's nodes as sent; -1 for a
	// deviation of the page itself.
	Index int
	// PostID is the post's id, "" when it had none (or not yet read).
	PostID string
	// Path is the JSON path of the value, from the page: for example
	// "nodes[3].taggedProducts[0].product.price.price", or "count"; ""
	// for the page as a whole (a byte-order mark).
	Path string
	// Sent is the start of the value as sent, printable; "" when it was
	// missing.
	Sent string
	// Kept says what the post holds instead: the value as read (for
	// example 10 for "10"), "zero value", "[]", or, for a node left out of
	// the page, "node dropped: ...".
	Kept string
	// Dropped is set for a node that could not be a post (not an object,
	// or no usable id): it is not in the page's Nodes.
	Dropped bool
}

// sentNodes is how many nodes the server sent in page: its posts and the
// nodes dropped because they could not be posts.
func sentNodes(page *Page) int {
	n := len(page.Nodes)
	for _, d := range page.Deviations {
		if d.Dropped {
			n++
		}
	}
	return n
}

// String describes the deviation in one line, for logs.
func (d Deviation) String() string {
	sent := "missing"
	if d.Sent != "" {
		sent = fmt.Sprintf("sent %s", d.Sent)
	}
	id := ""
	if d.PostID != "" {
		id = " (post " + d.PostID + ")"
	}
	path := d.Path
	if path == "" {
		path = "the page"
	}
	return fmt.Sprintf("%s%s: %s, kept %s", path, id, sent, d.Kept)
}

// errDeviates is the cause of a strict client's DecodeError for a page that
// deviates from the contract.
var errDeviates = errors.New("deviates from the contract")

// checkDeviations logs each of the page's deviations as a warning when the
// client has a logger and, for a strict client, turns the first into an
// error. decodePage has masked the key in what they quote.
func (c *Client) checkDeviations(ctx context.Context, u *url.URL, page *Page) error {
	if len(page.Deviations) == 0 {
		return nil
	}
	if c.strict {
		return fmt.Errorf("%s: %w", page.Deviations[0], errDeviates)
	}
	if c.logger != nil {
		for _, d := range page.Deviations {
			c.logger.LogAttrs(ctx, slog.LevelWarn, "ugc: a post deviates from the contract; read anyway",
				slog.String("endpoint", u.Path), slog.Int("node", d.Index), slog.String("post", d.PostID),
				slog.String("path", d.Path), slog.String("sent", d.Sent), slog.String("kept", d.Kept))
		}
	}
	return nil
}
