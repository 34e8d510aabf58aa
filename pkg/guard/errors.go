// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package guard

import (
	"errors"
	"fmt"
)

// ErrInvalidConfig is wrapped by every error New returns about its Config.
var ErrInvalidConfig = errors.New("guard: invalid config")

// ConfigError is one bad value of a Config: the configuration key it
// mirrors (policy.rules[2].allow[0], limits.burst, ...) and what is wrong.
// It wraps ErrInvalidConfig.
type ConfigError struct {
	Key    string
	Reason string
}

// Error formats as `guard: <key>: <reason>`.
func (e *ConfigError) Error() string { return "guard: " + e.Key + ": " + e.Reason }

// Unwrap returns ErrInvalidConfig.
func (e *ConfigError) Unwrap() error { return ErrInvalidConfig }

func invalid(key, format string, args ...any) error {
	return &ConfigError{Key: key, Reason: fmt.Sprintf(format, args...)}
}
