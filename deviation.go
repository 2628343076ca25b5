package ugc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
)

// Deviation is one place where a page differed from the contract and the
// client read it anyway (see [Page.Deviations]).
type Deviation struct {
	Index  int    // the node's index in the page's nodes; -1: the page itself
	PostID string // the post's id; "" if none
	Path   string // the value's JSON path, e.g. "nodes[3].createdAt"
	Sent   string // the start of the value as sent; "" when missing
	Kept   string // what the post holds instead, e.g. "zero value"
	// Dropped is set for a node that could not be a post, left out of
	// the page's Nodes.
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
