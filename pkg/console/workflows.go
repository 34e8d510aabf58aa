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
	// Controls are the conversation's controls shown (with Actions and
	// Controls, while it has not ended); Done says what the last one did.
	Controls []string
	Done     string
	// Actions is whether conversations can be controlled here.
	Actions bool
}

// workflowsPage shows a workflow run (?run=) with its steps, outcomes and
// confidences, and an orchestrated conversation (?conversation=) with its
// transcript and events; with Actions, the conversation's controls (a
// workflow run has none: `a2abus workflow` has no control of a run).
func (c *Console) workflowsPage(w http.ResponseWriter, r *http.Request) {
	d := workflowsData{RunID: r.URL.Query().Get("run"), ConversationID: r.URL.Query().Get("conversation"),
		Actions: c.opts.Actions && c.opts.Controls != nil}
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
		if cv != nil && !cv.State.Terminal() && d.Actions {
			d.Controls = conversationControls
			if !cv.AwaitingApproval() {
				d.Controls = d.Controls[:len(d.Controls)-1] // approve only when a draft waits
			}
		}
		d.Done = r.URL.Query().Get("done")
	}
	c.render(w, "workflows", "Workflows and conversations", d)
}
