// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package soak

import (
	"fmt"
	"os"
	"strconv"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/pkg/node"
)

// Environment variables the orchestrator sets for its child processes
// (besides the A2ABUS_* configuration).
const (
	envProc      = "SOAK_PROC"       // the process id in the soak (e.g. agent1.2: agent 1, second start)
	envName      = "SOAK_NAME"       // the agent's or caller's name
	envPeer      = "SOAK_PEER"       // an agent's peer, which its nested skill calls
	envAgents    = "SOAK_AGENT_LIST" // callers: the agents' names, comma-separated
	envLedger    = "SOAK_LEDGER"     // the Redis URL of the ledger
	envTotal     = "SOAK_TASKS"      // callers: the run's task budget
	envSeed      = "SOAK_SEED"       // callers: the seed of the tasks' mix
	envRun       = "SOAK_RUN"        // a run id, part of every session id
	envBatch     = "SOAK_BATCH"      // one-shot callers: how many tasks they invoke
	envWorkers   = "SOAK_WORKERS"    // always-on callers: tasks in flight at once
	envCallerMod = "SOAK_CALLER"     // callers: always or oneshot
	envPace      = "SOAK_PACE"       // always-on callers: the least time between two tasks of one worker
)

// childConfig loads the A2ABUS_* configuration and a logger for a child process.
func childConfig() (*config.Config, *zap.Logger, error) {
	cfg, err := config.Load(config.LoadOptions{SearchDirs: []string{}})
	if err != nil {
		return nil, nil, err
	}
	log, err := node.NewLogger(cfg.Log, nil)
	if err != nil {
		return nil, nil, err
	}
	return cfg, log.With(zap.String("proc", os.Getenv(envProc))), nil
}

// mustEnv returns the variables names, in order, or an error naming the first one unset.
func mustEnv(names ...string) ([]string, error) {
	vs := make([]string, len(names))
	for i, name := range names {
		if vs[i] = os.Getenv(name); vs[i] == "" {
			return nil, fmt.Errorf("soak: %s is not set", name)
		}
	}
	return vs, nil
}

// envInt returns the integer variable name, or def when it is unset.
func envInt(name string, def int) (int, error) {
	v := os.Getenv(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("soak: %s: want an integer, got %q", name, v)
	}
	return n, nil
}
