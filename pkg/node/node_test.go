package node

import (
	"context"
	"errors"
	"testing"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
)

func TestOpenRefusesAMissingOrBadConfiguration(t *testing.T) {
	ctx := t.Context()
	if _, err := Open(ctx, nil, "x", nil); !errors.Is(err, ErrNoConfig) {
		t.Errorf("Open(nil) = %v, want ErrNoConfig", err)
	}
	bad := config.Default()
	bad.Agent.Concurrency = -1
	if _, err := Open(ctx, bad, "x", nil); !errors.Is(err, config.ErrInvalid) {
		t.Errorf("Open(bad) = %v, want config.ErrInvalid", err)
	}
	if _, err := OpenBus(ctx, bad, "x", nil); !errors.Is(err, config.ErrInvalid) {
		t.Errorf("OpenBus(bad) = %v, want config.ErrInvalid", err)
	}
}

// The embedded defaults assemble every part; a stack without memory builds
// directories and agents but refuses a caller with a typed error.
func TestNodeBuildsEveryPart(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, config.Default(), "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Caller("Primary", nil); err != nil {
		t.Errorf("caller: %v", err)
	}
	if _, err := s.Agent(a2a.AgentCard{Name: "Echo", Version: "1"}); err != nil {
		t.Errorf("agent: %v", err)
	}
	for _, role := range []DirectoryRole{Lister, Keeper, Vetter} {
		if _, err := s.Directory(role); err != nil {
			t.Errorf("directory %d: %v", role, err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	busOnly, err := OpenBus(ctx, config.Default(), "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = busOnly.Close() }()
	if busOnly.Memory != nil {
		t.Fatal("OpenBus opened a memory")
	}
	if _, err := busOnly.Caller("Primary", nil); !errors.Is(err, caller.ErrInvalidOptions) {
		t.Errorf("a caller without memory: %v, want caller.ErrInvalidOptions", err)
	}
	d, stop, err := busOnly.StartDirectory(ctx, Lister)
	if err != nil {
		t.Fatal(err)
	}
	stop()
	if d == nil {
		t.Fatal("no directory")
	}
}

// The configuration's defaults agree with the defaults of the parts they
// configure, where both have one (config cannot import the parts).
func TestConfigDefaultsMatchTheParts(t *testing.T) {
	if config.DefaultMaxAgents != directory.DefaultMaxAgents {
		t.Errorf("directory.max_agents defaults to %d, directory.Options.MaxAgents to %d", config.DefaultMaxAgents, directory.DefaultMaxAgents)
	}
	if config.DefaultMaxTaskDuration != agent.DefaultMaxTaskDuration {
		t.Errorf("agent.max_task_duration defaults to %s, agent.Options.MaxTaskDuration to %s", config.DefaultMaxTaskDuration, agent.DefaultMaxTaskDuration)
	}
	if config.DefaultMemoryRetryBound != caller.DefaultMemoryRetryBound {
		t.Errorf("caller.memory_retry_bound defaults to %s, caller.Options.MemoryRetryBound to %s", config.DefaultMemoryRetryBound, caller.DefaultMemoryRetryBound)
	}
}
