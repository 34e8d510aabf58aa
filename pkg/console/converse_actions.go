// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package console

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/pkg/converse"
)

// ControlsBy is who a conversation's control sent from the console is
// recorded as being by (the Command's By).
const ControlsBy = "console"

// conversationControls are the controls `a2abus converse` has for a
// conversation, in the order the page shows them.
var conversationControls = []string{converse.CmdPause, converse.CmdResume, converse.CmdStop, converse.CmdTakeover, converse.CmdApprove}

// conversationAction answers POST /conversations/{id}/{action}: pause,
// resume, stop, takeover or approve (with the form's text, if any), sent
// with converse.Send as `a2abus converse <action>` sends it — recorded in
// the conversation's control log and announced to the process that drives
// it. Only when the console was started with Actions (and so a token) and
// Controls; each action is logged (the audit line).
func (c *Console) conversationAction(w http.ResponseWriter, r *http.Request) {
	switch {
	case !c.opts.Actions:
		http.Error(w, "console: read-only (start it with --actions to control conversations)", http.StatusForbidden)
		return
	case c.opts.Controls == nil:
		http.Error(w, "console: conversations cannot be controlled here (no bus to send controls on)", http.StatusNotImplemented)
		return
	case !sameOrigin(r):
		http.Error(w, "console: a cross-site request", http.StatusForbidden)
		return
	}
	id, action := r.PathValue("id"), r.PathValue("action")
	cmd := converse.Command{Kind: action, Text: r.PostFormValue("text"), By: ControlsBy}
	if cmd.Kind != converse.CmdApprove {
		cmd.Text = "" // the other controls take no text; a stray field is not an error
	}
	ctx, cancel := context.WithTimeout(r.Context(), 2*healthCheckTimeout)
	defer cancel()
	seq, err := converse.Send(ctx, c.opts.Controls, c.opts.Memory, id, cmd)
	note := ""
	switch {
	case errors.Is(err, converse.ErrNotDriven):
		note = "; no orchestrator drives it now: it applies when `a2abus converse resume " + id + "` runs"
	case errors.Is(err, converse.ErrNotFound):
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	case errors.Is(err, converse.ErrInvalidCommand):
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	case err != nil:
		c.fail(w, action+" conversation "+id, err)
		return
	}
	c.log.Info("console: conversation control sent", zap.String("action", action), zap.String("conversation", id), zap.Int64("seq", seq),
		zap.Bool("driven", note == ""), zap.Bool("text", cmd.Text != ""), zap.String("remote", r.RemoteAddr))
	done := action + " sent to " + id + " (control #" + strconv.FormatInt(seq, 10) + ")" + note
	http.Redirect(w, r, "/workflows?conversation="+url.QueryEscape(id)+"&done="+url.QueryEscape(done), http.StatusSeeOther)
}
