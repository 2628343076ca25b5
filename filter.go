package ugc

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"

	"github.com/ugcposts/ugc-go/internal/filterrules"
)

// Operator joins the values of a [LabelFilter].
type Operator string

// The operators the API supports. They are case-sensitive.
const (
	// OperatorOr matches a post that carries any of the labels.
	OperatorOr Operator = filterrules.OperatorOr
	// OperatorAnd matches a post that carries all of the labels.
	OperatorAnd Operator = filterrules.OperatorAnd
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
	return json.Marshal(labelFilterJSON{Type: filterrules.TypeLabel, Operator: f.Operator, Values: f.LabelIDs})
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
	labels, err := filterrules.Parse(raw)
	if err != nil {
		var re *filterrules.Error
		if errors.As(err, &re) {
			return nil, &FilterError{Message: re.Message}
		}
		return nil, err
	}
	if labels == nil {
		return nil, nil
	}
	f := make(Filter, len(labels))
	for i, l := range labels {
		f[i] = LabelFilter{Operator: Operator(l.Operator), LabelIDs: l.Values}
	}
	return f, nil
}
