// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package converse

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// Control commands.
const (
	CmdPause    = "pause"
	CmdResume   = "resume"
	CmdStop     = "stop"
	CmdTakeover = "takeover"
	CmdApprove  = "approve"
)

// MessageType is the bus type of a control message.
const MessageType = "converse.control"

// Command is one control of a conversation.
type Command struct {
	// Kind is pause, resume, stop, takeover or approve.
	Kind string `json:"kind"`
	// Text is approve's edited (or, after takeover, human-written) message.
	Text string `json:"text,omitempty"`
	// By names who sent it, for the audit.
	By string `json:"by,omitempty"`
}

// Validate reports whether c is a known command with a text only where one fits.
func (c Command) Validate() error {
	switch c.Kind {
	case CmdPause, CmdResume, CmdStop, CmdTakeover:
		if c.Text != "" {
			return fmt.Errorf("%w: %s takes no text", ErrInvalidCommand, c.Kind)
		}
	case CmdApprove:
	default:
		return fmt.Errorf("%w: %q is not pause, resume, stop, takeover or approve", ErrInvalidCommand, c.Kind)
	}
	return nil
}

// controlMessage is the body of a control message on the bus.
type controlMessage struct {
	Conversation string  `json:"conversation"`
	Seq          int64   `json:"seq"`
	Command      Command `json:"command"`
}

// ControlRoutingKey is the routing key of conversation id's controls:
// converse.control.<id>. The driving process binds its instance queue to it.
func ControlRoutingKey(id string) (string, error) {
	if err := ValidateID(id); err != nil {
		return "", err
	}
	return a2a.ConverseControlRoutingKey(id), nil
}

// ControlQueue is the spec of one orchestrator process's control queue:
// its exclusive instance queue (bus.InstanceQueue) bound to the control
// routing key of every conversation it drives.
func ControlQueue(orchestrator, instanceID string, ids ...string) (bus.QueueSpec, error) {
	keys := make([]string, 0, len(ids))
	for _, id := range ids {
		k, err := ControlRoutingKey(id)
		if err != nil {
			return bus.QueueSpec{}, err
		}
		keys = append(keys, k)
	}
	return bus.InstanceQueue(orchestrator, instanceID, keys...)
}

// Send records cmd in conversation id's control log (working memory: it is
// applied once, in order, even by a driver that starts later) and announces
// it on the bus to the process that drives the conversation. It returns the
// command's sequence number; an error wrapping ErrNotDriven (with the seq)
// means no process drives it now: the command waits in the log.
func Send(ctx context.Context, b bus.Publisher, mem memory.Memory, id string, cmd Command) (int64, error) {
	if err := cmd.Validate(); err != nil {
		return 0, err
	}
	c, err := Load(ctx, mem, id)
	if err != nil {
		return 0, err
	}
	if c.State.Terminal() {
		return 0, fmt.Errorf("%w: conversation %s has ended (%s)", ErrInvalidCommand, id, c.State)
	}
	if cmd.Kind == CmdApprove && !c.AwaitingApproval() {
		return 0, fmt.Errorf("%w: conversation %s waits for no approval (state %s)", ErrInvalidCommand, id, c.Status())
	}
	control, err := memory.ConversationControlSession(id)
	if err != nil {
		return 0, fmt.Errorf("converse: record %s of %s: %w", cmd.Kind, id, err)
	}
	turn, err := mem.AppendTurn(ctx, control, memory.Turn{
		Role: memory.RoleUser, Content: cmd.Text,
		Meta: map[string]string{"command": cmd.Kind, "by": cmd.By},
	})
	if err != nil {
		return 0, fmt.Errorf("converse: record %s of %s: %w", cmd.Kind, id, err)
	}
	key, _ := ControlRoutingKey(id)
	body, err := json.Marshal(controlMessage{Conversation: id, Seq: turn.Seq, Command: cmd})
	if err != nil {
		return turn.Seq, fmt.Errorf("converse: encode %s of %s: %w", cmd.Kind, id, err)
	}
	err = b.Publish(ctx, bus.Message{
		Envelope: a2a.Envelope{Kind: MessageType, MessageID: uuid.NewString(), CorrelationID: id,
			ContentType: "application/json", Timestamp: time.Now(), Body: body},
		RoutingKey: key,
	})
	if errors.Is(err, bus.ErrUnroutable) {
		return turn.Seq, fmt.Errorf("%w: %s (command %d recorded; applied when it is driven again)", ErrNotDriven, id, turn.Seq)
	}
	if err != nil {
		return turn.Seq, fmt.Errorf("converse: announce %s of %s: %w", cmd.Kind, id, err)
	}
	return turn.Seq, nil
}

// pendingCommands reads the commands of id's control log after seq.
func pendingCommands(ctx context.Context, mem memory.Conversations, id string, after int64) ([]loggedCommand, error) {
	control, err := memory.ConversationControlSession(id)
	if err != nil {
		return nil, fmt.Errorf("converse: read the control log of %s: %w", id, err)
	}
	turns, err := mem.Turns(ctx, control, after, 0)
	if err != nil {
		return nil, fmt.Errorf("converse: read the control log of %s: %w", id, err)
	}
	out := make([]loggedCommand, 0, len(turns))
	for _, t := range turns {
		out = append(out, loggedCommand{Seq: t.Seq, Command: Command{Kind: t.Meta["command"], Text: t.Content, By: t.Meta["by"]}})
	}
	return out, nil
}

// loggedCommand is a command of the control log.
type loggedCommand struct {
	Seq int64
	Command
}

func (l loggedCommand) String() string {
	return l.Kind + " #" + strconv.FormatInt(l.Seq, 10)
}
