// Command ugcfake serves the fake Content Posts Read API of package ugctest
// over HTTP, for tests written in any language. Any machine with Go runs it
// without a checkout:
//
//	go run github.com/ugcposts/ugc-go/cmd/ugcfake@latest -key KEY
//
// (pin a version instead of latest in CI; from a checkout, go run
// ./cmd/ugcfake).
//
// The first line on stdout is one JSON object describing the server:
//
//	{"url":"http://127.0.0.1:8080","control":"http://127.0.0.1:8080/_ugcfake","apiKey":"KEY",
//	 "galleries":["summer","videos"],
//	 "markets":[{"id":"...","shortId":"de-de"},{"id":"...","shortId":"fr-fr"}],
//	 "labels":[{"id":"...","name":"Summer"},{"id":"...","name":"Beach"},{"id":"...","name":null}],
//	 "counts":{"posts":36,"inbox":10,"galleries":2}}
//
// (with the built-in dataset; its nine labels are cut to three here). url
// includes the base path and is one a client can connect to (an
// -addr of :0 gives 127.0.0.1 and the port); every market listed localizes
// some posts; labels are the available ones, usable in filters; counts
// are those of the lists. The server accepts connections before this line
// is written, so a test suite waits for it by reading the line.
// Then one line per request goes to stderr (never the key). SIGINT or
// SIGTERM shuts the server down cleanly, with exit status 0, after a line
// on stderr for each rule that never fired (unless it is optional).
//
// # Faults and data changes
//
// control is the control API of package ugctest (see ugctest.ControlPath),
// protected by the same key: it adds fault rules, reads the request log
// and changes the data while the server runs. From Python:
//
//	import json, subprocess, urllib.request
//	fake = subprocess.Popen(["go", "run", "github.com/ugcposts/ugc-go/cmd/ugcfake@latest"],
//	                        stdout=subprocess.PIPE, text=True)
//	info = json.loads(fake.stdout.readline())       # ready once this line is read
//	rule = {"endpoint": "gallery", "times": 2,
//	        "fault": {"kind": "respond", "status": 503, "body": "\"Service unavailable\""}}
//	req = urllib.request.Request(info["control"] + "/rules", data=json.dumps(rule).encode(),
//	                             headers={"x-api-key": info["apiKey"]}, method="POST")
//	urllib.request.urlopen(req)                     # 201: the next two gallery requests answer 503
//
// or with curl:
//
//	curl -H "x-api-key: $KEY" "$CONTROL/requests"     # what arrived, headers and query as sent
//
// -rule installs a rule at start, in the same JSON form:
//
//	ugcfake -rule '{"endpoint":"posts","every":3,"fault":{"kind":"short-page","keep":2}}'
//
// Flags:
//
//	-addr       listen address (default 127.0.0.1:0, a free port)
//	-key        API key (default "ugcfake-dev-key")
//	-data       JSON dataset file, as written by ugctest's Dataset.Save
//	-posts, -seed
//	            serve ugctest.Generate(posts, seed) instead of the built-in dataset
//	-latency    delay every response, such as 50ms
//	-base-path  serve under a path prefix, such as /api
//	-rule       a fault rule as JSON (repeatable)
//	-quota      a quota per API key: rps[,burst[,retry-after-only]], such
//	            as 20,5 (burst default 1); over it, requests are answered
//	            429 with Retry-After and rate-limit headers (see
//	            ugctest.WithQuota); 20,5,retry-after-only sends no
//	            rate-limit header, and Retry-After alone on a 429
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
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ugcposts/ugc-go/internal/servertimeouts"
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
	Control   string         `json:"control"` // the control API
	APIKey    string         `json:"apiKey"`
	Galleries []string       `json:"galleries"`
	Markets   []bannerMarket `json:"markets"`
	Labels    []bannerLabel  `json:"labels"` // the available ones, usable in filters
	Counts    bannerCounts   `json:"counts"`
}

type bannerLabel struct {
	ID   string  `json:"id"`
	Name *string `json:"name"`
}

type bannerCounts struct {
	Posts     int `json:"posts"` // approved
	Inbox     int `json:"inbox"`
	Galleries int `json:"galleries"`
}

type bannerMarket struct {
	ID      string `json:"id"`
	ShortID string `json:"shortId"`
}

// config is what the command line asks for.
type config struct {
	addr, key, data, basePath string
	posts                     int // -1: the built-in dataset
	seed                      uint64
	latency                   time.Duration
	rules                     []ugctest.Rule
	quota                     *ugctest.QuotaConfig
}

// run serves until ctx ends, then shuts down.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	ds, err := loadDataset(cfg.data, cfg.posts, cfg.seed)
	if err != nil {
		return err
	}
	logger := log.New(stderr, "", log.LstdFlags|log.Lmicroseconds)
	h, err := newHandler(cfg, ds, logger)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return err
	}
	line, err := json.Marshal(newBanner("http://"+connectable(ln.Addr())+h.BasePath(), cfg.key, ds))
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(stdout, "%s\n", line); err != nil {
		return err
	}
	return serve(ctx, h, ln, logger)
}

// parseFlags reads the command line; usage and errors go to stderr.
func parseFlags(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("ugcfake", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg config
	fs.StringVar(&cfg.addr, "addr", "127.0.0.1:0", "listen address")
	fs.StringVar(&cfg.key, "key", DefaultKey, "API key the server accepts")
	fs.StringVar(&cfg.data, "data", "", "JSON dataset file (ugctest Dataset.Save format)")
	posts := fs.String("posts", "", "serve a generated dataset of this many posts instead of the built-in one")
	fs.Uint64Var(&cfg.seed, "seed", 1, "seed of the generated dataset")
	fs.DurationVar(&cfg.latency, "latency", 0, "delay added to every response")
	fs.StringVar(&cfg.basePath, "base-path", "", "path prefix of every endpoint, such as /api")
	fs.Func("rule", "a fault rule as `JSON`, such as '{\"endpoint\":\"gallery\",\"fault\":{\"kind\":\"internal-error\"}}' (repeatable)", func(v string) error {
		var r ugctest.Rule
		dec := json.NewDecoder(strings.NewReader(v))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			return err
		}
		cfg.rules = append(cfg.rules, r)
		return nil
	})
	fs.Func("quota", "a quota per API key, `rps[,burst[,retry-after-only]]`, such as 20,5 (burst default 1)", func(v string) error {
		q, err := parseQuota(v)
		if err != nil {
			return err
		}
		cfg.quota = &q
		return nil
	})
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	cfg.posts = -1
	if *posts != "" {
		n, err := strconv.Atoi(*posts)
		if err != nil || n < 0 {
			return cfg, fmt.Errorf("-posts %q is not a count of posts", *posts)
		}
		cfg.posts = n
	}
	return cfg, nil
}

// newHandler builds the fake for cfg over ds, logging each request it
// answers to logger, with the quota and rules the command line set.
func newHandler(cfg config, ds *ugctest.Dataset, logger *log.Logger) (*ugctest.Handler, error) {
	h, err := ugctest.NewHandler(ds, cfg.key,
		ugctest.WithBasePath(cfg.basePath),
		ugctest.WithLatency(cfg.latency),
		ugctest.WithControlAPI(),
		ugctest.WithRequestHook(func(r ugctest.Request) { logger.Print(requestLine(r)) }))
	if err != nil {
		return nil, err
	}
	if cfg.quota != nil {
		if err := h.SetQuotaConfig(*cfg.quota); err != nil {
			return nil, fmt.Errorf("-quota: %w", err)
		}
	}
	for _, r := range cfg.rules {
		if _, err := h.AddRule(r); err != nil {
			return nil, fmt.Errorf("-rule: %w", err)
		}
	}
	return h, nil
}

// requestLine is the log line of a request the fake answered.
func requestLine(r ugctest.Request) string {
	line := r.Method + " " + r.Path
	if r.RawQuery != "" {
		line += "?" + r.RawQuery
	}
	// Quoted: a %0A in a path cannot forge a line of the log.
	fault := r.Fault.String()
	if r.Rule != "" {
		fault += " rule=" + strconv.Quote(r.Rule)
	}
	if r.OverQuota {
		fault += " over-quota"
	}
	return fmt.Sprintf("%s %d key=%t fault=%s %s", escapeLog(line), r.Status, r.KeyValid, fault, r.Duration.Round(time.Microsecond))
}

// newBanner describes the fake served at url with key over ds.
func newBanner(url, key string, ds *ugctest.Dataset) banner {
	b := banner{URL: url, Control: url + ugctest.ControlPath, APIKey: key, Galleries: []string{}, Markets: []bannerMarket{}, Labels: []bannerLabel{},
		Counts: bannerCounts{Posts: ds.Len(), Inbox: len(ds.Inbox), Galleries: len(ds.Galleries)}}
	for _, l := range ds.Labels {
		if l.Available() {
			b.Labels = append(b.Labels, bannerLabel{ID: l.ID, Name: l.Name})
		}
	}
	for _, g := range ds.Galleries {
		b.Galleries = append(b.Galleries, g.ShortID)
	}
	for _, m := range ds.LocalizingMarkets() {
		b.Markets = append(b.Markets, bannerMarket{ID: m.ID, ShortID: m.ShortID})
	}
	return b
}

// serve answers on ln until ctx ends, then shuts down, reporting the rules
// that never fired.
func serve(ctx context.Context, h *ugctest.Handler, ln net.Listener, logger *log.Logger) error {
	srv := &http.Server{Handler: h, ErrorLog: logger}
	servertimeouts.Set(srv)
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
	// A suite that set up a failure and never saw it should know.
	for _, line := range h.NeverFired() {
		logger.Printf("ugcfake: %s", escapeLog(line))
	}
	logger.Print("ugcfake: shut down")
	return nil
}

// connectable returns a listen address a client can dial: an unspecified
// host (":0", "0.0.0.0", "[::]") becomes the loopback address.
func connectable(addr net.Addr) string {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok || !tcp.IP.IsUnspecified() {
		return addr.String()
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(tcp.Port)) // a wildcard listener takes loopback too
}

// escapeLog quotes control characters, so a request cannot write a line of
// its own into the log.
func escapeLog(s string) string {
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
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

// parseQuota reads -quota: "rps", "rps,burst" or
// "rps,burst,retry-after-only".
func parseQuota(v string) (ugctest.QuotaConfig, error) {
	parts := strings.Split(v, ",")
	q := ugctest.QuotaConfig{Burst: 1}
	var err error
	if q.RPS, err = strconv.ParseFloat(strings.TrimSpace(parts[0]), 64); err != nil || !(q.RPS > 0) || q.RPS > 1e6 {
		return q, fmt.Errorf("rate %q is not a positive number of requests a second", parts[0])
	}
	if len(parts) > 1 {
		if q.Burst, err = strconv.Atoi(strings.TrimSpace(parts[1])); err != nil || q.Burst < 1 {
			return q, fmt.Errorf("burst %q is not a count of at least 1", parts[1])
		}
	}
	switch {
	case len(parts) == 3 && strings.TrimSpace(parts[2]) == "retry-after-only":
		q.RetryAfterOnly = true
	case len(parts) > 2:
		return q, fmt.Errorf("%q: want rps[,burst[,retry-after-only]]", v)
	}
	return q, nil
}
