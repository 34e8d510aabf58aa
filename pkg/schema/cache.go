// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package schema

import (
	"container/list"
	"encoding/json"
	"sync"
)

// DefaultCacheSize is how many compiled schemas Compile keeps.
const DefaultCacheSize = 256

// Cache keeps compiled schemas by content hash, least recently used out
// first, so a schema seen again (every call to the same skill) is compiled
// once. Invalid schemas are not kept. Safe for concurrent use.
type Cache struct {
	size int

	mu    sync.Mutex
	items map[string]*list.Element // hash → element holding a *Schema
	order *list.List               // most recently used first
}

// NewCache returns a cache of at most size schemas (at least 1).
func NewCache(size int) *Cache {
	return &Cache{size: max(size, 1), items: map[string]*list.Element{}, order: list.New()}
}

var defaultCache = NewCache(DefaultCacheSize)

// Compile compiles raw through a process-wide cache of DefaultCacheSize
// schemas. A bad schema is an error wrapping ErrInvalidSchema; in a program
// that registered no validator, a good one is an error wrapping ErrNotLinked.
func Compile(raw json.RawMessage) (*Schema, error) { return defaultCache.Compile(raw) }

// Compile returns the compiled schema of raw, from the cache when its
// content was compiled before. A bad schema is an error wrapping
// ErrInvalidSchema; without a registered validator, ErrNotLinked.
func (c *Cache) Compile(raw json.RawMessage) (*Schema, error) {
	canon, hash, err := Compact(raw)
	if err != nil {
		return nil, err
	}
	if !Linked() {
		return nil, notLinked()
	}
	c.mu.Lock()
	if el, ok := c.items[hash]; ok {
		c.order.MoveToFront(el)
		c.mu.Unlock()
		return el.Value.(*Schema), nil
	}
	c.mu.Unlock()
	s, err := compile(canon, hash) // outside the lock: two compiles of one new schema are harmless
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[hash]; ok {
		c.order.MoveToFront(el)
		return el.Value.(*Schema), nil
	}
	c.items[hash] = c.order.PushFront(s)
	for c.order.Len() > c.size {
		oldest := c.order.Back()
		c.order.Remove(oldest)
		delete(c.items, oldest.Value.(*Schema).hash)
	}
	return s, nil
}

// Len is how many schemas the cache holds.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
