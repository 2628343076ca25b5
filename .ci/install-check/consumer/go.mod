module example.com/gallerysvc

go 1.24.0

require (
	github.com/ugcposts/ugc-go v0.1.0
	github.com/ugcposts/ugc-go/otelugc v0.1.0
)
