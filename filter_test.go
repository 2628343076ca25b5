package ugc_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	ugc "github.com/ugcposts/ugc-go"
)

const (
	labelA = "65f0c0ffee0000000000000a"
	labelB = "65f0c0ffee0000000000000b"
	labelC = "65F0C0FFEE0000000000000C" // upper case is hexadecimal too
)

// TestParseFilterMessages pins every 400 message of contract §7 as
// ParseFilter reports it.
func TestParseFilterMessages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, raw, want string
	}{
		// Not valid JSON: "Unexpected token in JSON at position <n>".
		{"bare word", `x`, "Unexpected token in JSON at position 0"},
		{"unclosed array", `[`, "Unexpected token in JSON at position 1"},
		{"trailing comma", `[1,]`, "Unexpected token in JSON at position 3"},
		{"garbage after value", `[]]`, "Unexpected token in JSON at position 2"},
		{"garbage after spaces", `{"a":1} x`, "Unexpected token in JSON at position 8"},
		{"number then letter", `1x`, "Unexpected token in JSON at position 1"},
		{"single quotes", `[{'type':'label'}]`, "Unexpected token in JSON at position 2"},
		{"whitespace only", ` `, "Unexpected token in JSON at position 1"},

		// Not an array.
		{"object", `{"type":"label","operator":"OR","values":[]}`, "Filter param needs to be an array"},
		{"string", `"label"`, "Filter param needs to be an array"},
		{"number", `1`, "Filter param needs to be an array"},
		{"null", `null`, "Filter param needs to be an array"},

		// type.
		{"type missing", `[{"operator":"OR","values":[]}]`, "Type is required"},
		{"type empty string", `[{"type":"","operator":"OR","values":[]}]`, "Type is required"},
		{"type 0", `[{"type":0,"operator":"OR","values":[]}]`, "Type is required"},
		{"type false", `[{"type":false,"operator":"OR","values":[]}]`, "Type is required"},
		{"type null", `[{"type":null,"operator":"OR","values":[]}]`, "Type is required"},
		{"element not an object", `[1]`, "Type is required"},
		{"element null", `[null]`, "Type is required"},
		{"type unsupported", `[{"type":"tag","operator":"OR","values":[]}]`, "Filter type tag is not supported"},
		{"type wrong case", `[{"type":"Label","operator":"OR","values":[]}]`, "Filter type Label is not supported"},
		{"type true", `[{"type":true,"operator":"OR","values":[]}]`, "Filter type true is not supported"},
		{"type number", `[{"type":7,"operator":"OR","values":[]}]`, "Filter type 7 is not supported"},

		// operator.
		{"operator missing", `[{"type":"label","values":[]}]`, "Operator is required"},
		{"operator empty", `[{"type":"label","operator":"","values":[]}]`, "Operator is required"},
		{"operator 0", `[{"type":"label","operator":0,"values":[]}]`, "Operator is required"},
		{"operator null", `[{"type":"label","operator":null,"values":[]}]`, "Operator is required"},
		{"operator lower case", `[{"type":"label","operator":"or","values":[]}]`, "Filter operator or is not supported"},
		{"operator NOT", `[{"type":"label","operator":"NOT","values":[]}]`, "Filter operator NOT is not supported"},

		// values.
		{"values missing", `[{"type":"label","operator":"OR"}]`, "Values is required"},
		{"values null", `[{"type":"label","operator":"AND","values":null}]`, "Values is required"},
		{"values false", `[{"type":"label","operator":"AND","values":false}]`, "Values is required"},
		{"values empty string", `[{"type":"label","operator":"AND","values":""}]`, "Values is required"},
		{"values string", `[{"type":"label","operator":"OR","values":"` + labelA + `"}]`, "Filter values must be an array"},
		{"values object", `[{"type":"label","operator":"OR","values":{}}]`, "Filter values must be an array"},
		{"value too short", `[{"type":"label","operator":"OR","values":["abc"]}]`, `Filter value "abc" is not a valid ID`},
		{"value not hex", `[{"type":"label","operator":"OR","values":["65f0c0ffee000000000000zz"]}]`, `Filter value "65f0c0ffee000000000000zz" is not a valid ID`},
		{"value 25 chars", `[{"type":"label","operator":"OR","values":["` + labelA + `0"]}]`, `Filter value "` + labelA + `0" is not a valid ID`},
		{"value number", `[{"type":"label","operator":"OR","values":[12]}]`, `Filter value "12" is not a valid ID`},
		{"second value bad", `[{"type":"label","operator":"OR","values":["` + labelA + `",""]}]`, `Filter value "" is not a valid ID`},

		// Order: elements in order, fields in the documented order.
		{"second element checked after first", `[{"type":"label","operator":"OR","values":[]},{"type":"x"}]`, "Filter type x is not supported"},
		{"type before operator", `[{"type":"x","operator":"y"}]`, "Filter type x is not supported"},
		{"operator before values", `[{"type":"label","operator":"y","values":"z"}]`, "Filter operator y is not supported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, err := ugc.ParseFilter(tt.raw)
			require.Error(t, err)
			assert.Nil(t, f)
			var fe *ugc.FilterError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, tt.want, fe.Message)
			assert.Equal(t, "ugc: invalid filter: "+tt.want, err.Error())
			assert.ErrorIs(t, err, ugc.ErrInvalidParams)
		})
	}
}

func TestParseFilterValid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		raw  string
		want ugc.Filter
	}{
		{"empty string is no filter", ``, nil},
		{"empty array", `[]`, ugc.Filter{}},
		{"one OR", `[{"type":"label","operator":"OR","values":["` + labelA + `","` + labelB + `"]}]`, ugc.Filter{ugc.AnyLabel(labelA, labelB)}},
		{"OR and AND", `[{"type":"label","operator":"OR","values":["` + labelA + `"]},{"type":"label","operator":"AND","values":["` + labelC + `"]}]`, ugc.Filter{ugc.AnyLabel(labelA), ugc.AllLabels(labelC)}},
		{"empty values is valid", `[{"type":"label","operator":"AND","values":[]}]`, ugc.Filter{{Operator: ugc.OperatorAnd, LabelIDs: []string{}}}},
		{"spaces and unknown fields", " [ {\"values\":[\"" + labelA + "\"], \"extra\":1, \"operator\":\"OR\", \"type\":\"label\"} ] \n", ugc.Filter{ugc.AnyLabel(labelA)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ugc.ParseFilter(tt.raw)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestFilterString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		filter ugc.Filter
		want   string
	}{
		{
			"any and all",
			ugc.Filter{ugc.AnyLabel(labelA, labelB), ugc.AllLabels(labelC)},
			`[{"type":"label","operator":"OR","values":["` + labelA + `","` + labelB + `"]},{"type":"label","operator":"AND","values":["` + labelC + `"]}]`,
		},
		{"nil", nil, `[]`},
		{"empty", ugc.Filter{}, `[]`},
		{"no IDs", ugc.Filter{ugc.AnyLabel()}, `[{"type":"label","operator":"OR","values":null}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, tt.filter.String())
		})
	}
}

func TestFilterValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		filter  ugc.Filter
		wantMsg string // "" for valid
	}{
		{"nil", nil, ""},
		{"any and all", ugc.Filter{ugc.AnyLabel(labelA, labelB), ugc.AllLabels(labelC)}, ""},
		{"empty IDs list is valid", ugc.Filter{{Operator: ugc.OperatorOr, LabelIDs: []string{}}}, ""},
		{"bad ID", ugc.Filter{ugc.AnyLabel(labelA, "nope")}, `Filter value "nope" is not a valid ID`},
		{"nil IDs", ugc.Filter{ugc.AllLabels()}, "Values is required"},
		{"zero operator", ugc.Filter{{LabelIDs: []string{labelA}}}, "Operator is required"},
		{"unknown operator", ugc.Filter{{Operator: "XOR", LabelIDs: []string{labelA}}}, "Filter operator XOR is not supported"},
		{"lower-case operator", ugc.Filter{{Operator: "and", LabelIDs: []string{labelA}}}, "Filter operator and is not supported"},
		{"second element bad", ugc.Filter{ugc.AnyLabel(labelA), ugc.AllLabels("x")}, `Filter value "x" is not a valid ID`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.filter.Validate()
			if tt.wantMsg == "" {
				assert.NoError(t, err)
				return
			}
			var fe *ugc.FilterError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, tt.wantMsg, fe.Message)
			assert.True(t, errors.Is(err, ugc.ErrInvalidParams))
			assert.False(t, errors.Is(err, ugc.ErrBadRequest), "refused before any request, not a 400")
		})
	}
}

func TestFilterRoundTrip(t *testing.T) {
	t.Parallel()
	filters := []ugc.Filter{
		{ugc.AnyLabel(labelA, labelB), ugc.AllLabels(labelC)},
		{ugc.AllLabels(labelA)},
		{{Operator: ugc.OperatorOr, LabelIDs: []string{}}},
		{},
	}
	for _, f := range filters {
		t.Run(f.String(), func(t *testing.T) {
			t.Parallel()
			got, err := ugc.ParseFilter(f.String())
			require.NoError(t, err)
			assert.Equal(t, f, got)
		})
	}
}
