package ugc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// Operator joins the values of a [LabelFilter].
type Operator string

// The operators the API supports. They are case-sensitive.
const (
	// OperatorOr matches a post that carries any of the labels.
	OperatorOr Operator = "OR"
	// OperatorAnd matches a post that carries all of the labels.
	OperatorAnd Operator = "AND"
)

// LabelFilter is one element of a [Filter]: posts whose labels match
// LabelIDs under Operator. Its JSON form is the contract's filter object
// (§4.5), {"type":"label","operator":...,"values":[...]}.
//
// An empty, non-nil LabelIDs is valid, as it is for the server, and matches
// no post; a nil LabelIDs is the server's "Values is required".
type LabelFilter struct {
	Operator Operator
	LabelIDs []string
}

// AnyLabel returns a filter element matching posts that carry at least one of
// the labels (operator OR).
func AnyLabel(labelIDs ...string) LabelFilter {
	return LabelFilter{Operator: OperatorOr, LabelIDs: labelIDs}
}

// AllLabels returns a filter element matching posts that carry every one of
// the labels (operator AND).
func AllLabels(labelIDs ...string) LabelFilter {
	return LabelFilter{Operator: OperatorAnd, LabelIDs: labelIDs}
}

type labelFilterJSON struct {
	Type     string   `json:"type"`
	Operator Operator `json:"operator"`
	Values   []string `json:"values"`
}

// MarshalJSON writes the contract's filter object.
func (f LabelFilter) MarshalJSON() ([]byte, error) {
	return json.Marshal(labelFilterJSON{Type: "label", Operator: f.Operator, Values: f.LabelIDs})
}

// Filter is the value of the posts list's filter parameter: a post must match
// every element. Build one as a literal:
//
//	ugc.Filter{ugc.AnyLabel(a, b), ugc.AllLabels(c)}
//
// A nil or empty Filter means no filtering.
type Filter []LabelFilter

// String returns the filter's compact JSON, as sent on the wire (before URL
// encoding).
func (f Filter) String() string {
	b, err := f.marshal()
	if err != nil {
		return fmt.Sprintf("%%!Filter(%v)", err)
	}
	return string(b)
}

func (f Filter) marshal() ([]byte, error) {
	if f == nil {
		return []byte("[]"), nil
	}
	return json.Marshal([]LabelFilter(f))
}

// Validate applies the server's filter rules and returns a [*FilterError]
// carrying the server's exact message for the first rule broken, or nil.
func (f Filter) Validate() error {
	b, err := f.marshal()
	if err != nil {
		return err
	}
	_, err = ParseFilter(string(b))
	return err
}

// EncodeValues implements go-querystring's Encoder: it adds the filter's
// compact JSON under key, or nothing for an empty filter. It does not
// validate; the calls do that first.
func (f Filter) EncodeValues(key string, v *url.Values) error {
	if len(f) == 0 {
		return nil
	}
	b, err := f.marshal()
	if err != nil {
		return err
	}
	v.Set(key, string(b))
	return nil
}

// FilterError is a filter the server would reject. Message is the exact text
// of the server's 400 answer (contract §7).
type FilterError struct {
	Message string
}

// Error returns "ugc: invalid filter: " and the server's message.
func (e *FilterError) Error() string { return "ugc: invalid filter: " + e.Message }

// Is reports whether target is [ErrInvalidParams].
func (e *FilterError) Is(target error) bool { return target == ErrInvalidParams }

func filterErr(format string, args ...any) error {
	return &FilterError{Message: fmt.Sprintf(format, args...)}
}

// ParseFilter parses the raw (already URL-decoded) value of a filter
// parameter by the server's rules. It returns the filter, or a
// [*FilterError] whose Message is the server's exact 400 text:
//
//	Unexpected token in JSON at position <n>     not valid JSON
//	Filter param needs to be an array            not an array
//	Type is required                             type missing, null, "", 0 or false
//	Filter type <type> is not supported          type not "label"
//	Operator is required                         operator missing or falsy
//	Filter operator <operator> is not supported  operator not "OR" or "AND" (case-sensitive)
//	Values is required                           values missing or falsy
//	Filter values must be an array               values not an array
//	Filter value "<value>" is not a valid ID     a value not 24 hexadecimal characters
//
// The elements are checked in order and each element's fields in the order
// above. "Falsy" follows JavaScript, as the service does: an empty values
// array is present, is valid, and matches no post. The empty string is no
// filter at all.
func ParseFilter(raw string) (Filter, error) {
	if raw == "" {
		return nil, nil
	}
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	var top any
	if err := dec.Decode(&top); err != nil {
		return nil, syntaxError(raw, err)
	}
	if rest := raw[dec.InputOffset():]; strings.TrimSpace(rest) != "" {
		pos := len(raw) - len(strings.TrimLeft(rest, " \t\r\n"))
		return nil, filterErr("Unexpected token in JSON at position %d", pos)
	}
	elems, ok := top.([]any)
	if !ok {
		return nil, filterErr("Filter param needs to be an array")
	}
	f := make(Filter, 0, len(elems))
	for _, e := range elems {
		lf, err := parseLabelFilter(e)
		if err != nil {
			return nil, err
		}
		f = append(f, lf)
	}
	return f, nil
}

func parseLabelFilter(e any) (LabelFilter, error) {
	obj, _ := e.(map[string]any) // a non-object has no fields: "Type is required"
	typ := obj["type"]
	if falsy(typ) {
		return LabelFilter{}, filterErr("Type is required")
	}
	if typ != "label" {
		return LabelFilter{}, filterErr("Filter type %s is not supported", jsText(typ))
	}
	op := obj["operator"]
	if falsy(op) {
		return LabelFilter{}, filterErr("Operator is required")
	}
	if op != string(OperatorOr) && op != string(OperatorAnd) {
		return LabelFilter{}, filterErr("Filter operator %s is not supported", jsText(op))
	}
	vals := obj["values"]
	if falsy(vals) {
		return LabelFilter{}, filterErr("Values is required")
	}
	list, ok := vals.([]any)
	if !ok {
		return LabelFilter{}, filterErr("Filter values must be an array")
	}
	ids := make([]string, 0, len(list))
	for _, v := range list {
		s, ok := v.(string)
		if !ok || !IsID(s) {
			return LabelFilter{}, filterErr("Filter value \"%s\" is not a valid ID", jsText(v))
		}
		ids = append(ids, s)
	}
	return LabelFilter{Operator: Operator(op.(string)), LabelIDs: ids}, nil
}

// IsID reports whether s is an ID as the API writes them: 24 hexadecimal
// characters.
func IsID(s string) bool {
	if len(s) != 24 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// falsy reports whether a decoded JSON value is falsy in JavaScript.
func falsy(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case bool:
		return !v
	case string:
		return v == ""
	case json.Number:
		f, err := v.Float64()
		return err == nil && f == 0
	}
	return false
}

// jsText renders a decoded JSON value the way a JavaScript template string
// would show a string (raw) and, for anything else, as its JSON text.
func jsText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// syntaxError turns a JSON decoding error into the server's message, with
// the zero-based position of the offending character.
func syntaxError(raw string, err error) error {
	pos := len(raw)
	var se *json.SyntaxError
	if errors.As(err, &se) && se.Offset > 0 && !strings.Contains(se.Error(), "unexpected end") {
		pos = int(se.Offset) - 1
	}
	return filterErr("Unexpected token in JSON at position %d", pos)
}
