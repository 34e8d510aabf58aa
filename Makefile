# SPDX-License-Identifier: Apache-2.0
# a2abus: `make run` tries it on the embedded bus and memory (no servers),
# `make test` runs everything CI runs. `make help` lists the targets.

GO       ?= go
# Every go command make runs builds with -trimpath: the checkout's directory
# is then not part of the build cache's keys, so a fresh clone (CI's) reuses
# what a run in another checkout of the same code compiled, vetted and
# linked (go vet ./... on a new path: 50 s, with -trimpath 2 s), instead of
# doing all of it again. Release builds set it too (scripts/release.sh).
export GOFLAGS := -trimpath $(filter-out -trimpath,$(GOFLAGS))
COMMIT   ?= $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo dev)
VERSION  ?= $(shell git describe --tags --dirty 2>/dev/null || echo v0.0.0-dev+$(COMMIT))
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
DATE     := $(shell date -u -d @$(SOURCE_DATE_EPOCH) +%Y-%m-%dT%H:%M:%SZ 2>/dev/null || date -u -r $(SOURCE_DATE_EPOCH) +%Y-%m-%dT%H:%M:%SZ)
LDFLAGS  := -s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT) -X main.date=$(DATE)
# staticcheck, at this version, is installed once into .bin/ (make lint).
STATICCHECK_VERSION ?= v0.8.2
STATICCHECK := .bin/staticcheck-$(STATICCHECK_VERSION)
# make image: the image's name, platforms and buildx output (an OCI archive in
# dist/ by default; IMAGE_OUTPUT=type=registry pushes IMAGE).
IMAGE           ?= a2abus:$(subst +,-,$(VERSION))
IMAGE_PLATFORMS ?= linux/amd64,linux/arm64
IMAGE_OUTPUT    ?= type=oci,dest=dist/a2abus-image.oci.tar
FUZZTIME ?= 30s
# The fuzz targets `make fuzz` runs, package:target: the wire codec (every
# kind), the directory's announcements, well-known and known-agents files,
# and the configuration file.
FUZZ_TARGETS := ./pkg/a2a:FuzzDecode ./pkg/a2a:FuzzWireDecode ./pkg/a2a:FuzzWireEncode ./pkg/a2a:FuzzAppendJSONString ./pkg/caller:FuzzStoredJSON \
	./directory:FuzzAnnouncement ./directory:FuzzParseWellKnown ./directory:FuzzParseKnownAgents \
	./config:FuzzLoad
# FUZZMINIMIZETIME bounds the minimizing of each new input (go's default, 60s,
# would let one slow target spend a whole run minimizing its first find).
FUZZMINIMIZETIME ?= 5s
# FUZZFLAGS are extra go test flags for make fuzz, e.g. -parallel=1 on a shared machine.
FUZZFLAGS ?=
# FAULT_PKGS are the packages with fault tests (TestFault*): they disturb the
# shared servers, so `make unit` leaves them out and `make faults` runs them
# alone (A2ABUS_TEST_FAULTS=1), one package at a time, from the same builds.
FAULT_PKGS := $(shell grep -rl --include='*_test.go' '^func TestFault' . | xargs -r -n1 dirname | sort -u)

# TASKS is the task count of make soak and make soak-cluster (SOAK_TASKS):
# make soak TASKS=100000. The load's cap (SOAK_DURATION) is then 1.5 times
# the tasks at SOAK_RATE, at least 10 minutes. make soak-cluster keeps the
# cluster's folder (its logs) in CLUSTER_DIR.
TASKS ?=
CLUSTER_DIR ?= $(shell mktemp -u /tmp/a2abus-cluster-XXXXXX)

.DEFAULT_GOAL := help
.PHONY: help build release image run test services chromium fmt-check vet staticcheck lint unit unit-module deploy-test faults soak soak-short soak-cluster bench fuzz licenses clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'

build: ## build bin/a2abus, bin/sample-agent and bin/research-agent with the version stamped in
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/ ./cmd/...

release: ## cross-build the release into dist/: archives for linux/darwin x amd64/arm64, an SBOM a binary, SHA256SUMS (docs/install.md)
	VERSION='$(VERSION)' COMMIT='$(COMMIT)' SOURCE_DATE_EPOCH='$(SOURCE_DATE_EPOCH)' bash scripts/release.sh

image: ## build the image for linux/amd64 and linux/arm64 with docker buildx, reproducibly (IMAGE, IMAGE_PLATFORMS, IMAGE_OUTPUT)
	mkdir -p dist
	docker buildx build -f deploy/Dockerfile --platform '$(IMAGE_PLATFORMS)' \
		--build-arg VERSION='$(VERSION)' --build-arg COMMIT='$(COMMIT)' --build-arg SOURCE_DATE_EPOCH='$(SOURCE_DATE_EPOCH)' \
		--output '$(IMAGE_OUTPUT),name=$(IMAGE),rewrite-timestamp=true' .

run: ## the main job: a2abus demo on the embedded bus and memory (no servers needed)
	$(GO) run ./cmd/a2abus demo --log-level warn

test: ## everything CI runs, in order: services, lint, the module's tests, then the fault tests beside the short soak and deploy/'s tests
	@$(MAKE) --no-print-directory services
	@$(MAKE) --no-print-directory lint
	@# lint's go vet checks every package and its tests with all of vet's
	@# analyzers, so go test's own vet pass (a subset) is not run again
	@$(MAKE) --no-print-directory unit-module GOTEST_VET=-vet=off
	@# the fault tests disturb the shared servers, the soak runs on private ones
	@# and deploy/'s tests need none: they run side by side, each one's output
	@# printed whole when it ends
	@$(MAKE) --no-print-directory -j3 -O faults soak-short deploy-test GOTEST_VET=-vet=off

services: ## make sure RabbitMQ and Redis answer on 127.0.0.1 (start or install them), and Chromium is installed
	bash scripts/ensure-services.sh
	@$(MAKE) --no-print-directory chromium

chromium: ## make sure Chromium is installed for the console's browser test (apt-get install chromium when missing)
	bash scripts/ensure-chromium.sh

fmt-check: ## fail, listing them, if files are not gofmt-ed
	@files=$$(gofmt -l .); if [ -n "$$files" ]; then echo "gofmt needed on:"; echo "$$files"; exit 1; fi

vet: ## go vet, of the module and of deploy/ (a module of its own)
	$(GO) vet ./...
	cd deploy && $(GO) vet ./...

$(STATICCHECK):
	mkdir -p .bin
	GOBIN=$(CURDIR)/.bin $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	mv .bin/staticcheck $@

staticcheck: $(STATICCHECK) ## staticcheck (pinned, installed once into .bin/) on the module and on deploy/
	$(STATICCHECK) ./...
	cd deploy && ../$(STATICCHECK) ./...

lint: fmt-check vet staticcheck ## gofmt check, go vet and staticcheck

# UNIT_P is how many test binaries run at once. 4 overlaps the slow ones'
# waits on the servers (a fresh-clone make test took 365–386 s at 4 against
# 489 s at 2 on the 2-core machine, same tree); the tests that failed under that load (a
# turn still running, a session not yet idle, a remote task still
# finishing its turn) were mended. `make unit UNIT_P=2` for a gentler run.
UNIT_P ?= 4

# The mains the tests run as processes (testenv.Build) are built once into
# TESTBIN, found there through A2ABUS_TEST_BINDIR, rather than linked again
# in every test process that starts one (a2abus alone in seven).
TESTBIN   := $(CURDIR)/bin/test
TESTMAINS := ./cmd/... ./examples/go-caller ./examples/go-agent

# GOTEST_FLAGS are the flags of the module's test runs, the same for
# unit-module and faults so that faults reuses unit-module's compiled
# packages and test binaries (and, through GOFLAGS' -trimpath, a fresh clone
# those of a run in another checkout).
GOTEST_FLAGS := -race -count=1

# GOTEST_VET is go test's vet flag: empty (go test's default checks) unless
# make test, whose lint runs go vet over the same packages, turns it off.
GOTEST_VET ?=

unit: ## all tests, unit and integration (real RabbitMQ and Redis), with the race detector, then deploy/'s
	@$(MAKE) --no-print-directory unit-module
	@$(MAKE) --no-print-directory deploy-test

unit-module: ## the module's tests (unit-level and on the real servers, fault tests left out), with the race detector
	$(GO) build -o $(TESTBIN)/ $(TESTMAINS)
	A2ABUS_TEST_BINDIR=$(TESTBIN) $(GO) test $(GOTEST_FLAGS) $(GOTEST_VET) -p $(UNIT_P) -skip '^TestFault' ./...

# deploy/ is a module of its own (github.com/a2abus/a2abus/deploy), so the
# Kubernetes and kustomize modules its tests need stay out of the module an
# SDK user requires.
deploy-test: ## the tests of deploy/: the manifests, the image, compose.yaml and the release
	cd deploy && $(GO) test -race -count=1 $(GOTEST_VET) ./...

# The fault tests start no mains (a test that did would build its own).
faults: ## the fault tests (they stop the broker, pause Redis), one package at a time
	A2ABUS_TEST_FAULTS=1 $(GO) test $(GOTEST_FLAGS) $(GOTEST_VET) -p 1 -run '^TestFault' $(FAULT_PKGS)

licenses: ## the license of every module the binaries link, read from the module cache; fails on one not allowed
	$(GO) run ./internal/licenses/cmd/licenses ./cmd/...

SOAK_TASKS    ?= $(or $(TASKS),2000)
SOAK_RATE     ?= 60
SOAK_DURATION ?= $(shell awk 'BEGIN { r = $(SOAK_RATE); d = r > 0 ? int($(SOAK_TASKS) * 1.5 / r) : 0; print (d > 600 ? d : 600) "s" }')
export SOAK_TASKS SOAK_DURATION SOAK_RATE

soak: ## the soak: private broker and Redis, agents, callers, faults; one JSON line (TASKS=n, SOAK_DURATION, SOAK_SEED, SOAK_RATE)
	$(GO) build -o bin/soak ./internal/soak/cmd/soak
	./bin/soak run

# The cluster soak: a fault every 3 s for 6,000 tasks, one every TASKS/5000 s
# beyond (20 s for 100,000: about 200 faults; a node restart stalls the
# node's clients for 20-60 s, so faults 3 s apart would overlap all along);
# the load's cap is TASKS/25 s (25 tasks/s: 100,000 in 67 minutes), at least
# 10 minutes; two processes per agent, on different nodes. REDIS_MODES picks
# the working memories run, one after the other (make soak-cluster
# REDIS_MODES=cluster).
REDIS_MODES ?= sentinel cluster
CLUSTER_TASKS = $(or $(TASKS),6000)
soak-cluster: ## the pre-release soak: 3-node RabbitMQ cluster, Redis under Sentinel then a Redis Cluster (scripts/cluster.sh), node, partition, failover faults (TASKS=n; REDIS_MODES; SOAK_WAIT_REPLICAS, 1)
	$(GO) build -o bin/soak ./internal/soak/cmd/soak
	SOAK_TASKS=$(CLUSTER_TASKS) SOAK_WAIT_REPLICAS=$${SOAK_WAIT_REPLICAS:-1} SOAK_AGENT_REPLICAS=$${SOAK_AGENT_REPLICAS:-2} \
		SOAK_FAULT_GAP=$${SOAK_FAULT_GAP:-$(shell awk 'BEGIN { g = $(CLUSTER_TASKS) / 5000; print (g > 3 ? g : 3) "s" }')} \
		SOAK_DURATION=$${SOAK_CLUSTER_DURATION:-$(shell awk 'BEGIN { d = int($(CLUSTER_TASKS) / 25); print (d > 600 ? d : 600) "s" }')} \
		bash scripts/cluster.sh run $(CLUSTER_DIR) \
		bash -c 'for m in $(REDIS_MODES); do SOAK_REDIS=$$m ./bin/soak run || exit; done'

# soak-short keeps the fault kinds and their number (a dozen or more, every
# kind) in half the tasks: a fault every 2.5 s on average instead of 5 s.
# The rate (50 tasks/s) makes the load last the plan's 60 s on a fast
# machine too: at 100/s a load that ran at full speed ended after 36 s and
# met only 5 of its 20 planned faults.
soak-short: ## the soak CI runs (part of make test): 3,000 tasks at 50/s, seed 42, about 60 s with every kind of fault, a dozen or more
	$(GO) build -o bin/soak ./internal/soak/cmd/soak
	SOAK_SEED=42 SOAK_TASKS=3000 SOAK_RATE=50 SOAK_DURATION=60s SOAK_FAULT_GAP=2500ms ./bin/soak run

bench: services ## the benchmarks (some use the real servers)
	$(GO) test -run '^$$' -bench . -benchmem -count=1 ./...

fuzz: ## fuzz each decoder of bus and file input (FUZZ_TARGETS) for FUZZTIME (30s) each, one after the other
	@set -e; for t in $(FUZZ_TARGETS); do \
		echo "== $${t#*:} ($${t%%:*}) for $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$${t#*:}\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZETIME) $(FUZZFLAGS) $${t%%:*}; \
	done

clean: ## remove build output and the release
	rm -rf bin dist

.PHONY: gen-docs
gen-docs: ## regenerate the command list of docs/cli.md from the command tree (its test fails while they differ)
	$(GO) test -count=1 -run '^TestCLIReferenceIsTheCommandTree$$' ./cmd/a2abus -update
