// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package redismem

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/a2abus/a2abus/memory"
)

// DefaultWaitTimeout bounds the wait for replicas (Options.WaitReplicas) when Options.WaitTimeout is 0.
const DefaultWaitTimeout = time.Second

// ErrNotReplicated is wrapped (with memory.ErrUnavailable) by a Batch whose
// writes the primary applied but fewer than Options.WaitReplicas replicas
// acknowledged within Options.WaitTimeout: a failover could lose them, so
// the batch reports failure and its caller runs it again (every op is idempotent).
var ErrNotReplicated = errors.New("memory/redismem: not replicated")

// pipes are the pipelines of one group-committed flush: one, on the
// client, unless writes wait for replicas on a Cluster, where each op goes
// into the pipeline of its slot's primary, so that the WAIT that ends that
// pipeline, on the same connection, covers it (WAIT counts the replicas
// that have the writes of its own connection).
type pipes struct {
	m       *backend
	cluster *goredis.ClusterClient // nil: one pipeline on m.client
	one     *waitPipe
	byAddr  map[string]*waitPipe
	order   []*waitPipe
}

// waitPipe is one pipeline and, when writes wait, its WAIT.
type waitPipe struct {
	pipe goredis.Pipeliner
	wait *goredis.Cmd
	addr string // the primary's address (Cluster), for the error
	err  error  // the pipeline's Exec error, or ErrNotReplicated
}

func (m *backend) newPipes() *pipes {
	p := &pipes{m: m}
	if c, ok := m.client.(*goredis.ClusterClient); ok && m.opts.WaitReplicas > 0 {
		p.cluster, p.byAddr = c, map[string]*waitPipe{}
	}
	return p
}

// forOps returns the pipeline of each op (app: its append call); on a
// Cluster it asks for each key's primary, so a batch whose primary is
// unknown fails before any of its ops is queued.
func (p *pipes) forOps(ctx context.Context, ops []memory.Op, apps []appendCall) ([]*waitPipe, error) {
	out := make([]*waitPipe, len(ops))
	for i, o := range ops {
		if p.cluster == nil {
			if p.one == nil {
				p.one = &waitPipe{pipe: p.m.client.Pipeline()}
				p.order = append(p.order, p.one)
			}
			out[i] = p.one
			continue
		}
		key := p.m.redisKey(o, appendAt(apps, i))
		primary, err := p.cluster.MasterForKey(ctx, key)
		if err != nil {
			return nil, fmt.Errorf("op %d (%s): primary of %s: %w", i, o, key, err)
		}
		addr := primary.Options().Addr
		wp := p.byAddr[addr]
		if wp == nil {
			wp = &waitPipe{pipe: primary.Pipeline(), addr: addr}
			p.byAddr[addr] = wp
			p.order = append(p.order, wp)
		}
		out[i] = wp
	}
	return out, nil
}

// exec runs every pipeline (each ending with a WAIT when writes wait) and
// returns the first Exec error.
func (p *pipes) exec(ctx context.Context) error {
	var first error
	n, timeout := p.m.opts.WaitReplicas, p.m.opts.WaitTimeout
	for _, wp := range p.order {
		if n > 0 {
			wp.wait = wp.pipe.Do(ctx, "WAIT", n, timeout.Milliseconds())
		}
		_, err := wp.pipe.Exec(ctx)
		if err != nil && p.cluster != nil && (movedOrAsk(err) || !isReplyError(err)) {
			// The slot moved, or its primary is gone (a failover): the
			// next flush asks the cluster again.
			p.cluster.ReloadState(ctx)
		}
		if wp.wait != nil {
			acked, werr := wp.wait.Int64()
			switch {
			case werr != nil:
				wp.err = fmt.Errorf("%w: %w: WAIT: %w", memory.ErrUnavailable, ErrNotReplicated, werr)
			case acked < int64(n):
				wp.err = fmt.Errorf("%w: %w: %d of %d replicas acknowledged within %s%s", memory.ErrUnavailable, ErrNotReplicated,
					acked, n, timeout, wp.where())
			}
		}
		if err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (wp *waitPipe) where() string {
	if wp.addr == "" {
		return ""
	}
	return " (primary " + wp.addr + ")"
}

// notReplicated is the first wait error of the pipelines of a batch's ops.
func notReplicated(ps []*waitPipe) error {
	for _, wp := range ps {
		if wp != nil && wp.err != nil {
			return wp.err
		}
	}
	return nil
}

// movedOrAsk reports whether err is a Cluster redirection (the slot is
// served elsewhere now), which only a pipeline on one primary's own client
// (writes waiting for replicas on a Cluster) sees.
func movedOrAsk(err error) bool {
	var reply goredis.Error
	if !errors.As(err, &reply) {
		return false
	}
	s := reply.Error()
	return strings.HasPrefix(s, "MOVED ") || strings.HasPrefix(s, "ASK ")
}

// redisKey is the Redis key op writes (app: its append call).
func (m *backend) redisKey(o memory.Op, app appendCall) string {
	switch o.Kind {
	case memory.OpAppendTurnOnce:
		return app.keys[0]
	case memory.OpIndexAdd, memory.OpIndexRemove:
		return m.indexKey(o.Key)
	}
	return m.kvKey(o.Key)
}
