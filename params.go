package ugc

import (
	"fmt"
	"net/url"

	"github.com/google/go-querystring/query"
)

// MaxLimit is the largest page the API returns, and the one a request with no
// Limit asks for (the contract's own default is stated as 25 and as 10).
const MaxLimit = 25

// limitOrMax is the limit sent: MaxLimit for 0 (unset) and, as the server
// caps a larger limit to MaxLimit (contract §8), for any larger one.
func limitOrMax(limit int) int {
	if limit == 0 || limit > MaxLimit {
		return MaxLimit
	}
	return limit
}

// checkPaging checks a request's limit (0 meaning unset; above MaxLimit
// capped) and skip: a negative one is the program's error ([ErrMisuse]).
func checkPaging(limit, skip int) error {
	if limit < 0 {
		return fmt.Errorf("%w: limit %d is negative", ErrMisuse, limit)
	}
	if skip < 0 {
		return fmt.Errorf("%w: skip %d is negative", ErrMisuse, skip)
	}
	return nil
}

// endpoint returns the URL of /v1/<segments...> under the base URL, each
// segment escaped on its own, with params encoded as the query.
func (c *Client) endpoint(params any, segments ...string) (*url.URL, error) {
	q, err := query.Values(params)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMisuse, err)
	}
	u := *c.base
	u.Path += "/v1"
	u.RawPath = c.base.EscapedPath() + "/v1"
	for _, s := range segments {
		u.Path += "/" + s
		u.RawPath += "/" + url.PathEscape(s)
	}
	u.RawQuery = q.Encode()
	return &u, nil
}
