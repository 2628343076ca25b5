package ugc

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// newHTTPClient returns the *http.Client under the retry layer: a copy of
// the caller's (or a pooled default) whose transport attaches the key only
// to the base URL's origin and whose redirect policy refuses other origins.
//
// Go's http.Client strips Authorization on a cross-origin redirect but
// forwards custom headers such as x-api-key, so the key is never set on the
// request itself: keyTransport adds it per hop, after checking the hop's
// origin.
func newHTTPClient(o options, base *url.URL, apiKey string) *http.Client {
	var hc http.Client
	if o.httpClient != nil {
		hc = *o.httpClient
	}
	next := hc.Transport
	if next == nil {
		next = newDefaultTransport()
	}
	if o.wrapTransport != nil {
		next = o.wrapTransport(next)
	}
	hc.Transport = &keyTransport{next: next, base: base, key: apiKey}
	callerCheck := hc.CheckRedirect
	hc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if !sameOrigin(req.URL, base) {
			return fmt.Errorf("%w (to %s://%s)", ErrForeignRedirect, req.URL.Scheme, req.URL.Host)
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

// maxConnsPerHost is how many connections the default transport opens to
// one host at most, and keeps open when idle: a request beyond them waits
// for one to be free, it does not fail. Thousands of walks at once then
// cost that many connections, not one each (a descriptor and an ephemeral
// port apiece, which run out: "too many open files"), and connections are
// reused rather than closed and dialled again.
const maxConnsPerHost = 256

// defaultTransport is the transport of a client given no *http.Client (or
// one with a nil Transport). It sends through a clone of
// http.DefaultTransport capped at maxConnsPerHost connections per host, as
// long as http.DefaultTransport is still the transport it was cloned from.
// Once http.DefaultTransport is replaced (gock.New does so, and gock.Off
// restores it), each request goes through whatever http.DefaultTransport is
// at that moment: a client built before gock.New still reaches gock's
// interception. A caller's own transport ([WithHTTPClient]) is used as
// given.
type defaultTransport struct {
	orig  http.RoundTripper // http.DefaultTransport when cloned
	clone *http.Transport   // nil: DefaultTransport was not an *http.Transport
}

func newDefaultTransport() *defaultTransport {
	t := &defaultTransport{orig: http.DefaultTransport}
	if ht, ok := t.orig.(*http.Transport); ok {
		t.clone = ht.Clone()
		t.clone.MaxConnsPerHost = maxConnsPerHost
		t.clone.MaxIdleConnsPerHost = maxConnsPerHost
	}
	return t
}

// RoundTrip sends req through the clone or the current DefaultTransport.
func (t *defaultTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if cur := http.DefaultTransport; t.clone == nil || cur != t.orig {
		return cur.RoundTrip(req)
	}
	return t.clone.RoundTrip(req)
}

// keyTransport confines the API key to the base URL's origin.
type keyTransport struct {
	next http.RoundTripper
	base *url.URL
	key  string
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
	r := req
	if have := req.Header[canonicalKeyHeader]; len(have) != 1 || have[0] != want {
		r = req.Clone(req.Context())
		delete(r.Header, canonicalKeyHeader)
		if want != "" {
			r.Header[canonicalKeyHeader] = []string{want}
		}
	}
	return t.next.RoundTrip(r)
}

// sameOrigin reports whether u has the scheme, host and port of base.
func sameOrigin(u, base *url.URL) bool {
	return strings.EqualFold(u.Scheme, base.Scheme) && strings.EqualFold(u.Hostname(), base.Hostname()) && port(u) == port(base)
}

func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}
