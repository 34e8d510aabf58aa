// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package converse

import (
	"context"
	"encoding/json"
	"fmt"

	"go.uber.org/zap"
)

// applyControls applies the commands of the control log not applied yet, in
// order, and saves the record once if any was.
func (d *driver) applyControls(ctx context.Context) error {
	var cmds []loggedCommand
	err := d.o.st.retry(ctx, "read the control log", d.c.ID, func(ctx context.Context) (err error) {
		cmds, err = pendingCommands(ctx, d.o.opts.Memory, d.c.ID, d.c.AppliedSeq)
		return err
	})
	if err != nil || len(cmds) == 0 {
		return err
	}
	for _, cmd := range cmds {
		d.c.AppliedSeq = cmd.Seq
		if d.c.State.Terminal() {
			continue
		}
		text := d.apply(ctx, cmd.Command)
		d.emit(EventControl, text, "")
		d.o.log.Info("converse control", zap.String("conversation", d.c.ID), zap.Int64("seq", cmd.Seq),
			zap.String("command", cmd.Kind), zap.String("by", cmd.By), zap.String("result", text))
	}
	return d.save(ctx)
}

// apply applies one command and says what it did.
func (d *driver) apply(ctx context.Context, cmd Command) string {
	c := d.c
	who := ""
	if cmd.By != "" {
		who = " by " + cmd.By
	}
	switch cmd.Kind {
	case CmdPause:
		c.Paused = true
		return "paused" + who
	case CmdResume:
		c.Paused = false
		return "resumed" + who
	case CmdStop:
		reason := "stopped" + who
		_ = d.end(ctx, Stopped, "", reason) // saved again by the caller
		return reason
	case CmdTakeover:
		c.TakenOver = true
		if c.State == ReadyToSend && c.Pending != nil {
			c.Pending.Review = "takeover"
		}
		return "taken over" + who + ": every next message is written by a person (approve --text)"
	case CmdApprove:
		if !c.AwaitingApproval() {
			return fmt.Sprintf("approve%s ignored: nothing waits for approval (state %s)", who, c.Status())
		}
		p := c.Pending
		switch {
		case cmd.Text != "" && c.TakenOver:
			p.Draft, p.How = cmd.Text, SentHuman
		case cmd.Text != "":
			p.Draft, p.How = cmd.Text, SentEdited
		case c.TakenOver || !p.HasDraft:
			return fmt.Sprintf("approve%s ignored: after takeover a message needs --text", who)
		default:
			p.How = SentApproved
		}
		p.Review = ""
		return fmt.Sprintf("approved%s (%s)", who, p.How)
	}
	return fmt.Sprintf("unknown command %q ignored", cmd.Kind)
}

// jsonMarshal encodes v, naming what failed.
func jsonMarshal(v any) (json.RawMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("converse: encode %T: %w", v, err)
	}
	return b, nil
}
