package ugc

import (
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"unicode/utf8"
)

// redacted replaces the API key wherever an error or log line would hold it.
const redacted = "[redacted]"

// masker finds the API key in the forms a server or proxy may echo it in:
// raw, JSON-escaped (any character as \u00XX; "/", `"` and `\` after a
// backslash) and URL-encoded
// (%XX in upper or lower case, a space as "+"), and any mix of them. It
// runs only on what an error keeps, never on a successful page.
type masker struct {
	re *regexp.Regexp
}

// Format hides the pattern, which spells the key, from every fmt verb.
func (m *masker) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, "ugc.masker") }

func newMasker(key string) *masker {
	var b strings.Builder
	for _, r := range key {
		b.WriteString("(?:")
		b.WriteString(regexp.QuoteMeta(string(r)))
		if r <= 0xFFFF {
			fmt.Fprintf(&b, `|\\[uU]%s`, hexPattern(fmt.Sprintf("%04x", r)))
		}
		var enc [utf8.UTFMax]byte
		n := utf8.EncodeRune(enc[:], r)
		b.WriteString("|")
		for _, c := range enc[:n] {
			fmt.Fprintf(&b, "%%%s", hexPattern(fmt.Sprintf("%02x", c)))
		}
		switch r {
		case '/', '"', '\\': // JSON's short escapes: \/ (PHP's), \", \\
			b.WriteString(`|\\` + regexp.QuoteMeta(string(r)))
		case ' ':
			b.WriteString(`|\+`)
		}
		b.WriteString(")")
	}
	return &masker{re: regexp.MustCompile(b.String())}
}

// hexPattern matches the hex digits of h in either case.
func hexPattern(h string) string {
	var b strings.Builder
	for _, c := range h {
		if c >= 'a' && c <= 'f' {
			b.WriteString("[" + string(c) + strings.ToUpper(string(c)) + "]")
		} else {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// mask returns s with every echo of the key replaced.
func (m *masker) mask(s string) string { return m.re.ReplaceAllLiteralString(s, redacted) }

// maskBytes returns a copy of b with every echo of the key replaced; an
// empty body stays empty, not nil.
func (m *masker) maskBytes(b []byte) []byte {
	out := m.re.ReplaceAllLiteral(b, []byte(redacted)) // always a copy
	if out == nil {
		return []byte{}
	}
	return out
}

// maskHeader returns a copy of h without the key header and with the key
// masked in every value.
func (m *masker) maskHeader(h http.Header) http.Header {
	out := make(http.Header, len(h))
	for k, vs := range h {
		if http.CanonicalHeaderKey(k) == canonicalKeyHeader {
			continue
		}
		c := make([]string, len(vs))
		for i, v := range vs {
			c[i] = m.mask(v)
		}
		out[k] = c
	}
	return out
}

// maskError returns err with the key masked in its text (a decoding error
// may quote a value of the body); errors.Is and errors.As still reach err.
func (m *masker) maskError(err error) error {
	return &maskedError{err: err, text: m.mask(err.Error())}
}

type maskedError struct {
	err  error
	text string
}

// Error returns the error text with the key masked.
func (e *maskedError) Error() string { return e.text }

// Unwrap returns the original error, for errors.Is and errors.As.
func (e *maskedError) Unwrap() error { return e.err }

// maskErr is the one boundary every error passes before it leaves the
// client. (Placeholder until the masking boundary lands.)
func (c *Client) maskErr(err error) error { return err }
