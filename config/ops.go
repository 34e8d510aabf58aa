// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package config

import (
	"net"
	"strconv"
)

// OpsConfig configures the operations listener of the long-running
// processes (serve, sample-agent, research-agent, directory, the Primary,
// mcp --http): /metrics, /healthz, /readyz and, when asked, /debug/pprof/.
// Tracing is turned on by the standard OTEL_* environment variables (see
// docs/operations.md); TraceSampleRatio is its sampling.
type OpsConfig struct {
	// Listen is the host:port of the ops HTTP listener (port 0 picks one);
	// empty turns it off, and with it the metrics.
	Listen string `mapstructure:"listen" yaml:"listen"`
	// PProf serves the Go profiler at /debug/pprof/ on the ops listener.
	PProf bool `mapstructure:"pprof" yaml:"pprof"`
	// TraceSampleRatio is the share of traces sampled where they start
	// (0..1; 1: every trace) when tracing is on; a span whose parent was
	// sampled is sampled. OTEL_TRACES_SAMPLER, when set, replaces it.
	TraceSampleRatio float64 `mapstructure:"trace_sample_ratio" yaml:"trace_sample_ratio"`
}

// Enabled reports whether the ops listener runs.
func (c OpsConfig) Enabled() bool { return c.Listen != "" }

func (c *OpsConfig) validate() []error {
	if c.TraceSampleRatio < 0 || c.TraceSampleRatio > 1 || c.TraceSampleRatio != c.TraceSampleRatio {
		return []error{invalid("ops.trace_sample_ratio", "must be within 0..1 (1: every trace), got %v", c.TraceSampleRatio)}
	}
	if c.Listen == "" {
		if c.PProf {
			return []error{invalid("ops.pprof", "needs ops.listen: the profiler is served on the ops listener")}
		}
		return nil
	}
	_, port, err := net.SplitHostPort(c.Listen)
	if err != nil {
		return []error{invalid("ops.listen", "must be host:port (\":9090\", \"127.0.0.1:0\"), got %q: %v", c.Listen, err)}
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return []error{invalid("ops.listen", "port must be a number within 0..65535, got %q", port)}
	}
	return nil
}
