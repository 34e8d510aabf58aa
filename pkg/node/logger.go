// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package node

import (
	"errors"
	"fmt"
	"io"
	"os"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/a2abus/a2abus/config"
)

// ErrInvalidLog is wrapped by NewLogger's errors about a bad level or format.
var ErrInvalidLog = errors.New("node: invalid log configuration")

var levels = map[string]zapcore.Level{
	"debug": zapcore.DebugLevel,
	"info":  zapcore.InfoLevel,
	"warn":  zapcore.WarnLevel,
	"error": zapcore.ErrorLevel,
}

// NewLogger returns the logger the a2abus binaries use, for cfg.Log writing
// to w (os.Stderr when nil): JSON lines with ISO-8601 times when cfg.Format
// is "json", human-readable lines when it is "console". Only entries at
// cfg.Level or above are written; errors carry a stack trace. It never
// samples: every audit line is written, one per task.
func NewLogger(cfg config.LogConfig, w io.Writer) (*zap.Logger, error) {
	if w == nil {
		w = os.Stderr
	}
	level, ok := levels[cfg.Level]
	if !ok {
		return nil, fmt.Errorf("%w: level must be debug|info|warn|error, got %q", ErrInvalidLog, cfg.Level)
	}
	var enc zapcore.Encoder
	switch cfg.Format {
	case "json":
		ec := zap.NewProductionEncoderConfig()
		ec.EncodeTime = zapcore.ISO8601TimeEncoder
		enc = zapcore.NewJSONEncoder(ec)
	case "console":
		ec := zap.NewDevelopmentEncoderConfig()
		enc = zapcore.NewConsoleEncoder(ec)
	default:
		return nil, fmt.Errorf("%w: format must be json|console, got %q", ErrInvalidLog, cfg.Format)
	}
	core := redactCore{zapcore.NewCore(enc, zapcore.Lock(zapcore.AddSync(w)), level)}
	return zap.New(core, zap.AddCaller(), zap.AddStacktrace(zapcore.ErrorLevel)), nil
}
