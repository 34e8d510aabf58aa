// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package memorytest

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/memory"
)

func testSetGetDelete(t *testing.T, m memory.Memory) {
	ctx := t.Context()
	key := "t/" + unique(t) + "/k"
	must(t, m.Set(ctx, key, []byte("v1"), 0), "set")
	got, err := m.Get(ctx, key)
	must(t, err, "get")
	if string(got) != "v1" {
		t.Fatalf("get %q = %q, want %q", key, got, "v1")
	}
	ttl, err := m.TTL(ctx, key)
	must(t, err, "ttl")
	if ttl != 0 {
		t.Fatalf("ttl of a key set without expiry = %v, want 0", ttl)
	}
	must(t, m.Delete(ctx, key), "delete")
	_, err = m.Get(ctx, key)
	mustBe(t, err, memory.ErrNotFound, "get after delete")
	if !strings.Contains(err.Error(), key) {
		t.Fatalf("not-found error %q does not name the key %q", err, key)
	}
	_, err = m.TTL(ctx, key)
	mustBe(t, err, memory.ErrNotFound, "ttl after delete")
	must(t, m.Delete(ctx, key), "delete of a missing key")
	_, err = m.Get(ctx, key+"-never-set")
	mustBe(t, err, memory.ErrNotFound, "get of a key never set")
}

func testGetMany(t *testing.T, m memory.Memory) {
	ctx := t.Context()
	base := "t/" + unique(t) + "/"
	must(t, m.Set(ctx, base+"a", []byte("va"), 0), "set a")
	must(t, m.Set(ctx, base+"b", []byte{}, 0), "set b (empty)")
	must(t, m.Set(ctx, base+"c", []byte("vc"), shortTTL), "set c")
	keys := []string{base + "c", base + "missing", base + "a", base + "b", base + "a"}
	got, err := m.GetMany(ctx, keys...)
	must(t, err, "get many")
	want := [][]byte{[]byte("vc"), nil, []byte("va"), {}, []byte("va")}
	if len(got) != len(want) {
		t.Fatalf("get many of %d keys returned %d values", len(keys), len(got))
	}
	for i := range want {
		if (got[i] == nil) != (want[i] == nil) || string(got[i]) != string(want[i]) {
			t.Fatalf("get many: value %d (%q) = %q (nil %v), want %q (nil %v)",
				i, keys[i], got[i], got[i] == nil, want[i], want[i] == nil)
		}
	}
	got[2][0] = 'X' // a copy: changing it changes nothing stored
	again, err := m.GetMany(ctx, base+"a")
	must(t, err, "get many again")
	if string(again[0]) != "va" {
		t.Fatalf("get many after changing a returned value = %q, want %q", again[0], "va")
	}
	none, err := m.GetMany(ctx)
	must(t, err, "get many of no key")
	if len(none) != 0 {
		t.Fatalf("get many of no key = %q, want none", none)
	}
	deadline := time.Now().Add(wait)
	for {
		got, err := m.GetMany(ctx, base+"c", base+"a")
		must(t, err, "get many after c's ttl")
		if got[0] == nil {
			if string(got[1]) != "va" {
				t.Fatalf("get many: a = %q after c expired, want %q", got[1], "va")
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("get many still returns %q for a key whose ttl of %v ended", got[0], shortTTL)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func testOverwrite(t *testing.T, m memory.Memory) {
	ctx := t.Context()
	key := "t/" + unique(t)
	must(t, m.Set(ctx, key, []byte("old"), time.Hour), "set with ttl")
	must(t, m.Set(ctx, key, []byte("new"), 0), "overwrite without ttl")
	got, err := m.Get(ctx, key)
	must(t, err, "get")
	if string(got) != "new" {
		t.Fatalf("get after overwrite = %q, want %q", got, "new")
	}
	ttl, err := m.TTL(ctx, key)
	must(t, err, "ttl")
	if ttl != 0 {
		t.Fatalf("ttl after overwrite without expiry = %v, want 0 (the old ttl must not survive)", ttl)
	}
	must(t, m.Set(ctx, key, []byte("newer"), time.Hour), "overwrite with ttl")
	if ttl, err = m.TTL(ctx, key); err != nil || ttl <= 0 {
		t.Fatalf("ttl after overwrite with 1h = %v, %v; want > 0", ttl, err)
	}
}

func testValuesAreCopied(t *testing.T, m memory.Memory) {
	ctx := t.Context()
	base := "t/" + unique(t)
	binary := make([]byte, 256)
	for i := range binary {
		binary[i] = byte(i)
	}
	in := slices.Clone(binary)
	must(t, m.Set(ctx, base+"/bin", in, 0), "set binary")
	in[0] = 0xff
	out, err := m.Get(ctx, base+"/bin")
	must(t, err, "get binary")
	if !slices.Equal(out, binary) {
		t.Fatalf("binary value changed: got %x, want %x (was the caller's slice kept?)", out, binary)
	}
	out[1] = 0xff
	again, err := m.Get(ctx, base+"/bin")
	must(t, err, "get binary again")
	if !slices.Equal(again, binary) {
		t.Fatalf("binary value changed after mutating a returned slice: %x", again)
	}
	must(t, m.Set(ctx, base+"/empty", nil, 0), "set empty")
	empty, err := m.Get(ctx, base+"/empty")
	must(t, err, "get empty")
	if len(empty) != 0 {
		t.Fatalf("empty value read back as %q", empty)
	}
}

func testTTLExpiry(t *testing.T, m memory.Memory) {
	ctx := t.Context()
	base := "t/" + unique(t)
	key := base + "/short"
	start := time.Now()
	must(t, m.Set(ctx, key, []byte("v"), shortTTL), "set with short ttl")
	if _, err := m.Get(ctx, key); err != nil && (!errors.Is(err, memory.ErrNotFound) || time.Since(start) < shortTTL) {
		t.Fatalf("get before the ttl elapsed: %v", err)
	}
	testenv.Eventually(t, "key with a short ttl expires", func() bool {
		_, err := m.Get(ctx, key)
		if err != nil && !errors.Is(err, memory.ErrNotFound) {
			t.Fatalf("get while expiring: %v", err)
		}
		return err != nil
	}, testenv.Within(wait))
	_, err := m.TTL(ctx, key)
	mustBe(t, err, memory.ErrNotFound, "ttl of an expired key")
	keys, err := m.List(ctx, base+"/")
	must(t, err, "list")
	if len(keys) != 0 {
		t.Fatalf("list shows expired keys: %q", keys)
	}
}

func testTTLValue(t *testing.T, m memory.Memory) {
	ctx := t.Context()
	base := "t/" + unique(t)
	must(t, m.Set(ctx, base+"/hour", []byte("v"), time.Hour), "set 1h")
	ttl, err := m.TTL(ctx, base+"/hour")
	must(t, err, "ttl")
	if ttl <= time.Hour-wait || ttl > time.Hour {
		t.Fatalf("ttl of a key set with 1h = %v, want within (1h-%v, 1h]", ttl, wait)
	}
	ok, err := m.SetIfAbsent(ctx, base+"/marker", []byte("v"), time.Hour)
	must(t, err, "set if absent 1h")
	if !ok {
		t.Fatal("set if absent of a new key returned false")
	}
	if ttl, err = m.TTL(ctx, base+"/marker"); err != nil || ttl <= 0 || ttl > time.Hour {
		t.Fatalf("ttl of a marker set with 1h = %v, %v", ttl, err)
	}
}

func testNegativeTTL(t *testing.T, m memory.Memory) {
	ctx := t.Context()
	key := "t/" + unique(t)
	mustBe(t, m.Set(ctx, key, []byte("v"), -time.Second), memory.ErrInvalidArgument, "set with negative ttl")
	_, err := m.SetIfAbsent(ctx, key, []byte("v"), -time.Second)
	mustBe(t, err, memory.ErrInvalidArgument, "set if absent with negative ttl")
	must(t, m.Set(ctx, key+"/held", []byte("v"), 0), "set")
	_, err = m.CompareAndSet(ctx, key+"/held", []byte("v"), []byte("w"), -time.Second)
	mustBe(t, err, memory.ErrInvalidArgument, "compare and set with negative ttl")
	mustValue(t, m, key+"/held", "v")
	_, err = m.Get(ctx, key)
	mustBe(t, err, memory.ErrNotFound, "get after rejected sets")
}

func testList(t *testing.T, m memory.Memory) {
	ctx := t.Context()
	base := "t/" + unique(t)
	keys := []string{base + "/b", base + "/a/y/z", base + "/ab/w", base + "/a/x"}
	for _, k := range keys {
		must(t, m.Set(ctx, k, []byte(k), 0), "set "+k)
	}
	gone := base + "/a/gone"
	must(t, m.Set(ctx, gone, []byte("v"), shortTTL), "set short-lived key")
	testenv.Eventually(t, "short-lived key expires", func() bool {
		_, err := m.Get(ctx, gone)
		return errors.Is(err, memory.ErrNotFound)
	}, testenv.Within(wait))
	cases := []struct {
		prefix string
		want   []string
	}{
		{base + "/a/", []string{base + "/a/x", base + "/a/y/z"}},
		{base + "/a", []string{base + "/a/x", base + "/a/y/z", base + "/ab/w"}},
		{base + "/", []string{base + "/a/x", base + "/a/y/z", base + "/ab/w", base + "/b"}},
		{"", []string{base + "/a/x", base + "/a/y/z", base + "/ab/w", base + "/b"}},
		{base + "/a/x", []string{base + "/a/x"}},
		{base + "/none/", nil},
	}
	for _, c := range cases {
		got, err := m.List(ctx, c.prefix)
		must(t, err, "list "+c.prefix)
		if len(got) != len(c.want) || (len(got) > 0 && !slices.Equal(got, c.want)) {
			t.Errorf("list %q = %q, want %q", c.prefix, got, c.want)
		}
	}
}

func testSetIfAbsent(t *testing.T, m memory.Memory) {
	ctx := t.Context()
	key := "t/" + unique(t)
	ok, err := m.SetIfAbsent(ctx, key, []byte("first"), 0)
	must(t, err, "first set if absent")
	if !ok {
		t.Fatal("first set if absent returned false")
	}
	ok, err = m.SetIfAbsent(ctx, key, []byte("second"), 0)
	must(t, err, "second set if absent")
	if ok {
		t.Fatal("second set if absent returned true")
	}
	got, err := m.Get(ctx, key)
	must(t, err, "get")
	if string(got) != "first" {
		t.Fatalf("value after a refused set if absent = %q, want %q", got, "first")
	}
	must(t, m.Delete(ctx, key), "delete")
	if ok, err = m.SetIfAbsent(ctx, key, []byte("third"), 0); err != nil || !ok {
		t.Fatalf("set if absent after delete = %v, %v; want true", ok, err)
	}
}

func testSetIfAbsentAfterExpiry(t *testing.T, m memory.Memory) {
	ctx := t.Context()
	key := "t/" + unique(t)
	start := time.Now()
	ok, err := m.SetIfAbsent(ctx, key, []byte("short"), shortTTL)
	must(t, err, "set if absent with short ttl")
	if !ok {
		t.Fatal("set if absent of a new key returned false")
	}
	ok, err = m.SetIfAbsent(ctx, key, []byte("early"), 0)
	must(t, err, "set if absent before expiry")
	if ok && time.Since(start) < shortTTL {
		t.Fatal("set if absent replaced a live key")
	}
	testenv.Eventually(t, "set if absent succeeds once the marker expired", func() bool {
		if ok {
			return true
		}
		ok, err = m.SetIfAbsent(ctx, key, []byte("late"), 0)
		must(t, err, "set if absent while expiring")
		return ok
	}, testenv.Within(wait))
	got, err := m.Get(ctx, key)
	must(t, err, "get")
	if string(got) == "short" {
		t.Fatalf("value after re-marking = %q, want the new one", got)
	}
	if ttl, err := m.TTL(ctx, key); err != nil || ttl != 0 {
		t.Fatalf("ttl of the new marker = %v, %v; want 0 (no expiry)", ttl, err)
	}
}

func testSetIfAbsentConcurrent(t *testing.T, m memory.Memory) {
	key := "t/" + unique(t)
	oneWinner(t, m, key, "set if absent", func(ctx context.Context, v []byte) (bool, error) {
		return m.SetIfAbsent(ctx, key, v, time.Minute)
	})
}

// oneWinner runs 16 writes of key at once, each of its own one-byte value,
// and fails unless exactly one reports it wrote and key holds its value.
func oneWinner(t *testing.T, m memory.Memory, key, what string, write func(ctx context.Context, v []byte) (bool, error)) {
	t.Helper()
	ctx := t.Context()
	const n = 16
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		winners []int
		errs    []error
	)
	for i := range n {
		wg.Go(func() {
			ok, err := write(ctx, []byte{byte(i)})
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
			}
			if ok {
				winners = append(winners, i)
			}
		})
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("concurrent %s: %v", what, errs)
	}
	if len(winners) != 1 {
		t.Fatalf("%d of %d concurrent %s won (%v), want exactly 1", len(winners), n, what, winners)
	}
	got, err := m.Get(ctx, key)
	must(t, err, "get")
	if len(got) != 1 || int(got[0]) != winners[0] {
		t.Fatalf("value = %v, want the winner's [%d]", got, winners[0])
	}
}

func testCompareAndSet(t *testing.T, m memory.Memory) {
	ctx := t.Context()
	key := "t/" + unique(t)
	must(t, m.Set(ctx, key, []byte("a"), 0), "set")
	ok, err := m.CompareAndSet(ctx, key, []byte("a"), []byte("b"), time.Hour)
	must(t, err, "compare and set on a match")
	if !ok {
		t.Fatal("compare and set on a match returned false")
	}
	mustValue(t, m, key, "b")
	if ttl, err := m.TTL(ctx, key); err != nil || ttl <= time.Hour-wait || ttl > time.Hour {
		t.Fatalf("ttl after compare and set with 1h = %v, %v; want within (1h-%v, 1h]", ttl, err, wait)
	}
	ok, err = m.CompareAndSet(ctx, key, []byte("b"), []byte("c"), 0)
	must(t, err, "compare and set without ttl")
	if !ok {
		t.Fatal("compare and set without ttl on a match returned false")
	}
	if ttl, err := m.TTL(ctx, key); err != nil || ttl != 0 {
		t.Fatalf("ttl after compare and set without ttl = %v, %v; want 0 (the old ttl must not survive)", ttl, err)
	}
	for _, old := range [][]byte{[]byte("b"), []byte("C"), []byte("cc"), nil} {
		ok, err = m.CompareAndSet(ctx, key, old, []byte("x"), time.Hour)
		must(t, err, "compare and set on a mismatch")
		if ok {
			t.Fatalf("compare and set expecting %q replaced %q", old, "c")
		}
	}
	mustValue(t, m, key, "c")
	if ttl, err := m.TTL(ctx, key); err != nil || ttl != 0 {
		t.Fatalf("ttl after a refused compare and set = %v, %v; want 0 (untouched)", ttl, err)
	}
	missing := key + "/missing"
	for _, old := range [][]byte{nil, {}, []byte("c")} {
		ok, err = m.CompareAndSet(ctx, missing, old, []byte("x"), 0)
		must(t, err, "compare and set of a missing key")
		if ok {
			t.Fatalf("compare and set of a missing key expecting %q returned true", old)
		}
	}
	_, err = m.Get(ctx, missing)
	mustBe(t, err, memory.ErrNotFound, "get after compare and set of a missing key")
	empty := key + "/empty"
	must(t, m.Set(ctx, empty, nil, 0), "set empty")
	if ok, err = m.CompareAndSet(ctx, empty, nil, []byte("full"), 0); err != nil || !ok {
		t.Fatalf("compare and set of an empty value expecting none = %v, %v; want true", ok, err)
	}
	mustValue(t, m, empty, "full")
}

func testCompareAndDelete(t *testing.T, m memory.Memory) {
	ctx := t.Context()
	key := "t/" + unique(t)
	must(t, m.Set(ctx, key, []byte("a"), time.Hour), "set")
	for _, old := range [][]byte{[]byte("b"), []byte("A"), []byte("aa"), nil} {
		ok, err := m.CompareAndDelete(ctx, key, old)
		must(t, err, "compare and delete on a mismatch")
		if ok {
			t.Fatalf("compare and delete expecting %q deleted %q", old, "a")
		}
	}
	mustValue(t, m, key, "a")
	ok, err := m.CompareAndDelete(ctx, key, []byte("a"))
	must(t, err, "compare and delete on a match")
	if !ok {
		t.Fatal("compare and delete on a match returned false")
	}
	_, err = m.Get(ctx, key)
	mustBe(t, err, memory.ErrNotFound, "get after compare and delete")
	if ok, err = m.CompareAndDelete(ctx, key, []byte("a")); err != nil || ok {
		t.Fatalf("compare and delete of a deleted key = %v, %v; want false", ok, err)
	}
	if ok, err = m.CompareAndDelete(ctx, key+"/never-set", nil); err != nil || ok {
		t.Fatalf("compare and delete of a key never set = %v, %v; want false", ok, err)
	}
}

// testCompareAfterExpiry: an expired key is missing to both compare
// operations, even when they expect its last value, and neither brings it back.
func testCompareAfterExpiry(t *testing.T, m memory.Memory) {
	ctx := t.Context()
	base := "t/" + unique(t)
	for _, k := range []string{base + "/set", base + "/delete"} {
		must(t, m.Set(ctx, k, []byte("old"), shortTTL), "set "+k)
	}
	for _, k := range []string{base + "/set", base + "/delete"} {
		testenv.Eventually(t, k+" expires", func() bool {
			_, err := m.Get(ctx, k)
			if err != nil && !errors.Is(err, memory.ErrNotFound) {
				t.Fatalf("get while expiring: %v", err)
			}
			return err != nil
		}, testenv.Within(wait))
	}
	ok, err := m.CompareAndSet(ctx, base+"/set", []byte("old"), []byte("new"), 0)
	if err != nil || ok {
		t.Fatalf("compare and set of an expired key = %v, %v; want false", ok, err)
	}
	_, err = m.Get(ctx, base+"/set")
	mustBe(t, err, memory.ErrNotFound, "get after compare and set of an expired key")
	ok, err = m.CompareAndDelete(ctx, base+"/delete", []byte("old"))
	if err != nil || ok {
		t.Fatalf("compare and delete of an expired key = %v, %v; want false", ok, err)
	}
}

func testCompareAndSetConcurrent(t *testing.T, m memory.Memory) {
	key := "t/" + unique(t)
	must(t, m.Set(t.Context(), key, []byte("start"), time.Minute), "set")
	oneWinner(t, m, key, "compare and set", func(ctx context.Context, v []byte) (bool, error) {
		return m.CompareAndSet(ctx, key, []byte("start"), v, time.Minute)
	})
}

// testCompareClosed: after Close both compare operations fail with ErrClosed.
func testCompareClosed(t *testing.T, m memory.Memory) {
	ctx := t.Context()
	key := "t/" + unique(t)
	must(t, m.Close(), "close")
	_, err := m.CompareAndSet(ctx, key, nil, []byte("v"), 0)
	mustBe(t, err, memory.ErrClosed, "compare and set")
	_, err = m.CompareAndDelete(ctx, key, nil)
	mustBe(t, err, memory.ErrClosed, "compare and delete")
}

// invalidKeys break one rule of memory.ValidateKey each.
var invalidKeys = []string{
	"", "a//b", "/a", "a/", "/", ".", "..", "a/../b", "a/./b", "../a", "a/..",
	"a b", " a", "a*b", "a?b", "a[b", "a]b", `a\b`, "a\tb", "a\nb", "a\x00b", "a\x7fb", "é",
	strings.Repeat("a", memory.MaxKeyLen+1),
}

func testInvalidKeys(t *testing.T, m memory.Memory) {
	ctx := t.Context()
	for _, key := range invalidKeys {
		err := m.Set(ctx, key, []byte("v"), 0)
		mustBe(t, err, memory.ErrInvalidKey, "set "+key)
		if !strings.Contains(err.Error(), "key") {
			t.Errorf("error %q does not say it is about the key", err)
		}
		_, err = m.Get(ctx, key)
		mustBe(t, err, memory.ErrInvalidKey, "get "+key)
		_, err = m.TTL(ctx, key)
		mustBe(t, err, memory.ErrInvalidKey, "ttl "+key)
		mustBe(t, m.Delete(ctx, key), memory.ErrInvalidKey, "delete "+key)
		_, err = m.SetIfAbsent(ctx, key, []byte("v"), 0)
		mustBe(t, err, memory.ErrInvalidKey, "set if absent "+key)
		_, err = m.CompareAndSet(ctx, key, nil, []byte("v"), 0)
		mustBe(t, err, memory.ErrInvalidKey, "compare and set "+key)
		_, err = m.CompareAndDelete(ctx, key, nil)
		mustBe(t, err, memory.ErrInvalidKey, "compare and delete "+key)
		_, err = m.GetMany(ctx, "t/valid", key)
		mustBe(t, err, memory.ErrInvalidKey, "get many "+key)
		if !strings.Contains(err.Error(), "key 1") {
			t.Errorf("get many error %q does not name the invalid key's index", err)
		}
	}
	keys, err := m.List(ctx, "")
	must(t, err, "list")
	if len(keys) != 0 {
		t.Fatalf("rejected keys were stored: %q", keys)
	}
}

func testInvalidPrefixes(t *testing.T, m memory.Memory) {
	ctx := t.Context()
	for _, prefix := range []string{
		"/", "//", "a//", "/a", "a//b/", "a*", "a?/", "a b/", "../", "a/./", `a\`,
		strings.Repeat("a", memory.MaxKeyLen+1),
	} {
		_, err := m.List(ctx, prefix)
		mustBe(t, err, memory.ErrInvalidKey, "list "+prefix)
	}
}

func testValidKeys(t *testing.T, m memory.Memory) {
	ctx := t.Context()
	u := unique(t)
	for _, key := range []string{
		"a" + u,
		u + "/A-Z_0.9:~!@#$%^&()=+{}|;'\",<>`",
		"session/x:y/" + u + "/z",
		u + "/.hidden/..dots../x.",
		u + "/" + strings.Repeat("k", memory.MaxKeyLen-len(u)-1),
	} {
		must(t, m.Set(ctx, key, []byte(key), 0), "set "+key)
		got, err := m.Get(ctx, key)
		must(t, err, "get "+key)
		if string(got) != key {
			t.Fatalf("get %q = %q", key, got)
		}
		keys, err := m.List(ctx, key)
		must(t, err, "list "+key)
		if !slices.Contains(keys, key) {
			t.Fatalf("list %q = %q, missing the key itself", key, keys)
		}
		must(t, m.Delete(ctx, key), "delete "+key)
	}
}

func testResultKeys(t *testing.T, m memory.Memory) {
	ctx := t.Context()
	s := "s" + unique(t)
	k1, err := memory.ResultKey(s, "Agent-A", "task1")
	must(t, err, "result key")
	sibling, err := memory.ResultKey(s+"0", "Agent-A", "task1")
	must(t, err, "sibling result key")
	must(t, m.Set(ctx, k1, []byte("r1"), time.Minute), "set result")
	must(t, m.Set(ctx, sibling, []byte("r2"), time.Minute), "set sibling result")
	prefix, err := memory.SessionPrefix(s)
	must(t, err, "session prefix")
	keys, err := m.List(ctx, prefix)
	must(t, err, "list session")
	if !slices.Equal(keys, []string{k1}) {
		t.Fatalf("list %q = %q, want only %q (not the sibling session's %q)", prefix, keys, k1, sibling)
	}
}
