package ugc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// call sends a single-page call's request for u, or returns the error that
// building u gave (bad params); either way its error has passed
// [Client.maskErr].
func (c *Client) call(ctx context.Context, u *url.URL, err error, opts []Option) (*Page, error) {
	if err != nil {
		return nil, c.maskErr(err)
	}
	return c.getPage(ctx, u, wantsLabels(u), opts, attemptHooks{})
}

// getPage sends one GET to u, retrying as the policy says, and decodes the
// page. labels says whether every post must carry labels (the request asked
// for include=labels); opts are the call's options; hooks let a walk follow
// the attempts. Its error has passed [Client.maskErr], and so has every
// error the observer and the log see.
func (c *Client) getPage(ctx context.Context, u *url.URL, labels bool, opts []Option, hooks attemptHooks) (*Page, error) {
	page, err := c.getPageUnmasked(ctx, u, labels, opts, hooks)
	if err != nil {
		return nil, c.maskErr(err)
	}
	return page, nil
}

// getPageUnmasked is getPage before the mask: the retry policy needs the
// transport's errors as they are (go-retryablehttp asserts *url.Error).
func (c *Client) getPageUnmasked(ctx context.Context, u *url.URL, labels bool, opts []Option, hooks attemptHooks) (*Page, error) {
	if ctx == nil {
		return nil, fmt.Errorf("%w: nil context", ErrInvalidParams)
	}
	if err := ctx.Err(); err != nil {
		return nil, err // as is, and before a transport sees the request
	}
	call, err := c.newCallConfig(opts)
	if err != nil {
		return nil, err
	}
	body := c.pageBody()
	defer c.bodies.Put(body)
	retryMax, timeout := c.retryMax, c.attemptTimeout
	if call.retryMax != nil {
		retryMax = *call.retryMax
	}
	if call.attemptTimeout != nil {
		timeout = *call.attemptTimeout
	}
	var last error // the last attempt's error
	for attempt := 1; ; attempt++ {
		start := time.Now()
		resp, cutShort, err := c.attempt(ctx, u, labels, call.header, timeout, body, hooks)
		a := AttemptInfo{Method: http.MethodGet, Endpoint: u.Path, Attempt: attempt, Err: err, Duration: time.Since(start)}
		if resp != nil {
			a.StatusCode = resp.StatusCode
		}
		if ctxErr := ctx.Err(); err != nil && ctxErr != nil {
			c.observe(ctx, a, true)
			if resp != nil { // an answer came before the end: it is the last error
				last = withAttempts(err, u.Path, attempt)
			}
			return nil, abandoned(ctxErr, last, attempt)
		}
		// Whether to retry depends on the answer alone; a context that ends now
		// ends the wait below, keeping this error.
		a.Retry = err != nil && attempt <= retryMax && (cutShort || retryable(context.WithoutCancel(ctx), resp, err))
		if a.Retry && hooks.retry != nil {
			hooks.retry()
		}
		if a.Retry {
			a.Wait = backoff(c.waitMin, c.waitMax, attempt-1, resp)
		}
		c.observe(ctx, a, false)
		if err == nil {
			if call.response != nil {
				c.responseMu.Lock()
				*call.response = ResponseInfo{StatusCode: resp.StatusCode, Header: c.masker.maskHeader(resp.Header), Attempts: attempt}
				c.responseMu.Unlock()
			}
			return body.page, nil
		}
		last = withAttempts(err, u.Path, attempt)
		if !a.Retry {
			return nil, last
		}
		if err := sleep(ctx, a.Wait); err != nil {
			return nil, abandoned(err, last, attempt)
		}
	}
}

// attempt sends one request and reads its answer: a page into body.page, or
// an error. resp is nil when no answer came; its body is always closed.
// cutShort says a 2xx body ended early, which is retried like a dropped
// connection.
func (c *Client) attempt(ctx context.Context, u *url.URL, labels bool, extra http.Header, timeout time.Duration, body *pageBody, hooks attemptHooks) (resp *http.Response, cutShort bool, err error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	header := http.Header{"User-Agent": c.userAgent, "Accept": acceptJSON}
	for k, vs := range extra {
		header[k] = append(header[k], vs...)
	}
	if sameOrigin(u, c.base) { // always, by construction; keyTransport checks again
		header[canonicalKeyHeader] = c.apiKey()
	}
	req := (&http.Request{Method: http.MethodGet, URL: u, Host: u.Host, Header: header,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}).WithContext(ctx)
	if hooks.send != nil {
		hooks.send() // the request is built: it waits only for its turn
	}
	resp, err = c.http.Do(req)
	if err != nil {
		return nil, false, err
	}
	body.buf.Reset()
	readErr := c.readBody(resp.Body, &body.buf)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		// a cut-short error body still says what it can
		return resp, false, newAPIError(http.MethodGet, u.Path, resp, body.buf.Bytes(), c.masker)
	}
	if readErr == nil && hooks.read != nil && resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		hooks.read()
	}
	if readErr != nil {
		return resp, !errors.Is(readErr, errBodyTooLarge), c.decodeError(u.Path, resp, body.buf.Bytes(), readErr)
	}
	page, err := decodePage(body.buf.Bytes(), labels, c.masker.mask)
	if err != nil {
		// JSON cut short behind complete framing is retried like a body
		// cut short on the wire.
		return resp, errors.Is(err, errTruncatedJSON), c.decodeError(u.Path, resp, body.buf.Bytes(), err)
	}
	if err := c.checkDeviations(ctx, u, page); err != nil {
		return resp, false, c.decodeError(u.Path, resp, body.buf.Bytes(), err)
	}
	page.Next = absoluteNext(u, page.Next)
	body.page = page
	return resp, false, nil
}

var acceptJSON = []string{"application/json"}

// attemptHooks let a walk follow a request's attempts; any may be nil.
type attemptHooks struct {
	// send is called when an attempt's request is built, just before it is
	// sent: a chained walk waits there for the request before it to have
	// its body.
	send func()
	// read is called when a 2xx body has been read, before it is decoded: a
	// walk then sends its next request while this page decodes.
	read func()
	// retry is called for each attempt that will be retried.
	retry func()
}

// pageBody holds the body of an answer, reused across calls.
type pageBody struct {
	buf  bytes.Buffer
	page *Page
}

// pageBody returns a pooled pageBody, ready for a call.
func (c *Client) pageBody() *pageBody {
	b, _ := c.bodies.Get().(*pageBody)
	if b == nil {
		b = &pageBody{}
	}
	b.buf.Reset()
	b.page = nil
	return b
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

func (c *Client) decodeError(path string, resp *http.Response, body []byte, err error) error {
	return &DecodeError{Method: http.MethodGet, Endpoint: path, StatusCode: resp.StatusCode, Snippet: snippet(c.masker.maskBytes(body)), Err: err, Header: c.masker.maskHeader(resp.Header)}
}
