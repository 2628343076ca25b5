package ugc

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var readerRounds = flag.Int("reader.rounds", 1500, "random pages each property test of the reader builds")

// memberNames lists a schema's JSON names.
func memberNames[T any](s *schema[T]) []string {
	names := make([]string, len(s.members))
	for i, m := range s.members {
		names[i] = m.name
	}
	return names
}

// jsonName is the name encoding/json gives a field.
func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "" {
		name = strings.ToLower(f.Name[:1]) + f.Name[1:] // Page's fields, written by MarshalJSON
	}
	return name
}

// TestSchemaCoversEveryField reflects over the contract's Go types: every
// JSON field of each has a line in its schema, no line names a field the
// type lacks, and every struct type a post holds has a schema.
func TestSchemaCoversEveryField(t *testing.T) {
	t.Parallel()
	schemas := map[reflect.Type][]string{
		reflect.TypeFor[Page]():          memberNames(envelope),
		reflect.TypeFor[Post]():          memberNames(postMembers),
		reflect.TypeFor[PostOrigin]():    memberNames(originMembers),
		reflect.TypeFor[Media]():         memberNames(mediaMembers),
		reflect.TypeFor[TaggedProduct](): memberNames(tagMembers),
		reflect.TypeFor[Product]():       memberNames(productMembers),
		reflect.TypeFor[Price]():         memberNames(priceMembers),
		reflect.TypeFor[Label]():         memberNames(labelMembers),
		reflect.TypeFor[UploadedBy]():    memberNames(uploadedByMembers),
		reflect.TypeFor[ProfileImage]():  memberNames(profileImageMembers),
	}
	seen := map[reflect.Type]bool{}
	var visit func(reflect.Type)
	visit = func(typ reflect.Type) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || typ == reflect.TypeFor[time.Time]() || seen[typ] {
			return
		}
		seen[typ] = true
		names, ok := schemas[typ]
		require.True(t, ok, "%s has no schema", typ)
		var fields []string
		for i := range typ.NumField() {
			f := typ.Field(i)
			if (f.Name == "Deviations" || f.Name == "Checkpoint") && typ == reflect.TypeFor[Page]() {
				continue // what the reader forgave, and where a walk stands: not members
			}
			fields = append(fields, jsonName(f))
			visit(f.Type)
		}
		assert.ElementsMatch(t, fields, names, "%s: the schema's members are the type's JSON fields", typ)
	}
	visit(reflect.TypeFor[Page]())
	assert.Len(t, seen, len(schemas), "every schema is for a type a page holds")
}

// populate sets every field of v, recursively, to a value that is not its
// zero value, derived from seed: strings, numbers, booleans, times,
// pointers and lists of two.
func populate(v reflect.Value, seed int) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d é", seed))
	case reflect.Float64:
		v.SetFloat(float64(seed) + 0.25)
	case reflect.Int:
		v.SetInt(int64(seed))
	case reflect.Bool:
		v.SetBool(true) // false is the zero value, which the test looks for
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		populate(v.Elem(), seed+1)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		populate(v.Index(0), seed+1)
		populate(v.Index(1), seed+2)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2024, 5, 1, 10, seed%60, 0, seed*1000, time.UTC)))
			return
		}
		for i := range v.NumField() {
			populate(v.Field(i), seed*31+i)
		}
	}
}

// zeroFields lists the fields of v, recursively, left at their zero value.
func zeroFields(v reflect.Value, path string) []string {
	if v.IsZero() {
		return []string{path}
	}
	switch v.Kind() {
	case reflect.Pointer:
		return zeroFields(v.Elem(), path)
	case reflect.Slice:
		var out []string
		for i := range v.Len() {
			out = append(out, zeroFields(v.Index(i), fmt.Sprintf("%s[%d]", path, i))...)
		}
		return out
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			return nil
		}
		var out []string
		for i := range v.NumField() {
			out = append(out, zeroFields(v.Field(i), path+"."+v.Type().Field(i).Name)...)
		}
		return out
	}
	return nil
}

// TestFullyPopulatedPostReadsAsEncodingJSON: a post with every field set,
// by reflection (a field added to a type is set too), written by
// encoding/json, is read with no deviation, with no field left at its zero
// value, and equal to what encoding/json reads.
func TestFullyPopulatedPostReadsAsEncodingJSON(t *testing.T) {
	t.Parallel()
	var page Page
	populate(reflect.ValueOf(&page.Nodes).Elem(), 3)
	page.Count, page.Next = 2, "https://api.example.test/v1/posts?skip=2&limit=2"
	body, err := json.Marshal(page)
	require.NoError(t, err)

	got, err := decodePage(body, true, nil)
	require.NoError(t, err)
	assert.Empty(t, got.Deviations)
	assert.Empty(t, zeroFields(reflect.ValueOf(got.Nodes), "nodes"), "every field is read")
	var want struct {
		Count int    `json:"count"`
		Next  string `json:"next"`
		Nodes []Post `json:"nodes"`
	}
	require.NoError(t, json.Unmarshal(body, &want))
	assert.Equal(t, want.Nodes, got.Nodes)
	assert.Equal(t, want.Count, got.Count)
	assert.Equal(t, want.Next, got.Next)
}

// TestDuplicateMembersReadAsEncodingJSON: over random valid pages, one
// member of one post (or of its media, its first tag or that tag's
// product) is sent again, later in the same object, with another valid
// value or null, in the same case or another. The page reads to what
// encoding/json reads from the same bytes, and the repeat is a deviation
// at its path (so a strict client refuses the page).
func TestDuplicateMembersReadAsEncodingJSON(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(17, 3))
	for round := range *readerRounds {
		n := 1 + rng.IntN(5)
		nodes := make([]string, n)
		k := rng.IntN(n)
		var path string
		for i := range nodes {
			members := randomPost(rng, i)
			if i == k {
				members, path = withDuplicate(rng, members, randomPost(rng, i+100))
			}
			nodes[i] = postObject(members)
		}
		body := []byte(`{"count":9,"next":null,"nodes":[` + strings.Join(nodes, ",") + `]}`)
		page, err := decodePage(body, false, nil)
		require.NoError(t, err, "round %d: %s", round, body)
		var want struct{ Nodes []Post }
		require.NoError(t, json.Unmarshal(body, &want))
		require.Len(t, page.Nodes, len(want.Nodes), "round %d: %s", round, body)
		for i := range want.Nodes {
			if want.Nodes[i].TaggedProducts == nil {
				want.Nodes[i].TaggedProducts = []TaggedProduct{} // required: [] with a deviation
			}
		}
		assert.Equal(t, want.Nodes, page.Nodes, "round %d: %s", round, nodes[k])
		wantPath := fmt.Sprintf("nodes[%d].%s", k, path)
		assert.True(t, slices.ContainsFunc(page.Deviations, func(d Deviation) bool {
			return strings.EqualFold(d.Path, wantPath) && strings.HasPrefix(d.Kept, "sent twice")
		}), "round %d: %s in %v", round, wantPath, page.Deviations)
	}
}

// withDuplicate sends one member of post again, later in its object, with
// the value other has for it or null, in the same case or another. It
// returns the post's members and the repeated member's path.
func withDuplicate(rng *rand.Rand, post, other [][2]string) ([][2]string, string) {
	at := rng.IntN(len(post))
	key, value := post[at][0], `null`
	if i := slices.IndexFunc(other, func(m [2]string) bool { return m[0] == key }); i >= 0 && rng.IntN(3) > 0 {
		value = other[i][1]
	}
	if nested := map[string]bool{"media": true, "taggedProducts": true}; nested[key] && rng.IntN(2) == 0 {
		return duplicateInside(rng, post, at)
	}
	if rng.IntN(4) == 0 {
		key = strings.ToUpper(key[:1]) + key[1:]
	}
	out := slices.Clone(post)
	out = slices.Insert(out, at+1+rng.IntN(len(post)-at), [2]string{key, value})
	return out, post[at][0]
}

// duplicateInside repeats a member inside the post's media or first tag.
func duplicateInside(rng *rand.Rand, post [][2]string, at int) ([][2]string, string) {
	out := slices.Clone(post)
	if post[at][0] == "media" {
		out[at][1] = strings.Replace(post[at][1], `}`, `,"location":"https://cdn.example.test/again.jpg","hash":null}`, 1)
		return out, "media.location"
	}
	if rng.IntN(2) == 0 {
		out[at][1] = strings.Replace(post[at][1], `,"product"`, `,"x":0.75,"product"`, 1)
		return out, "taggedProducts[0].x"
	}
	out[at][1] = strings.Replace(post[at][1], `"handle"`, `"title":"again","handle"`, 1)
	return out, "taggedProducts[0].product.title"
}

// TestInvalidJSONIsNeverAPage: a bad escape or a raw control character in
// a string where a boolean, a number, a timestamp, an object or a string
// belongs, an unquoted key, a missing comma: invalid JSON anywhere is an
// error that says where, never a page read around it.
func TestInvalidJSONIsNeverAPage(t *testing.T) {
	t.Parallel()
	const post = `{"id":"p1","createdAt":"2024-05-01T10:15:00Z","media":{"location":"m"},"taggedProducts":[{"x":0.5,"y":0.5,"product":{"id":"a","title":"b","handle":"c","price":{"price":1}}}],%s}`
	tests := []struct{ member, where string }{
		{`"fromSocial":"tr\qe"`, "nodes[0].fromSocial"},
		{"\"fromSocial\":\"tr\x01ue\"", "nodes[0].fromSocial"},
		{`"hideCaption":"\u12g4"`, "nodes[0].hideCaption"},
		{"\"socialDate\":\"2024-05-01\x0aT10:15Z\"", "nodes[0].socialDate"},
		{`"socialDate":"2024\x-05"`, "nodes[0].socialDate"},
		{`"comment":"a\"b\z"`, "nodes[0].comment"},
		{`"origin":{"type":"\x"}`, "nodes[0].origin.type"},
		{`"uploadedBy":{"username":"u" "email":"e"}`, "nodes[0].uploadedBy"},
		{`"labels":[{"id":"a",name:"n"}]`, "nodes[0].labels[0]"},
		{`"comment":tru`, "nodes[0].comment"},
		{`"comment":[1 2]`, "nodes[0].comment"},
		{`"unknown":{"a":"\q"}`, "nodes[0].unknown"},
	}
	for _, tt := range tests {
		body := []byte(`{"count":1,"next":null,"nodes":[` + fmt.Sprintf(post, tt.member) + `]}`)
		require.False(t, json.Valid(body), tt.member)
		page, err := decodePage(body, false, nil)
		assert.Nil(t, page, tt.member)
		if assert.ErrorIs(t, err, errSyntax, tt.member) {
			assert.NotErrorIs(t, err, errTruncatedJSON, tt.member)
			if !strings.Contains(err.Error(), "invalid character") { // encoding/json's own, for an escape it unquotes
				assert.Contains(t, err.Error(), "in "+tt.where, tt.member)
				assert.Contains(t, err.Error(), "found ", tt.member)
			}
		}
	}
}

// TestCorruptedStringsAreNeverPages: over random valid pages, a bad escape
// or a raw control character put inside a random string is an error.
func TestCorruptedStringsAreNeverPages(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(17, 5))
	corruptions := []string{`\q`, `\u12g`, "\x01", "\x1f", `\x41`, "\t", "\n"}
	for round := range *readerRounds {
		nodes := make([]string, 1+rng.IntN(4))
		for i := range nodes {
			nodes[i] = postObject(randomPost(rng, i))
		}
		body := `{"count":9,"next":null,"nodes":[` + strings.Join(nodes, ",") + `]}`
		var quotes []int
		for i := range len(body) {
			if body[i] == '"' {
				quotes = append(quotes, i)
			}
		}
		q := quotes[rng.IntN(len(quotes)/2)*2] // an opening quote
		bad := body[:q+1] + corruptions[rng.IntN(len(corruptions))] + body[q+1:]
		require.False(t, json.Valid([]byte(bad)), "round %d", round)
		page, err := decodePage([]byte(bad), false, nil)
		assert.Nil(t, page, "round %d: %s", round, bad)
		assert.ErrorIs(t, err, errSyntax, "round %d", round)
		assert.NotErrorIs(t, err, errTruncatedJSON, "round %d", round)
	}
}

// TestDepthLimitIsEncodingJSONs: nesting is refused exactly where
// encoding/json refuses it, wherever it is (a member the reader skips, one
// it reads, an element of nodes), and the error says where.
func TestDepthLimitIsEncodingJSONs(t *testing.T) {
	t.Parallel()
	nest := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	places := []struct {
		name, where string
		page        func(string) string
		outside     int // containers around the nested value
	}{
		{"a string member", "nodes[0].comment", func(v string) string {
			return `{"count":1,"next":null,"nodes":[{"id":"p","comment":` + v + `}]}`
		}, 3},
		{"an unknown member", "nodes[0].extra", func(v string) string {
			return `{"count":1,"next":null,"nodes":[{"id":"p","extra":` + v + `}]}`
		}, 3},
		{"a node", "nodes[0]", func(v string) string { return `{"count":1,"next":null,"nodes":[` + v + `]}` }, 2},
		{"a tag's product", "nodes[0].taggedProducts[0].product", func(v string) string {
			return `{"count":1,"next":null,"nodes":[{"id":"p","taggedProducts":[{"product":` + v + `}]}]}`
		}, 5},
		{"an envelope member", "extra", func(v string) string { return `{"count":1,"next":null,"nodes":[],"extra":` + v + `}` }, 1},
	}
	for _, p := range places {
		for _, n := range []int{maxDepth - p.outside - 1, maxDepth - p.outside, maxDepth - p.outside + 1, 20000} {
			body := []byte(p.page(nest(n)))
			_, err := decodePage(body, false, nil)
			if json.Valid(body) {
				assert.NoError(t, err, "%s, %d deep", p.name, n)
				continue
			}
			if assert.Error(t, err, "%s, %d deep: encoding/json refuses it", p.name, n) {
				assert.Contains(t, err.Error(), "depth limit reached")
				assert.Contains(t, err.Error(), "in "+p.where)
			}
		}
		assert.True(t, json.Valid([]byte(p.page(nest(maxDepth-p.outside)))), "%s: the limit itself is valid", p.name)
	}
}

// TestCountIsAnyIntegerNumber: count as any JSON number equal to an
// integer is read, with no deviation; a string holding one is read, a
// deviation; anything else is an error. Property: random integers in
// random number forms.
func TestCountIsAnyIntegerNumber(t *testing.T) {
	t.Parallel()
	read := func(count string) (*Page, error) {
		return decodePage([]byte(`{"count":`+count+`,"next":null,"nodes":[]}`), false, nil)
	}
	for count, want := range map[string]int{`25`: 25, `25.0`: 25, `2.5e1`: 25, `2500E-2`: 25, `0.25e+2`: 25, `-0`: 0, `0.0e99`: 0, `-3.0`: -3, `1e18`: 1e18} {
		page, err := read(count)
		if assert.NoError(t, err, count) {
			assert.Equal(t, want, page.Count, count)
			assert.Empty(t, page.Deviations, count)
		}
	}
	for count, want := range map[string]int{`"25"`: 25, `" 25 "`: 25, `"2.5e1"`: 25} {
		page, err := read(count)
		if assert.NoError(t, err, count) {
			assert.Equal(t, want, page.Count, count)
			require.Len(t, page.Deviations, 1, count)
			assert.Equal(t, Deviation{Index: -1, Path: "count", Sent: count, Kept: strconv.Itoa(want)}, page.Deviations[0])
		}
	}
	for _, count := range []string{`25.5`, `2.55e1`, `1e400`, `1e19`, `"x"`, `"25x"`, `true`, `null`, `[]`, `""`} {
		_, err := read(count)
		if assert.Error(t, err, count) {
			assert.Contains(t, err.Error(), "count", count)
		}
	}
	rng := rand.New(rand.NewPCG(17, 6))
	for range *readerRounds {
		n := rng.IntN(2_000_000) - 1000
		digits := strconv.Itoa(n)
		shift := rng.IntN(6)
		forms := []string{
			digits,
			digits + "." + strings.Repeat("0", 1+rng.IntN(3)),
			digits + strings.Repeat("0", shift) + "e-" + strconv.Itoa(shift),
		}
		if n > 0 && len(digits) > 1 {
			forms = append(forms, digits[:1]+"."+digits[1:]+"e"+strconv.Itoa(len(digits)-1))
		}
		for _, f := range forms {
			page, err := read(f)
			if assert.NoError(t, err, f) {
				assert.Equal(t, n, page.Count, f)
			}
		}
	}
}

// TestByteOrderMarkIsSkipped: a page after a UTF-8 byte-order mark is
// read, with a deviation of the page (so a strict client refuses it);
// cut short after the mark it is still cut short.
func TestByteOrderMarkIsSkipped(t *testing.T) {
	t.Parallel()
	body := []byte(byteOrderMark + `{"count":0,"next":null,"nodes":[]}`)
	page, err := decodePage(body, false, nil)
	require.NoError(t, err)
	assert.Equal(t, 0, page.Count)
	require.Len(t, page.Deviations, 1)
	assert.Equal(t, -1, page.Deviations[0].Index)
	assert.Contains(t, page.Deviations[0].String(), "the page: sent U+FEFF, kept skipped: a UTF-8 byte-order mark")
	_, err = decodePage(body[:10], false, nil)
	assert.ErrorIs(t, err, errTruncatedJSON)
	_, err = decodePage([]byte(byteOrderMark+byteOrderMark+`{}`), false, nil)
	assert.ErrorIs(t, err, errSyntax, "one mark is skipped, not two")
}

// TestStructureErrorsSayWhereAndWhat: an error about the structure names
// the path, the offset and what was found.
func TestStructureErrorsSayWhereAndWhat(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]string{
		`{"count":1,"next":null,"nodes":[{"id":"a" "x":1}]}`:                                        `at offset 42, in nodes[0]: expected , or } after a member, found '"'`,
		`{"count":1,"next":null,"nodes":[{"id":"a","comment":` + strings.Repeat("[", 20000) + `}]}`: `in nodes[0].comment: depth limit reached`,
		`{"count":1,"next":null,"nodes":[{"id":"a"}] x}`:                                            `at offset 44: expected , or } after a member, found 'x'`,
		`{"count":1,"next":null,"nodes":[{"id":"a"},]}`:                                             `in nodes[1]: expected a value, found ']'`,
		`<html>`:                                `at offset 0: a page must be a JSON object, found '<'`,
		`{"count":1,"next":null,"nodes":[]} {}`: `at offset 35: nothing after the page, found '{'`,
		`{"count":1,"next":null,"nodes":[{"id":"a","comment":"x` + "\x00" + `"}]}`: `in nodes[0].comment: a control character must be escaped in a string, found byte 0x00`,
		`{"count":1,"next":null,"nodes":"none"}`:                                   `nodes: "none" is not an array`,
	} {
		_, err := decodePage([]byte(body), false, nil)
		if assert.Error(t, err, want) {
			msg := err.Error()
			assert.Contains(t, msg[:min(len(msg), 300)], want)
		}
	}
}

// pageOfHeld is page k of TestPostsOutliveLaterPages: every string differs
// from page to page, some posts deviate, and the body's length varies so
// that a later body overwrites an earlier one at other offsets.
func pageOfHeld(k int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, `{"count":%d,"next":null,"nodes":[`, k)
	for i := range 5 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id":"post-%d-%d","createdAt":"2024-05-01 10:15:00.%d+02","media":{"location":"https://cdn.example.test/%d/%d.jpg","hash":%q},`+
			`"taggedProducts":[{"x":0.5,"y":"0.%d","product":{"id":"pr%d","title":"T\u00e9 %d","handle":"h%d","price":{"price":%d.5,"currency":"EUR"}}}],`+
			`"comment":%s,"fromSocial":"%t","Alt":"alt %d","labels":[{"id":"l%d","name":"n%d"}]}`,
			k, i, k%1000, k, i, strings.Repeat("h", k%37), i+1, k, k, k, k, strconv.Itoa(k*10+i), k%2 == 0, k, k, i)
	}
	b.WriteString("]}")
	return []byte(b.String())
}

// TestPostsOutliveLaterPages: the client's reader keeps a page's strings in
// blocks of its own (unsafe.String over them) and reads keys and numbers
// as views of a pooled body. Two goroutines hold every post and deviation
// of 2,500 pages each, read through one client whose body buffers are
// reused, then check each against a fresh read of its page: nothing a
// later page wrote shows through. Run under -race (which turns on
// checkptr).
func TestPostsOutliveLaterPages(t *testing.T) {
	t.Parallel()
	var next sync.Mutex
	served := 0
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		k, _ := strconv.Atoi(r.URL.Query().Get("skip"))
		next.Lock()
		served++
		next.Unlock()
		return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: io.NopCloser(bytes.NewReader(pageOfHeld(k))), Request: r}, nil
	})
	c, err := NewClient("https://api.example.test", "held-key", WithHTTPClient(&http.Client{Transport: rt}))
	require.NoError(t, err)
	const pages = 2500
	held := make([][]*Page, 2)
	var wg sync.WaitGroup
	for g := range held {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := g; k < 2*pages; k += 2 {
				page, err := c.Posts(context.Background(), &PostsParams{Skip: k, Limit: 5})
				if !assert.NoError(t, err) {
					return
				}
				held[g] = append(held[g], page)
			}
		}()
	}
	wg.Wait()
	for g := range held {
		require.Len(t, held[g], pages)
		for j, page := range held[g] {
			k := g + 2*j
			fresh, err := decodePage(pageOfHeld(k), false, nil)
			require.NoError(t, err)
			require.Equal(t, fresh.Nodes, page.Nodes, "page %d", k)
			require.Equal(t, fresh.Deviations, page.Deviations, "page %d", k)
		}
	}
	assert.Equal(t, 2*pages, served)
}

// TestPlainStringFindsEveryByte: the eight-at-a-time scan of a string
// finds the same end, the same ASCII-ness and the same special bytes as a
// byte-by-byte scan, for random strings with a quote, a backslash, a
// control character or a non-ASCII byte at random places.
func TestPlainStringFindsEveryByte(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(17, 7))
	specials := []byte{'"', '\\', 0, 0x1f, ' ', 0x7f, 0x80, 0xff, 'a', '!', '#', '[', ']'}
	for round := range 20 * *readerRounds {
		b := make([]byte, 1+rng.IntN(40))
		b[0] = '"'
		for i := 1; i < len(b); i++ {
			b[i] = byte('a' + rng.IntN(26))
			if rng.IntN(12) == 0 {
				b[i] = specials[rng.IntN(len(specials))]
			}
		}
		want := func() (int, bool, bool) {
			ascii := true
			for i := 1; i < len(b); i++ {
				switch c := b[i]; {
				case c == '"':
					return i, ascii, true
				case c == '\\' || c < ' ':
					return 0, false, false
				case c >= 0x80:
					ascii = false
				}
			}
			return 0, false, false
		}
		d := decoder{data: b}
		end, ascii, ok := d.plainString()
		wantEnd, wantASCII, wantOK := want()
		require.Equal(t, []any{wantEnd, wantASCII, wantOK}, []any{end, ascii, ok}, "round %d: %q", round, b)
	}
}

// TestDuplicateEnvelopeMembers: count, next and nodes sent twice read as
// encoding/json reads them (a second nodes array read into the posts of
// the first, element by element), each repeat a deviation of the page.
func TestDuplicateEnvelopeMembers(t *testing.T) {
	t.Parallel()
	const a = `{"id":"a","createdAt":"2024-05-01T10:15:00Z","media":{"location":"m"},"taggedProducts":[],"comment":"first"}`
	const b = `{"id":"b","createdAt":"2024-05-02T10:15:00Z","media":{"hash":"h"},"taggedProducts":[]}`
	for _, body := range []string{
		`{"count":1,"next":null,"nodes":[],"count":2}`,
		`{"count":1,"next":"https://x.test/1","nodes":[],"next":null}`,
		`{"count":1,"next":null,"nodes":[` + a + `],"nodes":[` + b + `]}`,
		`{"count":1,"next":null,"nodes":[` + a + `,` + a + `],"nodes":[` + b + `]}`,
		`{"count":1,"next":null,"nodes":[` + b + `],"nodes":[` + a + `,` + b + `]}`,
	} {
		page, err := decodePage([]byte(body), false, nil)
		require.NoError(t, err, body)
		var want struct {
			Count int
			Next  *string
			Nodes []Post
		}
		require.NoError(t, json.Unmarshal([]byte(body), &want))
		assert.Equal(t, want.Count, page.Count, body)
		assert.Equal(t, want.Next == nil, page.Next == "", body)
		assert.Equal(t, want.Nodes, page.Nodes, body)
		assert.True(t, slices.ContainsFunc(page.Deviations, func(d Deviation) bool {
			return d.Index == -1 && strings.HasPrefix(d.Kept, "sent twice")
		}), "%s: %v", body, page.Deviations)
	}
}
