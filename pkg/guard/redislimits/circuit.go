// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package redislimits

import (
	"context"
	"fmt"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/guard"
)

// Circuit states the scripts answer, {state, wait ms, failures counted}.
const (
	passClosed   = 0 // closed: the call goes through
	passProbe    = 1 // half-open, no probe running: enterCircuit makes the call the probe
	refuseOpen   = 2 // open: refused for the rest of the cool-down
	refuseProbed = 3 // half-open: refused while another call probes
)

// circuitLook is the Lua function of the state of the circuit KEYS[1] at
// now with a cool-down of cooldown ms: {state, wait ms, failures counted}.
const circuitLook = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function look(cooldown)
  local h = redis.call('HMGET', KEYS[1], 'o', 'f', 'p')
  local opened = tonumber(h[1] or '0')
  if opened == 0 then
    return {0, 0, tonumber(h[2] or '0')}
  end
  if now < opened + cooldown then
    return {2, opened + cooldown - now, 0}
  end
  local probe = tonumber(h[3] or '0')
  if probe > now then
    return {3, probe - now, 0}
  end
  return {1, 0, 0}
end
`

// enterCircuit answers the state of the circuit KEYS[1] (ARGV[1] the
// cool-down in ms) and, unless ARGV[3] is 1 (a look only), makes the call
// the probe when a probe is due, for one probe lease (ARGV[2] ms) at most:
// a probe whose process died is replaced after that.
var enterCircuit = goredis.NewScript(circuitLook + `
local s = look(tonumber(ARGV[1]))
if s[1] == 1 and ARGV[3] ~= '1' then
  redis.call('HSET', KEYS[1], 'p', now + tonumber(ARGV[2]))
end
return s
`)

// reportCircuit tells the circuit KEYS[1] a call's outcome: ARGV[1] 0
// success, 1 failure, 2 none; ARGV[2] 1 for the probe; ARGV[3] the failures
// that open it; ARGV[4] how long (ms) an unused circuit is kept; ARGV[5]
// the cool-down (ms). A success closes it (or resets its failures); the
// threshold of consecutive failures opens it; the probe's failure opens it
// again. Outcomes of calls let through before it opened are ignored while
// it is open. It answers the state after, as enterCircuit does.
var reportCircuit = goredis.NewScript(circuitLook + `
local cooldown = tonumber(ARGV[5])
local outcome, probe = tonumber(ARGV[1]), ARGV[2] == '1'
local opened = tonumber(redis.call('HGET', KEYS[1], 'o') or '0')
if outcome == 2 then
  if probe then redis.call('HDEL', KEYS[1], 'p') end
  return look(cooldown)
end
if opened ~= 0 then
  if not probe then return look(cooldown) end
  if outcome == 0 then
    redis.call('DEL', KEYS[1])
    return look(cooldown)
  end
  redis.call('HSET', KEYS[1], 'o', now)
  redis.call('HDEL', KEYS[1], 'p')
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  return look(cooldown)
end
if outcome == 0 then
  redis.call('HDEL', KEYS[1], 'f')
  return look(cooldown)
end
local f = redis.call('HINCRBY', KEYS[1], 'f', 1)
if f >= tonumber(ARGV[3]) then
  redis.call('HSET', KEYS[1], 'o', now)
  redis.call('HDEL', KEYS[1], 'f')
end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return look(cooldown)
`)

// circuitKeep is how long after its last call a circuit's copy is kept
// and refreshed.
const circuitKeep = time.Minute

// circuit is this process's copy of a shared circuit, read when first
// used, refreshed every CircuitRefresh while used, and set by the answers
// to this process's own reports and probes. l.mu guards it.
type circuit struct {
	key      string
	opensAt  int           // the failures that open it (limits.breaker_failures)
	cooldown time.Duration // limits.breaker_cooldown
	known    bool          // read at least once
	state    int64         // passClosed, passProbe (a probe is due), refuseOpen, refuseProbed
	failures int64         // counted while closed
	until    time.Time     // refuseOpen: the cool-down's end; refuseProbed: the probe lease's
	used     time.Time     // the last Enter
}

// circuitLocked returns target's circuit copy, made (unread) on first use.
func (l *Limits) circuitLocked(target string, opensAt int, cooldown time.Duration) (*circuit, error) {
	c := l.circuits[target]
	if c == nil {
		k, err := memory.CircuitKey(target)
		if err != nil {
			return nil, fmt.Errorf("redislimits: enter a circuit: %w: %w", guard.ErrNotShared, err)
		}
		if l.circuits == nil {
			l.circuits = map[string]*circuit{}
		}
		c = &circuit{key: l.prefix + k}
		l.circuits[target] = c
		l.startLocked() // the writer refreshes it
	}
	c.opensAt, c.cooldown = opensAt, cooldown
	return c, nil
}

// at is the copy's state at now: passProbe when Redis must be asked (not
// read yet, or a cool-down or a probe's lease over), and the wait of a refusal.
func (c *circuit) at(now time.Time) (int64, time.Duration) {
	switch {
	case !c.known:
		return passProbe, 0
	case c.state == refuseOpen || c.state == refuseProbed:
		if wait := c.until.Sub(now); wait > 0 {
			return c.state, wait
		}
		return passProbe, 0
	}
	return c.state, 0
}

// setLocked sets the copy to a script's answer v, received at at.
func (c *circuit) setLocked(v []int64, at time.Time) {
	c.known, c.state, c.failures = true, v[0], v[2]
	c.until = at.Add(time.Duration(v[1]) * time.Millisecond)
}

// checkLook checks a script's answer about a circuit.
func checkLook(v []int64, err error) error {
	switch {
	case err != nil:
		return err
	case len(v) != 3:
		return fmt.Errorf("the script answered %d values, want 3", len(v))
	case v[0] < passClosed || v[0] > refuseProbed:
		return fmt.Errorf("the script answered state %d", v[0])
	}
	return nil
}

// probeLease is how long a probe holds a half-open circuit at most.
func (l *Limits) probeLease(cooldown time.Duration) time.Duration { return max(cooldown, l.lease) }

// enterArgs are enterCircuit's arguments for c (look: do not take the probe).
func (l *Limits) enterArgs(c *circuit, look bool) []any {
	peek := "0"
	if look {
		peek = "1"
	}
	return []any{c.cooldown.Milliseconds(), l.probeLease(c.cooldown).Milliseconds(), peek}
}

// circuitEntered sets c to enterCircuit's answer v at at; a call that
// became the probe leaves it half-open for this process's other calls.
func (l *Limits) circuitEntered(c *circuit, v []int64, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	c.setLocked(v, at)
	if v[0] == passProbe {
		c.state, c.until = refuseProbed, at.Add(l.probeLease(c.cooldown))
	}
}

// report tells h's circuit its call's outcome o. A failure counts on this
// process's copy at once (it opens at the threshold); the write goes to the
// writer, but for the probe's, written at once (the next call must find
// the circuit closed or open again, not still probed). The answer of
// either sets the copy.
func (l *Limits) report(h *claim, o guard.Outcome) {
	c := h.c
	if h.clean && o != guard.OutcomeFailure {
		return // a success resets no failure: nothing to write (one counted since is reset by the next success)
	}
	l.mu.Lock()
	if o == guard.OutcomeFailure && c.state == passClosed {
		if c.failures++; c.failures >= int64(c.opensAt) {
			c.state, c.failures, c.until = refuseOpen, 0, time.Now().Add(c.cooldown)
		}
	}
	probe, failures, cooldown := "0", c.opensAt, c.cooldown
	l.mu.Unlock()
	if h.probe {
		probe = "1"
	}
	idle := max(time.Hour, 2*cooldown).Milliseconds()
	write := func(ctx context.Context) error {
		v, err := reportCircuit.Run(ctx, l.client, []string{c.key}, int(o), probe, failures, idle, cooldown.Milliseconds()).Int64Slice()
		if err := checkLook(v, err); err != nil {
			return fmt.Errorf("report to the circuit %s: %w", c.key, err)
		}
		at := time.Now()
		l.mu.Lock()
		c.setLocked(v, at)
		l.mu.Unlock()
		return nil
	}
	if !h.probe {
		l.enqueue("report to a circuit", write)
		return
	}
	ctx, cancel := l.bounded()
	defer cancel()
	if err := write(ctx); err != nil {
		l.log.Warn("shared limits: the probe's outcome was not written; another probe goes after its lease", zap.Error(err))
	}
}

// refreshCircuits reads again, in one pipeline, every circuit used in the
// last circuitKeep, and forgets the others.
func (l *Limits) refreshCircuits(ctx context.Context) error {
	now := time.Now()
	l.mu.Lock()
	cs := make([]*circuit, 0, len(l.circuits))
	args := make([][]any, 0, len(l.circuits))
	for target, c := range l.circuits {
		if now.Sub(c.used) > circuitKeep {
			delete(l.circuits, target)
			continue
		}
		cs = append(cs, c)
		args = append(args, l.enterArgs(c, true))
	}
	l.mu.Unlock()
	if len(cs) == 0 {
		return nil
	}
	pipe := l.client.Pipeline()
	cmds := make([]*goredis.Cmd, len(cs))
	for i, c := range cs {
		cmds[i] = enterCircuit.EvalSha(ctx, pipe, []string{c.key}, args[i]...)
	}
	_, _ = pipe.Exec(ctx) // each command's error is read below
	at := time.Now()
	for i, c := range cs {
		if isNoScript(cmds[i].Err()) {
			cmds[i] = enterCircuit.Run(ctx, l.client, []string{c.key}, args[i]...)
		}
		v, err := cmds[i].Int64Slice()
		if err := checkLook(v, err); err != nil {
			return fmt.Errorf("refresh the circuit %s: %w", c.key, err)
		}
		l.mu.Lock()
		c.setLocked(v, at)
		l.mu.Unlock()
	}
	return nil
}
