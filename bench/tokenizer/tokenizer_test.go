package tokenizer

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/go-faster/jx"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	ugc "github.com/ugcposts/ugc-go"
)

func page25(tb testing.TB) []byte {
	b, err := os.ReadFile("../../testdata/bench/page25.json")
	require.NoError(tb, err)
	return b
}

// TestJXReadsWhatTheSDKReads: the comparison is of like with like.
func TestJXReadsWhatTheSDKReads(t *testing.T) {
	body := page25(t)
	var want ugc.Page
	require.NoError(t, want.UnmarshalJSON(body))
	require.Empty(t, want.Deviations)
	got, err := readPageJX(body)
	require.NoError(t, err)
	assert.Equal(t, want.Count, got.Count)
	assert.Equal(t, want.Next, got.Next)
	assert.Equal(t, want.Nodes, got.Nodes)
}

// BenchmarkReader reads one 25-post page (26.6 kB) with the SDK's reader,
// with a reader on jx, and with encoding/json; and only validates it with
// jx and with encoding/json (the tokenizers alone).
//
//	go test -run '^$' -bench . -benchtime 1s -count 6
func BenchmarkReader(b *testing.B) {
	body := page25(b)
	run := func(name string, read func() error) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if err := read(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	run("sdk", func() error { var p ugc.Page; return p.UnmarshalJSON(body) })
	run("jx", func() error { _, err := readPageJX(body); return err })
	run("encoding-json", func() error {
		var p struct {
			Count int        `json:"count"`
			Next  *string    `json:"next"`
			Nodes []ugc.Post `json:"nodes"`
		}
		return json.Unmarshal(body, &p)
	})
	run("valid/jx", func() error {
		if !jx.Valid(body) {
			b.Fatal("invalid")
		}
		return nil
	})
	run("valid/encoding-json", func() error {
		if !json.Valid(body) {
			b.Fatal("invalid")
		}
		return nil
	})
}
