package ugctest

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/internal/filterrules"
)

// store is a handler's data: the approved posts in stored order, the inbox,
// galleries, labels and markets, with posts pre-encoded where that is cheap.
// Its lists change only through the drift helpers, under mu.
type store struct {
	mu sync.RWMutex

	gen      *generator
	explicit []*entry       // posts given as values; ref -(k+1)
	byID     map[string]ref // explicit post IDs, present or removed
	order    []ref          // approved posts in stored order
	genGone  map[int32]bool // generated posts removed by RemovePosts
	inbox    [][]byte       // encoded inbox posts
	gallery  map[string][]string
	labels   []Label
	labelIdx map[string]int32 // lower-case label ID → index of an available label
	labelEnc [][]byte         // encoded labels
	markets  []Market
	marketBy map[string]int // lower-case ID and exact shortId → index

	version uint64           // bumped whenever order changes
	index   labelIndexHolder // the labels of order as bitsets, built on demand
}

// ref names an approved post: >= 0 the generated post of that index,
// < 0 the explicit post -(ref+1).
type ref int32

// entry is an explicit approved post.
type entry struct {
	post    ugc.Post // without email and labels
	labels  []int32  // indexes of its available labels, stored order
	encoded []byte   // post JSON in the default market, without labels
	present bool
}

func newStore(d *Dataset) (*store, error) {
	if err := d.validate(); err != nil {
		return nil, err
	}
	s := &store{
		gen:      d.gen,
		byID:     make(map[string]ref, len(d.Posts)),
		genGone:  map[int32]bool{},
		gallery:  make(map[string][]string, len(d.Galleries)),
		labels:   slices.Clone(d.Labels),
		labelIdx: make(map[string]int32, len(d.Labels)),
		markets:  slices.Clone(d.Markets),
		marketBy: make(map[string]int, 2*len(d.Markets)),
	}
	for i, l := range s.labels {
		if l.Available() {
			s.labelIdx[strings.ToLower(l.ID)] = int32(i)
		}
		b, err := json.Marshal(ugc.Label{ID: l.ID, Name: l.Name})
		if err != nil {
			return nil, err
		}
		s.labelEnc = append(s.labelEnc, b)
	}
	for i, m := range s.markets {
		s.marketBy[strings.ToLower(m.ID)] = i
		s.marketBy[m.ShortID] = i
	}
	for _, g := range d.Galleries {
		s.gallery[g.ShortID] = slices.Clone(g.PostIDs)
	}
	for _, p := range d.Inbox {
		if p.TaggedProducts == nil {
			p.TaggedProducts = []ugc.TaggedProduct{}
		}
		s.inbox = append(s.inbox, appendPostJSON(nil, &p))
	}
	if s.gen != nil {
		s.order = make([]ref, s.gen.n, s.gen.n+len(d.Posts))
		for i := range s.order {
			s.order[i] = ref(i)
		}
	}
	for _, p := range d.Posts {
		r, err := s.addExplicit(p)
		if err != nil {
			return nil, err
		}
		s.order = append(s.order, r)
	}
	return s, nil
}

// addExplicit stores p as an explicit post and returns its ref; the caller
// places the ref in order. It fails for a post whose ID is already present.
func (s *store) addExplicit(p Post) (ref, error) {
	if err := checkPost(&p.Post); err != nil {
		return 0, fmt.Errorf("post %q: %w", p.ID, err)
	}
	if s.has(p.ID) {
		return 0, fmt.Errorf("post %q is already present", p.ID)
	}
	e := &entry{post: p.Post, present: true}
	e.post.Labels = nil
	if e.post.TaggedProducts == nil {
		e.post.TaggedProducts = []ugc.TaggedProduct{}
	}
	if u := e.post.UploadedBy; u != nil && u.Email != "" {
		c := *u
		c.Email = "" // approved posts never show the member's email
		e.post.UploadedBy = &c
	}
	for _, id := range p.LabelIDs {
		if k, ok := s.labelIdx[strings.ToLower(id)]; ok && !slices.Contains(e.labels, k) {
			e.labels = append(e.labels, k)
		}
	}
	e.encoded = appendPostJSON(nil, &e.post)
	if old, ok := s.byID[p.ID]; ok { // re-inserted after removal
		s.explicit[-old-1] = e
		return old, nil
	}
	s.explicit = append(s.explicit, e)
	r := ref(-len(s.explicit))
	s.byID[p.ID] = r
	return r, nil
}

// lookup returns the ref of the present approved post with the given ID.
func (s *store) lookup(id string) (ref, bool) {
	if r, ok := s.byID[id]; ok {
		return r, s.explicit[-r-1].present
	}
	if s.gen != nil {
		if i, ok := s.gen.index(id); ok && !s.genGone[int32(i)] {
			return ref(i), true
		}
	}
	return 0, false
}

func (s *store) has(id string) bool { _, ok := s.lookup(id); return ok }

// availableLabels appends the indexes of the available labels of r.
func (s *store) availableLabels(r ref, buf []int32) []int32 {
	if r < 0 {
		return append(buf, s.explicit[-r-1].labels...)
	}
	var tmp [4]int32
	for _, k := range s.gen.labelIndexes(int(r), tmp[:0]) {
		if int(k) < len(s.labels) && s.labels[k].Available() && !slices.Contains(buf, k) {
			buf = append(buf, k)
		}
	}
	return buf
}

// matches reports whether post r matches every element of f. Only available
// labels count; IDs compare case-insensitively. Lists are answered by the
// label index (labelindex.go); this is the rule it must agree with, and the
// tests hold it to it.
func (s *store) matches(r ref, f compiledFilter, buf []int32) bool {
	have := s.availableLabels(r, buf[:0])
	for _, el := range f {
		if len(el.want) == 0 {
			return false
		}
		any, all := false, true
		for _, w := range el.want {
			if w >= 0 && slices.Contains(have, w) {
				any = true
			} else {
				all = false
			}
		}
		if el.and && !all || !el.and && !any {
			return false
		}
	}
	return true
}

// compiledFilter is a parsed filter whose values are label indexes, -1 for
// an ID that names no available label.
type compiledFilter []struct {
	and  bool
	want []int32
}

func (s *store) compile(f []filterrules.Label) compiledFilter {
	out := make(compiledFilter, len(f))
	for i, el := range f {
		out[i].and = el.Operator == filterrules.OperatorAnd
		for _, id := range el.Values {
			k, ok := s.labelIdx[strings.ToLower(id)]
			if !ok {
				k = -1
			}
			out[i].want = append(out[i].want, k)
		}
	}
	return out
}

// appendPost appends the JSON of post r, localized for market mi (-1 for
// none) and with its labels if withLabels.
func (s *store) appendPost(dst []byte, r ref, mi int, withLabels bool) ([]byte, error) {
	switch {
	case r < 0 && mi < 0:
		dst = append(dst, s.explicit[-r-1].encoded...)
	case r < 0:
		p := s.explicit[-r-1].post
		if loc, ok := s.markets[mi].Content[p.ID]; ok {
			localize(&p, loc)
		}
		dst = appendPostJSON(dst, &p)
	default:
		p := s.gen.wirePost(int(r))
		if mi >= 0 {
			if loc, ok := s.markets[mi].Content[p.ID]; ok {
				localize(&p, loc)
			} else if mi < len(marketShortIDs) {
				if loc, ok := s.gen.localization(mi, int(r), &p); ok {
					localize(&p, loc)
				}
			}
		}
		dst = appendPostJSON(dst, &p)
	}
	if !withLabels {
		return dst, nil
	}
	dst = dst[:len(dst)-1] // the closing brace
	dst = append(dst, `,"labels":[`...)
	var buf [8]int32
	for i, k := range s.availableLabels(r, buf[:0]) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, s.labelEnc[k]...)
	}
	return append(dst, "]}"...), nil
}

// localize applies a market's text to p, copying what it changes.
func localize(p *ugc.Post, loc Localization) {
	if loc.Comment != "" {
		p.Comment = loc.Comment
	}
	if loc.Alt != "" {
		p.Alt = loc.Alt
	}
	if loc.VideoCaptions != "" {
		p.VideoCaptions = loc.VideoCaptions
	}
	if loc.VideoDescription != "" {
		p.VideoDescription = loc.VideoDescription
	}
	if len(loc.Products) == 0 {
		return
	}
	tags := slices.Clone(p.TaggedProducts)
	for i := range tags {
		pl, ok := loc.Products[tags[i].Product.ID]
		if !ok {
			continue
		}
		if pl.Title != "" {
			tags[i].Product.Title = pl.Title
		}
		if pl.Price != nil {
			tags[i].Product.Price = pl.Price
		}
		if pl.URL != "" {
			tags[i].Product.URL = pl.URL
		}
	}
	p.TaggedProducts = tags
}

// insert places posts at position at of the stored order (clamped to
// 0..len). It fails, changing nothing, if an ID is already present or twice
// among posts.
func (s *store) insert(at int, posts []Post) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := map[string]bool{}
	for _, p := range posts {
		if s.has(p.ID) || seen[p.ID] {
			return fmt.Errorf("post %q is already present", p.ID)
		}
		if err := checkPost(&p.Post); err != nil {
			return fmt.Errorf("post %q: %w", p.ID, err)
		}
		seen[p.ID] = true
	}
	refs := make([]ref, 0, len(posts))
	for _, p := range posts {
		r, err := s.addExplicit(p)
		if err != nil {
			return err
		}
		refs = append(refs, r)
	}
	at = max(0, min(at, len(s.order)))
	s.order = slices.Insert(s.order, at, refs...)
	s.bumpVersion()
	return nil
}

// move takes the post with the given ID out of the stored order and puts it
// back at position to (clamped), as a server does when a post's sort key
// changes. It fails for an ID that is not present.
func (s *store) move(id string, to int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.lookup(id)
	if !ok {
		return fmt.Errorf("post %q is not present", id)
	}
	from := slices.Index(s.order, r)
	if from < 0 {
		return fmt.Errorf("post %q is not in the approved list", id)
	}
	s.order = slices.Delete(s.order, from, from+1)
	to = max(0, min(to, len(s.order)))
	s.order = slices.Insert(s.order, to, r)
	s.bumpVersion()
	return nil
}

// shuffle permutes the stored order, deterministically for a seed.
func (s *store) shuffle(seed uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	rng.Shuffle(len(s.order), func(i, j int) { s.order[i], s.order[j] = s.order[j], s.order[i] })
	s.bumpVersion()
}

// remove takes the posts with the given IDs out of the stored order (and so
// out of every gallery). It fails, changing nothing, for an ID that is not
// present.
func (s *store) remove(ids []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	gone := map[ref]bool{}
	for _, id := range ids {
		r, ok := s.lookup(id)
		if !ok {
			return fmt.Errorf("post %q is not present", id)
		}
		gone[r] = true
	}
	for r := range gone {
		if r < 0 {
			s.explicit[-r-1].present = false
		} else {
			s.genGone[int32(r)] = true
		}
	}
	s.order = slices.DeleteFunc(s.order, func(r ref) bool { return gone[r] })
	s.bumpVersion()
	return nil
}

// errNoGallery is an unknown gallery shortId.
var errNoGallery = errors.New("no such gallery")

// galleryRefs returns the present posts of a gallery, in gallery order.
func (s *store) galleryRefs(shortID string) ([]ref, error) {
	ids, ok := s.gallery[shortID]
	if !ok {
		return nil, errNoGallery
	}
	out := make([]ref, 0, len(ids))
	for _, id := range ids {
		if r, ok := s.lookup(id); ok && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out, nil
}
