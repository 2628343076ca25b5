package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
)

// postIDs returns the IDs of the posts of a JSON Lines file, in order.
func postIDs(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var p ugc.Post
		require.NoError(t, json.Unmarshal(sc.Bytes(), &p), "line %d", len(out)+1)
		out = append(out, p.ID)
	}
	require.NoError(t, sc.Err())
	return out
}

// TestExportKilledMidWalkResumesExactlyOnce builds the command, runs it as
// its users do, kills it (SIGKILL, no chance to clean up) once it has
// reported 1,000 of 2,000 posts, and runs the same command again: the file
// then holds every post exactly once, in order, and the second run's
// progress counts on from where the first stopped.
func TestExportKilledMidWalkResumesExactlyOnce(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the command")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "export")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String() // both runs serve the fake on the same address
	require.NoError(t, ln.Close())

	out := filepath.Join(dir, "posts.jsonl")
	args := []string{"-out", out, "-fake-posts", "2000", "-fake-addr", addr, "-fake-latency", "2ms", "-progress-every", "0"}
	env := append(os.Environ(), "UGC_BASE_URL=", "UGC_API_KEY=")

	first := exec.Command(bin, args...)
	first.Env = env
	stderr, err := first.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, first.Start())
	sc := bufio.NewScanner(stderr)
	killedAt := 0
	for sc.Scan() {
		var done, count int
		if _, err := fmt.Sscanf(sc.Text(), "%d / %d posts", &done, &count); err == nil && done >= 1000 {
			require.NoError(t, first.Process.Signal(syscall.SIGKILL))
			killedAt = done
			break
		}
	}
	_ = first.Wait()
	require.Positive(t, killedAt, "the first run reported progress past 1,000 posts before it ended")
	require.Less(t, killedAt, 2000, "the first run was killed before the end")
	require.FileExists(t, out+".checkpoint", "the kill leaves a checkpoint")

	second := exec.Command(bin, args...)
	second.Env = env
	var log bytes.Buffer
	second.Stderr = &log
	require.NoError(t, second.Run(), log.String())

	var want []string
	for _, p := range ugctest.Generate(2000, 1).Materialize().Posts {
		want = append(want, p.ID)
	}
	assert.Equal(t, want, postIDs(t, out), "every post exactly once, in order")
	assert.NoFileExists(t, out+".checkpoint", "a complete export removes its checkpoint")
	assert.Contains(t, log.String(), "resuming from checkpoint")
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	var firstDone int
	for _, l := range lines {
		if _, err := fmt.Sscanf(l, "%d / ", &firstDone); err == nil {
			break
		}
	}
	assert.GreaterOrEqual(t, firstDone, killedAt, "the resumed run's progress counts from where the first stopped")
	assert.Contains(t, log.String(), "done: 2000 posts")
	assert.Contains(t, log.String(), "this run:")
	assert.Contains(t, log.String(), "quota: 0 throttles")
}

// TestExportSaysWhatTheQuotaCost: a run whose server throttles it says so
// in its closing summary: how many throttles, the pauses they started,
// the time spent waiting for the quota and the rate the client ended at.
func TestExportSaysWhatTheQuotaCost(t *testing.T) {
	t.Parallel()
	srv := ugctest.NewServer(t, ugctest.WithDataset(ugctest.Generate(200, 2)))
	srv.AddRule(ugctest.Rule{Endpoint: ugctest.EndpointPosts, After: 2, Times: 3, Fault: ugctest.RateLimit("2")})
	out := filepath.Join(t.TempDir(), "posts.jsonl")
	var progress bytes.Buffer
	job := exportJob{client: srv.Client(), params: &ugc.PostsParams{}, out: out, checkpoint: out + ".checkpoint", readAhead: 1, progress: &progress}
	require.NoError(t, job.run(context.Background()))
	assert.Len(t, postIDs(t, out), 200)

	var line string
	for _, l := range strings.Split(progress.String(), "\n") {
		if strings.HasPrefix(l, "quota: ") {
			line = l
		}
	}
	require.NotEmpty(t, line, progress.String())
	var throttles, pauses int
	var waited, rate string
	_, err := fmt.Sscanf(line, "quota: %d throttles (429 or 503 naming a wait), %d pauses, %s waiting", &throttles, &pauses, &waited)
	require.NoError(t, err, line)
	assert.Equal(t, 3, throttles, line)
	assert.Positive(t, pauses, line)
	d, err := time.ParseDuration(waited)
	require.NoError(t, err, line)
	assert.GreaterOrEqual(t, d, 2*time.Second, "at least the wait one throttle named: %s", line)
	_, rate, _ = strings.Cut(line, "rate at the end: ")
	assert.Contains(t, rate, "requests/s", "the rate the client learned from the throttles: %s", line)
}

// TestExportReadAheadFlag: -read-ahead sets the walk's read-ahead, 1 by
// default; -concurrency, its former name, still sets it.
func TestExportReadAheadFlag(t *testing.T) {
	t.Parallel()
	for args, want := range map[string]int{
		"":               1,
		"-read-ahead 0":  0,
		"-read-ahead 8":  8,
		"-concurrency 4": 4,
		"-concurrency=0": 0,
		"-out x.jsonl":   1,
	} {
		f, err := parseFlags(strings.Fields(args))
		require.NoError(t, err, args)
		assert.Equal(t, want, f.readAhead, args)
	}
	f, err := parseFlags([]string{"-out", "x.jsonl"})
	require.NoError(t, err)
	assert.Equal(t, "x.jsonl.checkpoint", f.checkpoint)
	_, err = parseFlags([]string{"-concurrency", "many"})
	assert.Error(t, err)
}

// TestExportStoppedByContextResumes stops a run in process (its context
// ends after the third page) and resumes it, in both modes.
func TestExportStoppedByContextResumes(t *testing.T) {
	t.Parallel()
	for _, readAhead := range []int{0, 1, 4} {
		t.Run(fmt.Sprintf("read-ahead=%d", readAhead), func(t *testing.T) {
			t.Parallel()
			srv := ugctest.NewServer(t, ugctest.WithDataset(ugctest.Generate(300, 4)))
			var want []string
			for p, err := range srv.Client().AllPosts(context.Background(), nil) {
				require.NoError(t, err)
				want = append(want, p.ID)
			}
			out := filepath.Join(t.TempDir(), "posts.jsonl")
			var progress stoppingWriter
			job := exportJob{client: srv.Client(), params: &ugc.PostsParams{}, out: out, checkpoint: out + ".checkpoint",
				readAhead: readAhead, progress: &progress}
			ctx, cancel := context.WithCancel(context.Background())
			progress.after, progress.stop = 3, cancel
			require.ErrorIs(t, job.run(ctx), context.Canceled)
			require.FileExists(t, job.checkpoint)

			progress = stoppingWriter{}
			require.NoError(t, job.run(context.Background()))
			assert.Equal(t, want, postIDs(t, out), "every post exactly once, in order")
			assert.NoFileExists(t, job.checkpoint)
		})
	}
}

// stoppingWriter takes progress lines and calls stop after the after-th.
type stoppingWriter struct {
	lines, after int
	stop         func()
}

func (w *stoppingWriter) Write(p []byte) (int, error) {
	if w.lines++; w.stop != nil && w.lines == w.after {
		w.stop()
	}
	return len(p), nil
}

// TestExportRefusesARedirectedStdout: run the old way, with stdout sent to
// the output file, the job stops at once with a clear error instead of
// letting a rerun's redirect empty the file it resumes; stdout sent to a log
// file, a pipe or a terminal is fine.
func TestExportRefusesARedirectedStdout(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, logFile := filepath.Join(dir, "posts.jsonl"), filepath.Join(dir, "export.log")
	f, err := os.Create(out)
	require.NoError(t, err)
	defer f.Close()
	err = refuseRedirect(f, out, out+".checkpoint")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "posts.jsonl")
	log, err := os.Create(logFile)
	require.NoError(t, err)
	defer log.Close()
	assert.NoError(t, refuseRedirect(log, out, out+".checkpoint"), "a log file is fine")
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	assert.NoError(t, refuseRedirect(w, out), "a pipe or a terminal is fine")
}
