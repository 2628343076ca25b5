package filterrules

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// The values a filter element's type and operator may take. They are
// case-sensitive.
const (
	TypeLabel   = "label"
	OperatorOr  = "OR"
	OperatorAnd = "AND"
)

// Label is one element of a filter as the server reads it: posts whose
// labels match Values under Operator (OperatorOr or OperatorAnd). Values is
// never nil: an empty array is valid and matches no post.
type Label struct {
	Operator string
	Values   []string
}

// Parse parses the raw (already URL-decoded) value of a filter parameter by
// the server's rules. It returns the filter's elements, or an [*Error]
// whose Message is the server's exact 400 text (see the constants in
// messages.go). The elements are checked in order and each element's fields
// in the order type, operator, values. "Falsy" follows JavaScript, as the
// service does. The empty string is no filter at all (nil, nil).
func Parse(raw string) ([]Label, error) {
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
		return nil, errorf(MsgUnexpectedToken, pos)
	}
	elems, ok := top.([]any)
	if !ok {
		return nil, errorf(MsgNotArray)
	}
	f := make([]Label, 0, len(elems))
	for _, e := range elems {
		l, err := parseLabel(e)
		if err != nil {
			return nil, err
		}
		f = append(f, l)
	}
	return f, nil
}

func parseLabel(e any) (Label, error) {
	obj, _ := e.(map[string]any) // a non-object has no fields: "Type is required"
	typ := obj["type"]
	if falsy(typ) {
		return Label{}, errorf(MsgTypeRequired)
	}
	if typ != TypeLabel {
		return Label{}, errorf(MsgTypeNotSupported, jsText(typ))
	}
	op := obj["operator"]
	if falsy(op) {
		return Label{}, errorf(MsgOperatorRequired)
	}
	if op != OperatorOr && op != OperatorAnd {
		return Label{}, errorf(MsgOperatorNotSupported, jsText(op))
	}
	vals := obj["values"]
	if falsy(vals) {
		return Label{}, errorf(MsgValuesRequired)
	}
	list, ok := vals.([]any)
	if !ok {
		return Label{}, errorf(MsgValuesNotArray)
	}
	ids := make([]string, 0, len(list))
	for _, v := range list {
		s, ok := v.(string)
		if !ok || !IsID(s) {
			return Label{}, errorf(MsgValueNotID, jsText(v))
		}
		ids = append(ids, s)
	}
	return Label{Operator: op.(string), Values: ids}, nil
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
	return errorf(MsgUnexpectedToken, pos)
}
