package ugc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/hashicorp/go-retryablehttp"
)

// getPage sends one GET to u and decodes the page. labels says whether every
// post must carry labels (the request asked for include=labels).
func (c *Client) getPage(ctx context.Context, u *url.URL, labels bool) (*Page, error) {
	if ctx == nil {
		return nil, fmt.Errorf("%w: nil context", ErrInvalidParams)
	}
	if err := ctx.Err(); err != nil {
		return nil, err // as is, and before a transport sees the request
	}
	header := http.Header{"User-Agent": c.userAgent, "Accept": acceptJSON}
	if sameOrigin(u, c.base) { // always, by construction; keyTransport checks again
		header[canonicalKeyHeader] = c.apiKey()
	}
	hreq := (&http.Request{Method: http.MethodGet, URL: u, Host: u.Host, Header: header,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}).WithContext(ctx)
	req, err := retryablehttp.FromRequest(hreq)
	if err != nil {
		return nil, fmt.Errorf("ugc: GET %s: %w", u.Path, err)
	}
	body := c.pageBody()
	defer c.bodies.Put(body)
	req.SetResponseHandler(body.handler)

	resp, err := c.http.Do(req)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, ctxErr
		}
		if resp != nil && body.err != nil {
			return nil, c.decodeError(u.Path, resp.StatusCode, body.buf.Bytes(), body.err)
		}
		return nil, fmt.Errorf("ugc: GET %s: %w", u.Path, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		body.buf.Reset()
		_ = c.readBody(resp.Body, &body.buf) // a cut-short error body still says what it can
		return nil, newAPIError(http.MethodGet, u.Path, resp.StatusCode, c.redact(body.buf.Bytes()))
	}
	page, err := decodePage(body.buf.Bytes())
	if err != nil {
		return nil, c.decodeError(u.Path, resp.StatusCode, body.buf.Bytes(), err)
	}
	if labels {
		for i := range page.Nodes {
			if page.Nodes[i].Labels == nil {
				return nil, c.decodeError(u.Path, resp.StatusCode, body.buf.Bytes(), fmt.Errorf("nodes[%d].labels: %w (the request asked for include=labels)", i, errMissing))
			}
		}
	}
	page.Next = absoluteNext(u, page.Next)
	return page, nil
}

var acceptJSON = []string{"application/json"}

// pageBody holds the body of a 2xx answer, read inside the retry loop so
// that a body cut short is retried like a dropped connection.
type pageBody struct {
	c       *Client
	buf     bytes.Buffer
	err     error // of the last read; a body over the cap is not retried
	handler retryablehttp.ResponseHandlerFunc
}

// pageBody returns a pooled pageBody, ready for a call.
func (c *Client) pageBody() *pageBody {
	b, _ := c.bodies.Get().(*pageBody)
	if b == nil {
		b = &pageBody{c: c}
		b.handler = b.read // bound once: no allocation per call
	}
	b.buf.Reset()
	b.err = nil
	return b
}

// read is the response handler: it reads a 2xx body and leaves any other
// for getPage to read once the retries are over.
func (b *pageBody) read(resp *http.Response) error {
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil
	}
	b.buf.Reset()
	b.err = b.c.readBody(resp.Body, &b.buf)
	return b.err
}

// errBodyTooLarge is a body over the client's cap.
var errBodyTooLarge = errors.New("response body exceeds the size cap")

// readBody reads all of body into buf, up to the client's cap, and closes it.
func (c *Client) readBody(body io.ReadCloser, buf *bytes.Buffer) error {
	defer body.Close()
	for {
		buf.Grow(bytes.MinRead)
		free := buf.AvailableBuffer()
		n, err := body.Read(free[:cap(free)])
		buf.Write(free[:n])
		if int64(buf.Len()) > c.maxBody {
			buf.Truncate(int(c.maxBody)) // what proved the excess is not part of the body kept
			return fmt.Errorf("%w of %d bytes", errBodyTooLarge, c.maxBody)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func (c *Client) decodeError(path string, status int, body []byte, err error) error {
	return &DecodeError{Method: http.MethodGet, Endpoint: path, StatusCode: status, Snippet: snippet(c.redact(body)), Err: err}
}

// redact returns a copy of a body that an error keeps, with the API key
// masked in case a server or proxy echoed it.
func (c *Client) redact(body []byte) []byte {
	out := bytes.ReplaceAll(body, []byte(c.apiKey()[0]), []byte("[redacted]"))
	if out == nil {
		return []byte{} // an empty body stays empty, not nil
	}
	return out
}

// checkRetry is the retry policy: connection errors, bodies cut short, 429
