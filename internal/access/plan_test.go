// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package access

import (
	"bytes"
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/pkg/guard"
)

func TestPlanRegexes(t *testing.T) {
	plan, err := Build(Options{Exchange: "t.x", Principals: Roster{
		Agents: []string{"Alpha"}, Callers: []string{"Cli"},
		MayCall: func(c, tg string) bool { return c == "Cli" },
	}.Principals()})
	if err != nil {
		t.Fatal(err)
	}
	alpha, cli := plan.Users[0], plan.Users[1]
	type check struct {
		re, s string
		want  bool
	}
	for _, c := range []check{
		{alpha.Configure, "agent.task.Alpha", true},
		{alpha.Configure, "agent.task.AlphaX", false},
		{alpha.Configure, "a2a.instance.Alpha.i-1", true},
		{alpha.Configure, "a2a.instance.AlphaX.i-1", false},
		{alpha.Configure, "agent.response.Cli", false},
		{alpha.Read, "agent.task.Alpha", true},
		{alpha.Read, "t.x.dead", false}, // only operators read dead letters
		{alpha.Write, "amq.default", true},
		{alpha.Topics[0].Write, "agent.response.Cli", true}, // answers any caller
		{alpha.Topics[0].Write, "agent.task.Alpha", false},  // the policy lets Alpha call nobody
		{alpha.Topics[0].Read, "#", false},
		{cli.Configure, "agent.task.Alpha", true}, // a caller declares its target's queue
		{cli.Read, "agent.task.Alpha", false},
		{cli.Topics[0].Write, "agent.task.Alpha", true},
		{cli.Topics[0].Write, "agent.cancel.Alpha", true},
		{cli.Topics[0].Write, "agent.response.Alpha", false},
		{cli.Topics[0].Write, "discovery.announce", false},
		{cli.Topics[0].Read, "agent.response.Cli", true},
		{cli.Topics[0].Read, "agent.response.Alpha", false},
		{cli.Topics[1].Read, "#", true},
	} {
		if got := regexp.MustCompile(c.re).MatchString(c.s); got != c.want {
			t.Errorf("%s matches %q = %v, want %v", c.re, c.s, got, c.want)
		}
	}
	if plan.Users[1].Topics[0].Exchange != "t.x" || plan.Users[1].Topics[1].Exchange != "t.x.dlx" {
		t.Errorf("topic exchanges %+v", plan.Users[1].Topics)
	}
}

func TestBuildRefusesBadInput(t *testing.T) {
	for _, p := range []Principal{
		{Name: "bad name", Agent: true},
		{Name: "A"},
		{Name: "A", Caller: true, Targets: []string{"x.y"}},
	} {
		if _, err := Build(Options{Principals: []Principal{p}}); !errors.Is(err, ErrInvalid) {
			t.Errorf("Build(%+v) = %v, want ErrInvalid", p, err)
		}
	}
}

func TestSharedUserMergesItsNames(t *testing.T) {
	plan, err := Build(Options{Principals: Roster{Agents: []string{"A", "B"}, Users: []string{"svc=A", "svc=B"}}.Principals()})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Users) != 1 || plan.Users[0].Name != "svc" || len(plan.Users[0].Acts) != 2 {
		t.Fatalf("users %+v", plan.Users)
	}
	if !regexp.MustCompile(plan.Users[0].Read).MatchString("agent.task.B") {
		t.Error("svc cannot read B's task queue")
	}
}

func TestCommandsQuotePasswordsAsVariables(t *testing.T) {
	plan, _ := Build(Options{Principals: []Principal{{Name: "my-Agent", Agent: true}}})
	var b bytes.Buffer
	if err := plan.WriteCommands(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `rabbitmqctl 'add_user' 'my-Agent' "$A2ABUS_PASSWORD_MY_AGENT"`) {
		t.Errorf("commands:\n%s", b.String())
	}
}

// TestDeployComponentMatchesThePlan: deploy/components/access/access.yaml
// is the plan of the base's well-known agents, the caller Cli (caller.name)
// and the names of the policy section of deploy/base/a2abus.yaml, each
// caller granted exactly the targets its rule allows.
func TestDeployComponentMatchesThePlan(t *testing.T) {
	wk, err := directory.LoadWellKnown("../../deploy/base/well-known-agents.json")
	if err != nil {
		t.Fatal(err)
	}
	policy := deployPolicy(t)
	g, err := guard.New(guard.Config{Policy: policy})
	if err != nil {
		t.Fatal(err)
	}
	r := Roster{Callers: []string{"Cli"}, MayCall: func(c, t string) bool { return g.Authorize(c, t) == nil }}
	for _, a := range wk {
		r.Agents = append(r.Agents, a.AgentName)
	}
	callers, targets := PolicyNames(policy)
	r.Agents, r.Callers = append(r.Agents, targets...), append(r.Callers, callers...)
	plan, err := Build(Options{Principals: r.Principals()})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := plan.WriteManifests(&b, ManifestOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../deploy/components/access/access.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != b.String() {
		t.Errorf("deploy/components/access/access.yaml is stale: regenerate it with A2ABUS_DIRECTORY_WELL_KNOWN_FILE=deploy/base/well-known-agents.json "+
			"a2abus access plan --config deploy/base/a2abus.yaml --format manifests\n%s", b.String())
	}
	// Deny by default: the Primary may call the two agents, ResearchAgent nothing.
	for _, u := range plan.Users {
		switch u.Name {
		case "Primary":
			if !strings.Contains(u.Write, `agent\.task\.SampleAgent`) || !strings.Contains(u.Write, `agent\.task\.ResearchAgent`) {
				t.Errorf("Primary may not send tasks to the agents it calls: %s", u.Write)
			}
		case "ResearchAgent":
			if strings.Contains(u.Write, `agent\.task\.SampleAgent`) || strings.Contains(u.Write, `agent\.task\.Primary`) {
				t.Errorf("ResearchAgent, which calls nothing, may send tasks: %s", u.Write)
			}
		}
	}
}

// deployPolicy reads the policy section of deploy/base/a2abus.yaml.
func deployPolicy(t *testing.T) guard.Policy {
	t.Helper()
	data, err := os.ReadFile("../../deploy/base/a2abus.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Policy struct {
			Default string
			Rules   []struct {
				Caller      string
				MayCall     *bool `yaml:"may_call"`
				Allow, Deny []string
			}
		}
	}
	if err := yaml.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	if file.Policy.Default != "deny" || len(file.Policy.Rules) == 0 {
		t.Fatalf("deploy/base/a2abus.yaml: policy.default %q with %d rules, want deny and the rules of what the base calls", file.Policy.Default, len(file.Policy.Rules))
	}
	p := guard.Policy{Default: guard.Deny}
	for _, r := range file.Policy.Rules {
		p.Rules = append(p.Rules, guard.Rule{Caller: r.Caller, NoCalls: r.MayCall != nil && !*r.MayCall, Allow: r.Allow, Deny: r.Deny})
	}
	return p
}

func TestPolicyNames(t *testing.T) {
	callers, targets := PolicyNames(guard.Policy{Rules: []guard.Rule{
		{Caller: "Cli", Allow: []string{"*", "SampleAgent"}},
		{Caller: "Bot*", Allow: []string{"Docs"}},
		{Caller: "Muted", NoCalls: true, Allow: []string{"Hidden"}},
		{Caller: "cli", Allow: []string{"sampleagent", "Res?"}},
	}})
	if strings.Join(callers, ",") != "Cli,Muted" || strings.Join(targets, ",") != "SampleAgent,Docs" {
		t.Errorf("PolicyNames = %q, %q; want the exact callers Cli, Muted and the exact targets SampleAgent, Docs", callers, targets)
	}
}
