// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package workflows holds the example workflows shipped with a2abus
// (business-case.yaml: a market-entry business case on the reference agents),
// embedded so that the demo and an Orchestrator started without
// --workflows have them.
package workflows

import (
	"embed"
	"fmt"
	"io/fs"

	"github.com/a2abus/a2abus/pkg/workflow"
)

//go:embed *.yaml
var files embed.FS

// BusinessCase is the name of the business-case workflow.
const BusinessCase = "business-case"

// Load parses every shipped workflow, in file name order.
func Load() ([]*workflow.Workflow, error) {
	names, err := fs.Glob(files, "*.yaml")
	if err != nil {
		return nil, fmt.Errorf("workflows: %w", err)
	}
	var out []*workflow.Workflow
	for _, n := range names {
		data, err := files.ReadFile(n)
		if err != nil {
			return nil, fmt.Errorf("workflows: read %s: %w", n, err)
		}
		w, err := workflow.Parse("workflows/"+n, data)
		if err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, nil
}
