// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package schema_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/schema"
	"github.com/a2abus/a2abus/pkg/schema/jsonschema"
)

func TestInputFallsBackToJSONText(t *testing.T) {
	for _, tc := range []struct{ input, text, want string }{
		{`{"a":1}`, `{"b":2}`, `{"a":1}`},
		{``, ` {"b":2} `, `{"b":2}`},
		{``, `{b:2}`, ``},
		{``, `[1]`, ``},
		{``, `hello`, ``},
	} {
		if got := string(schema.Input(json.RawMessage(tc.input), tc.text)); got != tc.want {
			t.Errorf("Input(%q, %q) = %q, want %q", tc.input, tc.text, got, tc.want)
		}
	}
}

func TestCacheSharesAndBounds(t *testing.T) {
	c := schema.NewCache(3)
	a1, err := c.Compile(json.RawMessage(`{"type": "string"}`))
	if err != nil {
		t.Fatal(err)
	}
	a2, err := c.Compile(json.RawMessage("{\n  \"type\":\"string\"\n}")) // same content, other spacing
	if err != nil || a2 != a1 || c.Len() != 1 {
		t.Fatalf("same schema compiled twice: %p %p %v, len %d", a1, a2, err, c.Len())
	}
	if _, err := c.Compile(json.RawMessage(`{"type":`)); err == nil || c.Len() != 1 {
		t.Fatalf("a bad schema was cached: %v, len %d", err, c.Len())
	}
	for i := range 10 {
		if _, err := c.Compile(json.RawMessage(fmt.Sprintf(`{"minimum":%d}`, i))); err != nil {
			t.Fatal(err)
		}
		if c.Len() > 3 {
			t.Fatalf("cache holds %d schemas, bound 3", c.Len())
		}
	}
	// The first schema was evicted: compiling it again builds a new one.
	if again, _ := c.Compile(json.RawMessage(`{"type":"string"}`)); again == a1 {
		t.Fatal("the least recently used schema was not evicted")
	}
	// The most recently used survives new entries.
	keep, _ := c.Compile(json.RawMessage(`{"minimum":9}`))
	_, _ = c.Compile(json.RawMessage(`{"maximum":1}`))
	_, _ = c.Compile(json.RawMessage(`{"maximum":2}`))
	if again, _ := c.Compile(json.RawMessage(`{"minimum":9}`)); again != keep {
		t.Fatal("a recently used schema was evicted")
	}
}

func TestConcurrentUse(t *testing.T) {
	c := schema.NewCache(4)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 50 {
				s, err := c.Compile(json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{"n":{"maximum":%d}}}`, (i+j)%6)))
				if err != nil {
					t.Error(err)
					return
				}
				if err := s.Validate(json.RawMessage(`{"n":100}`)); a2a.CodeOf(err) != a2a.CodeInvalidInput {
					t.Errorf("Validate = %v", err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if c.Len() > 4 {
		t.Fatalf("cache holds %d schemas, bound 4", c.Len())
	}
}

// unlink removes the validator until the test ends (the tests of this
// package link it: schema_link_test.go). Not for parallel tests.
func unlink(t *testing.T) {
	t.Helper()
	schema.Register(nil)
	t.Cleanup(jsonschema.Register)
}

// TestWithoutAValidator: a program that registered no validator gets
// ErrNotLinked naming what to do from Compile and New, even for a schema
// compiled (and cached) before; a schema that is not a JSON object is still
// ErrInvalidSchema, and Compact still compacts and hashes.
func TestWithoutAValidator(t *testing.T) {
	const raw = `{ "type": "string" }`
	linked, err := schema.Compile(json.RawMessage(raw))
	if err != nil || !schema.Linked() {
		t.Fatalf("with the validator: Compile = %v, Linked = %v", err, schema.Linked())
	}
	unlink(t)
	if schema.Linked() {
		t.Fatal("Linked() after Register(nil)")
	}
	for name, compile := range map[string]func(json.RawMessage) (*schema.Schema, error){
		"Compile": schema.Compile, "New": schema.New, "Cache.Compile": schema.NewCache(2).Compile,
	} {
		s, err := compile(json.RawMessage(raw))
		if s != nil || !errors.Is(err, schema.ErrNotLinked) || errors.Is(err, schema.ErrInvalidSchema) ||
			!strings.HasPrefix(err.Error(), "schema: ") ||
			!strings.Contains(err.Error(), "jsonschema.Register() of github.com/a2abus/a2abus/pkg/schema/jsonschema") {
			t.Errorf("%s without a validator = %v, %v; want ErrNotLinked naming jsonschema.Register()", name, s, err)
		}
		if _, err := compile(json.RawMessage(`[1]`)); !errors.Is(err, schema.ErrInvalidSchema) {
			t.Errorf("%s of an array without a validator = %v, want ErrInvalidSchema", name, err)
		}
	}
	compact, hash, err := schema.Compact(json.RawMessage(raw))
	if err != nil || string(compact) != string(linked.Raw()) || hash != linked.Hash() {
		t.Fatalf("Compact = %s, %s, %v; want what the compiled schema has: %s, %s", compact, hash, err, linked.Raw(), linked.Hash())
	}
}
