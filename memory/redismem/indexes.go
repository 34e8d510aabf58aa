// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package redismem

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	goredis "github.com/redis/go-redis/v9"

	"github.com/a2abus/a2abus/memory"
)

// IndexAdd adds member to index with score, or moves it to score: ZADD.
func (m *backend) IndexAdd(ctx context.Context, index, member string, score int64) error {
	return m.call(ctx, fmt.Sprintf("index add %q to %q", member, index), func(ctx context.Context) error {
		return m.client.ZAdd(ctx, m.indexKey(index), zMember(member, score)).Err()
	})
}

// IndexRemove removes member from index: ZREM (Redis deletes a set that empties).
func (m *backend) IndexRemove(ctx context.Context, index, member string) error {
	return m.call(ctx, fmt.Sprintf("index remove %q from %q", member, index), func(ctx context.Context) error {
		return m.client.ZRem(ctx, m.indexKey(index), member).Err()
	})
}

// IndexRange returns the members of index with score <= max, lowest score
// first, ties in byte order of member, at most limit (<= 0: all):
// ZRANGEBYSCORE -inf max WITHSCORES [LIMIT 0 limit].
func (m *backend) IndexRange(ctx context.Context, index string, max int64, limit int) ([]memory.IndexMember, error) {
	out := []memory.IndexMember{}
	err := m.call(ctx, fmt.Sprintf("index range %q", index), func(ctx context.Context) error {
		by := &goredis.ZRangeBy{Min: "-inf", Max: rangeMax(max)}
		if limit > 0 {
			by.Count = int64(limit)
		}
		zs, err := m.client.ZRangeByScoreWithScores(ctx, m.indexKey(index), by).Result()
		if err != nil {
			return err
		}
		for _, z := range zs {
			member, ok := z.Member.(string)
			if !ok {
				return fmt.Errorf("member of type %T in the reply", z.Member)
			}
			out = append(out, memory.IndexMember{Member: member, Score: int64(z.Score)})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// IndexScore returns member's score and whether it is in index: ZSCORE.
func (m *backend) IndexScore(ctx context.Context, index, member string) (int64, bool, error) {
	var (
		score int64
		found bool
	)
	err := m.call(ctx, fmt.Sprintf("index score %q in %q", member, index), func(ctx context.Context) error {
		f, err := m.client.ZScore(ctx, m.indexKey(index), member).Result()
		switch {
		case errors.Is(err, goredis.Nil):
			return nil
		case err != nil:
			return err
		}
		score, found = int64(f), true
		return nil
	})
	return score, found, err
}

// zMember is the ZADD argument of member at score (validated: exact as a float64).
func zMember(member string, score int64) goredis.Z {
	return goredis.Z{Score: float64(score), Member: member}
}

// rangeMax is the ZRANGEBYSCORE max of IndexRange's max. Stored scores lie
// within ±memory.MaxIndexScore, where a float64 is exact; beyond, max would
// round, so it is clamped: above to 2^53 (every member), below to "(-2^53"
// (none).
func rangeMax(bound int64) string {
	switch {
	case bound > memory.MaxIndexScore:
		bound = memory.MaxIndexScore
	case bound < -memory.MaxIndexScore:
		return "(" + strconv.FormatInt(-memory.MaxIndexScore, 10)
	}
	return strconv.FormatInt(bound, 10)
}
