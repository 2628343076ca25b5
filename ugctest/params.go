package ugctest

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/internal/filterrules"
)

// pagingParams reads limit (default and cap 25) and skip (default 0); msg
// is the 400 message for a bad one.
func pagingParams(q url.Values) (limit, skip int, msg string) {
	limit = ugc.MaxLimit
	if vs, ok := q["limit"]; ok {
		n, err := strconv.Atoi(vs[0])
		switch {
		case err != nil && errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(vs[0], "-"):
			n = ugc.MaxLimit
		case err != nil || n < 1:
			return 0, 0, MsgLimit
		}
		limit = min(n, ugc.MaxLimit)
	}
	if vs, ok := q["skip"]; ok {
		n, err := strconv.Atoi(vs[0])
		switch {
		case err != nil && errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(vs[0], "-"):
			n = int(^uint(0) >> 1)
		case err != nil || n < 0:
			return 0, 0, MsgSkip
		}
		skip = n
	}
	return limit, skip, ""
}

// includeParam reads include: absent is false, every comma-separated value
// must be "labels".
func includeParam(q url.Values) (labels bool, msg string) {
	vs, ok := q["include"]
	if !ok {
		return false, ""
	}
	for _, v := range strings.Split(vs[0], ",") {
		v = strings.TrimSpace(v)
		switch v {
		case "":
			return false, MsgIncludeEmpty
		case string(ugc.IncludeLabels):
			labels = true
		default:
			return false, "Include " + v + " is not supported"
		}
	}
	return labels, ""
}

// Bounds on what one request may cost.
const (
	maxQueryParams  = 1000     // parameters in the query string
	maxFilterBytes  = 64 << 10 // length of the filter parameter, URL-decoded
	maxFilterValues = 1000     // label IDs in the filter, all elements together
)

// parseFilter reads the filter parameter by [filterrules.Parse], within the
// bounds above: a filter longer than maxFilterBytes is refused before it is
// parsed, so a huge one costs nothing; one with more than maxFilterValues
// values after (parsing at most 64 KiB is cheap, and the server's own
// messages come first). Either is a [*filterrules.Error].
func parseFilter(raw string) ([]filterrules.Label, error) {
	if len(raw) > maxFilterBytes {
		return nil, &filterrules.Error{Message: fmt.Sprintf("Filter is longer than %d bytes", maxFilterBytes)}
	}
	f, err := filterrules.Parse(raw)
	if err != nil {
		return nil, err
	}
	n := 0
	for _, el := range f {
		n += len(el.Values)
	}
	if n > maxFilterValues {
		return nil, &filterrules.Error{Message: fmt.Sprintf("Filter has more than %d values", maxFilterValues)}
	}
	return f, nil
}

// market returns the index of the market with the given ID (any case) or
// shortId (exact).
func (s *store) market(v string) (int, bool) {
	if i, ok := s.marketBy[v]; ok {
		return i, true
	}
	i, ok := s.marketBy[strings.ToLower(v)]
	if ok && !filterrules.IsID(v) {
		return 0, false // a lower-cased shortId is not the shortId
	}
	return i, ok
}

// parseQuery reads a query string, or says why it cannot: a bad escape, a
// ";" separator or too many parameters is a 400, never a query silently
// cut short (a filter with a bad escape would otherwise return the whole
// unfiltered list, and a client that encodes it wrongly pass its tests).
func parseQuery(raw string) (url.Values, string) {
	if strings.Count(raw, "&") >= maxQueryParams {
		return nil, fmt.Sprintf("Query has more than %d parameters", maxQueryParams)
	}
	q, err := url.ParseQuery(raw)
	if err != nil {
		return nil, "Query string is not valid: " + err.Error()
	}
	return q, ""
}
