package ugc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"time"
)

// call sends a single-page call's request for u, or returns the error that
// building u gave (bad params); either way its error has passed
// [Client.maskErr].
func (c *Client) call(ctx context.Context, u *url.URL, err error, opts []Option) (*Page, error) {
	if err == nil {
		u, err = c.atCursor(u, opts)
	}
	if err != nil {
		return nil, c.maskErr(err)
	}
	page, err := c.getPage(ctx, u, wantsLabels(u), opts, attemptHooks{})
	if err != nil {
		return nil, err
	}
	var restored []string
	if page.Next, restored = withCallerQuery(u, page.Next); restored != nil && c.logger != nil {
		c.logger.LogAttrs(ctx, slog.LevelWarn, "ugc: next link left out the caller's query; Next carries it",
			slog.String("endpoint", u.Path), slog.Any("restored", restored))
	}
	return page, nil
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
		return nil, fmt.Errorf("%w: nil context", ErrMisuse)
	}
	if err := ctx.Err(); err != nil {
		return nil, err // as is, and before a transport sees the request
	}
	call, err := c.newCallConfig(opts)
	if err != nil {
		return nil, err
	}
	body := &pageBody{}
	defer c.releaseBody(body)
	rs := c.newRetryState(call)
	for attempt := 1; ; attempt++ {
		start := time.Now()
		resp, cutShort, ans, err := c.attempt(ctx, u, labels, call.header, &rs, body, hooks)
		if ans.unsent {
			return nil, c.unsent(ctx, u, attempt, &rs, ans, err)
		}
		a := newAttemptInfo(u, attempt, start, resp, ans, err)
		if ended := c.contextEnded(ctx, a, &rs, resp != nil); ended != nil {
			return nil, ended
		}
		final := c.decideRetry(ctx, &rs, &a, resp, err, cutShort, ans)
		if a.Retry && hooks.retry != nil {
			hooks.retry()
		}
		c.observe(ctx, a, false)
		if err == nil {
			c.succeeded(call, rs, resp, attempt, ans)
			return body.page, nil
		}
		rs.last = withAttempts(err, u.Path, attempt)
		switch {
		case final != nil:
			return nil, final
		case !a.Retry:
			return nil, rs.last
		case ans.throttled:
			continue // the client-wide pause is the wait, taken in turn
		}
		if err := sleep(ctx, a.Wait); err != nil {
			return nil, abandoned(u.Path, err, rs.last)
		}
	}
}

// newAttemptInfo describes an attempt that started at start, for the
// observer and the log.
func newAttemptInfo(u *url.URL, attempt int, start time.Time, resp *http.Response, ans answer, err error) AttemptInfo {
	a := AttemptInfo{Method: http.MethodGet, Endpoint: u.Path, Attempt: attempt, Err: err, Duration: time.Since(start) - ans.quotaWait,
		QuotaWait: ans.quotaWait, Throttled: ans.throttled, Pause: ans.pause, RateLimit: ans.limit}
	if resp != nil {
		a.StatusCode, a.RequestID = resp.StatusCode, requestID(resp.Header)
	}
	return a
}

// contextEnded returns the call's error when its context ended during the
// failed attempt a (nil otherwise): the context's, keeping the attempt's as
// the last error when an answer came before the end.
func (c *Client) contextEnded(ctx context.Context, a AttemptInfo, rs *retryState, answered bool) error {
	ctxErr := ctx.Err()
	if a.Err == nil || ctxErr == nil {
		return nil
	}
	c.observe(ctx, a, true)
	if answered {
		rs.last = withAttempts(a.Err, a.Endpoint, a.Attempt)
	}
	return abandoned(a.Endpoint, ctxErr, rs.last)
}

// retryState is what one call's attempts keep between them.
type retryState struct {
	retryMax int           // retries of the call, throttles' included
	timeout  time.Duration // of each attempt; 0: none
	last     error         // the last attempt's error
	retried  int           // retries made, against retryMax
	budgeted int           // those that took a token of the Client's retry budget
	budget   time.Duration // the throttle budget: time the call may wait for the quota
	waited   time.Duration // time its attempts waited for their turn
}

// newRetryState starts a call's attempts with the Client's settings, or the
// call's own.
func (c *Client) newRetryState(call callConfig) retryState {
	rs := retryState{retryMax: c.retryMax, timeout: c.attemptTimeout, budget: c.throttleBudget}
	if call.retryMax != nil {
		rs.retryMax = *call.retryMax
	}
	if call.attemptTimeout != nil {
		rs.timeout = *call.attemptTimeout
	}
	if call.throttleBudget != nil {
		rs.budget = *call.throttleBudget
	}
	return rs
}

// quotaLeft is how much longer the call may wait for the quota: what is
// left of its throttle budget, and no later than its context's deadline
// (reports byDeadline when the deadline is the nearer).
func (rs *retryState) quotaLeft(ctx context.Context) (left time.Duration, byDeadline bool) {
	left = max(rs.budget-rs.waited, 0)
	if d, ok := ctx.Deadline(); ok {
		if until := max(time.Until(d), 0); until < left {
			return until, true
		}
	}
	return left, false
}

// throttleError is the error of a call that would wait wait for the
// quota, beyond what it may: last is its last throttled answer, if any.
func (rs *retryState) throttleError(ctx context.Context, last *APIError, wait time.Duration) *ThrottleError {
	_, byDeadline := rs.quotaLeft(ctx)
	return &ThrottleError{Err: last, Waited: rs.waited, Wait: wait, Budget: rs.budget, byDeadline: byDeadline}
}

// unsent is the error of a call whose attempt was never sent: its turn
// would have come later than it may wait (a *ThrottleError, observed and
// logged as the attempt's), or its context ended while it waited (a
// deadline that passed is observed and logged as an abandoned attempt; a
// cancel, such as a walk's of a request it no longer needs, is not).
func (c *Client) unsent(ctx context.Context, u *url.URL, attempt int, rs *retryState, ans answer, err error) error {
	a := AttemptInfo{Method: http.MethodGet, Endpoint: u.Path, Attempt: attempt, QuotaWait: ans.quotaWait}
	if ans.turnErr == nil {
		if errors.Is(err, context.DeadlineExceeded) {
			a.Err = err
			c.observe(ctx, a, true)
		}
		return abandoned(u.Path, err, rs.last) // the context ended while it waited for its turn
	}
	var last *APIError
	if !errors.As(rs.last, &last) || last.StatusCode != http.StatusTooManyRequests && last.StatusCode != http.StatusServiceUnavailable {
		last = nil
	}
	te := rs.throttleError(ctx, last, ans.turnErr.Wait)
	a.Err, a.Throttled, a.Wait = te, true, te.Wait
	c.observe(ctx, a, false)
	return te
}

// decideRetry sets whether another attempt follows a, and after what wait,
// from the answer alone (a context that ends now ends the wait, keeping
// this error). Every retry counts against the call's retry maximum. A
// throttle that names a wait is retried after it (the client-wide pause
// is the wait), within the call's throttle budget and before its
// context's deadline; other failures after a backoff, each taking a token
// of the Client's retry budget. It returns why no retry follows when the
// answer alone would have one: a wait beyond those bounds, or the retry
// budget spent.
func (c *Client) decideRetry(ctx context.Context, rs *retryState, a *AttemptInfo, resp *http.Response, err error, cutShort bool, ans answer) error {
	switch {
	case err == nil || rs.retried >= rs.retryMax:
	case ans.throttled:
		if left, _ := rs.quotaLeft(ctx); ans.wait <= left {
			rs.retried++
			a.Retry, a.Wait = true, ans.wait
			return nil
		}
		var apiErr *APIError
		if errors.As(err, &apiErr) {
			apiErr.Attempts = a.Attempt
			a.Wait = ans.wait
			return rs.throttleError(ctx, apiErr, ans.wait)
		}
	case cutShort || retryable(context.WithoutCancel(ctx), resp, err):
		if spendsRetryBudget(err) {
			if !c.retries.Take() {
				return fmt.Errorf("%w: %w", ErrRetryBudgetExhausted, withAttempts(err, a.Endpoint, a.Attempt))
			}
			rs.budgeted++
		}
		rs.retried++
		a.Retry = true
		a.Wait = backoff(c.waitMin, c.waitMax, rs.retried-1)
	}
	return nil
}

// succeeded settles a call whose attempt succeeded: the retry budget gets
// its tokens back, and WithResponseInto gets the answer's facts.
func (c *Client) succeeded(call callConfig, rs retryState, resp *http.Response, attempt int, ans answer) {
	c.retries.Succeeded(rs.budgeted)
	if call.response != nil {
		c.responseMu.Lock()
		*call.response = ResponseInfo{StatusCode: resp.StatusCode, Header: c.masker.maskHeader(resp.Header), Attempts: attempt, RateLimit: ans.limit}
		c.responseMu.Unlock()
	}
}

// attempt sends one request and reads its answer: a page into body.page, or
// an error. resp is nil when no answer came; its body is always closed.
// cutShort says a 2xx body ended early, which is retried like a dropped
// connection.
func (c *Client) attempt(ctx context.Context, u *url.URL, labels bool, extra http.Header, rs *retryState, body *pageBody, hooks attemptHooks) (resp *http.Response, cutShort bool, ans answer, err error) {
	header := c.requestHeader(u, extra)
	if hooks.send != nil {
		hooks.send() // the request is built: it waits only for its turn
	}
	// Its turn in the client's pacing comes after the walk's, in order;
	// one that would come later than the call may wait is refused at once.
	// The attempt's timeout starts after its turn.
	if hooks.left != nil {
		if c.pace.Pacer().Active() {
			hooks.left() // its turn may take a while: the page before it need not wait
		} else {
			ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { hooks.left() }})
		}
	}
	left, _ := rs.quotaLeft(ctx)
	ticket, quotaWait, err := c.pace.Turn(ctx, left)
	rs.waited += quotaWait
	if err != nil {
		ans = answer{unsent: true, quotaWait: quotaWait}
		errors.As(err, &ans.turnErr)
		return nil, false, ans, err
	}
	if rs.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, rs.timeout, errAttemptDeadline)
		defer cancel()
		defer func() { err = attemptTimedOut(ctx, rs.timeout, err) }() // before cancel
	}
	req := (&http.Request{Method: http.MethodGet, URL: u, Host: u.Host, Header: header,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}).WithContext(ctx)
	resp, err = c.http.Do(req)
	if err != nil {
		c.pace.Pacer().Lost(c.pace.Clock().Now(), ticket)
		return nil, false, answer{quotaWait: quotaWait}, err
	}
	ans = c.answered(ticket, resp)
	ans.quotaWait = quotaWait
	ans.limit = c.maskedLimit(ans.limit)
	cutShort, err = c.readPage(ctx, u, labels, resp, body, hooks)
	if apiErr, isAPI := err.(*APIError); isAPI { // readPage's own: not wrapped
		apiErr.RetryAfter = ans.retryAfter
	}
	return resp, cutShort, ans, err
}

// requestHeader is the header of a request for u: the client's, the
// call's extra ones, and the key, for the base URL's origin only.
func (c *Client) requestHeader(u *url.URL, extra http.Header) http.Header {
	header := http.Header{"User-Agent": c.userAgent, "Accept": acceptJSON}
	for k, vs := range extra {
		header[k] = append(header[k], vs...)
	}
	if sameOrigin(u, c.base) { // always, by construction; keyTransport checks again
		header[canonicalKeyHeader] = c.apiKey()
	}
	return header
}

// maskedLimit returns a copy of what an answer said of the quota, with the
// key masked in its policy; nil for nil.
func (c *Client) maskedLimit(rl *RateLimit) *RateLimit {
	if rl == nil {
		return nil
	}
	masked := *rl
	masked.Policy = c.masker.mask(masked.Policy)
	return &masked
}

// readPage reads an answer's body and decodes its page into body.page. An
// error status is an *APIError; a body or JSON cut short is one to retry
// (cutShort).
func (c *Client) readPage(ctx context.Context, u *url.URL, labels bool, resp *http.Response, body *pageBody, hooks attemptHooks) (cutShort bool, err error) {
	buf := c.bodyBuffer(body)
	readErr := c.readBody(resp.Body, buf)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		// a cut-short error body still says what it can
		return false, newAPIError(http.MethodGet, u.Path, resp, buf.Bytes(), c.masker)
	}
	if readErr == nil && hooks.read != nil && resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		hooks.read()
	}
	if readErr != nil {
		return !errors.Is(readErr, errBodyTooLarge), c.decodeError(u.Path, resp, buf.Bytes(), readErr)
	}
	page, err := decodePage(buf.Bytes(), labels, c.masker.mask)
	if err != nil {
		// JSON cut short behind complete framing is retried like a body
		// cut short on the wire.
		return errors.Is(err, errTruncatedJSON), c.decodeError(u.Path, resp, buf.Bytes(), err)
	}
	if err := c.checkDeviations(ctx, u, page); err != nil {
		return false, c.decodeError(u.Path, resp, buf.Bytes(), err)
	}
	page.Next = absoluteNext(u, page.Next)
	body.page = page
	return false, nil
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
	// left is called once an attempt's request has left (written to the
	// connection), or is about to wait for its turn in the client's
	// pacing: a chained walk decodes the page before it only then.
	left func()
	// retry is called for each attempt that will be retried.
	retry func()
}

// pageBody holds the body of an answer and its page. Its buffer comes
// from the client's pool when an answer arrives, not before: a request
// that waits for a connection or its turn holds none.
type pageBody struct {
	buf  *bytes.Buffer
	page *Page
}

// bodyBuffer returns body's buffer, emptied: one from the client's pool
// the first time.
func (c *Client) bodyBuffer(body *pageBody) *bytes.Buffer {
	if body.buf == nil {
		body.buf, _ = c.bodies.Get().(*bytes.Buffer)
		if body.buf == nil {
			body.buf = new(bytes.Buffer)
		}
	}
	body.buf.Reset()
	return body.buf
}

// releaseBody puts body's buffer, if it took one, back in the pool.
func (c *Client) releaseBody(body *pageBody) {
	if body.buf != nil {
		c.bodies.Put(body.buf)
	}
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
