// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package redislimits

import (
	"context"
	"fmt"
	"sync"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/guard"
)

// Circuit states EnterCircuit's script answers.
const (
	passClosed   = 0 // closed: the call goes through
	passProbe    = 1 // half-open: the call goes through as the one probe
	refuseOpen   = 2 // open: refused for the rest of the cool-down
	refuseProbed = 3 // half-open: refused while another call probes
)

// enterCircuit lets a call through the circuit KEYS[1] (ARGV[1] the
// cool-down in ms, ARGV[2] the probe's lease in ms): {state, wait ms} and,
// when closed, the failures counted. When
// the cool-down of an open circuit has passed and no probe runs, the call
// becomes the probe for one probe lease at most (a probe whose process died
// is replaced after that).
var enterCircuit = goredis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local cooldown = tonumber(ARGV[1])
local opened = tonumber(redis.call('HGET', KEYS[1], 'o') or '0')
if opened == 0 then
  return {0, 0, tonumber(redis.call('HGET', KEYS[1], 'f') or '0')}
end
if now < opened + cooldown then
  return {2, opened + cooldown - now}
end
local probe = tonumber(redis.call('HGET', KEYS[1], 'p') or '0')
if probe > now then
  return {3, probe - now}
end
redis.call('HSET', KEYS[1], 'p', now + tonumber(ARGV[2]))
return {1, 0}
`)

// reportCircuit tells the circuit KEYS[1] a call's outcome: ARGV[1] 0
// success, 1 failure, 2 none; ARGV[2] 1 for the probe; ARGV[3] the failures
// that open it; ARGV[4] how long (ms) an unused circuit is kept. A success
// closes it (or resets its failures); the threshold of consecutive failures
// opens it; the probe's failure opens it again. Outcomes of calls let
// through before it opened are ignored while it is open.
var reportCircuit = goredis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local outcome, probe = tonumber(ARGV[1]), ARGV[2] == '1'
local opened = tonumber(redis.call('HGET', KEYS[1], 'o') or '0')
if outcome == 2 then
  if probe then redis.call('HDEL', KEYS[1], 'p') end
  return 0
end
if opened ~= 0 then
  if not probe then return 0 end
  if outcome == 0 then
    redis.call('DEL', KEYS[1])
    return 0
  end
  redis.call('HSET', KEYS[1], 'o', now)
  redis.call('HDEL', KEYS[1], 'p')
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  return 2
end
if outcome == 0 then
  redis.call('HDEL', KEYS[1], 'f')
  return 0
end
local f = redis.call('HINCRBY', KEYS[1], 'f', 1)
if f >= tonumber(ARGV[3]) then
  redis.call('HSET', KEYS[1], 'o', now)
  redis.call('HDEL', KEYS[1], 'f')
end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return f
`)

// circuitCall prepares the enterCircuit of target's circuit: its key and
// the script's arguments.
func (l *Limits) circuitCall(target string, cooldown time.Duration) (key string, args []any, err error) {
	k, err := memory.CircuitKey(target)
	if err != nil {
		return "", nil, fmt.Errorf("redislimits: enter a circuit: %w: %w", guard.ErrNotShared, err)
	}
	return l.prefix + k, []any{cooldown.Milliseconds(), max(cooldown, l.lease).Milliseconds()}, nil
}

// circuitEntered reads enterCircuit's answer v into p: the refusal, or the
// pass's report.
func (l *Limits) circuitEntered(p *guard.Pass, key, target string, failures int, cooldown time.Duration, v []int64) error {
	if len(v) < 2 {
		return fmt.Errorf("redislimits: enter the circuit of %s: the script answered %d values, want 2 or more", target, len(v))
	}
	clean := v[0] == passClosed && len(v) == 3 && v[2] == 0 // closed, no failure counted
	wait := time.Duration(v[1]) * time.Millisecond
	probe := "0"
	switch v[0] {
	case refuseOpen:
		p.Circuit, p.Wait = "open", wait
		return nil
	case refuseProbed:
		p.Circuit, p.Wait = "half-open", wait
		return nil
	case passProbe:
		probe = "1"
	case passClosed:
	default:
		return fmt.Errorf("redislimits: enter the circuit of %s: the script answered state %d", target, v[0])
	}
	idle := max(time.Hour, 2*cooldown).Milliseconds()
	write := func(ctx context.Context, o guard.Outcome) error {
		if err := reportCircuit.Run(ctx, l.client, []string{key}, int(o), probe, failures, idle).Err(); err != nil {
			return fmt.Errorf("report to the circuit of %s: %w", target, err)
		}
		return nil
	}
	var once sync.Once
	p.Report = func(o guard.Outcome) {
		once.Do(func() {
			if clean && o != guard.OutcomeFailure {
				return // a success resets no failure: nothing to write (one counted since is reset by the next success)
			}
			if probe == "0" {
				l.enqueue("report to a circuit", func(ctx context.Context) error { return write(ctx, o) })
				return
			}
			// The probe's outcome is written at once: the next call must find
			// the circuit closed (or open again), not still probed.
			ctx, cancel := l.bounded()
			defer cancel()
			if err := write(ctx, o); err != nil {
				l.log.Warn("shared limits: the probe's outcome was not written; another probe goes after its lease", zap.Error(err))
			}
		})
	}
	return nil
}
