# a2abus: `make run` tries it on the embedded bus and memory (no servers),
# `make test` runs everything CI runs. `make help` lists the targets.

GO       ?= go
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT   ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo dev)
LDFLAGS  := -s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT)
FUZZTIME ?= 30s

.DEFAULT_GOAL := help
.PHONY: help build run test services fmt-check vet lint unit faults bench fuzz clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-10s %s\n", $$1, $$2}'

build: ## build bin/a2abus, bin/sample-agent and bin/research-agent with the version stamped in
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/ ./cmd/...

run: ## the main job: a2abus demo on the embedded bus and memory (no servers needed)
	$(GO) run ./cmd/a2abus demo --log-level warn

test: ## everything CI runs, in order: services, lint, all tests, then the fault tests
	@$(MAKE) --no-print-directory services
	@$(MAKE) --no-print-directory lint
	@$(MAKE) --no-print-directory unit
	@$(MAKE) --no-print-directory faults

services: ## make sure RabbitMQ and Redis answer on 127.0.0.1 (start or install them)
	bash scripts/ensure-services.sh

fmt-check: ## fail, listing them, if files are not gofmt-ed
	@files=$$(gofmt -l .); if [ -n "$$files" ]; then echo "gofmt needed on:"; echo "$$files"; exit 1; fi

vet: ## go vet, including the fault tests
	$(GO) vet ./...
	$(GO) vet -tags faults ./...

lint: fmt-check vet ## gofmt check and go vet

unit: ## all tests, unit and integration (real RabbitMQ and Redis), with the race detector
	$(GO) test -race -count=1 ./...

faults: ## the fault tests (they stop the broker, pause Redis), one package at a time
	$(GO) test -race -count=1 -p 1 -tags faults -run '^TestFault' ./...

bench: services ## the benchmarks (some use the real servers)
	$(GO) test -run '^$$' -bench . -benchmem -count=1 ./...

fuzz: ## fuzz the wire decoder for FUZZTIME (30s)
	$(GO) test -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $(FUZZTIME) ./pkg/a2a

clean: ## remove build output
	rm -rf bin
