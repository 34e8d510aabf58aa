// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package rabbitmq

// Connected reports whether both of the bus's connections (publish and
// consume) are open now: false while either is re-dialled, and once the
// bus is closed. For readiness probes.
func (b *Bus) Connected() bool {
	if b.isClosed() {
		return false
	}
	return b.publish.connected() && b.consume.connected()
}

// Reconnects is how many times a lost connection of the bus was dialled
// again successfully since Dial, both connections together.
func (b *Bus) Reconnects() uint64 { return b.publish.reconnects.Load() + b.consume.reconnects.Load() }

// connected reports whether the link's connection is open.
func (l *link) connected() bool {
	s := l.current()
	return s.conn != nil && !s.conn.IsClosed()
}
