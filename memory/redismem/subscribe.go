// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package redismem

import (
	"context"
	"fmt"
	"strconv"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/internal/backoff"
	"github.com/a2abus/a2abus/memory"
)

const (
	// pageSize is how many turns one catch-up read fetches.
	pageSize = 256
	// resyncInterval is how often an idle subscription re-reads the list, in
	// case an announcement was lost on a connection that looked healthy.
	resyncInterval = 10 * time.Second
)

// readBackoff is the wait before a subscription whose reads fail reads again.
var readBackoff = backoff.Policy{Min: 100 * time.Millisecond, Max: 5 * time.Second}

// SubscribeTurns delivers every turn of session with Seq > afterSeq, in order,
// without gaps or duplicates. It subscribes to the session's channel first,
// then reads the stored turns; after that each announcement, each
// (re)subscription after a reconnect, and a periodic resync read the list from
// the last delivered Seq, so turns announced while disconnected are not lost.
// The channel closes when ctx is done or m is closed.
func (m *backend) SubscribeTurns(ctx context.Context, session string, afterSeq int64) (<-chan memory.Turn, error) {
	op := fmt.Sprintf("subscribe to turns of %q", session)
	var ps *goredis.PubSub
	err := m.call(ctx, op, func(ctx context.Context) error {
		ps = m.client.Subscribe(ctx, m.eventsChannel(session))
		reply, err := ps.ReceiveTimeout(ctx, m.opts.Timeout)
		if err != nil {
			return err
		}
		if _, ok := reply.(*goredis.Subscription); !ok {
			return fmt.Errorf("unexpected reply %T to SUBSCRIBE", reply)
		}
		return nil
	})
	if err != nil {
		if ps != nil {
			_ = ps.Close()
		}
		return nil, err
	}

	m.mu.Lock()
	if m.closed.Load() {
		m.mu.Unlock()
		_ = ps.Close()
		return nil, fmt.Errorf("%s: %w", op, memory.ErrClosed)
	}
	m.subs.Add(1)
	m.mu.Unlock()

	subCtx, cancel := context.WithCancel(ctx)
	stopOnClose := context.AfterFunc(m.root, cancel)
	s := &subscription{
		m: m, session: session, ps: ps, last: afterSeq,
		out: make(chan memory.Turn),
		log: m.log.With(zap.String("session", session)),
	}
	go func() {
		defer m.subs.Done()
		defer stopOnClose()
		defer cancel()
		s.run(subCtx)
	}()
	return s.out, nil
}

// subscription forwards one session's turns to out.
type subscription struct {
	m       *backend
	session string
	ps      *goredis.PubSub
	last    int64 // Seq of the last turn delivered
	out     chan memory.Turn
	log     *zap.Logger
}

// run catches up at once, then whenever an announcement of a turn after last,
// a (re)subscription or the resync timer arrives, until ctx is done.
func (s *subscription) run(ctx context.Context) {
	defer close(s.out)
	defer func() { _ = s.ps.Close() }()
	events := s.ps.ChannelWithSubscriptions()
	timer := time.NewTimer(0)
	defer timer.Stop()
	fails := 0 // reads failed in a row
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				return
			}
			if msg, isMsg := ev.(*goredis.Message); isMsg {
				if seq, err := strconv.ParseInt(msg.Payload, 10, 64); err == nil && seq <= s.last {
					continue // already delivered by an earlier catch-up
				}
			}
		case <-timer.C:
		}
		if err := s.catchUp(ctx); err != nil {
			if ctx.Err() != nil {
				return
			}
			if fails == 0 {
				s.log.Warn("redis working memory: subscription cannot read turns, retrying", zap.Error(err))
			}
			timer.Reset(readBackoff.Delay(fails))
			fails++
			continue
		}
		if fails > 0 {
			s.log.Info("redis working memory: subscription reads turns again", zap.Int64("seq", s.last))
			fails = 0
		}
		timer.Reset(resyncInterval)
	}
}

// catchUp delivers every stored turn after last, page by page.
func (s *subscription) catchUp(ctx context.Context) error {
	op := fmt.Sprintf("read turns of %q", s.session)
	for {
		var turns []memory.Turn
		err := s.m.call(ctx, op, func(ctx context.Context) error {
			var err error
			turns, err = s.m.readTurns(ctx, s.session, s.last, pageSize)
			return err
		})
		if err != nil {
			return err
		}
		for _, t := range turns {
			select {
			case s.out <- t:
				s.last = t.Seq
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if len(turns) < pageSize {
			return nil
		}
	}
}
