// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package redislimits

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/guard"
)

// A process reserves the in-flight slots of a caller ahead, as a block:
// every slot of the block is a member of the caller's sorted set in Redis,
// so the set never holds more than max_in_flight across the processes, and
// a call takes a slot of its process's block with no round trip. When the
// block has no free slot, the call takes more from Redis: half as many as
// the block holds (at least one, at most a quarter of max_in_flight), as
// many as fit. A slot the block holds unused for Options.IdleReturn goes
// back.
//
// A block serves its free slots only while their leases are sure to run
// (validUntil, on this process's clock: the last renewal sent plus the
// lease, less a tenth); past it, a call takes from Redis again and the free
// slots go back.
//
// A take that finds no room is BUSY only when this process had no slot for
// the call either (afterBusy): none of its calls ended meanwhile, no other
// take of its own reserved more, and it gave no slot back since the take
// was prepared — such a slot may have been counted by the take however long
// ago its removal landed, so the take is made again. The slots of a take
// whose answer was lost go back like the others (takeFailed).

// block is the slots of one caller this process holds. l.mu guards it.
type block struct {
	key        string              // the caller's sorted set
	held       map[string]struct{} // every slot held in Redis: the free ones and those of calls running
	free       []idleSlot          // held slots no call uses, the last freed on top (oldest first)
	validUntil time.Time           // the held slots' leases end no sooner
	taking     int                 // takes in flight: the block is not dropped meanwhile
	gaveBack   uint64              // slots handed to the writer so far (releasedLocked; afterBusy)
}

// idleSlot is a free slot and since when it is free.
type idleSlot struct {
	id    string
	since time.Time
}

// takeSlots drops the expired slots of KEYS[1] and this process's released
// ones ARGV[4+n..], then adds up to n = ARGV[3] of the slot ids
// ARGV[4..3+n] with a lease of ARGV[2] ms, as many as fit under ARGV[1]
// slots: the number added (0: all taken).
var takeSlots = goredis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local n = tonumber(ARGV[3])
for i = 4 + n, #ARGV do
  redis.call('ZREM', KEYS[1], ARGV[i])
end
local room = tonumber(ARGV[1]) - redis.call('ZCARD', KEYS[1])
if room <= 0 then
  return 0
end
local k = math.min(room, n)
for i = 4, 3 + k do
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[i])
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return k
`)

// renewSlots sets the lease of the slots ARGV[2..] of KEYS[1] to ARGV[1]
// ms from now and answers those no longer there, which it does not add
// again: a slot lost to an outage is not counted again.
var renewSlots = goredis.NewScript(`
local t = redis.call('TIME')
local until_ = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[1])
local gone = {}
for i = 2, #ARGV do
  if redis.call('ZADD', KEYS[1], 'XX', 'CH', until_, ARGV[i]) == 0 and not redis.call('ZSCORE', KEYS[1], ARGV[i]) then
    gone[#gone + 1] = ARGV[i]
  end
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return gone
`)

// valid is how long after sending a take or a renewal this process counts
// on the slots' leases: the lease less a tenth.
func (l *Limits) valid() time.Duration { return l.lease - l.lease/10 }

// blockLocked returns caller's block, made on first use.
func (l *Limits) blockLocked(caller string) (*block, error) {
	if b := l.blocks[caller]; b != nil {
		return b, nil
	}
	k, err := memory.InFlightSlotsKey(caller)
	if err != nil {
		return nil, fmt.Errorf("redislimits: take a slot: %w: %w", guard.ErrNotShared, err)
	}
	if l.blocks == nil {
		l.blocks = map[string]*block{}
	}
	b := &block{key: l.prefix + k, held: map[string]struct{}{}}
	l.blocks[caller] = b
	return b, nil
}

// popLocked hands out the slot freed last, if the block's leases are sure
// to run at now.
func (b *block) popLocked(now time.Time) (string, bool) {
	if len(b.free) == 0 || !now.Before(b.validUntil) {
		return "", false
	}
	s := b.free[len(b.free)-1]
	b.free = b.free[:len(b.free)-1]
	return s.id, true
}

// slotTake is a take of slots from Redis in preparation.
type slotTake struct {
	caller   string
	b        *block
	n        int    // slot ids asked for: args[3:3+n]
	args     []any  // takeSlots's
	gaveBack uint64 // b.gaveBack when args were made: the slots given back before are in args or removed
}

// takeLocked prepares the take of slots for caller's block b (limit the
// caller's max_in_flight): the free slots whose leases may have ended go
// back first.
func (l *Limits) takeLocked(caller string, b *block, limit int, now time.Time) *slotTake {
	if len(b.free) > 0 && !now.Before(b.validUntil) {
		l.giveBackFreeLocked(b)
	}
	n := min(limit, max(1, min(len(b.held)/2, limit/4)))
	args := make([]any, 0, 3+n+len(l.released[b.key]))
	args = append(args, limit, l.lease.Milliseconds(), n)
	for range n {
		args = append(args, l.replica+"-"+strconv.FormatUint(l.seq.Add(1), 36))
	}
	for gone := range l.released[b.key] { // even those the writer is removing: it may not have yet
		args = append(args, gone)
	}
	b.taking++
	return &slotTake{caller: caller, b: b, n: n, args: args, gaveBack: b.gaveBack}
}

// slotsTaken records the k slots a take sent at sent got: the first for
// the call when use, the others free. It answers the call's slot.
func (l *Limits) slotsTaken(t *slotTake, k int, sent time.Time, use bool) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := t.b
	b.taking--
	l.settled.Broadcast()
	l.removedLocked(b.key, t.args[3+t.n:]) // the script removed this process's released slots first
	if k <= 0 {
		return ""
	}
	if len(b.held) == 0 {
		b.validUntil = sent.Add(l.valid())
	}
	now := time.Now()
	first := ""
	for i := range k {
		id := t.args[3+i].(string)
		b.held[id] = struct{}{}
		if i == 0 && use {
			first = id
			continue
		}
		b.free = append(b.free, idleSlot{id: id, since: now})
	}
	l.startLocked()
	return first
}

// afterBusy answers the block and slot of a call whose take t found every
// slot taken, if this process had one for it after all: a call of its own
// that ended (to the block), or a slot it gave back after t's arguments
// were made. Such a slot may still have been in Redis when t ran, however
// long ago its removal landed (a process starved of CPU reads t's answer
// late): while this process has given back slots since its last take, it
// takes again, one more round trip each, within the timeout. nil: none
// (BUSY).
func (l *Limits) afterBusy(t *slotTake) (*block, string) {
	deadline := time.Now().Add(l.timeout)
	for {
		b, id, retry := l.busyAgain(t, deadline)
		if retry == nil {
			return b, id
		}
		ctx, cancel := l.bounded()
		at := time.Now()
		k, err := takeSlots.Run(ctx, l.client, []string{retry.b.key}, retry.args...).Int()
		cancel()
		if err != nil { // BUSY, as the first take answered
			l.takeFailed(retry)
			return nil, ""
		}
		if id := l.slotsTaken(retry, k, at, true); id != "" {
			return retry.b, id
		}
		t = retry
	}
}

// busyAgain waits for the other takes of t's caller in flight (another
// take that Redis answered first may not be recorded yet), each bounded
// by the timeout, and answers a slot one of them or a call that ended
// freed; else the take to make again if this process gave slots back
// since t's arguments were made (or dropped t's block meanwhile), before
// deadline; else nothing.
func (l *Limits) busyAgain(t *slotTake, deadline time.Time) (*block, string, *slotTake) {
	l.mu.Lock()
	defer l.mu.Unlock()
	wake := time.AfterFunc(time.Until(deadline), func() { l.mu.Lock(); l.settled.Broadcast(); l.mu.Unlock() })
	defer wake.Stop()
	for {
		b := l.blocks[t.caller] // t.b, unless dropped meanwhile with no slot held
		if b == nil {
			break
		}
		if id, ok := b.popLocked(time.Now()); ok {
			return b, id, nil
		}
		if b.taking == 0 || !time.Now().Before(deadline) {
			break
		}
		l.settled.Wait()
	}
	if !time.Now().Before(deadline) || (l.blocks[t.caller] == t.b && t.b.gaveBack == t.gaveBack) {
		return nil, "", nil
	}
	b, err := l.blockLocked(t.caller)
	if err != nil { // t had its key: never
		return nil, "", nil
	}
	return nil, "", l.takeLocked(t.caller, b, t.args[0].(int), time.Now())
}

// takeFailed forgets a take whose answer did not come. Its script may have
// run all the same: the slots it asked for go to the writer, and to this
// process's next take, so that none it added stays counted for its lease.
func (l *Limits) takeFailed(t *slotTake) {
	l.mu.Lock()
	t.b.taking--
	for _, id := range t.args[3 : 3+t.n] {
		l.releasedLocked(t.b, id.(string))
	}
	l.settled.Broadcast()
	l.startLocked()
	l.mu.Unlock()
	l.wakeWriter()
}

// releaseSlot frees a call's slot: to the block's free slots, or, when the
// block no longer holds it (or Limits is closed), to the writer.
func (l *Limits) releaseSlot(b *block, id string) {
	l.mu.Lock()
	if _, ok := b.held[id]; ok && !l.closed {
		b.free = append(b.free, idleSlot{id: id, since: time.Now()})
		l.mu.Unlock()
		return
	}
	l.releasedLocked(b, id)
	l.startLocked()
	l.mu.Unlock()
	l.wakeWriter()
}

// wakeWriter has the writer write the releases soon.
func (l *Limits) wakeWriter() {
	select {
	case l.wake <- struct{}{}:
	default: // the writer is woken already
	}
}

// releasedLocked hands the removal of a slot of b to the writer, and to
// this process's next take of the same caller until it is known done.
func (l *Limits) releasedLocked(b *block, id string) {
	b.gaveBack++
	key := b.key
	if l.released == nil {
		l.released = map[string]map[string]struct{}{}
	}
	if l.released[key] == nil {
		l.released[key] = map[string]struct{}{}
	}
	l.released[key][id] = struct{}{}
}

// giveBackFreeLocked hands every free slot of b to the writer.
func (l *Limits) giveBackFreeLocked(b *block) {
	for _, s := range b.free {
		delete(b.held, s.id)
		l.releasedLocked(b, s.id)
	}
	b.free = b.free[:0]
}

// returnIdle gives back the slots free since l.idle before now, and
// drops the blocks left empty.
func (l *Limits) returnIdle(now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	cut := now.Add(-l.idle)
	for caller, b := range l.blocks {
		n := 0
		for n < len(b.free) && !b.free[n].since.After(cut) {
			delete(b.held, b.free[n].id)
			l.releasedLocked(b, b.free[n].id)
			n++
		}
		b.free = b.free[:copy(b.free, b.free[n:])]
		if len(b.held) == 0 && b.taking == 0 {
			delete(l.blocks, caller)
		}
	}
}

// removedLocked forgets the released slots that a script or the writer
// removed from Redis.
func (l *Limits) removedLocked(key string, slots []any) {
	for _, s := range slots {
		delete(l.released[key], s.(string))
	}
	if len(l.released[key]) == 0 {
		delete(l.released, key)
	}
}

// writeReleases removes the released slots from Redis, in one pipeline.
func (l *Limits) writeReleases(ctx context.Context) error {
	l.mu.Lock()
	batch := make(map[string][]any, len(l.released))
	for key, slots := range l.released {
		for s := range slots {
			batch[key] = append(batch[key], s)
		}
	}
	l.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	pipe := l.client.Pipeline()
	for key, members := range batch {
		pipe.ZRem(ctx, key, members...)
	}
	if _, err := pipe.Exec(ctx); err != nil { // kept: the next write or take removes them, else their lease ends
		return fmt.Errorf("release %d callers' slots: %w", len(batch), err)
	}
	l.mu.Lock()
	for key, members := range batch {
		l.removedLocked(key, members)
	}
	l.mu.Unlock()
	return nil
}

// renew extends the lease of every slot this process holds, and drops
// from its blocks those Redis no longer has.
func (l *Limits) renew() error {
	type renewal struct {
		b    *block
		args []any
	}
	l.mu.Lock()
	batch := make([]renewal, 0, len(l.blocks))
	for _, b := range l.blocks {
		if len(b.held) == 0 {
			continue
		}
		args := make([]any, 0, len(b.held)+1)
		args = append(args, l.lease.Milliseconds())
		for s := range b.held {
			args = append(args, s)
		}
		batch = append(batch, renewal{b, args})
	}
	l.mu.Unlock()
	var errs []error
	for _, r := range batch {
		ctx, cancel := l.bounded()
		sent := time.Now()
		gone, err := renewSlots.Run(ctx, l.client, []string{r.b.key}, r.args...).StringSlice()
		cancel()
		if err != nil {
			errs = append(errs, fmt.Errorf("renew the slots of %s: %w", r.b.key, err))
			continue
		}
		l.mu.Lock()
		r.b.validUntil = sent.Add(l.valid()) // a slot taken since has a later lease
		for _, id := range gone {
			r.b.drop(id)
		}
		l.mu.Unlock()
	}
	return errors.Join(errs...)
}

// drop forgets a slot Redis no longer has; a call that holds it gives it
// back to the writer (releaseSlot), harmlessly.
func (b *block) drop(id string) {
	delete(b.held, id)
	for i, s := range b.free {
		if s.id == id {
			b.free = append(b.free[:i], b.free[i+1:]...)
			return
		}
	}
}
