// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package soak

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// ErrNotPromoted is the error of a Redis failover fault in which no replica
// took over from the crashed primary within promoteBound: the fault was not
// injected as planned (the old primary was started again so that the
// working memory recovers, empty where it was not replicated).
var ErrNotPromoted = errors.New("soak: no replica promoted")

// promoteBound bounds the wait for a replica to take over from a crashed primary.
const promoteBound = time.Minute

// crashSteps are the steps of a Redis failover fault, apart for the tests.
type crashSteps struct {
	// crash kills the primary.
	crash func(context.Context)
	// promoted reports whether a replica took over (nil), polled until bound.
	promoted func(context.Context) error
	// restart starts the old primary again: as a replica of the promoted
	// one when promoted, else as it was (the slots' or master set's primary).
	restart func(ctx context.Context, promoted bool) error
	// synced waits until the restarted old primary replicates the new one.
	synced func(context.Context) error
	bound  time.Duration
}

// crashAndPromote crashes the primary and waits for a replica to take
// over; then the old primary comes back as a replica. When none takes over
// within the bound, the old primary is started again all the same (the
// working memory must recover for the rest of the run) and the error
// wraps ErrNotPromoted: the fault counts as not injected.
func crashAndPromote(ctx context.Context, s crashSteps) error {
	s.crash(ctx)
	if err := waitFor(ctx, s.bound, "a replica's promotion", s.promoted); err != nil {
		if rerr := s.restart(ctx, false); rerr != nil {
			return fmt.Errorf("%w: %w; the old primary not restarted: %w", ErrNotPromoted, err, rerr)
		}
		return fmt.Errorf("%w: %w; the old primary restarted", ErrNotPromoted, err)
	}
	if err := s.restart(ctx, true); err != nil {
		return err
	}
	return s.synced(ctx)
}

// failover crashes the Redis primary of the working memory (kill -9),
// waits until a replica is promoted (by the Sentinels, or by the Cluster),
// and starts the old primary again, as a replica.
func (c *Cluster) failover(ctx context.Context, rng func(int) int) error {
	if c.Redis == RedisCluster {
		return c.clusterFailover(ctx, rng)
	}
	sentinel := redis.NewSentinelClient(&redis.Options{Addr: c.Sentinels[0]})
	defer func() { _ = sentinel.Close() }()
	master := func(ctx context.Context) (string, error) {
		addr, err := sentinel.GetMasterAddrByName(ctx, c.Master).Result()
		if err != nil {
			return "", err
		}
		return addr[0] + ":" + addr[1], nil
	}
	old, err := master(ctx)
	if err != nil {
		return fmt.Errorf("ask the Sentinel for the master: %w", err)
	}
	name, err := c.redisName(old, "s")
	if err != nil {
		return err
	}
	var now string
	return crashAndPromote(ctx, crashSteps{
		crash: func(ctx context.Context) { shutdown(ctx, old) },
		promoted: func(ctx context.Context) error {
			if now, err = master(ctx); err != nil {
				return err
			}
			if now == old {
				return errors.New("the master is still " + old)
			}
			return nil
		},
		restart: func(ctx context.Context, promoted bool) error {
			if !promoted {
				return c.script(ctx, time.Minute, "start-redis", name)
			}
			return c.script(ctx, time.Minute, "start-redis", name, now[strings.LastIndexByte(now, ':')+1:])
		},
		synced: func(ctx context.Context) error { return c.synced(ctx, old) },
		bound:  promoteBound,
	})
}

// synced waits until the Redis at addr, started again as a replica, has
// synchronised with its primary: the fault ends with every primary
// replicated again, as an operator would wait before the next failure
// (a failover onto a replica that never synchronised loses everything).
func (c *Cluster) synced(ctx context.Context, addr string) error {
	cl := redis.NewClient(&redis.Options{Addr: addr})
	defer func() { _ = cl.Close() }()
	return waitFor(ctx, 2*time.Minute, "replica "+addr+" synchronised", func(ctx context.Context) error {
		info, err := cl.Info(ctx, "replication").Result()
		if err != nil {
			return err
		}
		if !strings.Contains(info, "role:slave") || !strings.Contains(info, "master_link_status:up") {
			return errors.New("not a synchronised replica yet")
		}
		return nil
	})
}

// clusterFailover crashes a random primary of the Redis Cluster, waits until
// the cluster is whole again (a replica promoted), and starts it again (it
// rejoins as a replica).
func (c *Cluster) clusterFailover(ctx context.Context, rng func(int) int) error {
	var primaries []string
	for _, addr := range c.RedisCluster {
		cl := redis.NewClient(&redis.Options{Addr: addr})
		role, err := cl.Do(ctx, "ROLE").Slice()
		_ = cl.Close()
		if err == nil && len(role) > 0 && role[0] == "master" {
			primaries = append(primaries, addr)
		}
	}
	if len(primaries) == 0 {
		return errors.New("no Redis Cluster primary found")
	}
	victim := primaries[rng(len(primaries))]
	name, err := c.redisName(victim, "c")
	if err != nil {
		return err
	}
	var other string
	for _, addr := range c.RedisCluster {
		if addr != victim {
			other = addr
			break
		}
	}
	cl := redis.NewClient(&redis.Options{Addr: other})
	defer func() { _ = cl.Close() }()
	nodes, err := cl.ClusterNodes(ctx).Result()
	if err != nil {
		return err
	}
	id, replica := clusterReplicaOf(nodes, victim)
	if replica == "" {
		return fmt.Errorf("primary %s (%s) has no replica", victim, id)
	}
	return crashAndPromote(ctx, crashSteps{
		crash: func(ctx context.Context) { shutdown(ctx, victim) },
		// Its replica must have taken its slots before it comes back: started
		// again while still the slots' master (only suspected, "fail?"), it
		// would keep them, empty, and its replica would resynchronise from it.
		promoted: func(ctx context.Context) error {
			nodes, err := cl.ClusterNodes(ctx).Result()
			if err != nil {
				return err
			}
			for _, line := range strings.Split(nodes, "\n") {
				f := strings.Fields(line)
				if len(f) > 2 && f[0] == replica && !strings.Contains(f[2], "master") {
					return errors.New("replica " + replica + " not promoted yet")
				}
			}
			info, err := cl.ClusterInfo(ctx).Result()
			if err != nil {
				return err
			}
			if !strings.Contains(info, "cluster_state:ok") {
				return errors.New("cluster state not ok")
			}
			return nil
		},
		restart: func(ctx context.Context, _ bool) error { return c.script(ctx, time.Minute, "start-redis", name) },
		synced:  func(ctx context.Context) error { return c.synced(ctx, victim) },
		bound:   promoteBound,
	})
}

// clusterReplicaOf reads CLUSTER NODES: the id of the node at addr, and the id of a replica of it.
func clusterReplicaOf(nodes, addr string) (id, replica string) {
	lines := strings.Split(nodes, "\n")
	for _, line := range lines {
		if f := strings.Fields(line); len(f) > 1 && strings.HasPrefix(f[1], addr+"@") {
			id = f[0]
		}
	}
	for _, line := range lines {
		if f := strings.Fields(line); id != "" && len(f) > 3 && f[3] == id {
			replica = f[0]
		}
	}
	return id, replica
}

// redisName is the cluster.sh name (prefix s or c and an index) of the Redis at addr.
func (c *Cluster) redisName(addr, prefix string) (string, error) {
	port := addr[strings.LastIndexByte(addr, ':')+1:]
	for i := range 6 {
		name := prefix + strconv.Itoa(i)
		b, err := os.ReadFile(filepath.Join(c.Dir, name, "port"))
		if err == nil && strings.TrimSpace(string(b)) == port {
			return name, nil
		}
	}
	return "", fmt.Errorf("no Redis of the cluster listens on %s", addr)
}

// shutdown crashes the Redis at addr: kill -9 of its process (INFO's
// process_id), so that what it has not sent its replicas yet is gone — a
// SHUTDOWN would first wait for them to catch up. Failing that, SHUTDOWN NOSAVE.
func shutdown(ctx context.Context, addr string) {
	cl := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer func() { _ = cl.Close() }()
	info, err := cl.Info(ctx, "server").Result()
	if err == nil {
		for _, line := range strings.Split(info, "\n") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(line), "process_id:"); ok {
				if pid, err := strconv.Atoi(v); err == nil && syscall.Kill(pid, syscall.SIGKILL) == nil {
					return
				}
			}
		}
	}
	_ = cl.Do(ctx, "SHUTDOWN", "NOSAVE").Err()
}
