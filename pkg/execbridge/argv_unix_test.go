// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

//go:build unix

package execbridge_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/pkg/execbridge"
)

// Options.Argv reaches the process word for word: what a shell would
// expand, split or refuse is an argument like any other.
func TestArgvReachesTheProcessAsGiven(t *testing.T) {
	out := filepath.Join(t.TempDir(), "argv")
	words := []string{"it's $HOME | x; y", "#hash", "two  spaces", ""}
	b, err := execbridge.New(execbridge.Options{
		Argv:        append([]string{"/bin/sh", "-c", `out=$1; shift; printf '%s\n' "$@" > "$out"`, "sh", out}, words...),
		CardTimeout: 5 * time.Second, StopTimeout: 2 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = b.Close() }()
	if err := b.Start(context.Background()); !errors.Is(err, execbridge.ErrNoCard) {
		t.Fatalf("Start = %v, want ErrNoCard (the script writes its arguments and exits)", err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Join(words, "\n") + "\n"; string(got) != want {
		t.Fatalf("the process received\n%q\nwant\n%q", got, want)
	}
}
