package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
)

// crashingWriter accepts its first writes calls, then fails every one,
// writing nothing: the job "dies" in the middle of the export.
type crashingWriter struct {
	w      io.Writer
	writes int
}

var errCrash = errors.New("disk full")

func (c *crashingWriter) Write(p []byte) (int, error) {
	if c.writes == 0 {
		return 0, errCrash
	}
	c.writes--
	return c.w.Write(p)
}

func ids(t *testing.T, jsonl []byte) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(jsonl))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var p ugc.Post
		require.NoError(t, json.Unmarshal(sc.Bytes(), &p))
		out = append(out, p.ID)
	}
	require.NoError(t, sc.Err())
	return out
}

func TestExportResumesFromItsCheckpoint(t *testing.T) {
	t.Parallel()
	for _, concurrency := range []int{1, 4} {
		t.Run(fmt.Sprintf("concurrency=%d", concurrency), func(t *testing.T) {
			t.Parallel()
			srv := ugctest.NewServer(t, ugctest.WithDataset(ugctest.Generate(300, 4)))
			var want []string
			for p, err := range srv.Client().AllPosts(context.Background(), nil) {
				require.NoError(t, err)
				want = append(want, p.ID)
			}
			checkpoint := filepath.Join(t.TempDir(), "export.checkpoint")
			job := exportJob{client: srv.Client(), params: &ugc.PostsParams{}, checkpoint: checkpoint, concurrency: concurrency, progress: io.Discard}

			var first, second bytes.Buffer
			job.out = &crashingWriter{w: &first, writes: 3}
			require.ErrorIs(t, job.run(context.Background()), errCrash)
			saved, err := os.ReadFile(checkpoint)
			require.NoError(t, err, "the crash leaves a checkpoint")
			assert.Contains(t, string(saved), "skip=75")

			job.out = &second
			require.NoError(t, job.run(context.Background()))
			assert.Equal(t, want, append(ids(t, first.Bytes()), ids(t, second.Bytes())...), "every post exactly once, in order")
			_, err = os.Stat(checkpoint)
			assert.ErrorIs(t, err, os.ErrNotExist, "a complete export removes its checkpoint")
		})
	}
}
