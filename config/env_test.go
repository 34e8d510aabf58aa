// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package config

import (
	"reflect"
	"strings"
	"testing"
)

// TestUnknownEnvWarns: an A2ABUS_* variable that sets no key is not
// ignored silently: Load warns about it, naming the variable meant.
func TestUnknownEnvWarns(t *testing.T) {
	dir := isolate(t)
	t.Setenv("A2ABUS_BUS_URLL", "amqp://rabbit:5672/")
	t.Setenv("A2ABUS_REDIS_KEYPREFIX", "x:")
	t.Setenv("A2ABUS_NOTHING_LIKE_IT", "1")
	t.Setenv("A2ABUS_TEST_AMQP_URL", "amqp://127.0.0.1:5672/") // the test suite's
	t.Setenv("A2ABUS_PASSWORD_SAMPLEAGENT", "pw")              // a2abus access plan's
	var got []string
	cfg, err := Load(LoadOptions{SearchDirs: []string{dir}, Warn: func(w string) {
		if strings.Contains(w, "URLL") || strings.Contains(w, "KEYPREFIX") || strings.Contains(w, "NOTHING") ||
			strings.Contains(w, "_TEST_") || strings.Contains(w, "PASSWORD") {
			got = append(got, w)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"config: environment variable A2ABUS_BUS_URLL sets no configuration key and is ignored (did you mean A2ABUS_BUS_URL?)",
		"config: environment variable A2ABUS_NOTHING_LIKE_IT sets no configuration key and is ignored",
		"config: environment variable A2ABUS_REDIS_KEYPREFIX sets no configuration key and is ignored (did you mean A2ABUS_REDIS_KEY_PREFIX?)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("warnings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if cfg.Bus.URL != "" {
		t.Errorf("bus.url = %q, set by a variable that is not its own", cfg.Bus.URL)
	}
	if w := UnknownEnv([]string{"A2ABUS_BUS_URL=x", "PATH=/bin", "A2ABUS_LOG_LEVEL=", "A2ABUS_X=1=2"}); len(w) != 1 || !strings.Contains(w[0], "A2ABUS_X sets") {
		t.Errorf("UnknownEnv = %q", w)
	}
}
