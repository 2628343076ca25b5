package ugc

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"strings"
)

// redacted replaces the API key wherever an error or log line would hold it.
const redacted = "[redacted]"

// masker finds the API key in the forms a server, a proxy or a layer of
// this client may echo it in. Each character of the key may stand as
// itself, URL-encoded any number of times (%XX, %25XX, %2525XX ..., the hex
// in either case; a space also as "+"), JSON-escaped (\u00XX, the hex in
// either case; "/", `"` and `\` after a backslash), or, for "+", as the
// space a query parser decodes it to; the backslash of an escape may itself
// be URL-encoded (%5C%22) or quoted again (a run of backslashes: %q of a
// JSON escape). Any mix of these forms, character by character, matches.
// It runs only on what leaves the client beside a page: errors, log lines,
// the deviations a page records and the headers WithResponseInto hands
// back; never on a page's posts.
type masker struct {
	echo      *echo   // the forms of the key (keyecho.go)
	starts    string  // the bytes an echo can begin with
	wordEdges [2]bool // the key begins, ends, with a character of a word (keytoken.go)
}

// Format hides the key the masker holds from every fmt verb.
func (m *masker) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, "ugc.masker") }

// newMasker returns the masker of key, which is not empty.
func newMasker(key string) *masker {
	// An echo begins with the first character as it is, a "%" (URL-encoded)
	// or a backslash (an escape); a space also as "+", and a "+" also as a
	// space.
	starts := `%\` + key[:1]
	switch key[0] {
	case ' ':
		starts += "+"
	case '+':
		starts += " "
	}
	return &masker{echo: newEcho(key), starts: starts, wordEdges: wordEdges(key)}
}

// find returns where the first echo in s at or after from that stands as a
// token (see keytoken.go) begins and ends (the longest, where it could end
// in more than one place), or -1, -1. The echo is matched
// only where one can begin, and the match gives up as soon as the text
// there departs from every form: on a text without the key, masking costs
// about a scan for a few bytes.
func (m *masker) find(s string, from int) (start, end int) {
	search := m.echo.search(s, func(i, j int) bool { return m.standsAlone(s, i, j) })
	for i := from; i < len(s); i++ {
		j := strings.IndexAny(s[i:], m.starts)
		if j < 0 {
			break
		}
		i += j
		if end := search.at(i); end > i {
			return i, end
		}
	}
	return -1, -1
}

// contains reports whether s holds an echo of the key.
func (m *masker) contains(s string) bool {
	start, _ := m.find(s, 0)
	return start >= 0
}

// mask returns s with every echo of the key replaced.
func (m *masker) mask(s string) string {
	start, end := m.find(s, 0)
	if start < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for start >= 0 {
		b.WriteString(s[last:start])
		b.WriteString(redacted)
		last = end
		start, end = m.find(s, end)
	}
	b.WriteString(s[last:])
	return b.String()
}

// maskBytes returns a copy of b with every echo of the key replaced; an
// empty body stays empty, not nil.
func (m *masker) maskBytes(b []byte) []byte {
	return []byte(m.mask(string(b))) // always a copy
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
		out[m.mask(k)] = c
	}
	return out
}

// maskErr is the one boundary every error passes on its way out of the
// client: what a call returns, what a walk yields, what a log line or an
// [AttemptObserver] sees. Whatever layer built the error (the transport's
// *url.Error with the full request URL, a refused redirect quoting its
// Location, an [*APIError], a [*DecodeError], the walk's own), the key shows
// in none of its renderings afterwards.
//
// It returns err itself when no rendering of err, nor of any error it wraps
// (Error, %v, %+v, %#v, %q, through Unwrap() error and Unwrap() []error),
// shows the key: so sentinels, ctx.Err() and most errors keep their
// identity. Otherwise it returns a copy in which the key is masked
// everywhere: an error that is a pointer to a struct (*url.Error,
// *APIError, *DecodeError, *DriftError ...) is copied with its exported
// strings, byte slices, string slices, headers and errors masked, so
// errors.As still finds its type; any other error (fmt's and errors.Join's
// wrappers, an error whose unexported fields hold the key) becomes a stand-in
// that prints its masked text for every verb and keeps its Is method and
// the errors it wraps, masked. errors.Is and errors.As therefore reach every
// sentinel and every typed error in the chain, and every error in the chain
// is masked too.
func (c *Client) maskErr(err error) error { return c.masker.maskErr(err) }

// maxMaskDepth bounds how deep maskErr follows an error's wraps; deeper
// (or cyclic) chains end in a stand-in that wraps nothing.
const maxMaskDepth = 32

func (m *masker) maskErr(err error) error {
	if err == nil || m.clean(err, 0) {
		return err
	}
	return m.rebuild(err, 0)
}

// clean reports whether no rendering of err, or of any error it wraps,
// shows the key.
func (m *masker) clean(err error, depth int) bool {
	if depth > maxMaskDepth || m.shows(err, depth) {
		return false
	}
	for _, w := range wrapped(err) {
		if w != nil && !m.clean(w, depth+1) {
			return false
		}
	}
	return true
}

// renderings are the fmt verbs whose output maskErr checks; %s and %x print
// what %v does, as text or in hex.
var renderings = []string{"%v", "%+v", "%#v", "%q"}

// shows reports whether err's own text, any rendering of it, or any of its
// exported fields (which a caller reads after errors.As, unquoted) shows
// the key. For a plain struct error (exported fields of kinds it can read,
// no Format or GoString method) the fields stand for its %#v, so that an
// APIError holding a large body is not printed in hex to be searched.
func (m *masker) shows(err error, depth int) bool {
	if m.contains(errorText(err)) {
		return true
	}
	if fields, plain := plainFields(err); plain {
		for _, f := range fields {
			if m.valueShows(f, depth) {
				return true
			}
		}
		return false
	}
	if m.fieldsShow(err, depth) {
		return true
	}
	for _, verb := range renderings {
		if m.contains(fmt.Sprintf(verb, err)) {
			return true
		}
	}
	return false
}

// plainFields returns the fields of err when it is a pointer to a struct
// whose fields are all exported and of kinds valueShows reads, and that
// formats itself with neither Format nor GoString: then Error and those
// fields are all fmt can show of it.
func plainFields(err error) ([]reflect.Value, bool) {
	if _, ok := err.(fmt.Formatter); ok {
		return nil, false
	}
	if _, ok := err.(fmt.GoStringer); ok {
		return nil, false
	}
	s, ok := structOf(err)
	if !ok {
		return nil, false
	}
	fields := make([]reflect.Value, s.NumField())
	for i := range fields {
		if !s.Type().Field(i).IsExported() || !readable(s.Field(i).Type()) {
			return nil, false
		}
		fields[i] = s.Field(i)
	}
	return fields, true
}

// structOf returns the struct err points to.
func structOf(err error) (reflect.Value, bool) {
	v := reflect.ValueOf(err)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}, false
	}
	return v.Elem(), true
}

// readable reports whether valueShows reads every part of a value of t
// that fmt may print.
func readable(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64, reflect.String:
		return true
	case reflect.Slice:
		return t.Elem().Kind() == reflect.Uint8 || t.Elem().Kind() == reflect.String
	case reflect.Map:
		return t.Key().Kind() == reflect.String && t.Elem().Kind() == reflect.Slice && t.Elem().Elem().Kind() == reflect.String
	case reflect.Interface:
		return t == errorType
	}
	return false
}

// errorText returns err.Error(), or "" when it panics (a nil pointer of a
// type whose Error does not expect one): fmt prints such a panic, and the
// boundary must not crash on it.
func errorText(err error) (s string) {
	defer func() {
		if recover() != nil {
			s = ""
		}
	}()
	return err.Error()
}

// fieldsShow reports whether an exported field of err, a pointer to a
// struct, holds the key.
func (m *masker) fieldsShow(err error, depth int) bool {
	s, ok := structOf(err)
	if !ok {
		return false
	}
	for i := range s.NumField() {
		if s.Type().Field(i).IsExported() && m.valueShows(s.Field(i), depth) {
			return true
		}
	}
	return false
}

// anyShows reports whether a string of the slice f shows the key.
func (m *masker) anyShows(f reflect.Value) bool {
	for i := range f.Len() {
		if m.contains(f.Index(i).String()) {
			return true
		}
	}
	return false
}

// valueShows reports whether a string, byte slice, string slice, header or
// error (in any rendering, or any error it wraps) holds the key.
func (m *masker) valueShows(f reflect.Value, depth int) bool {
	t := f.Type()
	switch {
	case t.Kind() == reflect.String:
		return m.contains(f.String())
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		return m.contains(string(f.Bytes()))
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.String:
		return m.anyShows(f)
	case t.Kind() == reflect.Map && t.Key().Kind() == reflect.String && t.Elem().Kind() == reflect.Slice && t.Elem().Elem().Kind() == reflect.String:
		for it := f.MapRange(); it.Next(); {
			if m.contains(it.Key().String()) || m.anyShows(it.Value()) {
				return true
			}
		}
	case t == errorType:
		return !f.IsNil() && !m.clean(f.Interface().(error), depth+1)
	}
	return false
}

// wrapped returns the errors err wraps, as errors.Is walks them.
func wrapped(err error) []error {
	switch x := err.(type) {
	case interface{ Unwrap() error }:
		if w := x.Unwrap(); w != nil {
			return []error{w}
		}
	case interface{ Unwrap() []error }:
		return x.Unwrap()
	}
	return nil
}

// rebuild returns err masked: err itself if clean, else a masked copy of
// its type if one can be made, else a stand-in.
func (m *masker) rebuild(err error, depth int) error {
	if m.clean(err, depth) {
		return err
	}
	if depth >= maxMaskDepth {
		return m.standIn(err, nil)
	}
	if cp, ok := m.copyFields(err, depth); ok && m.clean(cp, depth) {
		return cp
	}
	ws := wrapped(err)
	masked := make([]error, len(ws))
	for i, w := range ws {
		if w != nil {
			masked[i] = m.rebuild(w, depth+1)
		}
	}
	return m.standIn(err, masked)
}

var (
	errorType  = reflect.TypeFor[error]()
	headerType = reflect.TypeFor[http.Header]()
)

// copyFields returns a copy of err, when it is a pointer to a struct, with
// its exported fields masked. ok is false for any other error, or when the
// copy is not an error.
func (m *masker) copyFields(err error, depth int) (error, bool) {
	v, ok := structOf(err)
	if !ok {
		return nil, false
	}
	cp := reflect.New(v.Type())
	cp.Elem().Set(v)
	s := cp.Elem()
	for i := range s.NumField() {
		if f := s.Field(i); f.CanSet() {
			m.maskField(f, depth)
		}
	}
	out, ok := cp.Interface().(error)
	return out, ok
}

// maskField masks one settable field of an error being copied.
func (m *masker) maskField(f reflect.Value, depth int) {
	t := f.Type()
	switch {
	case t == headerType:
		if !f.IsNil() {
			f.Set(reflect.ValueOf(m.maskHeader(f.Interface().(http.Header))))
		}
	case t == errorType:
		if !f.IsNil() {
			f.Set(reflect.ValueOf(m.rebuild(f.Interface().(error), depth+1)))
		}
	case t.Kind() == reflect.String:
		f.SetString(m.mask(f.String()))
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		if !f.IsNil() {
			f.SetBytes(m.maskBytes(f.Bytes()))
		}
	case t.Kind() == reflect.Slice && (t.Elem().Kind() == reflect.String || t.Elem() == errorType):
		if f.IsNil() {
			return
		}
		out := reflect.MakeSlice(t, f.Len(), f.Len())
		for i := range f.Len() {
			out.Index(i).Set(f.Index(i))
			m.maskField(out.Index(i), depth)
		}
		f.Set(out)
	}
}

// standIn returns the stand-in for err, wrapping ws (already masked) as err
// wrapped its own.
func (m *masker) standIn(err error, ws []error) error {
	t := maskedText{
		text:   m.mask(errorText(err)),
		detail: m.mask(fmt.Sprintf("%+v", err)),
		syntax: m.mask(fmt.Sprintf("%#v", err)),
	}
	if is, ok := err.(interface{ Is(error) bool }); ok {
		t.is = is.Is
	}
	if _, multi := err.(interface{ Unwrap() []error }); multi {
		if _, single := err.(interface{ Unwrap() error }); !single {
			return &maskedErrors{maskedText: t, errs: ws}
		}
	}
	var w error
	if len(ws) > 0 {
		w = ws[0]
	}
	return &maskedError{maskedText: t, err: w}
}

// maskedText is what a stand-in prints: the original's renderings, masked.
type maskedText struct {
	text, detail, syntax string
	is                   func(error) bool // the original's Is method, if any
}

// Error returns the original error's text, the key masked.
func (t *maskedText) Error() string { return t.text }

// Format prints the original's %+v and %#v for those verbs, masked, and its
// text for any other.
func (t *maskedText) Format(f fmt.State, verb rune) {
	switch {
	case verb == 'v' && f.Flag('#'):
		_, _ = io.WriteString(f, t.syntax)
	case verb == 'v' && f.Flag('+'):
		_, _ = io.WriteString(f, t.detail)
	case verb == 'v':
		_, _ = io.WriteString(f, t.text)
	default:
		_, _ = fmt.Fprintf(f, fmt.FormatString(f, verb), t.text)
	}
}

// Is asks the original's Is method, so a type that matches a sentinel by
// its fields still does.
func (t *maskedText) Is(target error) bool { return t.is != nil && t.is(target) }

// maskedError stands for an error that wrapped one error (or none).
type maskedError struct {
	maskedText
	err error
}

// Unwrap returns the wrapped error, masked.
func (e *maskedError) Unwrap() error { return e.err }

// maskedErrors stands for an error that wrapped several (fmt.Errorf with
// more than one %w, errors.Join).
type maskedErrors struct {
	maskedText
	errs []error
}

// Unwrap returns the wrapped errors, masked.
func (e *maskedErrors) Unwrap() []error { return e.errs }

// maskingHandler is the log side of the boundary: every line the client
// writes passes it, whichever part of the client wrote it. It masks the
// key in the message, in every attribute's key and string value, in errors
// (through maskErr) and in any other value whose text or JSON shows it.
type maskingHandler struct {
	next slog.Handler
	m    *masker
}

// maskedLogger returns l with its lines masked; nil for nil.
func maskedLogger(l *slog.Logger, m *masker) *slog.Logger {
	if l == nil {
		return nil
	}
	return slog.New(maskingHandler{next: l.Handler(), m: m})
}

// Enabled asks the caller's handler.
func (h maskingHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.next.Enabled(ctx, level)
}

// Handle masks the record and passes it on.
func (h maskingHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, h.m.mask(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.maskAttr(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

// WithAttrs masks attrs and passes them on.
func (h maskingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	masked := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		masked[i] = h.maskAttr(a)
	}
	return maskingHandler{next: h.next.WithAttrs(masked), m: h.m}
}

// WithGroup passes the group on, its name masked.
func (h maskingHandler) WithGroup(name string) slog.Handler {
	return maskingHandler{next: h.next.WithGroup(h.m.mask(name)), m: h.m}
}

func (h maskingHandler) maskAttr(a slog.Attr) slog.Attr {
	a.Key = h.m.mask(a.Key)
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		a.Value = slog.StringValue(h.m.mask(v.String()))
	case slog.KindGroup:
		group := v.Group()
		masked := make([]slog.Attr, len(group))
		for i, g := range group {
			masked[i] = h.maskAttr(g)
		}
		a.Value = slog.GroupValue(masked...)
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			a.Value = slog.AnyValue(h.m.maskErr(err))
			break
		}
		text := fmt.Sprintf("%+v", v.Any())
		js, _ := json.Marshal(v.Any())
		if h.m.contains(text) || h.m.contains(string(js)) {
			a.Value = slog.StringValue(h.m.mask(text))
		} else {
			a.Value = v
		}
	default:
		a.Value = v
	}
	return a
}
