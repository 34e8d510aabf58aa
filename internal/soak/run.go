// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package soak

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/node"
)

// Options configures a soak run.
type Options struct {
	// Tasks is the task budget of the run.
	Tasks int
	// Duration caps the load: once it passes, no new task is taken.
	Duration time.Duration
	// Seed makes the fault plan and the task mix.
	Seed uint64
	// Agents and Callers are how many agents and always-on caller processes run (Agents ≥ 2: nested calls a peer).
	Agents, Callers int
	// AgentReplicas is how many processes run each agent (0 means 1); on a
	// cluster replica j of agent i connects to node i+j: a node stopped
	// leaves every agent a replica to consume its task queue.
	AgentReplicas int
	// Workers is how many tasks each always-on caller keeps in flight.
	Workers int
	// Rate bounds the tasks the always-on callers start per second, together (0: as fast as they can).
	Rate float64
	// Batch is how many tasks a one-shot caller invokes; OneShots how many run at once (0: none).
	Batch, OneShots int
	// Faults enables the fault plan; MeanGap is the mean time between faults.
	Faults  bool
	MeanGap time.Duration
	// Shared runs on the shared servers at AMQPURL and RedisURL instead of
	// private ones: only the kill faults, and Redis pauses with SharedFaults
	// (never broker faults: rabbitmqctl drives only the private node).
	Shared            bool
	SharedFaults      bool
	AMQPURL, RedisURL string
	// Cluster, when not nil, runs on the cluster scripts/cluster.sh started:
	// quorum queues, the agents and callers spread over its nodes, working
	// memory on its Redis (the ledger on a private Redis of its own), and
	// the cluster's fault kinds.
	Cluster *Cluster
	// WaitReplicas, with Cluster, sets redis.wait_replicas (and WaitTimeout
	// redis.wait_timeout): results are acked only once replicated.
	WaitReplicas int
	WaitTimeout  time.Duration
	Drain, Quiet time.Duration
	// Exe is the soak binary the roles are run from.
	Exe string
	// KeepDir keeps the run's folder (logs) even when the run passed.
	KeepDir bool
}

// Run runs a soak: servers, agents, callers and faults; the drain; the
// check. The summary is returned even when the run found problems; err is
// for a run that could not be carried out.
func Run(ctx context.Context, o Options, log *zap.Logger) (sum *Summary, err error) {
	if o.Agents < 2 || o.Callers < 1 || o.Tasks < 1 {
		return nil, errors.New("soak: need at least 2 agents, 1 caller and 1 task")
	}
	began := time.Now()
	dir, err := os.MkdirTemp("", "a2abus-soak-")
	if err != nil {
		return nil, fmt.Errorf("soak: run folder: %w", err)
	}
	log.Info("soak run", zap.Uint64("seed", o.Seed), zap.Int("tasks", o.Tasks), zap.Int("agents", o.Agents), zap.Int("callers", o.Callers), zap.String("dir", dir))
	r := &runner{o: o, log: log, dir: dir, run: strconv.FormatUint(o.Seed%1e9, 36) + strconv.FormatInt(time.Now().UnixMilli()%1e6, 36)}
	defer func() {
		keep := err != nil || sum.Failed() || o.KeepDir
		if keep {
			r.keepData()
		}
		r.teardown()
		if !keep {
			_ = os.RemoveAll(dir)
		} else {
			log.Info("run folder kept", zap.String("dir", dir))
		}
	}()
	if err := r.startServers(ctx); err != nil {
		return nil, err
	}
	sum, err = r.soak(ctx)
	if sum != nil {
		sum.TotalSecs = time.Since(began).Seconds()
		sum.FailedBecause = sum.FailReasons()
	}
	return sum, err
}

// runner is one run's state.
type runner struct {
	o     Options
	log   *zap.Logger
	dir   string
	run   string
	where string // the servers: private or shared

	redis  *Redis
	broker *Broker
	ledger *Ledger
	procs  *procs

	agents  []*child
	callers []*child
}

// startServers starts the private servers, or falls back to the shared ones.
func (r *runner) startServers(ctx context.Context) error {
	r.where = "shared"
	if c := r.o.Cluster; c != nil {
		var err error
		if r.redis, err = StartRedis(ctx, r.dir); err != nil { // the ledger's
			return err
		}
		r.broker, r.o.AMQPURL, r.o.RedisURL, r.where = c.Nodes[0], c.Nodes[0].URL, r.redis.URL, "cluster-"+c.Redis
		// No agent opens working memory, no failover is planned, before
		// the replicas are in sync (their first sync done).
		if err := waitFor(ctx, replicatedBound, "the working memory's replicas", c.replicated); err != nil {
			return err
		}
		r.log.Info("cluster servers", zap.String("dir", c.Dir), zap.String("redis", c.Redis), zap.String("ledger", r.o.RedisURL))
	} else if !r.o.Shared {
		var err error
		if r.redis, err = StartRedis(ctx, r.dir); err != nil {
			return err
		}
		r.broker, err = StartBroker(ctx, r.dir, r.log)
		if err != nil {
			return err
		}
		r.o.AMQPURL, r.o.RedisURL, r.where = r.broker.URL, r.redis.URL, "private"
		r.log.Info("private servers up", zap.String("amqp", r.o.AMQPURL), zap.String("redis", r.o.RedisURL), zap.String("node", r.broker.Node))
	}
	l, err := NewLedger(r.o.RedisURL, r.run)
	if err != nil {
		return err
	}
	r.ledger = l
	return nil
}

// teardown stops every process and the private servers.
func (r *runner) teardown() {
	if r.procs != nil {
		r.stopAll()
		if left := r.procs.killLeft(); len(left) > 0 {
			r.log.Warn("processes left running after the stop were killed", zap.Strings("procs", left))
		}
	}
	if (r.where == "shared" || r.o.Cluster != nil) && r.o.AMQPURL != "" { // the cluster outlives the run
		if err := dropTopology(r.o.AMQPURL, "soak-"+r.run, r.agentNames(), r.callerNames()); err != nil {
			r.log.Warn("topology left on the shared broker", zap.Error(err))
		}
	}
	if r.ledger != nil {
		if r.where == "shared" {
			if err := r.ledger.Drop(context.Background()); err != nil {
				r.log.Warn("ledger left on the shared Redis", zap.Error(err))
			}
		}
		_ = r.ledger.Close()
	}
	if r.broker != nil && r.o.Cluster == nil { // cluster.sh stops the cluster
		r.broker.Stop(context.Background())
	}
	if r.redis != nil {
		r.redis.Stop()
	}
}

// agentNames and callerNames are the names of the run's agents and always-on callers.
func (r *runner) agentNames() []string  { return names(r.agents) }
func (r *runner) callerNames() []string { return names(r.callers) }

func names(cs []*child) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.name
	}
	return out
}

// stopAll stops the callers, then the agents.
func (r *runner) stopAll() {
	var wg sync.WaitGroup
	for _, group := range [][]*child{r.callers, r.agents} {
		for _, c := range group {
			wg.Go(func() { r.procs.stop(c) })
		}
		wg.Wait()
	}
}

// env is the configuration every child process gets; on a cluster, the
// child of index i connects to node i (modulo the nodes).
func (r *runner) env(i int) []string {
	env := []string{"A2ABUS_BUS_URL=" + r.o.AMQPURL, "A2ABUS_REDIS_URL=" + r.o.RedisURL}
	if c := r.o.Cluster; c != nil {
		env = append([]string{"A2ABUS_BUS_URL=" + c.Nodes[i%len(c.Nodes)].URL, "A2ABUS_BUS_QUEUE_TYPE=quorum"}, c.MemoryEnv()...)
		if r.o.WaitReplicas > 0 {
			env = append(env, "A2ABUS_REDIS_WAIT_REPLICAS="+strconv.Itoa(r.o.WaitReplicas), "A2ABUS_REDIS_WAIT_TIMEOUT="+r.o.WaitTimeout.String())
		}
	}
	return append(env, "A2ABUS_BUS_EXCHANGE=soak-"+r.run,
		"A2ABUS_REDIS_KEY_PREFIX="+r.memoryPrefix(),
		"A2ABUS_LOG_LEVEL=warn", "A2ABUS_LIMITS_MAX_IN_FLIGHT=0", "A2ABUS_LIMITS_BREAKER_FAILURES=0",
		"A2ABUS_AGENT_CONCURRENCY=8", "A2ABUS_AGENT_STOP_TIMEOUT=5s",
		// Every call of the run, on its private exchange: the soak is not about
		// the policy (deny by default), which still checks each call.
		`A2ABUS_POLICY_RULES=[{"caller":"*","allow":["*"]}]`,
		envLedger+"="+r.o.RedisURL, envRun+"="+r.run, envSeed+"="+strconv.FormatUint(r.o.Seed, 10),
		envTotal+"="+strconv.Itoa(r.o.Tasks),
	)
}

// soak runs the load, the faults, the drain and the check.
func (r *runner) soak(ctx context.Context) (*Summary, error) {
	r.procs = &procs{exe: r.o.Exe, dir: r.dir, log: r.log}
	var names []string
	for i := range r.o.Agents {
		names = append(names, fmt.Sprintf("SoakAgent%d", i))
	}
	r.agents = r.agentChildren(names)
	for _, c := range r.agents {
		if err := r.procs.start(c); err != nil {
			return nil, err
		}
	}
	var callerNames []string
	for i := range r.o.Callers {
		name := fmt.Sprintf("SoakCaller%d", i)
		callerNames = append(callerNames, name)
		c := &child{role: "caller", name: name, index: i, supervised: true, env: append(r.env(i+1), envName+"="+name, envAgents+"="+strings.Join(names, ","),
			envCallerMod+"=always", envWorkers+"="+strconv.Itoa(r.o.Workers), envPace+"="+r.pace().String())}
		r.callers = append(r.callers, c)
		if err := r.procs.start(c); err != nil {
			return nil, err
		}
	}

	// The load: one-shot callers beside the always-on ones, and the faults.
	loadStart := time.Now()
	loadCtx, stopLoad := context.WithCancel(ctx)
	defer stopLoad()
	var oneShots sync.WaitGroup
	for i := range r.o.OneShots {
		oneShots.Go(func() { r.oneShots(loadCtx, ctx, i, names, callerNames) })
	}
	in := r.newInjector(ctx)
	var injecting sync.WaitGroup
	plan := r.plan()
	if len(plan) > 0 {
		r.log.Info("fault plan", zap.Int("faults", len(plan)), zap.Any("by_kind", countKinds(r.kinds(), plan)))
		injecting.Go(func() { in.run(loadCtx, loadStart, plan) })
	}
	loadErr := r.waitLoad(ctx, loadStart, func() []FaultKind { return in.untried(plan) })
	stopLoad()
	if ctx.Err() != nil { // interrupted: stop within a bound, say what was done
		return r.interrupted(&injecting, &oneShots, in, plan, loadStart), nil
	}
	injecting.Wait()
	oneShots.Wait()
	loadSecs := time.Since(loadStart).Seconds()
	if loadErr != nil {
		return nil, loadErr
	}
	r.restore(ctx, countKinds(r.kinds(), plan))

	// The drain, the check.
	m, err := node.Memory(ctx, r.memoryConfig(), zap.NewNop())
	if err != nil {
		return nil, err
	}
	defer func() { _ = m.Close() }()
	if err := r.drain(ctx, m, append(append([]string(nil), names...), callerNames...)); err != nil {
		r.log.Warn("drain incomplete", zap.Error(err))
	}
	snap, err := r.ledger.Read(ctx)
	if err != nil {
		return nil, err
	}
	r.log.Info("checking", zap.Int("ledger", len(snap.Entries)))
	obs, err := collect(ctx, m, snap)
	if err != nil {
		return nil, err
	}
	pause(r.o.Quiet) // the quiet period over which every stored result must stay unchanged
	if err := reread(ctx, m, obs); err != nil {
		return nil, err
	}
	r.stopAll()
	v := Classify(snap, obs)
	sum := &Summary{Tasks: v.Tasks, Lost: v.Lost, Duplicated: v.Duplicated, Overwritten: v.Overwritten, Abandoned: v.Abandoned,
		Refused: v.Refused, RefusedRan: v.RefusedRan, Outcomes: v.Outcomes, Problems: v.Problems, Faults: in.done,
		FaultsPlanned: len(plan), FaultsPlannedByKind: countKinds(r.kinds(), plan), FaultsUnreached: len(plan) - in.begun(),
		FaultFailures: len(in.failures), LoadSecs: loadSecs, Seed: r.o.Seed, Agents: r.o.Agents, Callers: r.o.Callers, Servers: r.where,
		DeadReasons: map[string]int{}}
	for _, f := range in.failures {
		sum.Problems = append(sum.Problems, "fault not injected: "+f)
	}
	sum.Crashes = r.procs.crashCount()
	finals := 0
	for _, n := range v.Outcomes {
		finals += n
	}
	sum.Throughput = math.Round(float64(finals)/loadSecs*10) / 10
	r.queues(ctx, sum, in.done, snap, v.ranRefused)
	return sum, nil
}

// agentChildren are the agent processes: agentReplicas of each name,
// replica j of agent i on node i+j (on a cluster).
func (r *runner) agentChildren(names []string) []*child {
	var agents []*child
	for j := range r.agentReplicas() {
		for i, name := range names {
			agents = append(agents, &child{role: "agent", name: name, index: i + j*len(names), supervised: true,
				env: append(r.env(i+j), envName+"="+name, envPeer+"="+names[(i+1)%len(names)])})
		}
	}
	return agents
}

// agentReplicas is how many processes run each agent.
func (r *runner) agentReplicas() int { return max(1, r.o.AgentReplicas) }

// pace is the least time between two tasks of one always-on worker for Options.Rate.
func (r *runner) pace() time.Duration {
	if r.o.Rate <= 0 {
		return 0
	}
	return time.Duration(float64(r.o.Callers*r.o.Workers) / r.o.Rate * float64(time.Second))
}

// oneShots starts one-shot caller processes one after the other while the
// budget lasts (until ctx ends); when interrupt ends, the one running is stopped.
func (r *runner) oneShots(ctx, interrupt context.Context, slot int, agents, callerNames []string) {
	for i := 0; ctx.Err() == nil; i++ {
		issued, err := r.ledger.Client().Get(ctx, r.ledger.key(keyIssued)).Int()
		if err == nil && issued >= r.o.Tasks {
			return
		}
		name := callerNames[(slot+i)%len(callerNames)]
		c := &child{role: "caller", name: name, index: 100 + slot, env: append(r.env(slot+i+2), envName+"="+name, envAgents+"="+strings.Join(agents, ","),
			envCallerMod+"=oneshot", envBatch+"="+strconv.Itoa(r.o.Batch))}
		c.starts = i
		if err := r.procs.start(c); err != nil {
			r.log.Warn("one-shot caller not started", zap.Error(err))
			return
		}
		stop := context.AfterFunc(interrupt, func() { r.procs.stop(c) })
		failed := c.wait()
		stop()
		if failed {
			sleep(ctx, restartDelay) // e.g. it could not connect while the broker app was down
		}
	}
}

// waitLoad waits until the budget is spent (or the duration cap passed) and
// every always-on caller is idle, printing progress; and, within the cap,
// until a fault of each kind planned has begun (untried lists those not),
// so that a load that ended early does not leave a kind out.
func (r *runner) waitLoad(ctx context.Context, start time.Time, untried func() []FaultKind) error {
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	lastReport := time.Now()
	capped, waitingFaults := false, false
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
		rdb := r.ledger.Client()
		issued, _ := rdb.Get(ctx, r.ledger.key(keyIssued)).Int()
		if !capped && r.o.Duration > 0 && time.Since(start) > r.o.Duration {
			// Spend the budget; tried again on the next tick if Redis refused.
			if err := rdb.Set(ctx, r.ledger.key(keyIssued), r.o.Tasks, 0).Err(); err != nil {
				r.log.Warn("duration cap reached, budget not spent yet", zap.Error(err))
			} else {
				capped = true
				r.log.Warn("duration cap reached: no new task", zap.Duration("cap", r.o.Duration), zap.Int("issued", issued))
			}
		}
		if time.Since(lastReport) >= 5*time.Second {
			lastReport = time.Now()
			states, _ := rdb.HLen(ctx, r.ledger.key(keyState)).Result()
			r.log.Info("progress", zap.Int("issued", min(issued, r.o.Tasks)), zap.Int64("settled", states), zap.Duration("elapsed", time.Since(start).Round(time.Second)))
		}
		if issued < r.o.Tasks {
			continue
		}
		idle := true
		for _, c := range r.callers {
			n, err := rdb.Exists(ctx, r.ledger.key(keyIdle+c.current())).Result()
			if err != nil || n == 0 {
				idle = false
				break
			}
		}
		if !idle {
			continue
		}
		if kinds := untried(); len(kinds) > 0 && !capped {
			if !waitingFaults {
				waitingFaults = true
				r.log.Warn("budget spent with fault kinds not injected yet: the load ends once they are, or at its cap", zap.Any("kinds", kinds))
			}
			continue
		}
		return nil
	}
}

// restore makes sure the broker app runs and Redis is not paused after the
// faults: only what the plan (counted by kind) may have stopped, so that a
// shared Redis someone else paused stays paused.
func (r *runner) restore(ctx context.Context, planned map[FaultKind]int) {
	if r.o.Cluster != nil {
		r.o.Cluster.resume(ctx, r.log)
		return
	}
	if planned[FaultBrokerRestart] > 0 {
		if _, err := r.broker.Ctl(ctx, 2*time.Minute, "start_app"); err != nil {
			r.log.Warn("start_app after the faults", zap.Error(err))
		}
	}
	if planned[FaultRedisPause] == 0 {
		return
	}
	if err := r.ledger.Client().Do(ctx, "CLIENT", "UNPAUSE").Err(); err != nil {
		r.log.Warn("CLIENT UNPAUSE after the faults", zap.Error(err))
	}
}

// memoryConfig is the configuration of the children's working memory.
func (r *runner) memoryConfig() *config.Config {
	c := config.Default()
	c.Redis.URL, c.Redis.KeyPrefix = r.o.RedisURL, r.memoryPrefix()
	if cl := r.o.Cluster; cl != nil {
		c.Redis.URL, c.Redis.Addrs = "", cl.RedisCluster
		if cl.Redis == RedisSentinel {
			c.Redis.Addrs, c.Redis.MasterName = cl.Sentinels, cl.Master
		}
	}
	return c
}

// memoryPrefix is the working memory's key prefix: under the ledger's, so
// that Ledger.Drop removes both from a shared Redis.
func (r *runner) memoryPrefix() string { return "soak:" + r.run + ":mem:" }

// drain waits until no caller has a pending task and no task or response
// queue holds a message, bounded by Options.Drain.
func (r *runner) drain(ctx context.Context, m memory.Memory, callers []string) error {
	start := time.Now()
	err := waitFor(ctx, r.o.Drain, "drain", func(ctx context.Context) error {
		for _, name := range callers {
			ids, err := caller.PendingTasks(ctx, m, name, 1)
			if err != nil {
				return err
			}
			if len(ids) > 0 {
				return fmt.Errorf("caller %s still has pending tasks (%s)", name, ids[0])
			}
		}
		if r.broker == nil {
			return nil
		}
		depths, err := r.broker.QueueDepths(ctx)
		if err != nil {
			return err
		}
		if n := r.stuck(depths); n > 0 {
			return fmt.Errorf("%d messages still queued", n)
		}
		return nil
	})
	r.log.Info("drained", zap.Duration("took", time.Since(start).Round(time.Millisecond)))
	return err
}

// stuck counts the messages of the task and response queues of the run.
func (r *runner) stuck(depths map[string]int) int {
	n := 0
	for q, d := range depths {
		if strings.HasPrefix(q, "agent.task.Soak") || strings.HasPrefix(q, "agent.response.Soak") {
			n += d
		}
	}
	return n
}
