// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package soak

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"
)

// saveTimeout bounds one Redis's SAVE.
const saveTimeout = 2 * time.Minute

// keepData saves, before the servers stop, what a kept run's analysis
// needs: the ledger, into the run folder's dump.rdb (its private Redis is
// stopped with the run), and on a cluster every working-memory Redis, into
// its cluster.sh folder (DIR/c0 … DIR/s2; cluster.sh down leaves them).
// redis-server --dir FOLDER then serves one again.
func (r *runner) keepData() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*saveTimeout)
	defer cancel()
	if r.redis != nil {
		r.save(ctx, r.redis.Addr(), r.dir)
	}
	c := r.o.Cluster
	if c == nil {
		return
	}
	for _, prefix := range []string{"c", "s"} {
		for i := range 6 {
			dir := filepath.Join(c.Dir, prefix+string(rune('0'+i)))
			port, err := os.ReadFile(filepath.Join(dir, "port"))
			if err == nil {
				r.save(ctx, "127.0.0.1:"+strings.TrimSpace(string(port)), dir)
			}
		}
	}
}

// save makes the Redis at addr write its data set into its folder (dir).
func (r *runner) save(ctx context.Context, addr, dir string) {
	// A working memory of 100,000 tasks takes longer to write than the
	// client's default 3 s read timeout.
	cl := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, ReadTimeout: saveTimeout})
	defer func() { _ = cl.Close() }()
	if err := cl.Save(ctx).Err(); err != nil {
		r.log.Warn("data not kept", zap.String("redis", addr), zap.Error(err))
		return
	}
	r.log.Info("data kept", zap.String("redis", addr), zap.String("file", filepath.Join(dir, "dump.rdb")))
}
