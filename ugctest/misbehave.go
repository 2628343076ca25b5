package ugctest

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strconv"
	"time"
)

// pagePlan is which posts a list page holds and where its next points:
// the contract's page, or the page a page-shaping fault makes of it.
type pagePlan struct {
	from, to int   // the posts sent: positions from..to-1 of the list
	next     int   // skip of the next page; -1 for null
	order    []int // positions in the order sent; nil for from..to-1
	odd      int   // position sent with an odd member; -1 for none
	nextForm Fault // how next is written: its Kind is 0 or a *Next kind
}

// planPage returns the page of a list of total items at skip and limit,
// shaped by f (a zero Fault: the contract's page).
func planPage(total, skip, limit int, f Fault) pagePlan {
	from := min(skip, total)
	to := min(from+limit, total)
	p := pagePlan{from: from, to: to, next: -1, odd: -1}
	if to < total {
		p.next = to
	}
	switch f.Kind {
	case FaultShortPage:
		p.to = min(to, from+f.Keep)
		p.next = -1
		if p.to < total {
			p.next = p.to
		}
	case FaultShortPageSkipping:
		p.to = min(to, from+f.Keep)
	case FaultEndEarly:
		p.to, p.next = min(to, from+f.Keep), -1
	case FaultIgnoreSkip:
		p.from, p.to = 0, min(limit, total)
	case FaultStalePage:
		p.from = max(0, min(from+f.Offset, total))
		p.to = min(p.from+limit, total)
	case FaultShuffledPage:
		rng := rand.New(rand.NewPCG(f.Seed, uint64(from)))
		p.order = make([]int, 0, to-from)
		for _, i := range rng.Perm(to - from) {
			p.order = append(p.order, from+i)
		}
	case FaultOddPost:
		if i := f.Index + (to-from)*boolInt(f.Index < 0); i >= 0 && i < to-from {
			p.odd = from + i
		}
	case FaultRelativeNext, FaultForeignNext, FaultEscapedNext:
		p.nextForm = f
	}
	return p
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// len is the number of posts the page sends.
func (p *pagePlan) len() int { return max(0, p.to-p.from) }

// at is the list position of the k-th post the page sends.
func (p *pagePlan) at(k int) int {
	if p.order != nil {
		return p.order[k]
	}
	return p.from + k
}

// makeOdd rewrites the createdAt of the post JSON that ends dst, from
// start, as its Unix time in seconds: a number where the contract has a
// date string.
func makeOdd(dst []byte, start int) ([]byte, error) {
	const member = `"createdAt":"`
	i := bytes.Index(dst[start:], []byte(member))
	if i < 0 {
		return nil, fmt.Errorf("odd post: no createdAt")
	}
	valStart := start + i + len(member) - 1 // the opening quote
	end := bytes.IndexByte(dst[valStart+1:], '"')
	if end < 0 {
		return nil, fmt.Errorf("odd post: unterminated createdAt")
	}
	valEnd := valStart + 1 + end + 1
	t, err := time.Parse(time.RFC3339Nano, string(dst[valStart+1:valEnd-1]))
	if err != nil {
		return nil, fmt.Errorf("odd post: %w", err)
	}
	tail := append([]byte(nil), dst[valEnd:]...)
	dst = strconv.AppendInt(dst[:valStart], t.Unix(), 10)
	return append(dst, tail...), nil
}

// oddlyEscaped escapes a list's path differently, with the same meaning:
// a gallery's shortId byte by byte, another list's last segment's first
// letter.
func oddlyEscaped(basePath string, kind int, gallery string) string {
	switch kind {
	case routeGallery:
		var b []byte
		for i := 0; i < len(gallery); i++ {
			b = fmt.Appendf(b, "%%%02X", gallery[i])
		}
		return basePath + "/v1/galleries/" + string(b) + "/posts"
	case routeInbox:
		return basePath + "/v1/%69nbox"
	}
	return basePath + "/v1/%70osts"
}

// foreignHost is where a FaultForeignNext points by default: a name that
// never resolves (RFC 2606).
const foreignHost = "ugcfake.invalid"

// nextOrigin returns the scheme and host next is written with: "" for a
// relative next.
func nextOrigin(scheme, host string, form Fault) string {
	switch form.Kind {
	case FaultRelativeNext:
		return ""
	case FaultForeignNext:
		host = form.Host
		if host == "" {
			host = foreignHost
		}
	}
	return scheme + "://" + host
}

// escapedPath is the path of a list as next writes it.
func escapedPath(basePath string, kind int, gallery string, form Fault) string {
	if form.Kind == FaultEscapedNext {
		return oddlyEscaped(basePath, kind, gallery)
	}
	switch kind {
	case routeInbox:
		return basePath + "/v1/inbox"
	case routeGallery:
		return basePath + "/v1/galleries/" + url.PathEscape(gallery) + "/posts"
	}
	return basePath + "/v1/posts"
}
