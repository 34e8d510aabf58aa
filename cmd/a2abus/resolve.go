package main

import (
	"context"
	"time"

	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// patientResolver resolves through a directory that has just started: an
// agent it does not know yet gets up to wait for its answer to the
// directory's discovery.query before the call is refused as AGENT_NOT_FOUND.
type patientResolver struct {
	ctx  context.Context
	dir  *directory.Directory
	wait time.Duration
}

// Resolve implements caller.Resolver.
func (r patientResolver) Resolve(agent, skill string) (string, error) {
	deadline := time.NewTimer(r.wait)
	defer deadline.Stop()
	for {
		name, err := r.dir.Resolve(agent, skill)
		if a2a.CodeOf(err) != a2a.CodeAgentNotFound {
			return name, err
		}
		select {
		case <-r.dir.Changes():
		case <-deadline.C:
			return name, err
		case <-r.ctx.Done():
			return name, err
		}
	}
}
