// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package rabbitmq

import (
	"sync"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// Bounds of copiedSet: how long an entry waits for its original to come
// back, and how many are kept. An entry is made only when a channel is lost
// in the instant between a copy's confirm and its original's ack, so a few
// are many.
const (
	copiedTTL = 30 * time.Minute
	copiedMax = 4096
)

// copiedSet remembers the deliveries that were replaced by a confirmed copy
// (requeue, release, dead-letter, crash count) but whose ack found their
// channel lost: the broker delivers the original again, and the consumer of
// this bus that gets it drops it rather than copying it a second time. A
// redelivery that reaches another process is not known there: that one
// still makes a second copy.
type copiedSet struct {
	mu      sync.Mutex
	entries map[copiedKey]time.Time // when the copy was made
}

// copiedKey names one delivery of one message: its queue, message id and
// attempt number (a redelivery carries the same three).
type copiedKey struct {
	queue, messageID string
	attempt          int
}

// add records that d, of queue, was copied; a message without an id cannot
// be told from another and is not recorded.
func (s *copiedSet) add(queue string, d *amqp.Delivery) {
	if d.MessageId == "" {
		return
	}
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.entries == nil {
		s.entries = map[copiedKey]time.Time{}
	}
	if len(s.entries) >= copiedMax {
		for k, at := range s.entries {
			if now.Sub(at) >= copiedTTL {
				delete(s.entries, k)
			}
		}
		if len(s.entries) >= copiedMax {
			return
		}
	}
	s.entries[copiedKey{queue, d.MessageId, attemptOf(d.Headers)}] = now
}

// take reports whether d, of queue, is the original of a copy made before
// its channel was lost, and forgets it.
func (s *copiedSet) take(queue string, d *amqp.Delivery) bool {
	if d.MessageId == "" {
		return false
	}
	k := copiedKey{queue, d.MessageId, attemptOf(d.Headers)}
	s.mu.Lock()
	defer s.mu.Unlock()
	at, ok := s.entries[k]
	if !ok {
		return false
	}
	delete(s.entries, k)
	return time.Since(at) < copiedTTL
}
