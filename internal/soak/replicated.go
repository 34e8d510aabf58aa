// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package soak

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// replicatedBound bounds the wait, before a Redis failover fault, for the
// working memory's replicas to be in sync: a failover onto a replica that
// never completed its first sync is refused by a Redis Cluster (its data is
// too old) and loses everything under Sentinel.
const replicatedBound = 2 * time.Minute

// replicated reports (nil) whether the working memory may fail over: on a
// Redis Cluster, every node answers with cluster_state:ok, every replica is
// linked to its primary and done with its sync, and every primary has an
// online replica; under Sentinel, the master has an online replica, and
// every Sentinel knows the master, its peers and a replica in sync.
func (c *Cluster) replicated(ctx context.Context) error {
	if c.Redis == RedisCluster {
		for _, addr := range c.RedisCluster {
			if err := redisReplicated(ctx, addr, true); err != nil {
				return err
			}
		}
		return nil
	}
	for _, addr := range c.Sentinels {
		if err := c.sentinelReady(ctx, addr); err != nil {
			return err
		}
	}
	s := redis.NewSentinelClient(&redis.Options{Addr: c.Sentinels[0]})
	defer func() { _ = s.Close() }()
	addr, err := s.GetMasterAddrByName(ctx, c.Master).Result()
	if err != nil {
		return fmt.Errorf("ask the Sentinel for the master: %w", err)
	}
	return redisReplicated(ctx, addr[0]+":"+addr[1], false)
}

// redisReplicated reads the replication (and, on a cluster, cluster) INFO of the Redis at addr.
func redisReplicated(ctx context.Context, addr string, cluster bool) error {
	cl := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer func() { _ = cl.Close() }()
	info, err := cl.Info(ctx, "replication").Result()
	if err != nil {
		return fmt.Errorf("INFO replication of %s: %w", addr, err)
	}
	if err := replicationReady(info); err != nil {
		return fmt.Errorf("redis %s: %w", addr, err)
	}
	if !cluster {
		return nil
	}
	state, err := cl.ClusterInfo(ctx).Result()
	if err != nil {
		return fmt.Errorf("CLUSTER INFO of %s: %w", addr, err)
	}
	if !strings.Contains(state, "cluster_state:ok") {
		return fmt.Errorf("redis %s: cluster_state not ok", addr)
	}
	return nil
}

// replicationReady reads INFO replication: a replica must be linked to its
// primary and done with its sync, a primary must have a replica online
// (its first sync complete).
func replicationReady(info string) error {
	fields := map[string]string{}
	online := 0
	for _, line := range strings.Split(info, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		fields[k] = v
		if strings.HasPrefix(k, "slave") && strings.Contains(v, "state=online") {
			online++
		}
	}
	switch fields["role"] {
	case "slave":
		if fields["master_link_status"] != "up" {
			return errors.New("replica not linked to its primary")
		}
		if fields["master_sync_in_progress"] != "0" {
			return errors.New("replica still syncing")
		}
		return nil
	case "master":
		if online == 0 {
			return errors.New("primary without a replica online")
		}
		return nil
	}
	return fmt.Errorf("role %q", fields["role"])
}

// sentinelReady asks the Sentinel at addr whether it knows the master, its
// peers, and a replica in sync: a failover needs a majority of Sentinels
// that agree, and a replica to promote.
func (c *Cluster) sentinelReady(ctx context.Context, addr string) error {
	s := redis.NewSentinelClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer func() { _ = s.Close() }()
	m, err := s.Master(ctx, c.Master).Result()
	if err != nil {
		return fmt.Errorf("SENTINEL MASTER at %s: %w", addr, err)
	}
	replicas, err := s.Replicas(ctx, c.Master).Result()
	if err != nil {
		return fmt.Errorf("SENTINEL REPLICAS at %s: %w", addr, err)
	}
	return sentinelKnows(m, replicas, len(c.Sentinels)-1)
}

// sentinelKnows reads a Sentinel's SENTINEL MASTER and SENTINEL REPLICAS:
// the master up, peers Sentinels known, and a replica up and in sync.
func sentinelKnows(master map[string]string, replicas []map[string]string, peers int) error {
	if master["flags"] != "master" {
		return fmt.Errorf("sentinel: master flags %q", master["flags"])
	}
	if n, _ := strconv.Atoi(master["num-other-sentinels"]); n < peers {
		return fmt.Errorf("sentinel: knows %d other Sentinels, want %d", n, peers)
	}
	for _, r := range replicas {
		if r["flags"] == "slave" && r["master-link-status"] == "ok" {
			return nil
		}
	}
	return fmt.Errorf("sentinel: no replica in sync among %d", len(replicas))
}
