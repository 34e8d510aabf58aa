// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package redismem

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// appendScript appends one turn atomically and announces it.
// KEYS[1]: the turns list. KEYS[2]: the once hash (id -> Seq); both carry the
// session's hash tag. ARGV[1]: the turn's JSON without "seq" (an object
// starting with {"role"). ARGV[2]: the events channel. ARGV[3]: the
// conversation TTL in ms, 0 for none. ARGV[4]: the once id, "" for none.
// The new Seq is the list's new length, so the turn with Seq n is always at
// index n-1 and Turns can LRANGE by Seq. It returns {1, seq} when it
// appended (the caller has the rest of the turn), {0, turn stored under the
// once id} when it did not.
//
// The two keys expire separately, the list first (its PEXPIRE comes first,
// and a millisecond may pass between the two): a once id whose list is gone
// belongs to the conversation that just expired, so its hash is dropped and
// the turn appended as the first of a new one.
var appendScript = goredis.NewScript(`
local once = ARGV[4]
if once ~= '' then
  local seen = redis.call('HGET', KEYS[2], once)
  if seen then
    local turn = redis.call('LINDEX', KEYS[1], tonumber(seen) - 1)
    if turn or redis.call('EXISTS', KEYS[1]) == 1 then
      return {0, turn}
    end
    redis.call('DEL', KEYS[2])
  end
end
local seq = redis.call('LLEN', KEYS[1]) + 1
local turn = '{"seq":' .. seq .. ',' .. string.sub(ARGV[1], 2)
redis.call('RPUSH', KEYS[1], turn)
if once ~= '' then
  redis.call('HSET', KEYS[2], once, seq)
end
local ttl = tonumber(ARGV[3])
if ttl > 0 then
  redis.call('PEXPIRE', KEYS[1], ttl)
  redis.call('PEXPIRE', KEYS[2], ttl)
end
redis.call('PUBLISH', ARGV[2], seq)
return {1, seq}
`)

// unsequenced is a turn's JSON before the script prepends its Seq.
type unsequenced struct {
	Role    string            `json:"role"`
	Content string            `json:"content"`
	Time    time.Time         `json:"time"`
	Meta    map[string]string `json:"meta,omitempty"`
}

// encodeUnsequenced writes t's JSON without its Seq byte for byte as
// json.Marshal writes unsequenced (one allocation instead of a reflection
// pass over the meta map); a time encoding/json refuses is left to it, error
// and all.
func encodeUnsequenced(t memory.Turn) ([]byte, error) {
	size := len(`{"role":,"content":,"time":"","meta":{}}`) + len(time.RFC3339Nano) + len(t.Role) + len(t.Content) + len(t.Content)/8
	for k, v := range t.Meta {
		size += len(k) + len(v) + 6
	}
	b := append(make([]byte, 0, size), `{"role":`...)
	b = a2a.AppendJSONString(b, t.Role)
	b = append(b, `,"content":`...)
	b = a2a.AppendJSONString(b, t.Content)
	b = append(b, `,"time":"`...)
	b, err := t.Time.AppendText(b)
	if err != nil {
		return json.Marshal(unsequenced{Role: t.Role, Content: t.Content, Time: t.Time, Meta: t.Meta})
	}
	b = append(b, '"')
	if len(t.Meta) > 0 {
		b = append(b, `,"meta":`...)
		b = a2a.AppendJSONStringMap(b, t.Meta)
	}
	return append(b, '}'), nil
}

// AppendTurn appends t to session in one script (LLEN+1 as Seq, RPUSH,
// PEXPIRE when Options.ConversationTTL is set, PUBLISH) and returns the stored
// turn. An ErrUnavailable leaves the outcome unknown; AppendTurnOnce is safe to retry.
func (m *backend) AppendTurn(ctx context.Context, session string, t memory.Turn) (memory.Turn, error) {
	stored, _, err := m.appendTurn(ctx, session, "", t)
	return stored, err
}

// AppendTurnOnce appends t to session unless a turn was appended with id
// before (the script records id -> Seq in the session's once hash); it returns
// the turn stored under id and whether it appended it now.
func (m *backend) AppendTurnOnce(ctx context.Context, session, id string, t memory.Turn) (memory.Turn, bool, error) {
	return m.appendTurn(ctx, session, id, t)
}

// appendTurn runs appendScript for t, once per id when id is not empty.
func (m *backend) appendTurn(ctx context.Context, session, id string, t memory.Turn) (memory.Turn, bool, error) {
	op := fmt.Sprintf("append turn to %q", session)
	keys, args, prepared, err := m.appendArgs(session, id, t)
	if err != nil {
		return memory.Turn{}, false, fmt.Errorf("%s: %w", op, err)
	}
	var (
		stored   memory.Turn
		appended bool
	)
	err = m.call(ctx, op, func(ctx context.Context) error {
		var err error
		stored, appended, err = decodeAppend(id, prepared, appendScript.Run(ctx, m.client, keys, args...))
		return err
	})
	if err != nil {
		return memory.Turn{}, false, err
	}
	return stored, appended, nil
}

// appendArgs prepares and encodes t and returns the keys and arguments of
// appendScript appending it to session (once per id when id is not empty),
// and the turn as it will be stored but for its Seq.
func (m *backend) appendArgs(session, id string, t memory.Turn) ([]string, []any, memory.Turn, error) {
	t = memory.PrepareTurn(t, time.Now())
	body, err := encodeUnsequenced(t)
	if err != nil {
		return nil, nil, memory.Turn{}, fmt.Errorf("encode: %w", err)
	}
	var ttlMs int64
	if m.opts.ConversationTTL > 0 {
		ttlMs = max(m.opts.ConversationTTL.Milliseconds(), 1)
	}
	keys := []string{m.turnsKey(session), m.onceKey(session)}
	return keys, []any{body, m.eventsChannel(session), ttlMs, id}, t, nil
}

// decodeAppend reads appendScript's reply: the stored turn — prepared with
// its new Seq when the script appended it, else the one recorded under id —
// and whether it was appended now.
func decodeAppend(id string, prepared memory.Turn, cmd *goredis.Cmd) (memory.Turn, bool, error) {
	reply, err := cmd.Slice()
	if err != nil {
		return memory.Turn{}, false, err
	}
	if len(reply) != 2 {
		return memory.Turn{}, false, fmt.Errorf("append script replied %d values, want 2", len(reply))
	}
	if reply[0] == int64(1) {
		seq, ok := reply[1].(int64)
		if !ok {
			return memory.Turn{}, false, fmt.Errorf("append script replied seq %v, want an integer", reply[1])
		}
		prepared.Seq = seq
		return prepared, true, nil
	}
	raw, ok := reply[1].(string)
	if !ok {
		return memory.Turn{}, false, fmt.Errorf("turn recorded for once id %q is missing from the list: it was changed outside this package", id)
	}
	var stored memory.Turn
	if err := json.Unmarshal([]byte(raw), &stored); err != nil {
		return memory.Turn{}, false, fmt.Errorf("decode stored turn: %w", err)
	}
	return stored, false, nil
}

// Turns returns the turns of session with Seq > afterSeq (LRANGE from index
// afterSeq), at most limit (<= 0: all).
func (m *backend) Turns(ctx context.Context, session string, afterSeq int64, limit int) ([]memory.Turn, error) {
	var turns []memory.Turn
	err := m.call(ctx, fmt.Sprintf("turns of %q", session), func(ctx context.Context) error {
		var err error
		turns, err = m.readTurns(ctx, session, afterSeq, limit)
		return err
	})
	return turns, err
}

// readTurns reads and decodes up to limit (<= 0: all) turns after afterSeq.
func (m *backend) readTurns(ctx context.Context, session string, afterSeq int64, limit int) ([]memory.Turn, error) {
	stop := int64(-1)
	if limit > 0 && afterSeq+int64(limit) > afterSeq {
		stop = afterSeq + int64(limit) - 1
	}
	raw, err := m.client.LRange(ctx, m.turnsKey(session), afterSeq, stop).Result()
	if err != nil {
		return nil, err
	}
	turns := make([]memory.Turn, len(raw))
	for i, r := range raw {
		if err := json.Unmarshal([]byte(r), &turns[i]); err != nil {
			return nil, fmt.Errorf("decode turn at index %d: %w", afterSeq+int64(i), err)
		}
		if want := afterSeq + int64(i) + 1; turns[i].Seq != want {
			return nil, fmt.Errorf("turn at index %d holds seq %d, want %d: the list was changed outside this package", afterSeq+int64(i), turns[i].Seq, want)
		}
	}
	return turns, nil
}
