// Command quickstart tours the SDK: a page of approved posts, a filtered
// listing with labels, a gallery in a market, the moderation inbox, and a
// walk over every approved post.
//
// With no configuration it starts the embedded fake server (package
// ugctest) and talks to it, so it runs anywhere without an account:
//
//	go run ./examples/quickstart
//
// To talk to a real server, set UGC_BASE_URL and UGC_API_KEY, and
// optionally UGC_GALLERY (a gallery shortId) and UGC_MARKET (a market ID or
// shortId).
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
	"time"

	"github.com/ugcposts/ugc-go"
	"github.com/ugcposts/ugc-go/ugctest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

// config is where to connect and what to show.
type config struct {
	baseURL, apiKey, gallery, market string
}

func run(ctx context.Context, out io.Writer) error {
	cfg := config{
		baseURL: os.Getenv("UGC_BASE_URL"),
		apiKey:  os.Getenv("UGC_API_KEY"),
		gallery: os.Getenv("UGC_GALLERY"),
		market:  os.Getenv("UGC_MARKET"),
	}
	if cfg.baseURL == "" {
		srv, err := startFake(&cfg)
		if err != nil {
			return err
		}
		defer srv.Close()
		fmt.Fprintf(out, "UGC_BASE_URL is not set: using the embedded fake server at %s\n", cfg.baseURL)
	}
	client, err := ugc.NewClient(cfg.baseURL, cfg.apiKey, ugc.WithUserAgent("quickstart"))
	if err != nil {
		return err
	}

	// 1. One page of approved posts.
	page, err := client.Posts(ctx, &ugc.PostsParams{Limit: 5, Include: []ugc.Include{ugc.IncludeLabels}})
	if err != nil {
		return err
	}
	section(out, fmt.Sprintf("Approved posts: %d in all, the first %d", page.Count, len(page.Nodes)))
	printPosts(out, page.Nodes)

	// 2. A filtered listing: posts carrying the first label seen above.
	if label, ok := firstLabel(page.Nodes); ok {
		params := &ugc.PostsParams{
			Limit:   5,
			Filter:  ugc.Filter{ugc.AnyLabel(label.ID)},
			Include: []ugc.Include{ugc.IncludeLabels},
		}
		filtered, err := client.Posts(ctx, params)
		if err != nil {
			return err
		}
		section(out, fmt.Sprintf("Posts labelled %s (filter %s): %d", labelName(label), params.Filter, filtered.Count))
		printPosts(out, filtered.Nodes)
	}

	// 3. A gallery, localized for a market.
	if cfg.gallery != "" {
		gp, err := client.GalleryPosts(ctx, cfg.gallery, &ugc.GalleryPostsParams{Limit: 5, Market: cfg.market})
		if err != nil {
			return err
		}
		section(out, fmt.Sprintf("Gallery %q in market %q: %d posts", cfg.gallery, cfg.market, gp.Count))
		printPosts(out, gp.Nodes)
	}

	// 4. The moderation inbox.
	inbox, err := client.Inbox(ctx, &ugc.InboxParams{Limit: 5})
	switch {
	case errors.Is(err, ugc.ErrUnauthorized):
		section(out, "Inbox: this key may not read it")
	case err != nil:
		return err
	default:
		section(out, fmt.Sprintf("Inbox: %d posts awaiting moderation", inbox.Count))
		for _, p := range inbox.Nodes {
			who := "(unknown uploader)"
			if p.UploadedBy != nil {
				who = p.UploadedBy.Username + " <" + p.UploadedBy.Email + ">"
			}
			fmt.Fprintf(out, "  %s  from %s: %s\n", p.ID, who, clip(p.Comment, 50))
		}
	}

	// 5. Every approved post, page after page.
	start, n := time.Now(), 0
	for _, err := range client.AllPosts(ctx, nil) {
		if err != nil {
			return err
		}
		n++
	}
	section(out, fmt.Sprintf("Walked every approved post with AllPosts: %d posts in %s", n, time.Since(start).Round(time.Millisecond)))
	return nil
}

// startFake serves the default dataset of the fake server on loopback and
// points cfg at it.
func startFake(cfg *config) (*httptest.Server, error) {
	ds := ugctest.DefaultDataset()
	const key = "quickstart-local-key"
	h, err := ugctest.NewHandler(ds, key)
	if err != nil {
		return nil, err
	}
	srv := httptest.NewServer(h)
	cfg.baseURL, cfg.apiKey = srv.URL, key
	if cfg.gallery == "" && len(ds.Galleries) > 0 {
		cfg.gallery = ds.Galleries[0].ShortID
	}
	if cfg.market == "" && len(ds.Markets) > 0 {
		cfg.market = ds.Markets[0].ShortID
	}
	return srv, nil
}

func section(out io.Writer, title string) {
	fmt.Fprintf(out, "\n%s\n%s\n", title, strings.Repeat("-", len([]rune(title))))
}

func printPosts(out io.Writer, posts []ugc.Post) {
	for _, p := range posts {
		kind := string(p.Type)
		if kind == "" {
			kind = "POST"
		}
		fmt.Fprintf(out, "  %s  %-5s %s  %s\n", p.ID, kind, p.CreatedAt.Format(time.DateOnly), clip(p.Comment, 60))
		for _, t := range p.TaggedProducts {
			fmt.Fprintf(out, "      product: %s%s\n", t.Product.Title, price(t.Product.Price))
		}
		if p.Labels != nil {
			names := make([]string, 0, len(p.Labels))
			for _, l := range p.Labels {
				names = append(names, labelName(l))
			}
			fmt.Fprintf(out, "      labels: [%s]\n", strings.Join(names, ", "))
		}
	}
}

// firstLabel returns the first label on the posts, a named one if any.
func firstLabel(posts []ugc.Post) (ugc.Label, bool) {
	var found *ugc.Label
	for _, p := range posts {
		for i, l := range p.Labels {
			if l.Name != nil {
				return l, true
			}
			if found == nil {
				found = &p.Labels[i]
			}
		}
	}
	if found == nil {
		return ugc.Label{}, false
	}
	return *found, true
}

func labelName(l ugc.Label) string {
	if l.Name == nil {
		return "(unnamed " + l.ID + ")"
	}
	return *l.Name
}

func price(p *ugc.Price) string {
	if p == nil || p.Regular == nil {
		return ""
	}
	s := fmt.Sprintf(" (%.2f %s", *p.Regular, p.Currency)
	if p.Sale != nil {
		s += fmt.Sprintf(", on sale %.2f", *p.Sale)
	}
	return s + ")"
}

// clip shortens s to at most n runes, on one line.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
