package ugc_test

import "os"

// heavy reports whether the long runs are asked for (UGC_TEST_HEAVY=1, as
// .ci/run sets): without it the README's go test ./... stays within 30 s
// on two cores, and the properties run a sample of the same cases.
func heavy() bool { return os.Getenv("UGC_TEST_HEAVY") != "" }

// heavyOr returns full under UGC_TEST_HEAVY=1, and light otherwise.
func heavyOr[T any](full, light T) T {
	if heavy() {
		return full
	}
	return light
}
