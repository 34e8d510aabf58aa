// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package docs

import (
	"bytes"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// optionalModules are the heavy modules only the programs that use them
// link (architecture.md, "Optional parts"): the model client's SDK, gRPC
// (which every OTLP trace exporter links) and the MCP SDK.
var optionalModules = []string{
	"github.com/openai/openai-go",
	"google.golang.org/grpc",
	"github.com/modelcontextprotocol/go-sdk",
}

// linked returns the packages prog links (go list -deps) that belong to
// one of modules.
func linked(t *testing.T, prog string, modules []string) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "./"+prog)
	cmd.Dir = ".."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps ./%s: %v\n%s", prog, err, stderr.String())
	}
	var found []string
	for _, pkg := range strings.Fields(string(out)) {
		for _, m := range modules {
			if pkg == m || strings.HasPrefix(pkg, m+"/") {
				found = append(found, pkg)
			}
		}
	}
	return found
}

// TestAgentsLinkOnlyWhatRuns: the agent mains and the example agent link
// no model client, no gRPC and no MCP SDK. research-agent is included: it
// runs ResearchAgent without a model, and refuses a configured one
// (llm.ErrNotLinked) rather than link the client for it; a2abus serve
// --agent ResearchAgent runs it with one. a2abus links them all, which
// also shows that the module paths above are the ones the code imports.
func TestAgentsLinkOnlyWhatRuns(t *testing.T) {
	for _, prog := range []string{"cmd/sample-agent", "cmd/research-agent", "examples/go-agent"} {
		if got := linked(t, prog, optionalModules); len(got) > 0 {
			t.Errorf("%s links %d packages of the optional modules, first %s: an import brought them in (go list -deps ./%s)",
				prog, len(got), got[0], prog)
		}
	}
	for _, m := range optionalModules {
		if len(linked(t, "cmd/a2abus", []string{m})) == 0 {
			t.Errorf("cmd/a2abus links nothing of %s: the module path is stale, so the check above proves nothing", m)
		}
	}
}

// TestAgentsKeepMethodDeadCodeElimination: the linker drops the exported
// methods nothing calls unless a reachable function calls methods by a
// name known only at run time (reflect's Method/MethodByName, which
// text/template's field evaluation does); then every exported method of
// every linked type is kept. A cobra version template did that to every
// agent (sample-agent 16.5 MB → 23.9 MB, idle RSS 20 → 23 MB). The
// linker's dependency dump marks such functions <ReflectMethod>.
func TestAgentsKeepMethodDeadCodeElimination(t *testing.T) {
	for _, prog := range []string{"cmd/sample-agent", "examples/go-agent"} {
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-dumpdep", "-o", "/dev/null", "./"+prog)
		cmd.Dir = ".."
		cmd.Env = append(cmd.Environ(), "CGO_ENABLED=0")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go build -ldflags=-dumpdep ./%s: %v\n%.2000s", prog, err, out)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if strings.Contains(line, "<ReflectMethod>") {
				t.Errorf("%s reaches a reflective method call, so the linker keeps every exported method: %s", prog, line)
				break
			}
		}
	}
}

// webModules are what ResearchAgent's web backend links (an HTML parser
// and readability, robots.txt): research-agent and a2abus register it
// (research/web.Register); SampleAgent and the example agent must not link it.
var webModules = []string{
	"codeberg.org/readeck/go-readability",
	"github.com/temoto/robotstxt",
	"golang.org/x/net/html",
}

// TestWebBackendOnlyWhereResearchRuns: the web backend is linked by the
// programs that run ResearchAgent, and by no other agent.
func TestWebBackendOnlyWhereResearchRuns(t *testing.T) {
	for _, prog := range []string{"cmd/sample-agent", "examples/go-agent"} {
		if got := linked(t, prog, webModules); len(got) > 0 {
			t.Errorf("%s links %d packages of the web backend, first %s: an import brought them in (go list -deps ./%s)",
				prog, len(got), got[0], prog)
		}
	}
	for _, prog := range []string{"cmd/research-agent", "cmd/a2abus"} {
		if len(linked(t, prog, webModules[:1])) == 0 {
			t.Errorf("%s does not link %s: it no longer registers the web backend, or the module path is stale", prog, webModules[0])
		}
	}
}

// promClientModules are the Prometheus client and what it brings: /metrics
// is written by pkg/ops/prom, so no program links them (only tests do,
// through pkg/ops/prom/promtest, to parse what /metrics writes).
var promClientModules = []string{
	"github.com/prometheus/client_golang",
	"github.com/prometheus/client_model",
	"github.com/prometheus/common",
	"github.com/prometheus/procfs",
}

// TestNoProgramLinksThePrometheusClient: no program links the Prometheus
// client, and no agent the protobuf runtime it brought (a2abus links
// protobuf for the OTLP exporters). The test package below is the check
// that the module paths are right: it does link them.
func TestNoProgramLinksThePrometheusClient(t *testing.T) {
	for _, prog := range []string{"cmd/sample-agent", "cmd/research-agent", "examples/go-agent", "cmd/a2abus"} {
		modules := promClientModules
		if prog != "cmd/a2abus" {
			modules = append(slices.Clone(modules), "google.golang.org/protobuf")
		}
		if got := linked(t, prog, modules); len(got) > 0 {
			t.Errorf("%s links %d packages of the Prometheus client or protobuf, first %s: an import brought them in (go list -deps ./%s)",
				prog, len(got), got[0], prog)
		}
	}
	for _, m := range promClientModules[1:3] {
		if len(linked(t, "pkg/ops/prom/promtest", []string{m})) == 0 {
			t.Errorf("pkg/ops/prom/promtest does not link %s: the module path is stale, so the check above proves nothing", m)
		}
	}
}

// schemaModules are the JSON Schema library, which pkg/schema/jsonschema
// wraps: its package initialisation compiles five drafts' meta-schemas
// (1.7 MB, 21,000 allocations), so only the programs that check schemas
// register it (jsonschema.Register).
var schemaModules = []string{"github.com/santhosh-tekuri/jsonschema"}

// TestSchemaValidatorOnlyWhereSchemasAreChecked: research-agent (no input
// schema, calls no one), sample-agent (npv checks its own input against the
// schema it declares, agent.WithSelfCheckedInputSchema) and the example agent
// and caller (none declared) do not link the JSON Schema library; a2abus
// does, which also shows that the module path is the one the code imports.
func TestSchemaValidatorOnlyWhereSchemasAreChecked(t *testing.T) {
	for _, prog := range []string{"cmd/research-agent", "cmd/sample-agent", "examples/go-agent", "examples/go-caller"} {
		if got := linked(t, prog, schemaModules); len(got) > 0 {
			t.Errorf("%s links %d packages of the JSON Schema library, first %s: an import brought them in (go list -deps ./%s)",
				prog, len(got), got[0], prog)
		}
	}
	if len(linked(t, "cmd/a2abus", schemaModules)) == 0 {
		t.Errorf("cmd/a2abus does not link %s: it no longer registers the validator, or the module path is stale", schemaModules[0])
	}
}
