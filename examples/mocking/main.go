// Command mocking runs the moderation service of package moderation: it
// prints the moderation digest (pending posts grouped by member) and a
// featured feed in a market. The package's tests are the point of this
// example; see README.md.
//
// With no configuration it starts the embedded fake server (package
// ugctest) and reads from it:
//
//	go run ./examples/mocking
//
// To read from a real server, set UGC_BASE_URL, UGC_API_KEY and
// UGC_FEATURED_LABEL (a label ID), and optionally UGC_MARKET.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/signal"
	"strings"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/examples/mocking/moderation"
	"github.com/ugcposts/ugc-go/ugctest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "mocking:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer) error {
	baseURL, key := os.Getenv("UGC_BASE_URL"), os.Getenv("UGC_API_KEY")
	label, market := os.Getenv("UGC_FEATURED_LABEL"), os.Getenv("UGC_MARKET")
	if baseURL == "" {
		srv, featured, err := startFake(key)
		if err != nil {
			return err
		}
		defer srv.Close()
		baseURL, key = srv.URL, "local-fake-key"
		if label == "" {
			label = featured
		}
		if market == "" {
			market = "de-de"
		}
		fmt.Fprintf(out, "UGC_BASE_URL is not set: reading from the embedded fake server at %s\n\n", baseURL)
	}
	if label == "" {
		return errors.New("set UGC_FEATURED_LABEL to a label ID")
	}

	client, err := ugc.NewClient(baseURL, key, ugc.WithUserAgent("moderation-example"))
	if err != nil {
		return err
	}
	svc, err := moderation.New(client)
	if err != nil {
		return err
	}

	digest, err := svc.Digest(ctx)
	if err != nil {
		return err
	}
	if err := digest.Render(out); err != nil {
		return err
	}

	feed, err := svc.Featured(ctx, label, market, 5)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\nFeatured in market %q:\n", market)
	for _, item := range feed {
		fmt.Fprintf(out, "  %s  %q  products: %s  labels: %s\n", item.PostID, item.Caption,
			strings.Join(item.Products, ", "), strings.Join(item.Labels, ", "))
	}
	return nil
}

// startFake serves the fake's default dataset on loopback and returns the
// ID of its label named "Featured".
func startFake(key string) (*httptest.Server, string, error) {
	if key != "" {
		return nil, "", errors.New("UGC_API_KEY is set but UGC_BASE_URL is not")
	}
	ds := ugctest.DefaultDataset()
	h, err := ugctest.NewHandler(ds, "local-fake-key")
	if err != nil {
		return nil, "", err
	}
	var featured string
	for _, l := range ds.Labels {
		if l.Name != nil && *l.Name == "Featured" && l.Available() {
			featured = l.ID
		}
	}
	return httptest.NewServer(h), featured, nil
}
