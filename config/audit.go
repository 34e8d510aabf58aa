// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package config

import (
	"fmt"
	"time"

	"github.com/a2abus/a2abus/internal/redact"
	"github.com/a2abus/a2abus/pkg/caller"
)

// Values of audit.export.
const (
	AuditExportNone   = "none"
	AuditExportStdout = "stdout"
	AuditExportStream = "stream"
	AuditExportBoth   = "stdout+stream"
)

// DefaultAuditStreamMaxLen is the default of audit.stream_max_len.
const DefaultAuditStreamMaxLen = 100_000

// AuditConfig configures the call history (the audit records) and its export.
type AuditConfig struct {
	// Retention is how long a call's audit record (its entry in the
	// session's call history) is kept; independent of memory.result_ttl.
	Retention time.Duration `mapstructure:"retention" yaml:"retention"`
	// PreviewChars bounds the task and output previews of a record.
	PreviewChars int `mapstructure:"preview_chars" yaml:"preview_chars"`
	// Export sends every record also to stdout (JSON lines), to the Redis
	// stream audit/stream (under redis.key_prefix), to both, or nowhere.
	Export string `mapstructure:"export" yaml:"export"`
	// StreamMaxLen trims the stream to about this many records.
	StreamMaxLen int `mapstructure:"stream_max_len" yaml:"stream_max_len"`
}

// RedactConfig configures the one redaction pass (internal/redact) applied
// to what goes to a model, a log or the audit.
type RedactConfig struct {
	// Patterns are regular expressions (RE2) whose matches are hidden too,
	// besides the built-in passwords in URLs, tokens and keys; a pattern
	// with groups hides its groups only.
	Patterns []string `mapstructure:"patterns" yaml:"patterns"`
	// StoredResults redacts the result stored at a task's memory key (what
	// get_from_working_memory, Call and Wait read); false stores it as the
	// agent sent it (notifications, tool results, logs and the audit are
	// redacted either way).
	StoredResults bool `mapstructure:"stored_results" yaml:"stored_results"`
}

// defaultAudit is the default of audit.*.
func defaultAudit() AuditConfig {
	return AuditConfig{Retention: caller.DefaultAuditTTL, PreviewChars: caller.DefaultPreviewRunes, Export: AuditExportNone,
		StreamMaxLen: DefaultAuditStreamMaxLen}
}

// defaultRedact is the default of redact.*.
func defaultRedact() RedactConfig { return RedactConfig{Patterns: []string{}, StoredResults: true} }

// validate checks audit.*.
func (a AuditConfig) validate() []error {
	errs := []error{positive("audit.retention", a.Retention)}
	if a.PreviewChars < 1 || a.PreviewChars > 4096 {
		errs = append(errs, invalid("audit.preview_chars", "must be within 1..4096, got %d", a.PreviewChars))
	}
	switch a.Export {
	case AuditExportNone, AuditExportStdout, AuditExportStream, AuditExportBoth:
	default:
		errs = append(errs, invalid("audit.export", "must be %s, %s, %s or %s, got %q",
			AuditExportNone, AuditExportStdout, AuditExportStream, AuditExportBoth, a.Export))
	}
	if a.StreamMaxLen < 1 {
		errs = append(errs, invalid("audit.stream_max_len", "must be positive, got %d", a.StreamMaxLen))
	}
	return errs
}

// validate checks redact.patterns.
func (r RedactConfig) validate() error {
	if _, err := r.Redactor(); err != nil {
		return invalid("redact.patterns", "%v", err)
	}
	return nil
}

// Redactor compiles redact.patterns with the built-in passes.
func (r RedactConfig) Redactor() (*redact.Redactor, error) {
	red, err := redact.New(r.Patterns)
	if err != nil {
		return nil, fmt.Errorf("redact.patterns: %w", err)
	}
	return red, nil
}

// ExportsStdout reports whether audit.export includes stdout (JSON lines).
func (a AuditConfig) ExportsStdout() bool {
	return a.Export == AuditExportStdout || a.Export == AuditExportBoth
}

// ExportsStream reports whether audit.export includes the Redis stream.
func (a AuditConfig) ExportsStream() bool {
	return a.Export == AuditExportStream || a.Export == AuditExportBoth
}
