// Command export is a batch job: it writes every approved post as JSON Lines
// to stdout, reports progress (posts done / count, rate) on stderr, and
// checkpoints the next page's URL to a file after each page, so a run that
// dies resumes where it stopped.
//
//	UGC_BASE_URL=https://... UGC_API_KEY=... go run ./examples/export > posts.jsonl
//
// With no UGC_BASE_URL it exports from the embedded fake server (package
// ugctest) with a generated dataset:
//
//	go run ./examples/export -fake-posts 5000 -concurrency 4 > posts.jsonl
//
// A checkpoint holds a URL of the server it came from; it is only valid
// against that server (with the embedded fake, pass a fixed -fake-addr).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
)

func main() {
	checkpoint := flag.String("checkpoint", "export.checkpoint", "file holding the next page's URL; removed when the export completes")
	concurrency := flag.Int("concurrency", 1, "pages in flight (1: sequential with prefetch)")
	market := flag.String("market", "", "market ID or shortId to localize content")
	fakePosts := flag.Int("fake-posts", 2000, "posts in the embedded fake server's generated dataset (without UGC_BASE_URL)")
	fakeAddr := flag.String("fake-addr", "127.0.0.1:0", "address of the embedded fake server (without UGC_BASE_URL)")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	baseURL, key := os.Getenv("UGC_BASE_URL"), os.Getenv("UGC_API_KEY")
	if baseURL == "" {
		url, closeFake, err := startFake(*fakeAddr, *fakePosts)
		if err != nil {
			fail(err)
		}
		defer closeFake()
		baseURL, key = url, fakeKey
	}
	client, err := ugc.NewClient(baseURL, key, ugc.WithUserAgent("export-example"))
	if err != nil {
		fail(err)
	}
	job := exportJob{
		client:      client,
		params:      &ugc.PostsParams{Market: *market},
		checkpoint:  *checkpoint,
		concurrency: *concurrency,
		out:         os.Stdout,
		progress:    os.Stderr,
	}
	if err := job.run(ctx); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "export:", err)
	os.Exit(1)
}

// exportJob writes every post of a list as JSON Lines.
type exportJob struct {
	client      *ugc.Client
	params      *ugc.PostsParams
	checkpoint  string
	concurrency int
	out         io.Writer
	progress    io.Writer
}

func (j *exportJob) run(ctx context.Context) error {
	opts := []ugc.IterOption{ugc.WithConcurrency(j.concurrency)}
	saved, err := os.ReadFile(j.checkpoint)
	resumed := strings.TrimSpace(string(saved))
	switch {
	case err == nil && resumed == "":
		// The last page was written but the job stopped before cleaning up.
		fmt.Fprintf(j.progress, "checkpoint %s says the export is complete\n", j.checkpoint)
		return os.Remove(j.checkpoint)
	case err == nil:
		opts = append(opts, ugc.ResumeFrom(resumed))
		fmt.Fprintf(j.progress, "resuming from checkpoint %s\n", j.checkpoint)
	case !errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("read checkpoint: %w", err)
	}

	w := bufio.NewWriterSize(j.out, 64<<10)
	enc := json.NewEncoder(w)
	start, done, lastReport := time.Now(), 0, time.Time{}
	for page, err := range j.client.PostsPages(ctx, j.params, opts...) {
		if err != nil {
			if errors.Is(err, ugc.ErrBadNext) && resumed != "" {
				return fmt.Errorf("%w (the checkpoint %s is for another server or list: delete it to start over)", err, j.checkpoint)
			}
			return err
		}
		for i := range page.Nodes {
			if err := enc.Encode(&page.Nodes[i]); err != nil {
				return err
			}
		}
		// The page is out before its checkpoint is saved: a crash between
		// the two repeats at most this page, never skips one.
		if err := w.Flush(); err != nil {
			return err
		}
		if err := saveCheckpoint(j.checkpoint, page.Next); err != nil {
			return err
		}
		done += len(page.Nodes)
		if now := time.Now(); now.Sub(lastReport) >= time.Second || page.Next == "" {
			lastReport = now
			rate := float64(done) / max(now.Sub(start).Seconds(), 1e-9)
			fmt.Fprintf(j.progress, "%d / %d posts (%.0f posts/s)\n", done, page.Count, rate)
		}
	}
	if err := os.Remove(j.checkpoint); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	fmt.Fprintf(j.progress, "done: %d posts in %s\n", done, time.Since(start).Round(time.Millisecond))
	return nil
}

// saveCheckpoint replaces the checkpoint file atomically with next.
func saveCheckpoint(path, next string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".checkpoint-*")
	if err != nil {
		return err
	}
	if _, err := tmp.WriteString(next + "\n"); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

const fakeKey = "export-local-key"

// startFake serves a generated dataset on addr and returns its URL.
func startFake(addr string, posts int) (string, func(), error) {
	h, err := ugctest.NewHandler(ugctest.Generate(posts, 1), fakeKey)
	if err != nil {
		return "", nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln) //nolint:errcheck // ends with Close
	return "http://" + ln.Addr().String(), func() { srv.Close() }, nil
}
