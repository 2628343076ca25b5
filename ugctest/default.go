package ugctest

// defaultSeed and defaultPosts make [DefaultDataset]; the seed was chosen so
// that every feature listed there is present.
const (
	defaultSeed  = 20250601
	defaultPosts = 36
)

// DefaultDataset returns a small, realistic dataset, a new copy on every
// call: 36 approved posts (images and videos; social imports with socialUrl,
// socialDate and fromSocial; company uploads with addedByCompany; tagged
// products with prices, sale prices, SKUs, MPNs and GTINs; captions with
// #hashtags and @mentions, some with hideCaption; posts without labels,
// posts whose every label was removed or is inaccessible, unnamed labels),
// the galleries "summer" and "videos", the markets "de-de" and "fr-fr" that
// each localize some posts, and 10 inbox posts, each with uploadedBy.email.
//
// Its JSON form is ugctest/testdata/default.json. The posts are ordinary
// [Post] values (nothing is generated on demand), so tests can read them to
// compute what the server should answer.
func DefaultDataset() *Dataset {
	return Generate(defaultPosts, defaultSeed).Materialize()
}
