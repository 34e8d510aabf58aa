// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package console

import (
	"net/http"

	"github.com/a2abus/a2abus/pkg/converse"
	"github.com/a2abus/a2abus/pkg/workflow"
)

type workflowsData struct {
	RunID, ConversationID string
	Run                   *workflow.Report
	RunErr                string
	Conversation          *converse.Conversation
	ConversationErr       string
}

// workflowsPage shows a workflow run (?run=) with its steps, outcomes and
// confidences, and an orchestrated conversation (?conversation=) with its
// transcript and events. Read-only: the controls stay with the CLI.
func (c *Console) workflowsPage(w http.ResponseWriter, r *http.Request) {
	d := workflowsData{RunID: r.URL.Query().Get("run"), ConversationID: r.URL.Query().Get("conversation")}
	ctx := r.Context()
	if d.RunID != "" {
		rep, err := workflow.Show(ctx, c.opts.Memory, d.RunID)
		if err != nil {
			d.RunErr = err.Error()
		}
		d.Run = rep
	}
	if d.ConversationID != "" {
		cv, err := converse.Load(ctx, c.opts.Memory, d.ConversationID)
		if err != nil {
			d.ConversationErr = err.Error()
		}
		d.Conversation = cv
	}
	c.render(w, "workflows", "Workflows and conversations", d)
}
