// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package rabbitmq

import (
	"errors"
	"maps"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/a2abus/a2abus/bus"
)

func TestQueueArgs(t *testing.T) {
	const dlx = "a2a.dlx"
	for _, tc := range []struct {
		kind      bus.QueueKind
		queueType string
		want      queueParams
	}{
		{bus.KindTask, QueueTypeClassic, queueParams{Durable: true,
			Args: amqp.Table{"x-dead-letter-exchange": dlx, "x-max-priority": int32(bus.MaxPriority)}}},
		{bus.KindTask, QueueTypeQuorum, queueParams{Durable: true,
			Args: amqp.Table{"x-dead-letter-exchange": dlx, "x-queue-type": "quorum"}}},
		{bus.KindResponse, QueueTypeClassic, queueParams{Durable: true,
			Args: amqp.Table{"x-dead-letter-exchange": dlx}}},
		{bus.KindResponse, QueueTypeQuorum, queueParams{Durable: true,
			Args: amqp.Table{"x-dead-letter-exchange": dlx, "x-queue-type": "quorum"}}},
		{bus.KindInstance, QueueTypeClassic, queueParams{Exclusive: true, AutoDelete: true}},
		{bus.KindInstance, QueueTypeQuorum, queueParams{Exclusive: true, AutoDelete: true}},
		{bus.KindDead, QueueTypeClassic, queueParams{Durable: true}},
		{bus.KindDead, QueueTypeQuorum, queueParams{Durable: true, Args: amqp.Table{"x-queue-type": "quorum"}}},
	} {
		got, err := queueArgs(tc.kind, tc.queueType, dlx)
		if err != nil {
			t.Errorf("%s/%s: %v", tc.kind, tc.queueType, err)
			continue
		}
		if got.Durable != tc.want.Durable || got.Exclusive != tc.want.Exclusive ||
			got.AutoDelete != tc.want.AutoDelete || !maps.Equal(got.Args, tc.want.Args) {
			t.Errorf("%s/%s: queueArgs = %+v, want %+v", tc.kind, tc.queueType, got, tc.want)
		}
	}
	if _, err := queueArgs(bus.QueueKind(42), QueueTypeClassic, dlx); !errors.Is(err, bus.ErrInvalidMessage) {
		t.Errorf("unknown kind: err = %v, want ErrInvalidMessage", err)
	}
}

// A response queue that expires carries x-expires in whole milliseconds,
// beside the arguments of its kind; one that does not, none.
func TestSpecParamsExpires(t *testing.T) {
	const dlx = "a2a.dlx"
	spec := bus.QueueSpec{Name: "agent.response.X", Kind: bus.KindResponse, Expires: 30 * time.Minute}
	got, err := specParams(spec, QueueTypeQuorum, dlx)
	want := amqp.Table{"x-dead-letter-exchange": dlx, "x-queue-type": "quorum", "x-expires": int64(1_800_000)}
	if err != nil || !got.Durable || !maps.Equal(got.Args, want) {
		t.Errorf("specParams(transient) = %+v, %v; want durable with %v", got, err, want)
	}
	spec.Expires = 0
	if got, _ := specParams(spec, QueueTypeClassic, dlx); got.Args["x-expires"] != nil {
		t.Errorf("specParams(durable) = %+v, want no x-expires", got)
	}
}

func TestTopologyErr(t *testing.T) {
	refusal := &amqp.Error{Code: amqp.PreconditionFailed, Reason: "PRECONDITION_FAILED - inequivalent arg 'x-max-priority'"}
	err := topologyErr(`declare task queue "agent.task.X"`, refusal)
	if !errors.Is(err, bus.ErrTopologyMismatch) || err.Error() !=
		`declare task queue "agent.task.X": bus: topology mismatch: PRECONDITION_FAILED - inequivalent arg 'x-max-priority'` {
		t.Errorf("topologyErr = %v", err)
	}
	other := &amqp.Error{Code: amqp.AccessRefused, Reason: "ACCESS_REFUSED"}
	if err := topologyErr("declare", other); errors.Is(err, bus.ErrTopologyMismatch) || !errors.Is(err, other) {
		t.Errorf("topologyErr(403) = %v, want the refusal wrapped, no mismatch", err)
	}
}

func TestValidateSpec(t *testing.T) {
	long := string(make([]byte, 256))
	for name, spec := range map[string]bus.QueueSpec{
		"no name":       {Kind: bus.KindTask},
		"unknown kind":  {Name: "q"},
		"long name":     {Name: long, Kind: bus.KindTask},
		"empty binding": {Name: "q", Kind: bus.KindInstance, Bindings: []string{""}},
	} {
		if err := validateSpec(spec); !errors.Is(err, bus.ErrInvalidMessage) {
			t.Errorf("%s: validateSpec = %v, want ErrInvalidMessage", name, err)
		}
	}
}

func TestDeploymentConflict(t *testing.T) {
	refusal := func(reason string) error {
		return &amqp.Error{Code: amqp.PreconditionFailed, Reason: "PRECONDITION_FAILED - " + reason}
	}
	for _, tc := range []struct {
		name      string
		err       error
		conflict  bool
		wantOther string
	}{
		{"broker 4", refusal("inequivalent arg 'x-dead-letter-exchange' for queue 'agent.task.X' in vhost '/': received 'b.dlx' but current is 'a.dlx'"), true, "a"},
		{"older wording", refusal("inequivalent arg 'x-dead-letter-exchange' for queue 'agent.task.X' in vhost '/': " +
			"received the value 'b.dlx' of type 'longstr' but current is the value 'a.dlx' of type 'longstr'"), true, "a"},
		{"unknown wording", refusal("inequivalent arg 'x-dead-letter-exchange' for queue 'agent.task.X'"), true, ""},
		{"no dead-lettering", refusal("inequivalent arg 'x-dead-letter-exchange' for queue 'agent.task.X' in vhost '/': received 'b.dlx' but current is none"), false, ""},
		{"priority", refusal("inequivalent arg 'x-max-priority' for queue 'agent.task.X'"), false, ""},
		{"access", &amqp.Error{Code: amqp.AccessRefused, Reason: "ACCESS_REFUSED - 'x-dead-letter-exchange'"}, false, ""},
	} {
		c := deploymentConflict("agent.task.X", "b", "b.dlx", tc.err)
		if (c != nil) != tc.conflict {
			t.Errorf("%s: deploymentConflict = %v, want a conflict: %v", tc.name, c, tc.conflict)
			continue
		}
		if c != nil && (c.Other != tc.wantOther || c.Queue != "agent.task.X" || c.Exchange != "b") {
			t.Errorf("%s: deploymentConflict = %+v, want queue agent.task.X, exchange b, other %q", tc.name, c, tc.wantOther)
		}
	}
}
