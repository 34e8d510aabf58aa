// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package docs

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/internal/testenv"
)

// functions returns the names of the functions of prog's binary (the one
// make test built for the whole run, or one testenv.Build links; go tool
// nm) but the package initialisers and what they define (a package
// imported runs its init).
func functions(t *testing.T, prog string) []string {
	t.Helper()
	bin := testenv.Build(t, "./"+prog)
	nm := exec.Command("go", "tool", "nm", bin)
	var stderr bytes.Buffer
	nm.Stderr = &stderr
	out, err := nm.Output()
	if err != nil {
		t.Fatalf("go tool nm %s: %v\n%s", bin, err, stderr.String())
	}
	var names []string
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) >= 3 && (f[1] == "T" || f[1] == "t") && !strings.Contains(f[2], ".init") {
			names = append(names, f[2])
		}
	}
	return names
}

// TestAgentMainsLinkOnlyTheirKind: sample-agent and research-agent import
// internal/agents, which also builds the Primary (its chat loop and tools)
// and the other reference agent; each main serves its own kind's build
// only, so the linker drops the others' code. The packages stay in
// go list -deps (the import graph) and their initialisers run, so the
// check is on the functions linked: the Primary's chat loop and model
// agent, and the other kind's skills.
func TestAgentMainsLinkOnlyTheirKind(t *testing.T) {
	const mod = "github.com/a2abus/a2abus/"
	for _, c := range []struct {
		prog, own string
		not       []string
	}{
		{"cmd/sample-agent", "internal/agents/sample.Register", []string{"pkg/chat.", "pkg/llmagent.", "internal/agents/research.Register"}},
		{"cmd/research-agent", "internal/agents/research.Register", []string{"pkg/chat.", "pkg/llmagent.", "internal/agents/sample.Register"}},
	} {
		names := functions(t, c.prog)
		found := map[string]string{}
		own := false
		for _, n := range names {
			own = own || strings.Contains(n, mod+c.own)
			for _, p := range c.not {
				if strings.HasPrefix(n, mod+p) && found[p] == "" {
					found[p] = n
				}
			}
		}
		if !own {
			t.Errorf("%s has no symbol of %s%s: the symbol names changed, so the check below proves nothing", c.prog, mod, c.own)
		}
		for p, n := range found {
			t.Errorf("%s links code of %s%s (%s): a call from its kind's build reaches it", c.prog, mod, strings.TrimSuffix(p, "."), n)
		}
	}
}

// TestMain removes the binaries testenv.Build linked.
func TestMain(m *testing.M) {
	code := m.Run()
	testenv.RemoveBuilds()
	os.Exit(code)
}
