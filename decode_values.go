package ugc

import (
	"encoding/binary"
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

// syntax is the error for JSON that does not parse at the decoder's
// position: where (the path and the offset), what was expected and what
// was found. At the end of the data it is errTruncatedJSON.
func (d *decoder) syntax(expected string) error {
	if d.pos >= len(d.data) {
		return errTruncatedJSON
	}
	return fmt.Errorf("%w at offset %d%s: %s, found %s", errSyntax, d.pos, d.where(), expected, d.found())
}

// where names the decoder's path for an error: ", in nodes[3].comment",
// or "" at the top of the page.
func (d *decoder) where() string {
	if len(d.path) == 0 {
		return ""
	}
	return ", in " + d.pathString("")
}

// found describes the byte at the decoder's position for an error.
func (d *decoder) found() string {
	r, _ := utf8.DecodeRune(d.data[d.pos:])
	if r == utf8.RuneError || r < ' ' {
		return fmt.Sprintf("byte %#02x", d.data[d.pos])
	}
	return strconv.QuoteRune(r)
}

// wrongType is the error for an envelope member whose value, valid JSON,
// is not of the type the page needs.
func (d *decoder) wrongType(want string) error {
	start := d.pos
	if err := d.skip(); err != nil {
		return err
	}
	return fmt.Errorf("%s: %s is not %s", d.pathString(""), snippet(d.data[start:d.pos]), want)
}

// open consumes the '{' or '[' at the decoder's position, one level deeper.
func (d *decoder) open() error {
	if d.depth == maxDepth {
		return fmt.Errorf("%w at offset %d%s: depth limit reached (%d nested arrays and objects, encoding/json's limit)", errSyntax, d.pos, d.where(), maxDepth)
	}
	d.depth++
	d.pos++
	return nil
}

// nextKey moves to the next member of an object: past the ',' (unless it
// is the first) and the ':' after the key, which it returns. done is set,
// and the object closed, at its '}'. The key is a view of the body: it
// must not be kept.
func (d *decoder) nextKey(first bool) (key string, done bool, err error) {
	if d.ws(); d.eat('}') {
		d.depth--
		return "", true, nil
	}
	if !first && !d.eat(',') {
		return "", false, d.syntax("expected , or } after a member")
	}
	if d.ws(); d.peek() != '"' {
		return "", false, d.syntax("expected a member's name")
	}
	if key, err = d.key(); err != nil {
		return "", false, err
	}
	if d.ws(); !d.eat(':') {
		return "", false, d.syntax("expected : after a member's name")
	}
	d.ws()
	return key, false, nil
}

// key reads a member's name: a view of the body when it has no escape.
func (d *decoder) key() (string, error) {
	start := d.pos
	if end, _, ok := d.plainString(); ok {
		d.pos = end + 1
		return d.text[start+1 : end], nil
	}
	return d.unquote() // a name or a value that is not kept: nothing replaced shows
}

// array reads the array at the decoder's position, calling elem with each
// index, positioned at its value, the index pushed on the path.
func (d *decoder) array(elem func(i int) error) error {
	if err := d.open(); err != nil {
		return err
	}
	for i := 0; ; i++ {
		if d.ws(); d.eat(']') {
			d.depth--
			return nil
		}
		if i > 0 && !d.eat(',') {
			return d.syntax("expected , or ] after an element")
		}
		d.ws()
		d.path = append(d.path, pathSeg{index: i})
		err := elem(i)
		d.path = d.path[:len(d.path)-1]
		if err != nil {
			return err
		}
	}
}

// plainString finds the end of the string at the decoder's position when
// it holds no escape and no control character: end is the index of its
// closing quote; ascii says whether all its bytes are ASCII. It reads
// eight bytes at a time while none of them is special.
func (d *decoder) plainString() (end int, ascii, ok bool) {
	ascii = true
	data := d.data
	for i := d.pos + 1; i < len(data); {
		for i+8 <= len(data) && !special(binary.LittleEndian.Uint64(data[i:])) {
			i += 8
		}
		for stop := min(i+8, len(data)); i < stop; i++ {
			switch c := data[i]; {
			case c == '"':
				return i, ascii, true
			case c == '\\' || c < ' ':
				return 0, false, false
			case c >= utf8.RuneSelf:
				ascii = false
			}
		}
	}
	return 0, false, false
}

// special reports whether any of the eight bytes in w may be a quote, a
// backslash, a control character or not ASCII (it may say so of a byte
// after one that is: the caller then looks at each byte).
func special(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote, backslash := w^(ones*'"'), w^(ones*'\\')
	control := w - ones*' '
	return (control&^w|(quote-ones)&^quote|(backslash-ones)&^backslash|w)&highs != 0
}

// str reads a string to keep. One without escapes, in valid UTF-8, is
// copied into the page's string block; any other is unquoted by
// encoding/json, so the value is exactly what encoding/json would give.
func (d *decoder) str() (string, error) {
	start := d.pos
	if end, ascii, ok := d.plainString(); ok && (ascii || utf8.Valid(d.data[start+1:end])) {
		d.pos = end + 1
		return d.keep(d.data[start+1 : end]), nil
	}
	return d.escapedString()
}

// escapedString reads a string to keep with escapes, control characters
// or invalid UTF-8, checked by skipString and unquoted by encoding/json;
// what it had to replace is a deviation.
func (d *decoder) escapedString() (string, error) {
	start := d.pos
	s, err := d.unquote()
	if err == nil {
		d.noteReplaced(d.data[start:d.pos], s)
	}
	return s, err
}

// unquote reads a string with escapes, control characters or invalid
// UTF-8, as encoding/json unquotes it.
func (d *decoder) unquote() (string, error) {
	start := d.pos
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
		switch c := d.data[d.pos]; {
		case c == '"':
			d.pos++
			return nil
		case c < ' ':
			return d.syntax("a control character must be escaped in a string")
		case c == '\\':
			if err := d.skipEscape(); err != nil {
				return err
			}
		default:
			d.pos++
		}
	}
	return d.syntax("string not closed")
}

// skipEscape moves past the escape at the decoder's position.
func (d *decoder) skipEscape() error {
	d.pos++ // '\\'
	switch d.peek() {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		d.pos++
		return nil
	case 'u':
		d.pos++
		for range 4 {
			if !isHex(d.peek()) {
				return d.syntax("expected 4 hexadecimal digits after \\u")
			}
			d.pos++
		}
		return nil
	}
	return d.syntax("expected an escape after \\")
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// number reads a number literal by JSON's grammar; ok is false, and
// nothing read, when none comes next. lit is a view of the body: it must
// not be kept.
func (d *decoder) number() (lit string, ok bool) {
	n := numberLen(d.text[d.pos:])
	if n == 0 {
		return "", false
	}
	lit = d.text[d.pos : d.pos+n]
	d.pos += n
	return lit, true
}

// numberLen is the length of the JSON number at the start of s, 0 if none.
func numberLen(s string) int {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch d := digitsAt(s, i); {
	case d == 0:
		return 0
	case s[i] == '0':
		i++
	default:
		i += d
	}
	if i < len(s) && s[i] == '.' {
		d := digitsAt(s, i+1)
		if d == 0 {
			return 0
		}
		i += 1 + d
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		d := digitsAt(s, i)
		if d == 0 {
			return 0
		}
		i += d
	}
	return i
}

// digitsAt counts the decimal digits of s from i.
func digitsAt(s string, i int) int {
	n := 0
	for i+n < len(s) && '0' <= s[i+n] && s[i+n] <= '9' {
		n++
	}
	return n
}

// skip moves past any value, checking its syntax.
func (d *decoder) skip() error {
	switch d.peek() {
	case '"':
		return d.skipString()
	case '{':
		return d.skipObject()
	case '[':
		return d.skipArray()
	}
	return d.skipScalar()
}

// skipObject and skipArray move past a container. An error inside one
// names the path of the value skipped, not of what is inside it.
func (d *decoder) skipObject() error {
	if err := d.open(); err != nil {
		return err
	}
	for first := true; ; first = false {
		_, done, err := d.nextKey(first)
		if err != nil || done {
			return err
		}
		if err := d.skip(); err != nil {
			return err
		}
	}
}

func (d *decoder) skipArray() error {
	if err := d.open(); err != nil {
		return err
	}
	for first := true; ; first = false {
		if d.ws(); d.eat(']') {
			d.depth--
			return nil
		}
		if !first && !d.eat(',') {
			return d.syntax("expected , or ] after an element")
		}
		d.ws()
		if err := d.skip(); err != nil {
			return err
		}
	}
}

func (d *decoder) skipScalar() error {
	switch d.peek() {
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
	return d.syntax("expected a value")
}

// other reads a value of a type the member does not take and records it
// as a deviation, the member keeping kept. Invalid JSON in it is an error.
func (d *decoder) other(kept string) error {
	start := d.pos
	if err := d.skip(); err != nil {
		return err
	}
	d.deviate(d.data[start:d.pos], kept)
	return nil
}

// string reads a string member. A number or boolean keeps its text, a
// deviation; null is reported as such (null true), to leave the member as
// encoding/json leaves it.
func (d *decoder) string() (s string, null bool, err error) {
	switch c := d.peek(); {
	case c == '"':
		s, err = d.str()
		return s, false, err
	case c == 'n' && d.literal("null"):
		return "", true, nil
	case c == 't' && d.literal("true"):
		d.deviate([]byte("true"), `"true"`)
		return "true", false, nil
	case c == 'f' && d.literal("false"):
		d.deviate([]byte("false"), `"false"`)
		return "false", false, nil
	case c == '-' || '0' <= c && c <= '9':
		start := d.pos
		if lit, ok := d.number(); ok {
			d.deviate([]byte(lit), strconv.Quote(lit))
			return d.keep(d.data[start:d.pos]), false, nil // lit is a view of the pooled body
		}
	}
	return "", false, d.other("zero value")
}

// boolean reads an optional boolean. "true", "false", 1 and 0 are read as
// booleans, deviations; null is absent.
func (d *decoder) boolean() (*bool, error) {
	switch c := d.peek(); {
	case c == 't' && d.literal("true"):
		return d.newBool(true), nil
	case c == 'f' && d.literal("false"):
		return d.newBool(false), nil
	case c == 'n' && d.literal("null"):
		return nil, nil
	case c == '"':
		return d.boolString()
	case c == '-' || '0' <= c && c <= '9':
		if lit, ok := d.number(); ok {
			if lit == "0" || lit == "1" {
				d.deviate([]byte(lit), strconv.FormatBool(lit == "1"))
				return d.newBool(lit == "1"), nil
			}
			d.deviate([]byte(lit), "absent")
			return nil, nil
		}
	}
	return nil, d.other("absent")
}

// boolString reads a boolean sent as a string.
func (d *decoder) boolString() (*bool, error) {
	start := d.pos
	s, err := d.str()
	if err != nil {
		return nil, err
	}
	b, perr := parseBool(s)
	if perr != nil {
		d.deviate(d.data[start:d.pos], "absent")
		return nil, nil
	}
	d.deviate(d.data[start:d.pos], strconv.FormatBool(b))
	return d.newBool(b), nil
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

// float reads a number; a string that holds one is read as it, a
// deviation. ok is false for null, and for a value that holds no number
// (a deviation).
func (d *decoder) float() (f float64, ok bool, err error) {
	switch c := d.peek(); {
	case c == '-' || '0' <= c && c <= '9':
		start := d.pos
		if lit, ok := d.number(); ok {
			if f, err := strconv.ParseFloat(lit, 64); err == nil {
				return f, true, nil
			}
			d.deviate(d.data[start:d.pos], "absent (out of range)")
			return 0, false, nil
		}
	case c == 'n' && d.literal("null"):
		return 0, false, nil
	case c == '"':
		return d.floatString()
	}
	return 0, false, d.other("absent")
}

// floatString reads a number sent as a string.
func (d *decoder) floatString() (float64, bool, error) {
	start := d.pos
	s, err := d.stringView()
	if err != nil {
		return 0, false, err
	}
	f, perr := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if perr != nil {
		d.deviate(d.data[start:d.pos], "absent")
		return 0, false, nil
	}
	d.deviate(d.data[start:d.pos], strconv.FormatFloat(f, 'g', -1, 64))
	return f, true, nil
}

// timestamp reads an ISO 8601 timestamp (see readTimestamp), or a Unix
// time, a deviation. One that cannot be read is the zero time, a
// deviation; null is reported as such, to leave the member as
// encoding/json leaves it.
func (d *decoder) timestamp() (t time.Time, null bool, err error) {
	switch c := d.peek(); {
	case c == 'n' && d.literal("null"):
		return time.Time{}, true, nil
	case c == '"':
		start := d.pos
		s, err := d.stringView()
		if err != nil {
			return time.Time{}, false, err
		}
		raw := d.data[start:d.pos]
		t, note, ok := readTimestamp(s)
		switch {
		case !ok:
			d.deviate(raw, "zero value")
		case note != "":
			d.deviate(raw, t.Format(time.RFC3339Nano)+note)
		}
		return t, false, nil
	case c == '-' || '0' <= c && c <= '9':
		start := d.pos
		if lit, ok := d.number(); ok {
			t := unixTime(lit)
			kept := "zero value"
			if !t.IsZero() {
				kept = t.Format(time.RFC3339Nano) + " (a Unix time)"
			}
			d.deviate(d.data[start:d.pos], kept)
			return t, false, nil
		}
	}
	return time.Time{}, false, d.other("zero value")
}

// unixTime reads a Unix time: seconds, or milliseconds when it is too
// large for seconds of this era. It is the zero time for anything else.
func unixTime(lit string) time.Time {
	n, err := strconv.ParseInt(lit, 10, 64)
	switch {
	case err != nil || n <= 0:
		return time.Time{}
	case n >= 1e11:
		return time.UnixMilli(n).UTC()
	}
	return time.Unix(n, 0).UTC()
}

// stringView reads a string that is not kept: a view of the body when it
// has no escape.
func (d *decoder) stringView() (string, error) {
	return d.key()
}

// count reads the envelope's count: any JSON number equal to an integer
// (25, 25.0, 2.5e1); a string holding one is read too, a deviation.
func (d *decoder) count() (int, error) {
	switch d.peek() {
	case '"':
		start := d.pos
		s, err := d.stringView()
		if err != nil {
			return 0, err
		}
		n, ok := integerOf(strings.TrimSpace(s))
		if !ok {
			return 0, fmt.Errorf("count: %s is not an integer", snippet(d.data[start:d.pos]))
		}
		d.deviate(d.data[start:d.pos], strconv.Itoa(n))
		return n, nil
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		lit, _ := d.number()
		n, ok := integerOf(lit)
		if !ok {
			return 0, fmt.Errorf("count: %s is not an integer", snippet([]byte(lit)))
		}
		return n, nil
	}
	return 0, d.wrongType("an integer")
}

// integerOf reads s, a JSON number, when it equals an int: 25, 25.0,
// 2.5e1 and 2500e-2 are 25. Exact, with no floating point.
func integerOf(s string) (int, bool) {
	if numberLen(s) != len(s) || s == "" {
		return 0, false
	}
	neg := s[0] == '-'
	s = strings.TrimPrefix(s, "-")
	mant, exp, _ := strings.Cut(strings.ToLower(s), "e")
	whole, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(whole+frac, "0")
	if digits == "" {
		return 0, true // zero, whatever its exponent
	}
	e, err := 0, error(nil)
	if exp != "" {
		e, err = strconv.Atoi(exp)
	}
	if err != nil || e > 20 {
		return 0, false // far beyond an int
	}
	shift := e - len(frac) // the value is digits × 10^shift
	if shift < 0 {
		if -shift > len(digits) || strings.TrimRight(digits[len(digits)+shift:], "0") != "" {
			return 0, false
		}
		digits = digits[:len(digits)+shift]
	} else {
		digits += strings.Repeat("0", min(shift, 20))
	}
	if neg {
		digits = "-" + digits
	}
	n, err := strconv.ParseInt(digits, 10, strconv.IntSize)
	return int(n), err == nil
}

// next reads the envelope's next: a string, or null for none.
func (d *decoder) next() (string, error) {
	switch d.peek() {
	case 'n':
		if d.literal("null") {
			return "", nil
		}
	case '"':
		return d.str()
	}
	return "", d.wrongType("a string or null")
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
		d.block = make([]byte, 0, max(len(b), d.blockSize()))
	}
	start := len(d.block)
	d.block = append(d.block, b...)
	return unsafe.String(&d.block[start], len(b))
}

// blockSize is the size of the page's next string block: the first holds
// five eighths of the body, what the strings of a page of posts take
// (55 % of testdata/bench/page25.json), the others a quarter.
func (d *decoder) blockSize() int {
	if d.block == nil {
		return len(d.data) * 5 / 8
	}
	return len(d.data) / 4
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

// pathString writes the decoder's path from the page, then rel:
// "nodes[3].taggedProducts[0].x".
func (d *decoder) pathString(rel string) string {
	var b strings.Builder
	for _, s := range d.path {
		switch {
		case s.key == "":
			fmt.Fprintf(&b, "[%d]", s.index)
		case b.Len() > 0:
			b.WriteString("." + s.key)
		default:
			b.WriteString(s.key)
		}
	}
	if rel != "" && b.Len() > 0 {
		b.WriteString(".")
	}
	b.WriteString(rel)
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
