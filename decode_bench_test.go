package ugc

import (
	"encoding/json"
	"os"
	"regexp"
	"testing"
	"unsafe"
)

// BenchmarkDecodePage decodes one 25-post page from bytes as the client
// does (decodePage: one pass, every required field checked) and as the
// naive loop does (encoding/json into a plain envelope). Recorded in
// BENCHMARKS.md:
//
//	go test -run '^$' -bench DecodePage -benchtime 3s -count 3 .
func BenchmarkDecodePage(b *testing.B) {
	body, err := os.ReadFile("testdata/bench/page25.json")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("sdk", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			if _, err := decodePage(body, false, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The same page as a PostgreSQL-backed server prints timestamps.
	postgres := regexp.MustCompile(`"(\d{4}-\d\d-\d\d)T(\d\d:\d\d:\d\d)Z"`).ReplaceAll(body, []byte(`"$1 $2.123456+02"`))
	b.Run("sdk-postgres-timestamps", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(postgres)))
		for b.Loop() {
			if page, err := decodePage(postgres, false, nil); err != nil || len(page.Deviations) > 0 {
				b.Fatal(err, page.Deviations)
			}
		}
	})
	// The same page with an escape in every caption (an é written \u00e9,
	// a quote, a line break): strings read on the escaped path.
	escaped := regexp.MustCompile(`"videoCaptions":"`).ReplaceAll(body, []byte(`"videoCaptions":"caf\u00e9 \"quoted\"\n`))
	b.Run("sdk-escaped-captions", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(escaped)))
		for b.Loop() {
			if page, err := decodePage(escaped, false, nil); err != nil || len(page.Deviations) > 0 {
				b.Fatal(err, page.Deviations)
			}
		}
	})
	b.Run("scan", func(b *testing.B) { // the tokenizer alone: every value checked, none kept
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			d := decoder{data: body, text: unsafe.String(unsafe.SliceData(body), len(body))}
			if err := d.skip(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("naive", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			var p struct {
				Count int     `json:"count"`
				Next  *string `json:"next"`
				Nodes []Post  `json:"nodes"`
			}
			if err := json.Unmarshal(body, &p); err != nil {
				b.Fatal(err)
			}
		}
	})
}
