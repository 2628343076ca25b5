package ugctest

import (
	"time"

	"github.com/ugcposts/ugc-go"
)

// builderTime is the creation time of the posts the builders make.
var builderTime = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// NewPost returns a valid approved post with sensible defaults: the given
// id, a fixed creation time, an image on the fake CDN, no tagged products
// (an empty list, as the contract requires) and the type IMAGE. A test sets
// only the fields it cares about:
//
//	p := ugctest.NewPost("p1")
//	p.Comment = "hello #summer"
//	ds.AddPost(p, summerLabelID)
func NewPost(id string) ugc.Post {
	return ugc.Post{
		ID:             id,
		CreatedAt:      builderTime,
		Media:          ugc.Media{Location: "https://cdn.ugctest.example/" + id + ".jpg"},
		TaggedProducts: []ugc.TaggedProduct{},
		Type:           ugc.MediaTypeImage,
	}
}

// NewInboxPost returns a valid post pending moderation, as [NewPost] with
// the uploader the inbox requires: a username and the member's email.
func NewInboxPost(id, email string) ugc.Post {
	p := NewPost(id)
	p.UploadedBy = &ugc.UploadedBy{Username: "member-" + id, Email: email}
	return p
}

// AddPost appends one approved post with the labels attached to it, in
// order: the same ugc.Post that [Dataset.AddInboxPosts] takes.
func (d *Dataset) AddPost(p ugc.Post, labelIDs ...string) {
	d.Posts = append(d.Posts, Post{Post: p, LabelIDs: labelIDs})
}

// NewLabel returns an available label with a name, ready for
// [Dataset.AddLabel]; set Name to nil for an unnamed one, Removed or
// Inaccessible for one the API never serves.
func NewLabel(id, name string) Label { return Label{ID: id, Name: &name} }
