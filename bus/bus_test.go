// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package bus

import (
	"errors"
	"testing"

	"github.com/a2abus/a2abus/pkg/a2a"
)

type recAcker struct{ acks, nacks, dead, released int }

func (r *recAcker) Ack() error     { r.acks++; return nil }
func (r *recAcker) Release() error { r.released++; return nil }
func (r *recAcker) Nack(requeue bool) error {
	if requeue {
		r.nacks++
	} else {
		r.dead++
	}
	return nil
}

func TestDeliverySettlesOnce(t *testing.T) {
	a := &recAcker{}
	d := NewDelivery(Message{Envelope: a2a.Envelope{MessageID: "m"}}, "q", 5, 5, a)
	if !d.LastAttempt() || d.Exhausted() {
		t.Fatal("attempt 5 of 5 is the last, not past it")
	}
	if err := d.Ack(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []func() error{d.Ack, d.Nack, d.DeadLetter, d.Release} {
		if err := f(); !errors.Is(err, ErrAlreadySettled) {
			t.Fatalf("second settle: %v", err)
		}
	}
	if a.acks != 1 || a.nacks != 0 || a.dead != 0 || a.released != 0 || !d.Settled() {
		t.Fatalf("acker = %+v", a)
	}
}

func TestSpecs(t *testing.T) {
	s, err := TaskQueue("SampleAgent")
	if err != nil || s.Name != "agent.task.SampleAgent" || s.Kind != KindTask || s.Validate() != nil {
		t.Fatalf("TaskQueue = %+v, %v", s, err)
	}
	if _, err := ResponseQueue("a.b"); !errors.Is(err, a2a.ErrInvalidName) {
		t.Fatalf("ResponseQueue accepted a dotted name: %v", err)
	}
	if (QueueSpec{Name: "x"}).Validate() == nil {
		t.Fatal("spec without kind accepted")
	}
	if DeadQueue("a2a").Name != "a2a.dead" {
		t.Fatal("dead queue name")
	}
	o := ConsumeOptions{}.Normalize()
	if o.Concurrency != 1 || o.MaxAttempts != DefaultMaxAttempts {
		t.Fatalf("Normalize = %+v", o)
	}
}
