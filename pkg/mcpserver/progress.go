// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// notifyTimeout bounds the sending of one progress notification, so a slow
// client cannot hold up the caller that delivers the status updates.
const notifyTimeout = 5 * time.Second

// progress sends the status updates of one call's tasks to the client as
// notifications/progress with the call's progress token. Progress counts
// the updates (it must increase; the total is unknown); the message says
// which agent, its state, its percentage when it gave one, and its text.
type progress struct {
	session *mcp.ServerSession
	token   any
	log     *zap.Logger

	mu sync.Mutex // orders the notifications
	n  int
}

// status is the StatusFunc of the call.
func (p *progress) status(taskID string, st *a2a.TaskStatus) {
	if st == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
	defer cancel()
	err := p.session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
		ProgressToken: p.token, Progress: float64(p.n), Message: describeStatus(taskID, st),
	})
	if err != nil {
		p.log.Debug("mcp: progress notification not sent", zap.String("task", taskID), zap.Error(err))
	}
}

// describeStatus is a status update in one line:
// "SampleAgent working 40% (task 1f…): sleeping".
func describeStatus(taskID string, st *a2a.TaskStatus) string {
	var b strings.Builder
	b.WriteString(st.Agent)
	if b.Len() > 0 {
		b.WriteString(" ")
	}
	b.WriteString(strings.ToLower(strings.TrimPrefix(string(st.State), "TASK_STATE_")))
	if st.Progress != nil {
		fmt.Fprintf(&b, " %.0f%%", *st.Progress*100)
	}
	fmt.Fprintf(&b, " (task %s)", taskID)
	if t := a2a.MessageText(st.Message); t != "" {
		b.WriteString(": " + t)
	}
	return b.String()
}
