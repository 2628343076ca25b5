// Package ugc is the Go client for the Content Posts Read API: approved
// posts, a gallery's posts and the moderation inbox of one customer account.
package ugc
