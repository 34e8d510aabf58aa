// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package redislimits

import (
	"errors"
	"fmt"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/a2abus/a2abus/pkg/guard"
)

// Enter takes a slot of caller's max (max > 0) and a pass through target's
// circuit (failures > 0) in one round trip: both scripts in one pipeline.
func (l *Limits) Enter(caller, target string, max, failures int, cooldown time.Duration) (guard.Pass, error) {
	var (
		p                         guard.Pass
		slotKey, slot, circuitKey string
		slotArgs, circuitArgs     []any
		slotCmd, circuitCmd       *goredis.Cmd
		err                       error
	)
	if max > 0 {
		if slotKey, slot, slotArgs, err = l.slotCall(caller, max); err != nil {
			return p, err
		}
	}
	if failures > 0 {
		if circuitKey, circuitArgs, err = l.circuitCall(target, cooldown); err != nil {
			return p, err
		}
	}
	if max <= 0 && failures <= 0 {
		return p, nil
	}
	ctx, cancel := l.bounded()
	defer cancel()
	pipe := l.client.Pipeline()
	if max > 0 {
		slotCmd = takeSlot.EvalSha(ctx, pipe, []string{slotKey}, slotArgs...)
	}
	if failures > 0 {
		circuitCmd = enterCircuit.EvalSha(ctx, pipe, []string{circuitKey}, circuitArgs...)
	}
	_, _ = pipe.Exec(ctx) // each command's error is read below
	// A script Redis does not know yet (first use, or after a restart) did
	// not run: it runs again alone, loading it.
	if slotCmd != nil && isNoScript(slotCmd.Err()) {
		slotCmd = takeSlot.Run(ctx, l.client, []string{slotKey}, slotArgs...)
	}
	if circuitCmd != nil && isNoScript(circuitCmd.Err()) {
		circuitCmd = enterCircuit.Run(ctx, l.client, []string{circuitKey}, circuitArgs...)
	}
	if slotCmd != nil {
		n, err := slotCmd.Int()
		if err != nil {
			err = fmt.Errorf("redislimits: take a slot of %s: %w", caller, err)
			return p, errors.Join(err, l.giveBackCircuit(circuitCmd, &p, circuitKey, target, failures, cooldown))
		}
		l.removed(slotKey, slotArgs[3:]) // the script removed this process's released slots first
		if n == 0 {
			p.Busy = true
		} else {
			p.Release = l.slotTaken(slotKey, slot)
		}
	}
	if circuitCmd != nil {
		v, err := circuitCmd.Int64Slice()
		if err == nil {
			err = l.circuitEntered(&p, circuitKey, target, failures, cooldown, v)
		}
		if err != nil {
			if p.Release != nil {
				p.Release()
			}
			return guard.Pass{}, fmt.Errorf("redislimits: enter the circuit of %s: %w", target, err)
		}
	}
	return p, nil
}

// giveBackCircuit gives back a circuit pass taken in a pipeline whose slot
// failed, so that a probe is not held by a call that never goes.
func (l *Limits) giveBackCircuit(cmd *goredis.Cmd, p *guard.Pass, key, target string, failures int, cooldown time.Duration) error {
	if cmd == nil {
		return nil
	}
	v, err := cmd.Int64Slice()
	if err != nil {
		return nil // it did not run
	}
	if err := l.circuitEntered(p, key, target, failures, cooldown, v); err != nil {
		return err
	}
	if p.Report != nil {
		p.Report(guard.OutcomeNone)
	}
	return nil
}

// isNoScript reports whether err is Redis's NOSCRIPT: EVALSHA of a script it does not hold.
func isNoScript(err error) bool {
	return err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT")
}
