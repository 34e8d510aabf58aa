// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package mcpserver

import "github.com/a2abus/a2abus/pkg/tools"

// SetTools is the ToolsFunc of the a2abus tool set, the one the chat loop
// uses: tools.New(base) bound to each session (base.SessionID is replaced),
// its status updates (tools.Deps.OnStatus) sent as MCP progress
// notifications.
func SetTools(base tools.Deps) ToolsFunc {
	return func(sessionID string, progress StatusFunc) (Tools, error) {
		d := base
		d.SessionID = sessionID
		if progress != nil {
			d.OnStatus = progress
		}
		return tools.New(d)
	}
}
