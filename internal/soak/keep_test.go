// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package soak

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"go.uber.org/zap"
)

// TestKeepDataSavesTheLedger: a kept run's ledger outlives its private
// Redis, in the run folder's dump.rdb.
func TestKeepDataSavesTheLedger(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server not installed")
	}
	dir := t.TempDir()
	rd, err := StartRedis(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Stop()
	l, err := NewLedger(rd.URL, "keep")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	if err := l.Client().Set(context.Background(), l.key(keyIssued), 7, 0).Err(); err != nil {
		t.Fatal(err)
	}
	// A SAVE that takes longer than a client's default read timeout (3 s),
	// as a big working memory's did: held up by a pause.
	if err := l.Client().Do(context.Background(), "CLIENT", "PAUSE", 4000, "ALL").Err(); err != nil {
		t.Fatal(err)
	}
	r := &runner{dir: dir, redis: rd, ledger: l, log: zap.NewNop()}
	r.keepData()
	if fi, err := os.Stat(filepath.Join(dir, "dump.rdb")); err != nil || fi.Size() == 0 {
		t.Fatalf("no ledger kept: %v", err)
	}
}
