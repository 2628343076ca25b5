package ugc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// errForeignRedirect is a redirect to an origin other than the base URL's.
var errForeignRedirect = errors.New("redirect to another origin refused: the API key is only sent to the base URL's origin")

// newHTTPClient returns the *http.Client under the retry layer: a copy of
// the caller's (or a pooled default) whose transport attaches the key only
// to the base URL's origin and whose redirect policy refuses other origins.
//
// Go's http.Client strips Authorization on a cross-origin redirect but
// forwards custom headers such as x-api-key, so the key is never set on the
// request itself: keyTransport adds it per hop, after checking the hop's
// origin.
func newHTTPClient(o options, base *url.URL, apiKey, userAgent string) *http.Client {
	var hc http.Client
	if o.httpClient != nil {
		hc = *o.httpClient
	} else {
		hc.Transport = defaultTransport()
	}
	next := hc.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	timeout := o.attemptTimeout
	if hc.Timeout > 0 {
		timeout = 0 // the caller's client bounds each attempt already
	}
	hc.Transport = &keyTransport{next: next, base: base, key: apiKey, timeout: timeout}
	callerCheck := hc.CheckRedirect
	hc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if !sameOrigin(req.URL, base) {
			return fmt.Errorf("%w (to %s://%s)", errForeignRedirect, req.URL.Scheme, req.URL.Host)
		}
		if callerCheck != nil {
			return callerCheck(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &hc
}

// defaultTransport clones http.DefaultTransport with enough idle connections
// per host for parallel iteration. If DefaultTransport was replaced (gock
// does so), the replacement is used as it is.
func defaultTransport() http.RoundTripper {
	t, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		return http.DefaultTransport
	}
	t = t.Clone()
	t.MaxIdleConnsPerHost = 32
	return t
}

// keyTransport confines the API key to the base URL's origin and bounds each
// attempt by timeout (0: unbounded).
type keyTransport struct {
	next    http.RoundTripper
	base    *url.URL
	key     string
	timeout time.Duration
}

// Format hides the key from every fmt verb.
func (t *keyTransport) Format(f fmt.State, _ rune) {
	_, _ = io.WriteString(f, "ugc.keyTransport{base: "+t.base.String()+"}")
}

// RoundTrip sends req with the key if, and only if, req is for the base
// URL's origin. The caller's request is never changed: a request that
// already carries exactly what it should (the client's own requests set the
// key) goes out as it is, any other is copied first.
func (t *keyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	want := ""
	if sameOrigin(req.URL, t.base) {
		want = t.key
	}
	ctx, cancel := req.Context(), context.CancelFunc(nil)
	if t.timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, t.timeout)
	}
	r := req
	if have := req.Header[canonicalKeyHeader]; len(have) != 1 || have[0] != want {
		r = req.Clone(ctx)
		delete(r.Header, canonicalKeyHeader)
		if want != "" {
			r.Header[canonicalKeyHeader] = []string{want}
		}
	} else if cancel != nil {
		r = req.WithContext(ctx)
	}
	resp, err := t.next.RoundTrip(r)
	if cancel != nil {
		if err != nil {
			cancel()
		} else {
			resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: cancel}
		}
	}
	return resp, err
}

// cancelOnClose ends an attempt's timeout when its body is closed.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelOnClose) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}
