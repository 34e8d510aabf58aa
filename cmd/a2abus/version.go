package main

// Set at build time: go build -ldflags "-X main.version=v1.2.3 -X main.commit=abc1234".
var (
	version = "dev"
	commit  = "dev"
)
