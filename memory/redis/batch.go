package redis

import (
	"context"
	"fmt"

	goredis "github.com/redis/go-redis/v9"

	"github.com/a2abus/a2abus/memory"
)

// Batch validates ops, then sends them in one pipeline (one round trip per
// server, bounded by the timeout as one call) and returns their results in
// op order. It is not a transaction: a Cluster spreads the ops over their
// slots' masters. An AppendTurnOnce runs the append script with EVAL (Redis
// caches the compiled script), so a script flushed by a restart never fails
// the batch.
func (m *Memory) Batch(ctx context.Context, ops ...memory.Op) ([]memory.OpResult, error) {
	if err := memory.ValidateOps(ops); err != nil {
		return nil, fmt.Errorf("batch: %w", err)
	}
	pipe := m.client.Pipeline()
	cmds := make([]goredis.Cmder, len(ops))
	for i, o := range ops {
		cmd, err := m.queue(ctx, pipe, o)
		if err != nil {
			return nil, fmt.Errorf("batch op %d (%s): %w", i, o, err)
		}
		cmds[i] = cmd
	}
	results := make([]memory.OpResult, len(ops))
	err := m.call(ctx, "batch", func(ctx context.Context) error {
		if len(ops) == 0 {
			return nil
		}
		_, execErr := pipe.Exec(ctx)
		for i, cmd := range cmds {
			if err := cmd.Err(); err != nil {
				return fmt.Errorf("op %d (%s): %w", i, ops[i], err)
			}
		}
		if execErr != nil {
			// go-redis may leave the commands without an error, unread, when
			// a timeout exhausts its retries: the pipeline's error is the answer.
			return execErr
		}
		for i, cmd := range cmds {
			r, err := result(ops[i], cmd)
			if err != nil {
				return fmt.Errorf("op %d (%s): %w", i, ops[i], err)
			}
			results[i] = r
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return results, nil
}

// queue adds the command of one validated op to pipe. The context is only
// recorded by go-redis here; Exec runs the pipeline with its own.
func (m *Memory) queue(ctx context.Context, pipe goredis.Pipeliner, o memory.Op) (goredis.Cmder, error) {
	switch o.Kind {
	case memory.OpSet:
		return pipe.Set(ctx, m.kvKey(o.Key), o.Value, redisTTL(o.TTL)), nil
	case memory.OpSetIfAbsent:
		return pipe.SetNX(ctx, m.kvKey(o.Key), o.Value, redisTTL(o.TTL)), nil
	case memory.OpDelete:
		return pipe.Del(ctx, m.kvKey(o.Key)), nil
	case memory.OpAppendTurnOnce:
		keys, args, err := m.appendArgs(o.Session, o.OnceID, o.Turn)
		if err != nil {
			return nil, err
		}
		return appendScript.Eval(ctx, pipe, keys, args...), nil
	}
	return nil, o.Validate() // unreachable after ValidateOps: an unknown kind
}

// result reads the reply of op's command.
func result(o memory.Op, cmd goredis.Cmder) (memory.OpResult, error) {
	switch c := cmd.(type) {
	case *goredis.BoolCmd: // SET NX
		return memory.OpResult{Applied: c.Val()}, nil
	case *goredis.Cmd: // the append script
		turn, appended, err := decodeAppend(o.OnceID, c)
		return memory.OpResult{Applied: appended, Turn: turn}, err
	}
	return memory.OpResult{Applied: true}, nil // SET, DEL
}
