// Package filterrules holds the server's rules for the filter parameter of
// the posts list (contract §4.5): how a raw filter string is read, what an
// ID is, and the exact 400 message for each rule broken (contract §7).
//
// The client validates a filter with these rules before it sends one, and
// the fake server (package ugctest) answers with them, so both sides keep
// one copy. The package knows nothing of either side's types.
package filterrules
