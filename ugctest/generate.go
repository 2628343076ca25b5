package ugctest

import (
	"fmt"
	"strconv"
	"time"

	"github.com/ugcposts/ugc-go"
)

// MaxGenerated is the largest n [Generate] accepts.
const MaxGenerated = 1 << 30

// Generate returns a deterministic dataset of n approved posts built from
// seed: the same n and seed always give the same dataset. Posts are built on
// demand when served, so a dataset of 1,000,000 posts costs a few MiB; only
// the server's list of post references (4 bytes a post) is stored.
//
// The dataset also has 12 labels (two unnamed, three removed or
// inaccessible), 2 markets ("de-de" and "fr-fr") that localize about a third
// and a quarter of the posts, 2 galleries ("summer" and "videos", drawn from
// the first 200 posts) and 10 inbox posts. n is clamped to 0..[MaxGenerated].
func Generate(n int, seed uint64) *Dataset {
	n = max(0, min(n, MaxGenerated))
	g := &generator{n: n, seed: seed, tag: uint32(mix(seed^0x5bd1e995)) | 0x80000000}
	d := &Dataset{gen: g}
	for i, name := range labelNames {
		l := Label{ID: fmt.Sprintf("%08x%016x", g.tag^0x1abe1, i)}
		if name != "" {
			l.Name = &name
		}
		switch i {
		case labelRemovedA, labelRemovedB:
			l.Removed = true
		case labelInaccessible:
			l.Inaccessible = true
		}
		d.Labels = append(d.Labels, l)
	}
	for i, short := range marketShortIDs {
		d.Markets = append(d.Markets, Market{ID: fmt.Sprintf("%08x%016x", g.tag^0x3a4e7, i), ShortID: short})
	}
	var summer, videos []string
	for i := range min(n, 200) {
		if g.rand(i, saltGallery)%4 == 0 {
			summer = append(summer, g.id(i))
		}
		if g.isVideo(i) {
			videos = append(videos, g.id(i))
		}
	}
	d.Galleries = []Gallery{{ShortID: "summer", PostIDs: summer}, {ShortID: "videos", PostIDs: videos}}
	for i := range 10 {
		d.Inbox = append(d.Inbox, g.inboxPost(i))
	}
	return d
}

// generator builds the posts of a generated dataset from their index.
type generator struct {
	n    int
	seed uint64
	tag  uint32 // first 8 hex digits of every generated ID
}

// Salts separate the random streams of a post's properties.
const (
	saltKind = iota + 1
	saltOrigin
	saltText
	saltProducts
	saltLabels
	saltGallery
	saltMarket
)

// Indexes of the generated labels with special states.
const (
	labelRemovedA     = 9
	labelInaccessible = 10
	labelRemovedB     = 11
)

var (
	labelNames     = []string{"Summer", "Beach", "", "Best sellers", "Outdoor", "Kids", "", "Featured", "Sale", "Old campaign", "Private", "Draft"}
	marketShortIDs = []string{"de-de", "fr-fr"}
	epoch          = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
)

// mix is splitmix64's finalizer.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// rand returns the random number of post i for one property.
func (g *generator) rand(i int, salt uint64) uint64 {
	return mix(g.seed ^ mix(uint64(i)<<8|salt))
}

// id returns the ID of post i: the generator's tag and i, in hexadecimal.
func (g *generator) id(i int) string { return hexID(g.tag, uint64(i)) }

// hexID is fmt.Sprintf("%08x%016x", tag, i), without fmt's cost.
func hexID(tag uint32, i uint64) string {
	const digits = "0123456789abcdef"
	var b [24]byte
	for k := 7; k >= 0; k-- {
		b[k] = digits[tag&0xf]
		tag >>= 4
	}
	for k := 23; k >= 8; k-- {
		b[k] = digits[i&0xf]
		i >>= 4
	}
	return string(b[:])
}

// index returns the index of the generated post with the given ID.
func (g *generator) index(id string) (int, bool) {
	if len(id) != 24 {
		return 0, false
	}
	tag, err := strconv.ParseUint(id[:8], 16, 32)
	if err != nil || uint32(tag) != g.tag {
		return 0, false
	}
	i, err := strconv.ParseUint(id[8:], 16, 64)
	if err != nil || i >= uint64(g.n) || fmt.Sprintf("%016x", i) != id[8:] {
		return 0, false
	}
	return int(i), true
}

func (g *generator) isVideo(i int) bool { return g.rand(i, saltKind)%10 < 3 }

// labelIndexes returns indexes into the generated labels for post i.
func (g *generator) labelIndexes(i int, buf []int32) []int32 {
	r := g.rand(i, saltLabels)
	switch r % 8 {
	case 0:
		return buf // no labels
	case 1:
		return append(buf, labelRemovedA, labelRemovedB) // every label removed
	case 2:
		return append(buf, labelInaccessible, int32(r>>8%9))
	}
	n := 1 + int(r>>3%3)
	for k := range n {
		l := int32(r >> (16 + 4*k) % 9)
		dup := false
		for _, have := range buf {
			dup = dup || have == l
		}
		if !dup {
			buf = append(buf, l)
		}
	}
	return buf
}

var (
	captions = []string{
		"Sunset at the lake with my new #summer dress from @northwind 🌅",
		"Ready for the weekend! #weekend #ootd @northwind",
		"Loving the colours of this jacket #autumn #style",
		"Morning run in the new trainers @northwind #running #fitness",
		"Picnic day with the kids #family #outdoors",
		"Can't get enough of this bag 😍 #accessories @northwind",
		"Beach vibes #beach #vacation #summer",
		"New in: the linen collection #linen #newin @northwindstore",
	}
	captionsDE = []string{
		"Sonnenuntergang am See mit meinem neuen #summer Kleid von @northwind 🌅",
		"Bereit fürs Wochenende! #weekend #ootd @northwind",
		"Ich liebe die Farben dieser Jacke #autumn #style",
		"Morgenlauf in den neuen Schuhen @northwind #running #fitness",
		"Picknick mit den Kindern #family #outdoors",
		"Ich kann von dieser Tasche nicht genug bekommen 😍 #accessories @northwind",
		"Strandgefühl #beach #vacation #summer",
		"Neu: die Leinenkollektion #linen #newin @northwindstore",
	}
	captionsFR = []string{
		"Coucher de soleil au lac avec ma nouvelle robe #summer de @northwind 🌅",
		"Prête pour le week-end ! #weekend #ootd @northwind",
		"J'adore les couleurs de cette veste #autumn #style",
		"Course du matin avec les nouvelles baskets @northwind #running #fitness",
		"Pique-nique avec les enfants #family #outdoors",
		"Je ne me lasse pas de ce sac 😍 #accessories @northwind",
		"Ambiance plage #beach #vacation #summer",
		"Nouveau : la collection en lin #linen #newin @northwindstore",
	}
	alts   = []string{"A woman in a red dress by a lake at sunset", "Two pairs of trainers on a wooden floor", "A family on a picnic blanket in a park", "A leather bag on a café table"}
	altsDE = []string{"Eine Frau in einem roten Kleid an einem See bei Sonnenuntergang", "Zwei Paar Turnschuhe auf einem Holzboden", "Eine Familie auf einer Picknickdecke im Park", "Eine Ledertasche auf einem Cafétisch"}
	hashes = []string{"LEHV6nWB2yk8pyo0adR*.7kCMdnj", "L6PZfSi_.AyE_3t7t7R**0o#DgR4", "LKO2?U%2Tw=w]~RBVZRi};RPxuwH", "LGF5?xYk^6#M@-5c,1J5@[or[Q6."}
	users  = []string{"anna.sun", "mike_runs", "the.family.blog", "lea_style", "tom.outdoors", "sara.b"}
)

func f64(v float64) *float64 { return &v }

// products are the tagged products generated posts draw from.
var products = func() []ugc.Product {
	type p struct {
		title, category  string
		price, sale      float64
		sku, mpn, gtin   string
		withMedia, group bool
	}
	list := []p{
		{"Linen Summer Dress", "Women > Dresses", 89.95, 0, "LSD-RED-M", "ND-1001", "4006381333931", true, false},
		{"Trail Running Shoes", "Shoes > Running", 129, 99, "TRS-42", "ND-2002", "00012345678905", true, false},
		{"Leather Tote Bag", "Accessories > Bags", 149.5, 0, "LTB-BRN", "", "9780306406157", false, false},
		{"Wool Knit Jacket", "Women > Jackets", 179, 139, "", "ND-4004", "", true, true},
		{"Kids Rain Boots", "Kids > Shoes", 39.99, 0, "KRB-28", "", "", false, false},
		{"Canvas Beach Hat", "Accessories > Hats", 24.5, 19.5, "CBH-ONE", "ND-6006", "4012345678901", true, false},
		{"Picnic Blanket", "Home > Outdoor", 59, 0, "", "", "", false, false},
		{"Organic Cotton Tee", "Men > T-Shirts", 29, 0, "OCT-WHT-L", "ND-8008", "5012345678900", true, true},
	}
	out := make([]ugc.Product, len(list))
	for i, q := range list {
		handle := handleOf(q.title)
		pr := ugc.Product{
			ID:             fmt.Sprintf("gid-product-%d", 7001+i),
			Title:          q.title,
			Handle:         handle,
			Price:          &ugc.Price{Regular: f64(q.price), Currency: "USD"},
			Category:       q.category,
			URL:            "https://shop.example.com/products/" + handle,
			DevelopmentURL: "https://staging.shop.example.com/products/" + handle,
			SKU:            q.sku,
			MPN:            q.mpn,
			GTIN:           q.gtin,
		}
		if q.sale > 0 {
			pr.Price.Sale = f64(q.sale)
		}
		if q.withMedia {
			pr.Media = &ugc.Media{Location: "https://cdn.example.com/products/" + handle + ".jpg", Filename: handle + ".jpg"}
		}
		out[i] = pr
	}
	return out
}()

var productTitlesDE = []string{"Leinen-Sommerkleid", "Trail-Laufschuhe", "Leder-Shopper", "Strickjacke aus Wolle", "Kinder-Gummistiefel", "Canvas-Strandhut", "Picknickdecke", "Bio-Baumwoll-T-Shirt"}
var productTitlesFR = []string{"Robe d'été en lin", "Chaussures de trail", "Sac cabas en cuir", "Veste en maille de laine", "Bottes de pluie enfant", "Chapeau de plage en toile", "Couverture de pique-nique", "T-shirt en coton bio"}

func handleOf(title string) string {
	b := make([]byte, 0, len(title))
	for i := 0; i < len(title); i++ {
		c := title[i]
		switch {
		case 'A' <= c && c <= 'Z':
			b = append(b, c+'a'-'A')
		case c == ' ':
			b = append(b, '-')
		default:
			b = append(b, c)
		}
	}
	return string(b)
}

// post builds approved post i with its label IDs.
func (g *generator) post(i int) Post {
	var ids []string
	var buf [4]int32
	for _, l := range g.labelIndexes(i, buf[:0]) {
		ids = append(ids, hexID(g.tag^0x1abe1, uint64(l)))
	}
	return Post{Post: g.wirePost(i), LabelIDs: ids}
}

// wirePost builds approved post i as the API writes it, without labels.
func (g *generator) wirePost(i int) ugc.Post {
	id := g.id(i)
	created := epoch.Add(-time.Duration(i) * 37 * time.Minute)
	rk, ro, rt, rp := g.rand(i, saltKind), g.rand(i, saltOrigin), g.rand(i, saltText), g.rand(i, saltProducts)
	p := ugc.Post{ID: id, CreatedAt: created, TaggedProducts: []ugc.TaggedProduct{}}
	if rk%10 < 3 {
		p.Type = ugc.MediaTypeVideo
		p.Media = ugc.Media{Location: "https://cdn.example.com/media/" + id + ".mp4", Filename: "clip_" + strconv.Itoa(i) + ".mp4"}
		p.VideoCaptions = "[music] " + captions[rt%uint64(len(captions))]
		p.VideoDescription = "A short clip showing " + alts[rt>>8%uint64(len(alts))]
	} else {
		p.Type = ugc.MediaTypeImage
		p.Media = ugc.Media{Location: "https://cdn.example.com/media/" + id + ".jpg", Hash: hashes[rk>>8%uint64(len(hashes))], Filename: "IMG_" + strconv.Itoa(1000+i) + ".jpg"}
	}
	if rk>>16%4 != 0 {
		p.Alt = alts[rt>>8%uint64(len(alts))]
	}
	if ro%3 == 0 {
		p.Origin = &ugc.PostOrigin{Type: "upload"}
		p.AddedByCompany = ptr(true)
		p.FromSocial = ptr(false)
	} else {
		p.Origin = &ugc.PostOrigin{Type: "social"}
		p.FromSocial = ptr(true)
		p.SocialURL = "https://social.example.com/p/" + id
		p.SocialDate = created.Add(-time.Duration(1+ro>>8%72) * time.Hour)
		user := users[ro>>16%uint64(len(users))]
		p.UploadedBy = &ugc.UploadedBy{Username: user}
		if ro>>24%2 == 0 {
			p.UploadedBy.Image = &ugc.ProfileImage{Hash: fmt.Sprintf("%016x%016x", mix(ro>>16%uint64(len(users))), mix(ro>>16%uint64(len(users))+99)), Filename: user + ".jpg", Location: "https://cdn.example.com/avatars/" + user + ".jpg"}
		}
	}
	if rt>>16%5 != 0 {
		p.Comment = captions[rt%uint64(len(captions))]
	}
	if rt>>24%7 == 0 {
		p.HideCaption = ptr(true)
	}
	for k := range int(rp % 3) {
		prod := products[(rp>>(8+4*k))%uint64(len(products))]
		x := float64(rp>>(20+8*k)%100) / 100
		y := float64(rp>>(24+8*k)%100) / 100
		p.TaggedProducts = append(p.TaggedProducts, ugc.TaggedProduct{X: x, Y: y, Product: prod})
	}
	return p
}

func ptr[T any](v T) *T { return &v }

// localization returns market mi's text for post i, whose stored form is p.
func (g *generator) localization(mi, i int, p *ugc.Post) (Localization, bool) {
	r := g.rand(i, saltMarket+uint64(mi)<<4)
	if r%uint64(3+mi) != 0 {
		return Localization{}, false
	}
	rt := g.rand(i, saltText)
	var loc Localization
	titles := productTitlesDE
	caps := captionsDE
	currency := "EUR"
	if mi == 1 {
		titles, caps = productTitlesFR, captionsFR
	}
	if p.Comment != "" {
		loc.Comment = caps[rt%uint64(len(caps))]
	}
	if p.Alt != "" && mi == 0 {
		loc.Alt = altsDE[rt>>8%uint64(len(altsDE))]
	}
	if p.VideoCaptions != "" {
		loc.VideoCaptions = "[Musik] " + caps[rt%uint64(len(caps))]
		if mi == 1 {
			loc.VideoCaptions = "[musique] " + caps[rt%uint64(len(caps))]
		}
	}
	for _, t := range p.TaggedProducts {
		if loc.Products == nil {
			loc.Products = map[string]ProductLocalization{}
		}
		k := 0
		for k < len(products) && products[k].ID != t.Product.ID {
			k++
		}
		pl := ProductLocalization{Title: titles[k%len(titles)], URL: t.Product.URL + "?market=" + marketShortIDs[mi]}
		if t.Product.Price != nil && t.Product.Price.Regular != nil {
			pl.Price = &ugc.Price{Regular: f64(*t.Product.Price.Regular * 0.92), Currency: currency}
			if t.Product.Price.Sale != nil {
				pl.Price.Sale = f64(*t.Product.Price.Sale * 0.92)
			}
		}
		loc.Products[t.Product.ID] = pl
	}
	return loc, true
}

// inboxPost builds pending post k.
func (g *generator) inboxPost(k int) ugc.Post {
	user := users[k%len(users)]
	id := fmt.Sprintf("%08x%016x", g.tag^0x1b0c5, k)
	p := ugc.Post{
		ID:             id,
		CreatedAt:      epoch.Add(time.Duration(k+1) * 11 * time.Minute),
		Media:          ugc.Media{Location: "https://cdn.example.com/inbox/" + id + ".jpg", Filename: "upload_" + strconv.Itoa(k) + ".jpg"},
		TaggedProducts: []ugc.TaggedProduct{},
		Origin:         &ugc.PostOrigin{Type: "upload"},
		Type:           ugc.MediaTypeImage,
		Comment:        captions[(k+3)%len(captions)],
		UploadedBy:     &ugc.UploadedBy{Username: user, Email: user + "@mail.example.com"},
	}
	if k%3 == 1 {
		p.Type = ugc.MediaTypeVideo
		p.Media.Location = "https://cdn.example.com/inbox/" + id + ".mp4"
		p.Media.Filename = "upload_" + strconv.Itoa(k) + ".mp4"
	}
	if k%4 == 2 {
		p.TaggedProducts = append(p.TaggedProducts, ugc.TaggedProduct{X: 0.4, Y: 0.6, Product: products[k%len(products)]})
	}
	return p
}
