// Command ugcfake serves the fake Content Posts Read API of package ugctest
// over HTTP, for tests written in any language.
//
//	go run ./cmd/ugcfake -addr 127.0.0.1:8080 -key KEY
//
// The first line on stdout is one JSON object describing the server:
//
//	{"url":"http://127.0.0.1:8080","apiKey":"KEY","galleries":["summer","videos"],
//	 "markets":[{"id":"...","shortId":"de-de"},{"id":"...","shortId":"fr-fr"}]}
//
// url includes the base path; every market listed localizes some posts.
// Then one line per request goes to stderr (never the key). SIGINT or
// SIGTERM shuts the server down cleanly, with exit status 0.
//
// Flags:
//
//	-addr       listen address (default 127.0.0.1:0, a free port)
//	-key        API key (default "ugcfake-dev-key")
//	-data       JSON dataset file, as written by ugctest's Dataset.Save
//	-posts, -seed
//	            serve ugctest.Generate(posts, seed) instead of the default dataset
//	-latency    delay every response, such as 50ms
//	-base-path  serve under a path prefix, such as /api
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/ugcposts/ugc-go/ugctest"
)

// DefaultKey is the API key when -key is not given.
const DefaultKey = "ugcfake-dev-key"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "ugcfake:", err)
		os.Exit(1)
	}
}

// banner is the first line on stdout.
type banner struct {
	URL       string         `json:"url"`
	APIKey    string         `json:"apiKey"`
	Galleries []string       `json:"galleries"`
	Markets   []bannerMarket `json:"markets"`
}

type bannerMarket struct {
	ID      string `json:"id"`
	ShortID string `json:"shortId"`
}

// run serves until ctx ends, then shuts down.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("ugcfake", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	key := fs.String("key", DefaultKey, "API key the server accepts")
	data := fs.String("data", "", "JSON dataset file (ugctest Dataset.Save format)")
	posts := fs.Int("posts", -1, "serve a generated dataset of this many posts")
	seed := fs.Uint64("seed", 1, "seed of the generated dataset")
	latency := fs.Duration("latency", 0, "delay added to every response")
	basePath := fs.String("base-path", "", "path prefix of every endpoint, such as /api")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	ds, err := loadDataset(*data, *posts, *seed)
	if err != nil {
		return err
	}
	logger := log.New(stderr, "", log.LstdFlags|log.Lmicroseconds)
	h, err := ugctest.NewHandler(ds, *key,
		ugctest.WithBasePath(*basePath),
		ugctest.WithLatency(*latency),
		ugctest.WithRequestLogLimit(0),
		ugctest.WithRequestHook(func(r ugctest.Request) {
			line := fmt.Sprintf("%s %s", r.Method, r.Path)
			if q := r.Query.Encode(); q != "" {
				line += "?" + q
			}
			logger.Printf("%s %d key=%t fault=%s %s", line, r.Status, r.KeyValid, r.Fault, r.Duration.Round(time.Microsecond))
		}))
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	b := banner{URL: "http://" + ln.Addr().String() + h.BasePath(), APIKey: *key, Galleries: []string{}, Markets: []bannerMarket{}}
	for _, g := range ds.Galleries {
		b.Galleries = append(b.Galleries, g.ShortID)
	}
	for _, m := range ds.LocalizingMarkets() {
		b.Markets = append(b.Markets, bannerMarket{ID: m.ID, ShortID: m.ShortID})
	}
	line, err := json.Marshal(b)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(stdout, "%s\n", line); err != nil {
		return err
	}

	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ErrorLog: logger}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		_ = srv.Close()
	}
	logger.Print("ugcfake: shut down")
	return nil
}

// loadDataset picks the dataset the flags ask for.
func loadDataset(path string, posts int, seed uint64) (*ugctest.Dataset, error) {
	switch {
	case path != "" && posts >= 0:
		return nil, errors.New("-data and -posts exclude each other")
	case path != "":
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return ugctest.LoadDataset(f)
	case posts >= 0:
		return ugctest.Generate(posts, seed), nil
	}
	return ugctest.DefaultDataset(), nil
}
