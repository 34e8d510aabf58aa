// Package logging builds the process's *zap.Logger from config.LogConfig: a
// JSON encoder for production or a console encoder for development.
package logging

import (
	"errors"
	"fmt"
	"io"
	"os"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/a2abus/a2abus/config"
)

// ErrInvalid is wrapped by errors about a bad level or format.
var ErrInvalid = errors.New("logging: invalid configuration")

var levels = map[string]zapcore.Level{
	"debug": zapcore.DebugLevel,
	"info":  zapcore.InfoLevel,
	"warn":  zapcore.WarnLevel,
	"error": zapcore.ErrorLevel,
}

// New returns a logger writing to standard error.
func New(cfg config.LogConfig) (*zap.Logger, error) {
	return NewTo(cfg, os.Stderr)
}

// NewTo returns a logger writing to w: JSON lines with ISO-8601 times when
// cfg.Format is "json", human-readable lines when it is "console".
// Only entries at cfg.Level or above are written; errors carry a stack trace.
func NewTo(cfg config.LogConfig, w io.Writer) (*zap.Logger, error) {
	level, ok := levels[cfg.Level]
	if !ok {
		return nil, fmt.Errorf("%w: level must be debug|info|warn|error, got %q", ErrInvalid, cfg.Level)
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
		return nil, fmt.Errorf("%w: format must be json|console, got %q", ErrInvalid, cfg.Format)
	}
	core := zapcore.NewCore(enc, zapcore.Lock(zapcore.AddSync(w)), level)
	return zap.New(core, zap.AddCaller(), zap.AddStacktrace(zapcore.ErrorLevel)), nil
}
