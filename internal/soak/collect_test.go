// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package soak

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/memory/redismem"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
)

// The checker reads the results of the tasks whose id it does not know
// with one scan of the keyspace, not one per task: counted in SCAN calls on
// a private redis-server, collect over 600 sessions, 400 of them without a
// known task id, makes as many as a single List of the sessions' keys (the
// per-session scans it replaced made 400 times as many, and a 100,000-task
// cluster run's check did not end in 28 minutes). It still finds every
// result: at a known id, and the one stored for a task never marked sent;
// and it sees a sent task withdrawn (its claim "unsent").
func TestCollectScansTheKeyspaceOnce(t *testing.T) {
	testenv.RedisURL(t) // skip locally (fail under CI) without Redis
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, err := StartRedis(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	m, err := redismem.New(ctx, redismem.Options{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	admin := srv.Admin()
	defer admin.Close()

	const sessions = 600
	s := &Snapshot{Entries: map[string]Entry{}, Sent: map[string]string{}, Refused: map[string]string{}, Killed: map[string]bool{}, Produced: map[string][]string{}}
	want := map[string]string{} // session → the task id of its stored result
	for i := range sessions {
		sid := SessionID("scan", int64(i))
		s.Entries[sid] = Entry{Session: sid, Caller: "C", Proc: "p1", Target: "A", Skill: SkillFast, Expect: ExpectComplete, Text: sid}
		task := fmt.Sprintf("t-%d", i)
		switch i % 3 {
		case 0: // sent, answered; the first withdrawn by its caller instead (claimed unsent)
			s.Sent[sid] = task
			if i == 0 {
				claim, err := memory.TaskClaimKey("C", task)
				if err != nil {
					t.Fatal(err)
				}
				if err := m.Set(ctx, claim, []byte("unsent"), time.Hour); err != nil {
					t.Fatal(err)
				}
				continue
			}
		case 1: // refused: nothing stored
			s.Refused[sid] = "broker down"
			continue
		}
		// case 2: its caller killed before it marked it sent, yet answered
		key, err := memory.ResultKey(sid, "A", task)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(caller.StoredResult{TaskID: task, Agent: "A", SessionID: sid, State: a2a.TaskStateCompleted})
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Set(ctx, key, b, time.Hour); err != nil {
			t.Fatal(err)
		}
		want[sid] = task
	}

	scans := func(f func() error) int {
		t.Helper()
		if err := admin.ConfigResetStat(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		if err := f(); err != nil {
			t.Fatal(err)
		}
		info, err := admin.Info(ctx, "commandstats").Result()
		if err != nil {
			t.Fatal(err)
		}
		match := regexp.MustCompile(`cmdstat_scan:calls=(\d+)`).FindStringSubmatch(info)
		if match == nil {
			return 0
		}
		n, _ := strconv.Atoi(match[1])
		return n
	}
	var obs map[string]*Observed
	got := scans(func() (err error) { obs, err = collect(ctx, m, s); return err })
	one := scans(func() error { _, err := m.List(ctx, "session/"); return err })
	if one == 0 || got != one {
		t.Errorf("collect made %d SCAN calls, one List of the sessions %d: want one scan for all %d sessions", got, one, sessions)
	}
	for sid := range s.Entries {
		if w := obs[sid].Withdrawn; w != (sid == SessionID("scan", 0)) {
			t.Errorf("%s: withdrawn %v", sid, w)
		}
		var tasks []string
		for _, r := range obs[sid].Results {
			tasks = append(tasks, r.Task)
		}
		if task, ok := want[sid]; (ok && (len(tasks) != 1 || tasks[0] != task)) || (!ok && len(tasks) != 0) {
			t.Errorf("%s: results of tasks %v, want %q", sid, tasks, task)
		}
	}
}
