module github.com/ugcposts/ugc-go/bench/tokenizer

go 1.24

replace github.com/ugcposts/ugc-go => ../..

require (
	github.com/go-faster/jx v1.2.0
	github.com/stretchr/testify v1.12.1
	github.com/ugcposts/ugc-go v0.0.0-00010101000000-000000000000
)

require (
	github.com/go-faster/errors v0.7.1 // indirect
	github.com/google/go-querystring v1.2.0 // indirect
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/hashicorp/go-retryablehttp v0.7.8 // indirect
	github.com/segmentio/asm v1.2.1 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sys v0.20.0 // indirect
)
