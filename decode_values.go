package ugc

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"
)

// This file holds the decoder's JSON scanner and its readers of the
// contract's scalar types, each tolerant of what servers really send.

// maxDepth bounds the nesting of values the decoder skips, as encoding/json
// does, so that a hostile body cannot exhaust the stack.
const maxDepth = 10000

func (d *decoder) ws() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// peek returns the byte at the decoder's position, 0 at the end.
func (d *decoder) peek() byte {
	if d.pos < len(d.data) {
		return d.data[d.pos]
	}
	return 0
}

func (d *decoder) eat(c byte) bool {
	if d.peek() == c {
		d.pos++
		return true
	}
	return false
}

// literal consumes lit (true, false or null) if it comes next.
func (d *decoder) literal(lit string) bool {
	if strings.HasPrefix(d.text[d.pos:], lit) {
		d.pos += len(lit)
		return true
	}
	return false
}

func (d *decoder) syntax(msg string) error {
	if d.pos >= len(d.data) {
		return errTruncatedJSON
	}
	return fmt.Errorf("%w at offset %d: %s", errSyntax, d.pos, msg)
}

// str reads a string. One without escapes, in valid UTF-8, is copied into
// the page's string block; any other is unquoted by encoding/json, so the
// value is exactly what encoding/json would give.
func (d *decoder) str() (string, error) {
	start := d.pos
	i := start + 1
	plain, ascii := true, true
	for ; i < len(d.data); i++ {
		c := d.data[i]
		if c == '"' {
			break
		}
		if c == '\\' || c < ' ' {
			plain = false
			break
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
	}
	if plain && i < len(d.data) && (ascii || utf8.Valid(d.data[start+1:i])) {
		d.pos = i + 1
		return d.keep(d.data[start+1 : i]), nil
	}
	if err := d.skipString(); err != nil {
		return "", err
	}
	var s string
	if err := json.Unmarshal(d.data[start:d.pos], &s); err != nil {
		return "", fmt.Errorf("%w: %w", errSyntax, err)
	}
	return s, nil
}

// skipString moves past a string, checking its escapes.
func (d *decoder) skipString() error {
	d.pos++ // '"'
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			return nil
		case c < ' ':
			return d.syntax("control character in string")
		case c == '\\':
			d.pos++
			switch d.peek() {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				d.pos++
			case 'u':
				if d.pos+5 > len(d.data) {
					return d.syntax("short \\u escape")
				}
				for _, h := range d.data[d.pos+1 : d.pos+5] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return d.syntax("bad \\u escape")
					}
				}
				d.pos += 5
			default:
				return d.syntax("bad escape")
			}
		default:
			d.pos++
		}
	}
	return d.syntax("string not closed")
}

// number reads a number literal by JSON's grammar; ok is false, and
// nothing read, when none comes next. lit is a view of the body, which is
// reused: it must not be kept.
func (d *decoder) number() (lit string, ok bool) {
	start, i := d.pos, d.pos
	digits := func() int {
		n := 0
		for i < len(d.data) && '0' <= d.data[i] && d.data[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(d.data) && d.data[i] == '-' {
		i++
	}
	switch {
	case i < len(d.data) && d.data[i] == '0':
		i++
	case digits() == 0:
		return "", false
	}
	if i < len(d.data) && d.data[i] == '.' {
		i++
		if digits() == 0 {
			return "", false
		}
	}
	if i < len(d.data) && (d.data[i] == 'e' || d.data[i] == 'E') {
		i++
		if i < len(d.data) && (d.data[i] == '+' || d.data[i] == '-') {
			i++
		}
		if digits() == 0 {
			return "", false
		}
	}
	d.pos = i
	return d.text[start:i], true
}

// skip moves past any value, checking its syntax.
func (d *decoder) skip() error { return d.skipDepth(0) }

func (d *decoder) skipDepth(depth int) error {
	if depth > maxDepth {
		return d.syntax("nested too deep")
	}
	switch d.peek() {
	case '"':
		return d.skipString()
	case '{':
		d.pos++
		for first := true; ; first = false {
			if d.ws(); d.eat('}') {
				return nil
			}
			if !first && !d.eat(',') {
				return d.syntax("expected , or } in object")
			}
			if d.ws(); d.peek() != '"' {
				return d.syntax("expected a key")
			}
			if err := d.skipString(); err != nil {
				return err
			}
			if d.ws(); !d.eat(':') {
				return d.syntax("expected : after a key")
			}
			d.ws()
			if err := d.skipDepth(depth + 1); err != nil {
				return err
			}
		}
	case '[':
		d.pos++
		for first := true; ; first = false {
			if d.ws(); d.eat(']') {
				return nil
			}
			if !first && !d.eat(',') {
				return d.syntax("expected , or ] in array")
			}
			d.ws()
			if err := d.skipDepth(depth + 1); err != nil {
				return err
			}
		}
	case 't':
		if d.literal("true") {
			return nil
		}
	case 'f':
		if d.literal("false") {
			return nil
		}
	case 'n':
		if d.literal("null") {
			return nil
		}
	default:
		if _, ok := d.number(); ok {
			return nil
		}
	}
	return d.syntax("invalid value")
}

// skipValue moves past a value and returns it, for an error's message; on
// a syntax error it returns what is left.
func (d *decoder) skipValue() []byte {
	start := d.pos
	if d.skip() != nil {
		return d.data[start:]
	}
	return d.data[start:d.pos]
}

func (d *decoder) snippetOf(raw []byte) string { return snippet(raw) }

// other reads a value of a type the field does not take and records it as
// a deviation, the field keeping kept. A syntax error in it is returned
// by the next read, which finds the decoder where the value started.
func (d *decoder) other(kept string) {
	start := d.pos
	if d.skip() != nil {
		d.pos = start
		d.bad = true
		return
	}
	d.deviate(d.data[start:d.pos], kept)
}

// string reads a string field. A number or boolean keeps its text; null is
// the empty string, as encoding/json leaves it. Whether a required one is
// there is checked with the object that holds it.
func (d *decoder) string() string {
	switch c := d.peek(); {
	case c == '"':
		s, err := d.str()
		if err != nil {
			d.bad = true
		}
		return s
	case c == 'n' && d.literal("null"):
		return ""
	case c == 't' && d.literal("true"):
		d.deviate([]byte("true"), `"true"`)
		return "true"
	case c == 'f' && d.literal("false"):
		d.deviate([]byte("false"), `"false"`)
		return "false"
	case c == '-' || '0' <= c && c <= '9':
		start := d.pos
		if lit, ok := d.number(); ok {
			d.deviate([]byte(lit), strconv.Quote(lit))
			return d.keep(d.data[start:d.pos]) // lit is a view of the pooled body
		}
	}
	d.other("zero value")
	return ""
}

// boolean reads an optional boolean. "true", "false", 1 and 0 are read as
// booleans; null is absent.
func (d *decoder) boolean() *bool {
	c := d.peek()
	switch {
	case c == 't' && d.literal("true"):
		return d.newBool(true)
	case c == 'f' && d.literal("false"):
		return d.newBool(false)
	case c == 'n' && d.literal("null"):
		return nil
	case c == '"':
		start := d.pos
		s, err := d.str()
		if b, perr := parseBool(s); err == nil && perr == nil {
			d.deviate(d.data[start:d.pos], strconv.FormatBool(b))
			return d.newBool(b)
		}
		d.deviate(d.data[start:d.pos], "absent")
		return nil
	case c == '-' || '0' <= c && c <= '9':
		if lit, ok := d.number(); ok && (lit == "0" || lit == "1") {
			d.deviate([]byte(lit), strconv.FormatBool(lit == "1"))
			return d.newBool(lit == "1")
		}
		d.deviate(nil, "absent")
		return nil
	}
	d.other("absent")
	return nil
}

// parseBool reads a boolean sent as a string: what strconv.ParseBool reads,
// and yes or no, in any case.
func parseBool(s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "yes", "y", "on":
		return true, nil
	case "no", "n", "off":
		return false, nil
	}
	return strconv.ParseBool(strings.TrimSpace(s))
}

// float reads a number; a string that holds one is read as it.
func (d *decoder) float() float64 {
	if f := d.optFloat(); f != nil {
		return *f
	}
	return 0
}

// optFloat reads an optional number; null is absent.
func (d *decoder) optFloat() *float64 {
	c := d.peek()
	switch {
	case c == '-' || '0' <= c && c <= '9':
		start := d.pos
		if lit, ok := d.number(); ok {
			f, err := strconv.ParseFloat(lit, 64)
			if err == nil {
				return d.newFloat(f)
			}
			d.deviate(d.data[start:d.pos], "absent (out of range)")
			return nil
		}
	case c == 'n' && d.literal("null"):
		return nil
	case c == '"':
		start := d.pos
		s, err := d.str()
		if f, perr := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil && perr == nil {
			d.deviate(d.data[start:d.pos], strconv.FormatFloat(f, 'g', -1, 64))
			return d.newFloat(f)
		}
		d.deviate(d.data[start:d.pos], "absent")
		return nil
	}
	d.other("absent")
	return nil
}

// timestamp reads an ISO 8601 timestamp (see readTimestamp). One that
// cannot be read is the zero time; null is the zero time, as encoding/json
// leaves it.
func (d *decoder) timestamp() time.Time {
	switch c := d.peek(); {
	case c == 'n' && d.literal("null"):
		return time.Time{}
	case c == '"':
		start := d.pos
		s, err := d.str()
		if err != nil {
			d.bad = true
			return time.Time{}
		}
		raw := d.data[start:d.pos]
		t, note, ok := readTimestamp(s)
		switch {
		case !ok:
			d.deviate(raw, "zero value")
		case note != "":
			d.deviate(raw, t.Format(time.RFC3339Nano)+note)
		}
		return t
	case c == '-' || '0' <= c && c <= '9':
		// A Unix time: seconds, or milliseconds when it is too large for
		// seconds of this era.
		start := d.pos
		if lit, ok := d.number(); ok {
			if n, err := strconv.ParseInt(lit, 10, 64); err == nil && n > 0 {
				t := time.Unix(n, 0).UTC()
				if n >= 1e11 {
					t = time.UnixMilli(n).UTC()
				}
				d.deviate(d.data[start:d.pos], t.Format(time.RFC3339Nano)+" (a Unix time)")
				return t
			}
			d.deviate(d.data[start:d.pos], "zero value")
			return time.Time{}
		}
	}
	d.other("zero value")
	return time.Time{}
}

// keep returns b as a string held in the page's string blocks: one
// allocation for many strings, and only the strings' bytes, not the whole
// body, stay alive with the posts. A block is never written again once a
// string points into it.
func (d *decoder) keep(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(d.block)+len(b) > cap(d.block) {
		d.block = make([]byte, 0, max(len(b), len(d.data)/2))
	}
	start := len(d.block)
	d.block = append(d.block, b...)
	return unsafe.String(&d.block[start], len(b))
}

// newBool and newFloat hand out pointers from per-page blocks: one
// allocation for many values.
func (d *decoder) newBool(b bool) *bool {
	if len(d.bools) == cap(d.bools) {
		d.bools = make([]bool, 0, 64)
	}
	d.bools = append(d.bools, b)
	return &d.bools[len(d.bools)-1]
}

func (d *decoder) newFloat(f float64) *float64 {
	if len(d.floats) == cap(d.floats) {
		d.floats = make([]float64, 0, 32)
	}
	d.floats = append(d.floats, f)
	return &d.floats[len(d.floats)-1]
}

// deviate records that the value at the decoder's path (raw, as sent) was
// not as the contract says, and what the post keeps instead.
func (d *decoder) deviate(raw []byte, kept string) {
	d.devs = append(d.devs, Deviation{Index: d.node, PostID: d.id, Path: d.pathString(""), Sent: quoted(raw), Kept: kept})
}

// require records a required member, at rel below the decoder's path, that
// is missing or empty.
func (d *decoder) require(ok bool, rel string) {
	if !ok {
		d.devs = append(d.devs, Deviation{Index: d.node, PostID: d.id, Path: d.pathString(rel), Kept: "zero value (missing)"})
	}
}

// pathString writes the path of the current node, then rel.
func (d *decoder) pathString(rel string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "nodes[%d]", d.node)
	for _, s := range d.path {
		if s.key == "" {
			fmt.Fprintf(&b, "[%d]", s.index)
		} else {
			b.WriteString("." + s.key)
		}
	}
	if rel != "" {
		b.WriteString("." + rel)
	}
	return b.String()
}

// sentLen is how much of a deviating value a Deviation quotes; sentKeep
// how much of it is kept until the key is masked, enough to hold any
// encoding of a key that starts within the quote.
const (
	sentLen  = 40
	sentKeep = 2048
)

// quoted copies the start of a deviating value, to be masked and cut by
// sentSnippet.
func quoted(raw []byte) string { return string(raw[:min(len(raw), sentKeep)]) }

// sentSnippet masks the key in a quoted value (mask may be nil), then makes
// it printable and cuts it to sentLen bytes. Masking first means a key that
// crosses the cut is hidden whole, never shown in part.
func sentSnippet(s string, mask func(string) string) string {
	if s == "" {
		return ""
	}
	if mask != nil {
		s = mask(s)
	}
	s = snippet([]byte(s[:min(len(s), snippetLen)]))
	if len(s) > sentLen {
		s = strings.ToValidUTF8(s[:sentLen], "") + "…"
	}
	return s
}
