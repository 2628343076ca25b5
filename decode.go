package ugc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unsafe"
)

// decoder reads a page from its JSON bytes in one pass, as a tolerant
// reader: each post is read on its own, a value of another type than the
// contract's is read when it can be (a number or boolean sent as a string,
// a timestamp in a form other than the contract's, null where a list is
// required) and left at its zero value when it cannot, and every such
// deviation is recorded. The JSON itself must be valid, as encoding/json
// judges it, and the envelope (count, next, nodes) readable: without them
// there is no page.
//
// What it reads is declared once per type, in decode_schema.go: each
// member's JSON name, how it is read and whether it is required. The
// strings a page keeps are slices of per-page blocks (one allocation for
// many strings), and a post costs only the slices and pointers its fields
// need.
type decoder struct {
	data  []byte
	text  string // data as a string, for keys, literals and numbers: never kept
	block []byte // where the strings a page keeps live; see keep
	pos   int
	depth int // containers open at pos, as encoding/json counts them

	devs   []Deviation
	node   int       // index of the node being read; -1 outside nodes
	id     string    // its id, once read
	path   []pathSeg // where the decoder is, from the page
	labels bool      // the request asked for include=labels

	bools  []bool    // blocks for the optional booleans' pointers
	floats []float64 // and the prices'
}

// pathSeg is one step of a JSON path: a key, or an index when key is "".
type pathSeg struct {
	key   string
	index int
}

// maxDepth is encoding/json's limit on nesting: the 10,001st container
// open at once is an error (its scanner's maxNestingDepth), so a hostile
// body cannot exhaust the stack and the reader refuses what encoding/json
// refuses.
const maxDepth = 10000

// errSyntax is JSON that does not parse: HTML, a stray character, ...
var errSyntax = errors.New("invalid JSON")

// errTruncatedJSON is JSON that ends before its value does: a body cut short
// that its framing did not reveal.
var errTruncatedJSON = fmt.Errorf("%w: unexpected end of JSON input", errSyntax)

// byteOrderMark is UTF-8's byte-order mark, which RFC 8259 §8.1 lets a
// reader ignore.
const byteOrderMark = "\xef\xbb\xbf"

// decodePage reads a page. labels says whether every post must carry
// labels (the request asked for include=labels). The page's Deviations
// list what was forgiven; err is for JSON that is not valid and an
// envelope that cannot be read. mask, if not nil, hides the API key in what
// a deviation quotes: it runs on the value before it is cut short, so no
// part of the key can remain.
func decodePage(data []byte, labels bool, mask func(string) string) (*Page, error) {
	d := decoder{labels: labels, node: -1, path: make([]pathSeg, 0, 8)}
	if bytes.HasPrefix(data, []byte(byteOrderMark)) {
		data = data[len(byteOrderMark):]
		d.devs = append(d.devs, Deviation{Index: -1, Sent: "U+FEFF", Kept: "skipped: a UTF-8 byte-order mark before the page"})
	}
	d.data, d.text = data, unsafe.String(unsafe.SliceData(data), len(data))
	page, err := d.page()
	if err != nil {
		if endsEarly(data) { // whatever the reader stumbled on, the cut came first
			return nil, errTruncatedJSON
		}
		return nil, err
	}
	for i := range d.devs {
		d.devs[i].Sent = sentSnippet(d.devs[i].Sent, mask)
		if mask != nil {
			d.devs[i].PostID = mask(d.devs[i].PostID) // a server may echo anything, even as an id
		}
	}
	page.Deviations = d.devs
	return page, nil
}

// endsEarly reports whether data is JSON that is valid as far as it goes
// and ends before its value does: cut inside a literal ("fals"), a string
// or a number as much as between two values. Only errors pay for it.
func endsEarly(data []byte) bool {
	err := json.NewDecoder(bytes.NewReader(data)).Decode(new(json.RawMessage))
	return errors.Is(err, io.ErrUnexpectedEOF)
}

// page reads the envelope; what is missing from it is an error.
func (d *decoder) page() (*Page, error) {
	var page Page
	if d.ws(); d.peek() != '{' {
		return nil, d.syntax("a page must be a JSON object")
	}
	present, err := readObject(d, &page, envelope)
	if err != nil {
		return nil, err
	}
	if d.ws(); d.pos != len(d.data) {
		return nil, d.syntax("nothing after the page")
	}
	for i, m := range envelope.members {
		if present&(1<<i) == 0 {
			return nil, fmt.Errorf("%s: %w", m.name, errMissing)
		}
	}
	return &page, nil
}

// need says whether a member is required.
type need uint8

const (
	optional need = iota
	// required: a member missing, null or an empty string is a deviation
	// (in the envelope, an error).
	required
	// identity: required, and an element of a list without it is left
	// out of the list.
	identity
	// withLabels: required when the request asked for include=labels.
	withLabels
)

// member is one member of the object type T, declared once: its JSON
// name, how its value is read into a T, and whether it is required.
type member[T any] struct {
	name string
	// read reads the value at the decoder's position into v and says
	// what the member holds after it. A value it could not read is a
	// deviation it records, and counts as a value (reported once).
	read func(d *decoder, v *T) (got, error)
	need need
	// fill, if set, gives a required member that is missing its value
	// (an empty list rather than nil).
	fill func(v *T)
}

// schema is the members of the object type T, with the sets the checks
// after an object need (bit i for members[i]).
type schema[T any] struct {
	members    []member[T]
	identity   uint32 // the element of a list is left out without it
	required   uint32 // required, identity members too
	withLabels uint32 // required with include=labels
	idName     string // the identity member's name
}

// newSchema declares the members of T: at most 32, one bit each.
func newSchema[T any](members []member[T]) *schema[T] {
	if len(members) > 32 {
		panic("ugc: a schema holds at most 32 members") // a table in this package, at init
	}
	s := &schema[T]{members: members}
	for i, m := range members {
		bit := uint32(1) << i
		switch m.need {
		case optional: // no check
		case identity:
			s.identity |= bit
			s.required |= bit
			s.idName = m.name
		case required:
			s.required |= bit
		case withLabels:
			s.withLabels |= bit
		}
	}
	return s
}

// got is what a member holds after its value was read, for the check of
// required members.
type got uint8

const (
	// gotValue: a value.
	gotValue got = iota
	// gotNone: no value (null for a pointer or a list, an empty string):
	// a required member is missing.
	gotNone
	// gotNull: null, which leaves a member that is not a pointer as it
	// was, as encoding/json leaves it: missing unless sent before.
	gotNull
)

// readObject reads the object at the decoder's position into v, member by
// member, and returns which of members were present (bit i for
// members[i]). A key that is a member's name only when case is folded is
// read as that member, as encoding/json reads it; a member sent twice is
// read twice, so the last value wins where encoding/json's does (an object
// is merged into, null leaves a value that is not a pointer). Both are
// deviations. Unknown members are skipped.
func readObject[T any](d *decoder, v *T, s *schema[T]) (present uint32, err error) {
	members := s.members
	if err := d.open(); err != nil {
		return 0, err
	}
	var seen uint32
	hint := 0 // members usually come in the table's order
	for first := true; ; first = false {
		key, done, err := d.nextKey(first)
		if err != nil || done {
			return present, err
		}
		i := find(members, key, hint)
		if i < 0 {
			d.path = append(d.path, pathSeg{key: key})
			err := d.skip()
			d.path = d.path[:len(d.path)-1]
			if err != nil {
				return 0, err
			}
			continue
		}
		hint = i + 1
		d.path = append(d.path, pathSeg{key: key})
		if key != members[i].name || seen&(1<<i) != 0 {
			d.noteKey(members[i].name, key, seen&(1<<i) != 0)
		}
		seen |= 1 << i
		g, err := members[i].read(d, v)
		d.path = d.path[:len(d.path)-1]
		if err != nil {
			return 0, err
		}
		switch g {
		case gotValue:
			present |= 1 << i
		case gotNone:
			present &^= 1 << i
		}
	}
}

// find returns the index of the member named key (trying hint first), or
// of the one named key when case is folded, or -1.
func find[T any](members []member[T], key string, hint int) int {
	for i := hint; i < len(members); i++ { // members left out are skipped
		if members[i].name == key {
			return i
		}
	}
	for i := range min(hint, len(members)) {
		if members[i].name == key {
			return i
		}
	}
	for i := range members {
		if strings.EqualFold(members[i].name, key) {
			return i
		}
	}
	return -1
}

// noteKey records a key read as member name in another case, and a member
// sent twice.
func (d *decoder) noteKey(name, key string, again bool) {
	if key != name {
		d.deviate(nil, "read as "+strconv.Quote(name))
	}
	if again {
		d.deviate(nil, "sent twice: read as encoding/json reads it (the last value; objects merged)")
	}
}

// checkMembers records each required member of v not present, and gives
// it its fill. It reports whether an identity member is missing: then
// nothing else is recorded, as the element is left out.
func checkMembers[T any](d *decoder, v *T, s *schema[T], present uint32) (dropped bool) {
	if s.identity&^present != 0 {
		return true
	}
	missing := s.required &^ present
	if d.labels {
		missing |= s.withLabels &^ present
	}
	for i := 0; missing != 0; i, missing = i+1, missing>>1 {
		if missing&1 == 0 {
			continue
		}
		kept := "zero value (missing)"
		if m := s.members[i]; m.fill != nil {
			m.fill(v)
			kept = "[] (missing)"
		}
		d.devs = append(d.devs, Deviation{Index: d.node, PostID: d.id, Path: d.pathString(s.members[i].name), Kept: kept})
	}
	return false
}

// object is the reader of a member whose value is an object of type F,
// held in the T at get: null leaves it, any other value is a deviation.
func object[T, F any](get func(*T) *F, members *schema[F]) func(*decoder, *T) (got, error) {
	return func(d *decoder, v *T) (got, error) {
		switch d.peek() {
		case '{':
			f := get(v)
			present, err := readObject(d, f, members)
			if err == nil {
				checkMembers(d, f, members, present)
			}
			return gotValue, err
		case 'n':
			if d.literal("null") {
				return gotNull, nil
			}
		}
		return gotValue, d.other("zero value")
	}
}

// optObject is the reader of an optional object of type F, held by
// pointer in the T at get: allocated when first sent, nil for null.
func optObject[T, F any](get func(*T) **F, members *schema[F]) func(*decoder, *T) (got, error) {
	return func(d *decoder, v *T) (got, error) {
		p := get(v)
		switch d.peek() {
		case '{':
			if *p == nil {
				*p = new(F)
			}
			present, err := readObject(d, *p, members)
			if err == nil {
				checkMembers(d, *p, members, present)
			}
			return gotValue, err
		case 'n':
			if d.literal("null") {
				*p = nil
				return gotNone, nil
			}
		}
		return gotValue, d.other("zero value")
	}
}

// list is the reader of a member whose value is an array of objects of
// type E, held in the T at get. Each element is read into the element
// already at its index, as encoding/json reads it; one that is not an
// object, or lacks its identity, is left out, reported as "<what>
// dropped". null is nil; another value is an empty list, reported.
func list[T, E any](get func(*T) *[]E, members *schema[E], what string) func(*decoder, *T) (got, error) {
	return func(d *decoder, v *T) (got, error) {
		s := get(v)
		switch d.peek() {
		case '[':
			return gotValue, readList(d, s, members, what)
		case 'n':
			if d.literal("null") {
				*s = nil
				return gotNone, nil
			}
		}
		*s = []E{}
		return gotValue, d.other("[]")
	}
}

// fillList gives a missing list its value: empty, not nil.
func fillList[T, E any](get func(*T) *[]E) func(*T) {
	return func(v *T) { *get(v) = []E{} }
}

func readList[E any](d *decoder, s *[]E, members *schema[E], what string) error {
	old := *s
	out := old[:0]
	if out == nil {
		out = []E{}
	}
	err := d.array(func(i int) error {
		out = appendFrom(out, old, i)
		keep, err := readElement(d, &out[len(out)-1], members, what)
		if !keep {
			out = out[:len(out)-1]
		}
		return err
	})
	*s = out
	return err
}

// appendFrom appends to out, a list being read over old, the element
// that element i is read into: old[i] when a member sent twice sent it
// before (encoding/json reads into it), else a zero one. out never runs
// ahead of i, so old[i] is still unread.
func appendFrom[E any](out, old []E, i int) []E {
	if i < len(old) {
		return append(out, old[i])
	}
	var zero E
	return append(out, zero)
}

// readElement reads one element of a list of objects; keep is false for
// one left out.
func readElement[E any](d *decoder, e *E, members *schema[E], what string) (keep bool, err error) {
	if d.peek() != '{' {
		return false, d.other(what + " dropped: not an object")
	}
	present, err := readObject(d, e, members)
	if err != nil {
		return false, err
	}
	if checkMembers(d, e, members, present) {
		d.path = append(d.path, pathSeg{key: members.idName})
		d.deviate(nil, what+" dropped: no "+members.idName)
		d.path = d.path[:len(d.path)-1]
		return false, nil
	}
	return true, nil
}

// nodes reads the nodes array: each element that can be a post is one; any
// other is a deviation, marked Dropped, and left out.
func (d *decoder) nodes(page *Page) (got, error) {
	if d.peek() != '[' {
		if d.literal("null") {
			page.Nodes = nil
			return gotNone, nil // missing, for page
		}
		return gotNone, d.wrongType("an array")
	}
	old := page.Nodes
	posts := old[:0]
	if posts == nil {
		posts = make([]Post, 0, MaxLimit)
	}
	err := d.array(func(i int) error {
		posts = appendFrom(posts, old, i)
		p := &posts[len(posts)-1]
		d.node, d.id = i, ""
		first := len(d.devs)
		keep, err := readElement(d, p, postMembers, "node")
		for j := first; j < len(d.devs); j++ {
			if d.devs[j].PostID == "" { // found before the id was read
				d.devs[j].PostID = p.ID
			}
			d.devs[j].Dropped = !keep && j == len(d.devs)-1
		}
		if !keep {
			posts = posts[:len(posts)-1]
		}
		return err
	})
	d.node, d.id = -1, ""
	page.Nodes = posts
	return gotValue, err
}
