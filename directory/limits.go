// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package directory

import (
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// Defaults of the directory's bounds (Options.MaxAgents, MaxCardBytes, MaxClockSkew).
const (
	DefaultMaxAgents    = 1000
	DefaultMaxCardBytes = 64 << 10
	DefaultMaxClockSkew = time.Minute
)

// Bounds of the files the directory reads; a longer file, or a path that is
// not a regular file (a FIFO, a device), is refused before it is parsed.
const (
	// MaxWellKnownFileBytes bounds the well-known file (directory.well_known_file).
	MaxWellKnownFileBytes = 16 << 20
	// MaxPinsFileBytes bounds the pins file (directory.pins_file).
	MaxPinsFileBytes = 64 << 20
)

// knownAgentsFileBytes bounds the known-agents file (directory.known_agents_file):
// room for what the directory itself writes there — every agent it may
// know (MaxAgents learned ones and the well-known ones), each with a card
// of up to MaxCardBytes, its input schemas and instances, indented — with
// a margin: 4 × MaxCardBytes + 64 KiB per agent, plus 1 MiB.
func (o *Options) knownAgentsFileBytes() int64 {
	agents := int64(o.MaxAgents) + int64(len(o.WellKnown))
	return agents*(4*int64(o.MaxCardBytes)+64<<10) + 1<<20
}

// Bounds of an announced card's content, whatever the options.
const (
	// MaxCardSkills is the most skills an announced card may list.
	MaxCardSkills = 256
	// MaxDescriptionBytes bounds an announced card's description and each of its skills' descriptions.
	MaxDescriptionBytes = 8 << 10
)

// dropLogEvery is the least time between two warnings about one kind of
// dropped announcement; the drops in between are counted in the next one.
const dropLogEvery = time.Minute

// cardProblem returns why an announcement whose body has bodyBytes bytes
// breaks the per-card bounds, or "" when it keeps them.
func cardProblem(bodyBytes, maxBytes int, c *a2a.AgentCard) string {
	switch {
	case bodyBytes > maxBytes:
		return fmt.Sprintf("the announcement is %d bytes, more than the limit of %d bytes (MaxCardBytes)", bodyBytes, maxBytes)
	case len(c.Skills) > MaxCardSkills:
		return fmt.Sprintf("the card lists %d skills, more than the limit of %d", len(c.Skills), MaxCardSkills)
	case len(c.Description) > MaxDescriptionBytes:
		return fmt.Sprintf("the card's description is %d bytes, more than the limit of %d bytes", len(c.Description), MaxDescriptionBytes)
	}
	for i, s := range c.Skills {
		if len(s.Description) > MaxDescriptionBytes {
			return fmt.Sprintf("skills[%d] %q: the description is %d bytes, more than the limit of %d bytes", i, s.ID, len(s.Description), MaxDescriptionBytes)
		}
	}
	return ""
}

// timeProblem returns why an announcement dated at is not believable, or
// "": it may be at most skew ahead of the directory's clock (now), and at
// most skew away from the time its envelope was stamped with (sent; zero
// when the transport carried none), which the signature covers. Without
// this bound a card dated years ahead would win over every later one.
func timeProblem(at, sent, now time.Time, skew time.Duration) string {
	if at.After(now.Add(skew)) {
		return fmt.Sprintf("dated %s, more than %s (MaxClockSkew) ahead of the directory's clock (%s)",
			at.UTC().Format(time.RFC3339), skew, now.UTC().Format(time.RFC3339))
	}
	if !sent.IsZero() {
		if diff := at.Sub(sent); diff > skew || diff < -skew {
			return fmt.Sprintf("dated %s, more than %s (MaxClockSkew) from the time it was sent (%s)",
				at.UTC().Format(time.RFC3339), skew, sent.UTC().Format(time.RFC3339))
		}
	}
	return ""
}

// throttle lets one warning of a kind through per dropLogEvery and counts the
// ones held back, so a flood of bad announcements cannot flood the log.
type throttle struct {
	mu         sync.Mutex
	last       time.Time
	suppressed int
}

// allow reports whether a warning may be logged at now and, if so, how many
// were held back since the last one.
func (t *throttle) allow(now time.Time) (ok bool, suppressed int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.last.IsZero() && !now.Before(t.last) && now.Sub(t.last) < dropLogEvery {
		t.suppressed++
		return false, 0
	}
	t.last, suppressed, t.suppressed = now, t.suppressed, 0
	return true, suppressed
}

// dropWarner logs dropped announcements, each kind throttled on its own.
type dropWarner struct {
	log  *zap.Logger
	full throttle // a new agent past MaxAgents
	card throttle // a card past its bounds
	time throttle // a card dated out of bounds
	key  throttle // a card refused by the pinned keys (trust.go)
}

// warn logs msg with fields unless t held it back at now; the count of
// warnings held back since the last one is added as dropped_unlogged.
func (w *dropWarner) warn(t *throttle, now time.Time, msg string, fields ...zap.Field) {
	ok, suppressed := t.allow(now)
	if !ok {
		return
	}
	w.log.Warn(msg, append(fields, zap.Int("dropped_unlogged", suppressed), zap.Duration("log_period", dropLogEvery))...)
}
