// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package redismem

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	goredis "github.com/redis/go-redis/v9"

	"github.com/a2abus/a2abus/memory"
)

// Batch sends ops in one pipeline (one round trip per server, bounded by the
// timeout as one call) and returns their results in op order. It is not a
// transaction: a Cluster spreads the ops over their slots' masters. An AppendTurnOnce runs the append script by its digest
// (EVALSHA); a server that does not have the script (flushed by a restart)
// runs it again with its source (EVAL) in a second round trip, so the
// batch never fails for it.
//
// Batches are group-committed: those called while another pipeline is on
// the wire wait for it and then go out together in the next one, so many
// concurrent callers share round trips (and system calls) while a lone
// caller waits for nobody.
func (m *backend) Batch(ctx context.Context, ops ...memory.Op) ([]memory.OpResult, error) {
	if len(ops) == 0 {
		return nil, m.call(ctx, "batch", func(context.Context) error { return nil })
	}
	if m.closed.Load() {
		return nil, fmt.Errorf("batch: %w", memory.ErrClosed)
	}
	b := &pendingBatch{ops: ops, done: make(chan struct{})}
	m.batches.submit(b)
	select {
	case <-b.done: // flushed by submit itself: ctx's Done (made on first use) is not needed
	default:
		select {
		case <-b.done:
		case <-ctx.Done():
			return nil, fmt.Errorf("batch: %w", ctx.Err()) // its ops may still be applied
		}
	}
	if b.err != nil && m.closed.Load() {
		return nil, fmt.Errorf("batch: %w", memory.ErrClosed)
	}
	if b.err != nil {
		return nil, fmt.Errorf("batch: %w", classify(ctx, b.err))
	}
	return b.results, nil
}

// pendingBatch is one Batch call waiting for its pipeline.
type pendingBatch struct {
	ops     []memory.Op
	cmds    []goredis.Cmder
	appends []appendCall // per op, its script call when it is an AppendTurnOnce
	pipes   []*waitPipe  // per op, the pipeline it went out in
	results []memory.OpResult
	err     error
	done    chan struct{} // closed when results or err is set
}

// maxGroupOps bounds the ops of one group-committed pipeline.
const maxGroupOps = 1024

// batchGroup queues Batch calls. The call that finds no pipeline on the
// wire flushes the queue (its own batch first); if more batches queued up
// meanwhile, a goroutine goes on flushing them, so that no caller waits for
// more than its own pipeline. Each further group goes to a new goroutine,
// whose start leaves more batches the time to join it: one goroutine
// flushing group after group (its stack grown once) sent smaller groups and
// cost no less CPU (docs/performance.md, "The chain, round 6").
type batchGroup struct {
	flush func([]*pendingBatch) // sends a group: the backend's flush, set once

	mu     sync.Mutex
	queue  []*pendingBatch
	flying bool
}

// submit queues b and, when no pipeline is on the wire, flushes.
func (g *batchGroup) submit(b *pendingBatch) {
	g.mu.Lock()
	g.queue = append(g.queue, b)
	if g.flying {
		g.mu.Unlock()
		return
	}
	g.flying = true
	g.mu.Unlock()
	g.drain()
}

// drain flushes the next group of queued batches, then hands the rest to
// a new goroutine, or ends the flight when none are left.
func (g *batchGroup) drain() {
	g.mu.Lock()
	n, ops := 0, 0
	for n < len(g.queue) && (n == 0 || ops+len(g.queue[n].ops) <= maxGroupOps) {
		ops += len(g.queue[n].ops)
		n++
	}
	group := g.queue[:n:n]
	g.queue = g.queue[n:]
	g.mu.Unlock()
	g.flush(group)
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.queue) == 0 {
		g.queue, g.flying = nil, false
		return
	}
	go g.drain()
}

// flush sends the ops of every batch of group in one pipeline (with
// Options.WaitReplicas on a Cluster, one per primary), bounded by the
// timeout and by Close (not by any one caller's context), and hands each
// batch its results or error. With Options.WaitReplicas each pipeline ends
// with a WAIT, and a batch whose writes too few replicas acknowledged fails
// with ErrNotReplicated.
func (m *backend) flush(group []*pendingBatch) {
	defer func() {
		for _, b := range group {
			close(b.done)
		}
	}()
	ctx, cancel := context.WithTimeout(m.root, m.opts.Timeout+m.opts.waitTimeout())
	defer cancel()
	ps := m.newPipes()
	for _, b := range group {
		appends, err := m.prepareAppends(b.ops)
		if err == nil {
			b.pipes, err = ps.forOps(ctx, b.ops, appends)
		}
		if err != nil { // nothing of this batch goes out
			b.err = err
			continue
		}
		b.cmds, b.appends = make([]goredis.Cmder, len(b.ops)), appends
		for i, o := range b.ops {
			b.cmds[i] = m.queue(ctx, b.pipes[i].pipe, o, appendAt(appends, i))
		}
	}
	execErr := ps.exec(ctx)
	if execErr != nil {
		m.rerunUnknownScripts(ctx, group)
	}
	for _, b := range group {
		if b.err == nil {
			b.results, b.err = batchResults(b, execErr)
		}
		if b.err == nil {
			b.err = notReplicated(b.pipes)
		}
	}
}

// rerunUnknownScripts runs again, with EVAL, the append scripts of group
// that a server refused with NOSCRIPT (it had not run them), in one more
// pipeline; their commands are replaced by the new ones.
func (m *backend) rerunUnknownScripts(ctx context.Context, group []*pendingBatch) {
	var pipe goredis.Pipeliner
	for _, b := range group {
		for i, cmd := range b.cmds {
			if c, ok := cmd.(*goredis.Cmd); ok && isNoScript(c.Err()) {
				if pipe == nil {
					pipe = m.client.Pipeline()
				}
				app := appendAt(b.appends, i)
				b.cmds[i] = appendScript.Eval(ctx, pipe, app.keys, app.args...)
			}
		}
	}
	if pipe == nil {
		return
	}
	_, _ = pipe.Exec(ctx) // each command carries its own error
	if m.opts.WaitReplicas == 0 {
		return
	}
	// The rerun had no WAIT after it: its batches fail as not replicated,
	// and run again (by their callers) with the script known and a WAIT.
	for _, b := range group {
		for i, cmd := range b.cmds {
			if c, ok := cmd.(*goredis.Cmd); ok && c.Err() == nil && appendAt(b.appends, i).keys != nil && b.pipes[i].err == nil {
				b.pipes[i].err = fmt.Errorf("%w: %w: an append script run again without WAIT", memory.ErrUnavailable, ErrNotReplicated)
			}
		}
	}
}

// isNoScript reports whether err is Redis's reply to an EVALSHA of a script it does not have.
func isNoScript(err error) bool {
	return err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT")
}

// batchResults reads the replies of b's commands after a pipeline whose
// Exec returned execErr.
func batchResults(b *pendingBatch, execErr error) ([]memory.OpResult, error) {
	for i, cmd := range b.cmds {
		if err := cmd.Err(); err != nil {
			return nil, fmt.Errorf("op %d (%s): %w", i, b.ops[i], err)
		}
	}
	if execErr != nil && !isReplyError(execErr) {
		// go-redis may leave the commands without an error, unread, when
		// a timeout exhausts its retries: the pipeline's error is the answer.
		return nil, execErr
	}
	results := make([]memory.OpResult, len(b.ops))
	for i, cmd := range b.cmds {
		r, err := result(b.ops[i], appendAt(b.appends, i).turn, cmd)
		if err != nil {
			return nil, fmt.Errorf("op %d (%s): %w", i, b.ops[i], err)
		}
		results[i] = r
	}
	return results, nil
}

// isReplyError reports whether err is an error reply of Redis to one
// command (which fails that command's batch only), not a failure of the
// pipeline's connection.
func isReplyError(err error) bool {
	var re goredis.Error
	return errors.As(err, &re) && !unavailable(err) && !errors.Is(err, goredis.ErrClosed)
}

// appendCall is the script call of one AppendTurnOnce op.
type appendCall struct {
	keys []string
	args []any
	turn memory.Turn // as it is appended, but for Seq
}

// prepareAppends encodes the AppendTurnOnce ops of a batch (the only ops
// whose encoding can fail) before anything of the batch is queued, so that
// a batch goes out whole or not at all; the result is indexed like ops
// (read it with appendAt), nil when the batch has none.
func (m *backend) prepareAppends(ops []memory.Op) ([]appendCall, error) {
	var calls []appendCall
	for i, o := range ops {
		if o.Kind != memory.OpAppendTurnOnce {
			continue
		}
		keys, args, turn, err := m.appendArgs(o.Session, o.OnceID, o.Turn)
		if err != nil {
			return nil, fmt.Errorf("op %d (%s): %w", i, o, err)
		}
		if calls == nil {
			calls = make([]appendCall, len(ops))
		}
		calls[i] = appendCall{keys: keys, args: args, turn: turn}
	}
	return calls, nil
}

// appendAt is op i's script call in calls (prepareAppends), the zero
// appendCall when it is not an AppendTurnOnce.
func appendAt(calls []appendCall, i int) appendCall {
	if calls == nil {
		return appendCall{}
	}
	return calls[i]
}

// queue adds the command of one op (memory.Checked validated it) to pipe (app: its script call
// when it is an AppendTurnOnce). The context is only recorded by go-redis
// here; Exec runs the pipeline with its own.
func (m *backend) queue(ctx context.Context, pipe goredis.Pipeliner, o memory.Op, app appendCall) goredis.Cmder {
	switch o.Kind {
	case memory.OpSetIfAbsent:
		return pipe.SetNX(ctx, m.kvKey(o.Key), o.Value, redisTTL(o.TTL))
	case memory.OpDelete:
		return pipe.Del(ctx, m.kvKey(o.Key))
	case memory.OpAppendTurnOnce:
		return appendScript.EvalSha(ctx, pipe, app.keys, app.args...)
	case memory.OpIndexAdd:
		return pipe.ZAdd(ctx, m.indexKey(o.Key), zMember(o.Member, o.Score))
	case memory.OpIndexRemove:
		return pipe.ZRem(ctx, m.indexKey(o.Key), o.Member)
	case memory.OpSet:
		return pipe.Set(ctx, m.kvKey(o.Key), o.Value, redisTTL(o.TTL))
	case memory.OpStreamAdd:
		return pipe.XAdd(ctx, &goredis.XAddArgs{Stream: m.kvKey(o.Key), MaxLen: o.MaxLen, Approx: true,
			Values: []any{memory.StreamField, o.Value}})
	}
	failed := goredis.NewStatusCmd(ctx) // unreachable after memory.Checked: an unknown kind fails its batch
	failed.SetErr(fmt.Errorf("%w: unknown op kind %d", memory.ErrInvalidArgument, int(o.Kind)))
	return failed
}

// result reads the reply of op's command; turn is the appended turn of an AppendTurnOnce.
func result(o memory.Op, turn memory.Turn, cmd goredis.Cmder) (memory.OpResult, error) {
	switch c := cmd.(type) {
	case *goredis.BoolCmd: // SET NX
		return memory.OpResult{Applied: c.Val()}, nil
	case *goredis.Cmd: // the append script
		turn, appended, err := decodeAppend(o.OnceID, turn, c)
		return memory.OpResult{Applied: appended, Turn: turn}, err
	}
	return memory.OpResult{Applied: true}, nil // SET, DEL, ZADD, ZREM, XADD
}
