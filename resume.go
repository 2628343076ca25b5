package ugc

import (
	"fmt"
	"net/url"
)

// checkResumeQuery refuses a walk's params that contradict the query of the
// checkpoint it resumes (checkpoint, its URL): a filter, market or include
// the params state with another value than the checkpoint's, or that the
// checkpoint's walk did not have. Params that leave one out take the
// checkpoint's, so ResumeFrom with nil params resumes the saved walk as it
// was. (The endpoint and gallery are checked with the checkpoint's path.)
func checkResumeQuery(call, checkpoint *url.URL) error {
	for _, key := range callerKeys {
		want, stated := queryLookup(call.RawQuery, key)
		if !stated {
			continue
		}
		got, had := queryLookup(checkpoint.RawQuery, key)
		switch {
		case got == want, key == "filter" && had && sameFilter(want, got):
		case !had:
			return fmt.Errorf("%w: ResumeFrom: the params ask for %s=%q, but the checkpoint's walk had no %s; resume with the checkpoint's params (or nil), or start a new walk", ErrMisuse, key, want, key)
		default:
			return fmt.Errorf("%w: ResumeFrom: the params ask for %s=%q, but the checkpoint's walk had %s=%q; resume with the checkpoint's params (or nil), or start a new walk", ErrMisuse, key, want, key, got)
		}
	}
	return nil
}
