// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package execbridge

import (
	"errors"
	"fmt"
	"time"
)

// ErrNotReady is wrapped by Ready's errors: no agent process runs, or the
// one that runs has left its input unread.
var ErrNotReady = errors.New("execbridge: the agent process is not ready")

// unreadGrace is how long input may stay unread before Ready says so (the
// process is killed at WriteTimeout).
const unreadGrace = time.Second

// Ready returns nil while an agent process runs and reads what it is sent;
// otherwise an error wrapping ErrNotReady that says why (restarting, given
// up, or input unread for a while). The readiness of `serve --exec` asks it.
func (b *Bridge) Ready() error {
	b.mu.Lock()
	c, down, downErr := b.cur, b.down, b.downErr
	b.mu.Unlock()
	select {
	case <-down:
		return fmt.Errorf("%w: it is not restarted any more: %v", ErrNotReady, downErr)
	default:
	}
	if c == nil {
		return fmt.Errorf("%w: it is (re)starting", ErrNotReady)
	}
	if since := c.unreadSince.Load(); since != 0 {
		if d := time.Since(time.Unix(0, since)); d >= unreadGrace {
			return fmt.Errorf("%w: it has left its input unread for %s", ErrNotReady, d.Round(time.Second))
		}
	}
	return nil
}
