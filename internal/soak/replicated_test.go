// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package soak

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.uber.org/zap"
)

func nopLog() *zap.Logger { return zap.NewNop() }

func TestReplicationReadyReadsInfoReplication(t *testing.T) {
	for _, c := range []struct {
		name, info string
		ready      bool
	}{
		{"replica in sync", "# Replication\r\nrole:slave\r\nmaster_link_status:up\r\nmaster_sync_in_progress:0\r\n", true},
		{"replica syncing", "role:slave\r\nmaster_link_status:up\r\nmaster_sync_in_progress:1\r\n", false},
		{"replica not linked", "role:slave\r\nmaster_link_status:down\r\nmaster_sync_in_progress:0\r\n", false},
		{"primary with a replica online", "role:master\r\nconnected_slaves:1\r\nslave0:ip=127.0.0.1,port=2,state=online,offset=1,lag=0\r\n", true},
		{"primary whose replica waits for its first sync", "role:master\r\nconnected_slaves:1\r\nslave0:ip=127.0.0.1,port=2,state=wait_bgsave,offset=0,lag=0\r\n", false},
		{"primary alone", "role:master\r\nconnected_slaves:0\r\n", false},
	} {
		if err := replicationReady(c.info); (err == nil) != c.ready {
			t.Errorf("%s: replicationReady = %v, want ready %v", c.name, err, c.ready)
		}
	}
}

func TestSentinelKnowsWantsPeersAndAReplicaInSync(t *testing.T) {
	master := map[string]string{"flags": "master", "num-other-sentinels": "2"}
	inSync := map[string]string{"flags": "slave", "master-link-status": "ok"}
	for _, c := range []struct {
		name     string
		master   map[string]string
		replicas []map[string]string
		ready    bool
	}{
		{"ready", master, []map[string]string{inSync}, true},
		{"no replica known", master, nil, false},
		{"replica down", master, []map[string]string{{"flags": "s_down,slave", "master-link-status": "err"}}, false},
		{"replica not linked", master, []map[string]string{{"flags": "slave", "master-link-status": "err"}}, false},
		{"peers unknown", map[string]string{"flags": "master", "num-other-sentinels": "0"}, []map[string]string{inSync}, false},
		{"master down", map[string]string{"flags": "s_down,master", "num-other-sentinels": "2"}, []map[string]string{inSync}, false},
	} {
		if err := sentinelKnows(c.master, c.replicas, 2); (err == nil) != c.ready {
			t.Errorf("%s: sentinelKnows = %v, want ready %v", c.name, err, c.ready)
		}
	}
}

// TestFailoverWaitsForTheReplicas: a Redis failover is not injected
// before the replicas are in sync; when they never are within the bound,
// it is a fault not injected, and nothing was crashed.
func TestFailoverWaitsForTheReplicas(t *testing.T) {
	polls, failovers := 0, 0
	in := &injector{done: countKinds(ClusterFaultKinds, nil), log: nopLog(), readyBound: time.Minute,
		replicated: func(context.Context) error {
			if polls++; polls < 3 {
				return errors.New("replica still syncing")
			}
			return nil
		},
		failover: func(context.Context) error {
			if polls < 3 {
				t.Error("failed over before the replicas were in sync")
			}
			failovers++
			return nil
		}}
	in.run(context.Background(), time.Now(), []Fault{{Kind: FaultRedisFailover}})
	if failovers != 1 || in.done[FaultRedisFailover] != 1 {
		t.Fatalf("%d failovers, done %v, failures %v: want one, once in sync", failovers, in.done, in.failures)
	}

	failovers = 0
	in = &injector{done: countKinds(ClusterFaultKinds, nil), log: nopLog(), readyBound: 50 * time.Millisecond,
		replicated: func(context.Context) error { return errors.New("replica still syncing") },
		failover:   func(context.Context) error { failovers++; return nil }}
	in.run(context.Background(), time.Now(), []Fault{{Kind: FaultRedisFailover}})
	if failovers != 0 || len(in.failures) != 1 || in.done[FaultRedisFailover] != 0 {
		t.Fatalf("replicas never in sync: %d failovers, failures %v: want none, one failure", failovers, in.failures)
	}
}
