// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package redismem

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	goredis "github.com/redis/go-redis/v9"
	"go.uber.org/zap"
)

// goRedisLog is go-redis's process-wide logger once a New has run: the lines
// go-redis prints itself (a pool that cannot dial, a Sentinel failover, ...)
// go to zap instead of stderr.
var (
	goRedisLog        zapLogging
	installGoRedisLog sync.Once
)

// logGoRedisTo routes go-redis's own log lines, at warn level, to log: it
// installs the adapter (goredis.SetLogger) the first time, once per process
// whatever the concurrent calls, and makes log its target unless log is nil.
// Until a call gives a logger, the lines are dropped, as Options.Logger nil
// means no logging. go-redis reads its logger without synchronisation: a
// go-redis client made outside this package that logs while the first New
// installs the adapter races with it.
func logGoRedisTo(log *zap.Logger) {
	installGoRedisLog.Do(func() { goredis.SetLogger(&goRedisLog) })
	if log != nil {
		goRedisLog.target.Store(log)
	}
}

// zapLogging is go-redis's logging interface writing to a zap logger.
type zapLogging struct {
	target atomic.Pointer[zap.Logger] // nil: drop the lines
}

// Printf writes one go-redis line at warn level, "go-redis: " replacing its "redis: " prefix.
func (l *zapLogging) Printf(_ context.Context, format string, args ...any) {
	log := l.target.Load()
	if log == nil || !log.Core().Enabled(zap.WarnLevel) {
		return
	}
	log.Warn("go-redis: " + strings.TrimPrefix(fmt.Sprintf(format, args...), "redis: "))
}
