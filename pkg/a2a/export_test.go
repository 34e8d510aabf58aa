// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

// What the external tests (package a2a_test) need of the package's
// internals: they live apart because they use pkg/a2a/a2afuzz, which
// imports this package.

// AssertSameBytes is assertSameBytes: the hand-written writer's bytes (or
// error) for a payload are encoding/json's for its mirror.
var AssertSameBytes = assertSameBytes
