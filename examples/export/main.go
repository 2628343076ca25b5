// Command export is a batch job: it writes every approved post as JSON Lines
// to a file, reports progress (posts done / count, rate) on stderr, and after
// each page checkpoints how far the file is complete and where the walk goes
// on, so a run that dies (a crash, a kill, a lost connection) is resumed by
// running the same command again: every post ends up in the file exactly
// once, in order.
//
//	UGC_BASE_URL=https://... UGC_API_KEY=... go run ./examples/export -out posts.jsonl
//
// With no UGC_BASE_URL it exports from the embedded fake server (package
// ugctest) with a generated dataset:
//
//	go run ./examples/export -out posts.jsonl -fake-posts 5000 -read-ahead 4
//
// -read-ahead is the walk's ugc.WithReadAhead: 0 reads one page at a
// time, 1 (the default) prefetches the next page, n fetches n pages in
// parallel. -concurrency, its former name, still works.
//
// At the end it prints what the walk did (pages, requests, re-anchors after
// the list changed, short pages, ...) and what the quota cost (the
// throttles, the pauses they started, the time spent waiting for the quota
// and the rate the client ended at). A checkpoint holds a URL of the server
// it came from; it is only valid against that server and that output file
// (with the embedded fake, pass a fixed -fake-addr).
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
	"strconv"
	"syscall"
	"time"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
)

// flags are the command's flags.
type flags struct {
	out, checkpoint, market string
	readAhead               int
	every                   time.Duration
	fakePosts               int
	fakeAddr                string
	fakeLatency             time.Duration
}

// parseFlags reads the command's flags from args (without the program's
// name).
func parseFlags(args []string) (flags, error) {
	var f flags
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.StringVar(&f.out, "out", "posts.jsonl", "the JSON Lines file to write")
	fs.StringVar(&f.checkpoint, "checkpoint", "", "the checkpoint file (default: the output file's name + \".checkpoint\"); removed when the export completes")
	fs.IntVar(&f.readAhead, "read-ahead", 1, "page requests in flight while a page is written (ugc.WithReadAhead): 0 one page at a time, 1 prefetch, n in parallel")
	fs.Func("concurrency", "the former name of -read-ahead", func(s string) error {
		n, err := strconv.Atoi(s)
		f.readAhead = n
		return err
	})
	fs.StringVar(&f.market, "market", "", "market ID or shortId to localize content")
	fs.DurationVar(&f.every, "progress-every", time.Second, "how often to report progress (0: after every page)")
	fs.IntVar(&f.fakePosts, "fake-posts", 2000, "posts in the embedded fake server's generated dataset (without UGC_BASE_URL)")
	fs.StringVar(&f.fakeAddr, "fake-addr", "127.0.0.1:0", "address of the embedded fake server (without UGC_BASE_URL)")
	fs.DurationVar(&f.fakeLatency, "fake-latency", 0, "latency of each answer of the embedded fake server")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	if f.checkpoint == "" {
		f.checkpoint = f.out + ".checkpoint"
	}
	return f, nil
}

func main() {
	f, err := parseFlags(os.Args[1:])
	if err != nil {
		os.Exit(2) // the flag package has said why
	}
	if err := refuseRedirect(os.Stdout, f.out, f.checkpoint); err != nil {
		fmt.Fprintln(os.Stderr, "export:", err)
		os.Exit(2)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	baseURL, key := os.Getenv("UGC_BASE_URL"), os.Getenv("UGC_API_KEY")
	if baseURL == "" {
		url, closeFake, err := startFake(f.fakeAddr, f.fakePosts, f.fakeLatency)
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
		client:        client,
		params:        &ugc.PostsParams{Market: f.market},
		out:           f.out,
		checkpoint:    f.checkpoint,
		readAhead:     f.readAhead,
		progress:      os.Stderr,
		progressEvery: f.every,
	}
	if err := job.run(ctx); err != nil {
		fail(err)
	}
}

// refuseRedirect refuses to run with stdout sent to the output or the
// checkpoint file, as in the old "go run ./examples/export > posts.jsonl":
// the job writes its own file, and the shell empties the file a redirect
// names before the job could resume it. A redirect to any other file (a
// log) is fine.
func refuseRedirect(stdout *os.File, files ...string) error {
	info, err := stdout.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return nil
	}
	for _, name := range files {
		if f, err := os.Stat(name); err == nil && os.SameFile(info, f) {
			return fmt.Errorf("stdout is redirected to %s, which a rerun would empty before the job could resume it; the job writes that file itself: run it without the redirect", name)
		}
	}
	return nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "export:", err)
	os.Exit(1)
}

// exportJob writes every post of a list to a JSON Lines file.
type exportJob struct {
	client        *ugc.Client
	params        *ugc.PostsParams
	out           string // the output file
	checkpoint    string
	readAhead     int // ugc.WithReadAhead
	progress      io.Writer
	progressEvery time.Duration
}

// checkpoint is what a run saves after each page: the file holds the posts
// of the walk up to Next, in its first Bytes bytes.
type checkpoint struct {
	Walk     ugc.Checkpoint `json:"walk"`     // where the walk stands after the posts in the file
	Complete bool           `json:"complete"` // the walk reached the end of the list
	Bytes    int64          `json:"bytes"`    // the length of the output file that is complete
	Posts    int            `json:"posts"`    // the posts in those bytes
}

func (j *exportJob) run(ctx context.Context) error {
	cp, resumed, err := loadCheckpoint(j.checkpoint)
	if err != nil {
		return err
	}
	if resumed && cp.Complete {
		// The last page was saved but the job stopped before cleaning up.
		fmt.Fprintf(j.progress, "checkpoint %s says the export is complete\n", j.checkpoint)
		return os.Remove(j.checkpoint)
	}
	file, err := j.openOutput(cp)
	if err != nil {
		return err
	}
	defer file.Close()

	var sum ugc.WalkSummary
	opts := []ugc.Option{ugc.WithReadAhead(j.readAhead), ugc.WithSummary(&sum)}
	if resumed {
		opts = append(opts, ugc.ResumeFrom(cp.Walk))
		fmt.Fprintf(j.progress, "resuming from checkpoint %s: %d posts already in %s\n", j.checkpoint, cp.Posts, j.out)
	}
	w := bufio.NewWriterSize(file, 64<<10)
	enc := json.NewEncoder(w)
	start, lastReport, startPosts := time.Now(), time.Time{}, cp.Posts
	for page, err := range j.client.PostsPages(ctx, j.params, opts...) {
		if err != nil {
			if errors.Is(err, ugc.ErrBadNext) && resumed {
				return fmt.Errorf("%w (the checkpoint %s is for another server or list: delete it to start over)", err, j.checkpoint)
			}
			return err
		}
		if err := j.savePage(file, w, enc, &cp, page); err != nil {
			return err
		}
		if now := time.Now(); now.Sub(lastReport) >= j.progressEvery || page.Next == "" {
			lastReport = now
			rate := float64(cp.Posts-startPosts) / max(now.Sub(start).Seconds(), 1e-9)
			fmt.Fprintf(j.progress, "%d / %d posts (%.0f posts/s)\n", cp.Posts, page.Count, rate)
		}
	}
	if err := os.Remove(j.checkpoint); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	fmt.Fprintf(j.progress, "done: %d posts in %s in %s\n", cp.Posts, j.out, time.Since(start).Round(time.Millisecond))
	j.summarize(sum)
	return nil
}

// savePage writes the page's posts to the file, on disk, and then moves
// the checkpoint past them: a crash between the two leaves bytes past the
// checkpoint, which the next run cuts off before it writes.
func (j *exportJob) savePage(file *os.File, w *bufio.Writer, enc *json.Encoder, cp *checkpoint, page *ugc.Page) error {
	for i := range page.Nodes {
		if err := enc.Encode(&page.Nodes[i]); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := file.Sync(); err != nil {
		return err
	}
	end, err := file.Seek(0, io.SeekCurrent)
	if err != nil {
		return err
	}
	cp.Posts += len(page.Nodes)
	cp.Bytes, cp.Walk, cp.Complete = end, page.Checkpoint, page.Next == ""
	return saveCheckpoint(j.checkpoint, *cp)
}

// summarize writes what this run's walk met: its requests and posts, how
// the list changed under it, and what the quota cost.
func (j *exportJob) summarize(sum ugc.WalkSummary) {
	fmt.Fprintf(j.progress, "this run: %d pages, %d requests, %d posts; count %d at the start, %d at the end; %d short pages, %d next links corrected, %d re-anchors, %d repeats dropped, %d deviations forgiven, shortfall %d\n",
		sum.Pages, sum.Requests, sum.Posts, sum.CountAtStart, sum.CountAtEnd, sum.ShortPages, sum.NextCorrected, sum.Reanchors, sum.Repeats, sum.DeviationCount, sum.Shortfall)
	fmt.Fprintln(j.progress, quotaLine(sum))
	for _, d := range sum.Deviations {
		fmt.Fprintf(j.progress, "  forgiven: %s\n", d)
	}
}

// quotaLine says what the quota cost this run: the throttles (429, or 503
// naming a wait), the client-wide pauses they started, the time requests
// waited for the quota (summed over the requests in flight, so it may
// exceed the run's time), and the rate the client allowed itself at the
// end (set or learned; none when it never had to pace).
func quotaLine(sum ugc.WalkSummary) string {
	rate := "none: the server never made it pace"
	if sum.FinalRate > 0 {
		rate = fmt.Sprintf("%.3g requests/s", sum.FinalRate)
	}
	return fmt.Sprintf("quota: %d throttles (429 or 503 naming a wait), %d pauses, %s waiting for the quota (summed over the requests in flight); rate at the end: %s",
		sum.Throttles, sum.Pauses, sum.QuotaWait.Round(time.Millisecond), rate)
}

// openOutput opens the output file for the walk: cut back to what the
// checkpoint says is complete when resuming, empty otherwise.
func (j *exportJob) openOutput(cp checkpoint) (*os.File, error) {
	file, err := os.OpenFile(j.out, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	info, err := file.Stat()
	if err == nil && info.Size() < cp.Bytes {
		err = fmt.Errorf("%s holds %d bytes, but its checkpoint %s says %d are complete: the file was changed; delete the checkpoint to start over", j.out, info.Size(), j.checkpoint, cp.Bytes)
	}
	if err == nil {
		err = file.Truncate(cp.Bytes)
	}
	if err == nil {
		_, err = file.Seek(cp.Bytes, io.SeekStart)
	}
	if err != nil {
		file.Close()
		return nil, err
	}
	return file, nil
}

// loadCheckpoint reads a checkpoint; resumed is false when there is none.
func loadCheckpoint(path string) (cp checkpoint, resumed bool, err error) {
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return checkpoint{}, false, nil
	case err != nil:
		return checkpoint{}, false, fmt.Errorf("read checkpoint: %w", err)
	}
	if err := json.Unmarshal(data, &cp); err != nil {
		return checkpoint{}, false, fmt.Errorf("checkpoint %s is not valid (%w); delete it to start over", path, err)
	}
	return cp, true, nil
}

// saveCheckpoint replaces the checkpoint file atomically.
func saveCheckpoint(path string, cp checkpoint) error {
	data, err := json.Marshal(cp)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".checkpoint-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(append(data, '\n')); err != nil {
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
func startFake(addr string, posts int, latency time.Duration) (string, func(), error) {
	h, err := ugctest.NewHandler(ugctest.Generate(posts, 1), fakeKey, ugctest.WithLatency(latency))
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
