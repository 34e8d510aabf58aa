// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package soak

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"go.uber.org/zap"
)

// The working memory of a cluster run: Redis under Sentinel or a Redis Cluster.
const (
	RedisSentinel = "sentinel"
	RedisCluster  = "cluster"
)

// Cluster is the servers scripts/cluster.sh started (it owns them: it stops
// them when the soak ends), described by its SOAK_CLUSTER_* variables.
type Cluster struct {
	// Dir is the cluster's folder; Script the cluster.sh that started it.
	Dir, Script string
	// Nodes are the three RabbitMQ nodes (Broker.URL their AMQP URL).
	Nodes []*Broker
	// Sentinels are the Sentinels' host:port and Master the master set they watch.
	Sentinels []string
	Master    string
	// RedisCluster are the Redis Cluster nodes' host:port (c0..c5).
	RedisCluster []string
	// Redis is the working memory used: RedisSentinel or RedisCluster.
	Redis string
}

// ClusterFromEnv reads the cluster SOAK_CLUSTER_* describes; nil, nil when
// SOAK_CLUSTER_DIR is unset. mode is RedisSentinel or RedisCluster.
func ClusterFromEnv(mode string, log *zap.Logger) (*Cluster, error) {
	if os.Getenv("SOAK_CLUSTER_DIR") == "" {
		return nil, nil
	}
	if mode != RedisSentinel && mode != RedisCluster {
		return nil, fmt.Errorf("soak: SOAK_REDIS %q: want %s or %s", mode, RedisSentinel, RedisCluster)
	}
	vs, err := mustEnv("SOAK_CLUSTER_DIR", "SOAK_CLUSTER_SCRIPT", "SOAK_CLUSTER_AMQP_URLS", "SOAK_CLUSTER_RABBIT_NODES",
		"SOAK_CLUSTER_SENTINELS", "SOAK_CLUSTER_MASTER", "SOAK_CLUSTER_REDIS_CLUSTER")
	if err != nil {
		return nil, err
	}
	c := &Cluster{Dir: vs[0], Script: vs[1], Sentinels: strings.Split(vs[4], ","), Master: vs[5],
		RedisCluster: strings.Split(vs[6], ","), Redis: mode}
	urls, nodes := strings.Split(vs[2], ","), strings.Split(vs[3], ",")
	if len(urls) != len(nodes) || len(urls) < 3 {
		return nil, fmt.Errorf("soak: SOAK_CLUSTER_AMQP_URLS and SOAK_CLUSTER_RABBIT_NODES: want 3 each, got %d and %d", len(urls), len(nodes))
	}
	for i := range urls {
		c.Nodes = append(c.Nodes, &Broker{URL: urls[i], Node: nodes[i], dir: filepath.Join(c.Dir, "rabbit"+strconv.Itoa(i+1)),
			bin: rabbitBin(), log: log})
	}
	return c, nil
}

// script runs cluster.sh cmd DIR args within limit.
func (c *Cluster) script(ctx context.Context, limit time.Duration, cmd string, args ...string) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	out, err := exec.CommandContext(ctx, "bash", append([]string{c.Script, cmd, c.Dir}, args...)...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("cluster.sh %s %s: %w: %s", cmd, strings.Join(args, " "), err, lastLines(string(out), 3))
	}
	return nil
}

// MemoryEnv is the A2ABUS_* working-memory configuration of the cluster's Redis.
func (c *Cluster) MemoryEnv() []string {
	if c.Redis == RedisCluster {
		return []string{"A2ABUS_REDIS_ADDRS=" + strings.Join(c.RedisCluster, ",")}
	}
	return []string{"A2ABUS_REDIS_ADDRS=" + strings.Join(c.Sentinels, ","), "A2ABUS_REDIS_MASTER_NAME=" + c.Master}
}

// beamPid is the pid of node i's Erlang VM.
func (c *Cluster) beamPid(i int) (int, error) {
	b, err := os.ReadFile(c.Nodes[i].pidFile())
	if err != nil {
		return 0, fmt.Errorf("pid of node %s: %w", c.Nodes[i].Node, err)
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}

// taskLeader is the index of the node leading the most task queues of the
// run (quorum queues' leader), or an error when none is known.
func (c *Cluster) taskLeader(ctx context.Context) (int, error) {
	var lastErr error
	for _, n := range c.Nodes {
		out, err := n.Ctl(ctx, 30*time.Second, "list_queues", "-q", "name", "leader")
		if err != nil {
			lastErr = err
			continue
		}
		count := map[string]int{}
		for _, line := range strings.Split(out, "\n") {
			f := strings.Fields(line)
			if len(f) == 2 && strings.HasPrefix(f[0], "agent.task.") {
				count[f[1]]++
			}
		}
		best, most := -1, 0
		for i, node := range c.Nodes {
			if count[node.Node] > most {
				best, most = i, count[node.Node]
			}
		}
		if best < 0 {
			return 0, errors.New("no task queue has a leader")
		}
		return best, nil
	}
	return 0, lastErr
}

// restartNode stops RabbitMQ node i (the whole node, rabbitmqctl stop),
// waits down, and starts it again with cluster.sh (it rejoins the cluster).
func (c *Cluster) restartNode(ctx context.Context, i int, down time.Duration) error {
	if _, err := c.Nodes[i].Ctl(ctx, 2*time.Minute, "stop"); err != nil {
		return err
	}
	sleep(ctx, down)
	return c.script(ctx, 4*time.Minute, "start-rabbit", strconv.Itoa(i+1))
}

// pauseNode partitions node i away for d: its VM is stopped (SIGSTOP), so
// it neither answers its peers nor its clients, then continued.
func (c *Cluster) pauseNode(ctx context.Context, i int, d time.Duration) error {
	pid, err := c.beamPid(i)
	if err != nil {
		return err
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		return fmt.Errorf("SIGSTOP node %s: %w", c.Nodes[i].Node, err)
	}
	sleep(ctx, d)
	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		return fmt.Errorf("SIGCONT node %s: %w", c.Nodes[i].Node, err)
	}
	return nil
}

// resume continues every node (a pause that was cut short) and starts every node's app.
func (c *Cluster) resume(ctx context.Context, log *zap.Logger) {
	for i, n := range c.Nodes {
		if pid, err := c.beamPid(i); err == nil {
			_ = syscall.Kill(pid, syscall.SIGCONT)
		}
		if _, err := n.Ctl(ctx, 2*time.Minute, "await_startup", "--timeout", "120"); err != nil {
			log.Warn("cluster node not running after the faults", zap.String("node", n.Node), zap.Error(err))
		}
	}
}
