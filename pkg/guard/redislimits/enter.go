// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package redislimits

import (
	"fmt"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/a2abus/a2abus/pkg/guard"
)

// Enter takes a slot of caller's max (max > 0) and a pass through target's
// circuit (failures > 0). Most calls make no round trip: the slot comes
// from this process's block (slots.go) and the circuit's state from its
// copy (circuit.go). Redis is asked, in one pipeline, only for what they
// cannot answer: more slots, a circuit not read yet or whose cool-down is
// over (the call may become the probe).
func (l *Limits) Enter(caller, target string, max, failures int, cooldown time.Duration) (guard.Pass, error) {
	var p guard.Pass
	if max <= 0 && failures <= 0 {
		return p, nil
	}
	now := time.Now()
	h := &claim{l: l}
	var (
		ask  *circuit // asked of Redis
		take *slotTake
	)
	l.mu.Lock()
	if failures > 0 {
		c, err := l.circuitLocked(target, failures, cooldown)
		if err != nil {
			l.mu.Unlock()
			return p, err
		}
		c.used = now
		switch state, wait := c.at(now); state {
		case passClosed:
			h.c, h.clean = c, c.failures == 0
		case refuseOpen, refuseProbed:
			l.mu.Unlock()
			p.Circuit, p.Wait = circuitName(state), wait
			return p, nil
		default:
			ask = c
		}
	}
	if max > 0 {
		b, err := l.blockLocked(caller)
		if err != nil {
			l.mu.Unlock()
			return guard.Pass{}, err
		}
		if id, ok := b.popLocked(now); ok {
			h.b, h.slot = b, id
		} else {
			take = l.takeLocked(caller, b, max, now)
		}
	}
	l.mu.Unlock()
	if ask == nil && take == nil {
		p.Claim = h
		return p, nil
	}
	return l.enterRedis(caller, target, h, ask, take)
}

// enterRedis asks Redis, in one pipeline, for the circuit ask (nil: known)
// and the slots take (nil: h has its slot).
func (l *Limits) enterRedis(caller, target string, h *claim, ask *circuit, take *slotTake) (guard.Pass, error) {
	var (
		p                   guard.Pass
		slotCmd, circuitCmd *goredis.Cmd
		circuitArgs         []any
	)
	ctx, cancel := l.bounded()
	defer cancel()
	pipe := l.client.Pipeline()
	if take != nil {
		slotCmd = takeSlots.EvalSha(ctx, pipe, []string{take.b.key}, take.args...)
	}
	if ask != nil {
		l.mu.Lock()
		circuitArgs = l.enterArgs(ask, false)
		l.mu.Unlock()
		circuitCmd = enterCircuit.EvalSha(ctx, pipe, []string{ask.key}, circuitArgs...)
	}
	sent := time.Now()
	_, _ = pipe.Exec(ctx) // each command's error is read below
	// A script Redis does not know yet (first use, or after a restart) did
	// not run: it runs again alone, loading it.
	if slotCmd != nil && isNoScript(slotCmd.Err()) {
		slotCmd = takeSlots.Run(ctx, l.client, []string{take.b.key}, take.args...)
	}
	if circuitCmd != nil && isNoScript(circuitCmd.Err()) {
		circuitCmd = enterCircuit.Run(ctx, l.client, []string{ask.key}, circuitArgs...)
	}
	at := time.Now()

	// The circuit first: slots taken for a call it refuses stay in the block.
	refused := false
	if circuitCmd != nil {
		v, err := circuitCmd.Int64Slice()
		if err := checkLook(v, err); err != nil {
			if take != nil {
				if k, err := slotCmd.Int(); err == nil {
					l.slotsTaken(take, k, sent, false)
				} else {
					l.takeFailed(take)
				}
			}
			if h.b != nil {
				l.releaseSlot(h.b, h.slot)
			}
			return guard.Pass{}, fmt.Errorf("redislimits: enter the circuit of %s: %w", target, err)
		}
		l.circuitEntered(ask, v, at)
		switch v[0] {
		case passClosed:
			h.c, h.clean = ask, v[2] == 0
		case passProbe:
			h.c, h.probe = ask, true
		default:
			refused = true
			p.Circuit, p.Wait = circuitName(v[0]), time.Duration(v[1])*time.Millisecond
		}
	}
	if take != nil {
		k, err := slotCmd.Int()
		if err != nil {
			l.takeFailed(take)
			if h.c != nil {
				h.Finish(guard.OutcomeNone) // the probe goes back
			}
			return guard.Pass{}, fmt.Errorf("redislimits: take a slot of %s: %w", caller, err)
		}
		b, id := take.b, l.slotsTaken(take, k, sent, !refused)
		if id == "" && !refused {
			b, id = l.afterBusy(take)
		}
		if id != "" {
			h.b, h.slot = b, id
		} else if !refused {
			p.Busy = true
		}
	}
	if refused {
		if h.b != nil {
			l.releaseSlot(h.b, h.slot)
		}
		return p, nil
	}
	if h.b != nil || h.c != nil {
		p.Claim = h
	}
	return p, nil
}

// circuitName is a refusing state's name, as guard.Pass says it.
func circuitName(state int64) string {
	if state == refuseProbed {
		return "half-open"
	}
	return "open"
}

// claim is what Enter took: a slot of block b (nil: none) and a pass
// through circuit c (nil: none).
type claim struct {
	l     *Limits
	b     *block
	slot  string
	c     *circuit
	clean bool // c was closed with no failure counted
	probe bool // the call is c's probe
}

// Finish gives the slot back to the block and tells the circuit o.
func (h *claim) Finish(o guard.Outcome) {
	if h.b != nil {
		h.l.releaseSlot(h.b, h.slot)
	}
	if h.c != nil {
		h.l.report(h, o)
	}
}

// isNoScript reports whether err is Redis's NOSCRIPT: EVALSHA of a script it does not hold.
func isNoScript(err error) bool {
	return err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT")
}
