// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package cliutil

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/cobra"

	"github.com/a2abus/a2abus/config"
)

// loadWith runs a command of profile p with args and returns what LoadConfig gave it.
func loadWith(t *testing.T, p Profile, args ...string) *Loaded {
	t.Helper()
	var configFile string
	var got *Loaded
	cmd := &cobra.Command{Use: "tool", Args: cobra.NoArgs, RunE: func(cmd *cobra.Command, _ []string) error {
		l, err := LoadConfig(cmd, configFile)
		got = l
		return err
	}}
	AddConfigFlags(cmd.PersistentFlags(), &configFile)
	if p != "" {
		SetProfile(cmd, p)
	}
	var stderr bytes.Buffer
	if code := Execute(cmd, args, &stderr); code != 0 {
		t.Fatalf("%s %v: exit %d: %s", p, args, code, stderr.String())
	}
	return got
}

// TestProfilesChooseServersAndLogging: the one place a command's defaults
// are decided — servers when bus.url / redis.url are unset, and logging when
// log.level / log.format are not asked for (file, environment or flag).
func TestProfilesChooseServersAndLogging(t *testing.T) {
	isolate(t)
	logFile := filepath.Join(t.TempDir(), "a2abus.yaml")
	if err := os.WriteFile(logFile, []byte("log:\n  format: json\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	local := Origins{Bus: LocalDefault, Memory: LocalDefault}
	embedded := Origins{Bus: Embedded, Memory: Embedded}
	for _, tc := range []struct {
		name            string
		profile         Profile
		env             map[string]string
		args            []string
		bus, redis      string
		origins         Origins
		level, format   string
		wantUnsetParent bool
	}{
		{"interactive by default", "", nil, nil, LocalAMQPURL, LocalRedisURL, local, "warn", "console", false},
		{"interactive --embedded", Interactive, nil, []string{"--embedded"}, config.EmbeddedURL, config.EmbeddedURL, embedded, "warn", "console", false},
		{"embedded:// configured", Interactive, map[string]string{"A2ABUS_BUS_URL": config.EmbeddedURL}, nil,
			config.EmbeddedURL, LocalRedisURL, Origins{Bus: Embedded, Memory: LocalDefault}, "warn", "console", false},
		{"interactive, level asked by the environment", Interactive, map[string]string{"A2ABUS_LOG_LEVEL": "debug"}, nil,
			LocalAMQPURL, LocalRedisURL, local, "debug", "console", false},
		{"interactive, format asked by the file", Interactive, nil, []string{"--config", logFile}, LocalAMQPURL, LocalRedisURL, local, "warn", "json", false},
		{"interactive, level asked by the flag", Interactive, nil, []string{"--log-level", "info"}, LocalAMQPURL, LocalRedisURL, local, "info", "console", false},
		{"configured servers are kept", Interactive, map[string]string{"A2ABUS_BUS_URL": "amqp://u:p@rabbit:5672/"}, []string{"--embedded"},
			"amqp://u:p@rabbit:5672/", config.EmbeddedURL, Origins{Bus: Configured, Memory: Embedded}, "warn", "console", false},
		{"daemon", Daemon, nil, nil, LocalAMQPURL, LocalRedisURL, local, config.DefaultLogLevel, config.DefaultLogFormat, false},
		{"demo", Demo, nil, nil, config.EmbeddedURL, config.EmbeddedURL, embedded, "warn", "console", false},
		{"demo --embedded=false", Demo, nil, []string{"--embedded=false"}, LocalAMQPURL, LocalRedisURL, local, "warn", "console", false},
		{"as configured", AsConfigured, nil, nil, "", "", Origins{}, config.DefaultLogLevel, config.DefaultLogFormat, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			l := loadWith(t, tc.profile, tc.args...)
			c := l.Config
			if c.Bus.URL != tc.bus || c.Redis.URL != tc.redis || l.Origins != tc.origins || c.Log.Level != tc.level || c.Log.Format != tc.format {
				t.Errorf("bus %q redis %q origins %+v log %s/%s; want %q %q %+v %s/%s",
					c.Bus.URL, c.Redis.URL, l.Origins, c.Log.Level, c.Log.Format, tc.bus, tc.redis, tc.origins, tc.level, tc.format)
			}
		})
	}
	t.Run("redis.addrs is a configured memory", func(t *testing.T) {
		t.Setenv("A2ABUS_REDIS_ADDRS", "a:1,b:2")
		l := loadWith(t, Interactive)
		if l.Config.Redis.URL != "" || l.Origins.Memory != Configured {
			t.Errorf("redis.url %q, origin %v: Sentinel/Cluster addresses must be kept alone", l.Config.Redis.URL, l.Origins.Memory)
		}
	})
}

func TestProfileOfACommandWithoutOneIsInteractive(t *testing.T) {
	cmd := &cobra.Command{Use: "x"}
	if p := ProfileOf(cmd); p != Interactive {
		t.Fatalf("ProfileOf = %q", p)
	}
	if p := ProfileOf(SetProfile(cmd, Daemon)); p != Daemon {
		t.Fatalf("ProfileOf = %q after SetProfile(Daemon)", p)
	}
}
