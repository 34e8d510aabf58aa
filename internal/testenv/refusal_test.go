// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package testenv

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func (f *fakeTB) Error(args ...any) { f.failure = fmt.Sprint(args...) }

func (f *fakeTB) Errorf(format string, args ...any) { f.failure = fmt.Sprintf(format, args...) }

func TestReturnsGivesWhatTheCallReturns(t *testing.T) {
	f := &fakeTB{}
	if got := Returns(f, "the call", func() int { return 7 }); got != 7 || f.failure != "" {
		t.Fatalf("Returns = %d, failure %q; want 7 and no failure", got, f.failure)
	}
}

func TestReturnsFailsACallThatHangs(t *testing.T) {
	f := &fakeTB{}
	release := make(chan struct{})
	defer close(release)
	err := Returns(f, "Read(fifo)", func() error { <-release; return nil }, Within(30*time.Millisecond))
	if err != nil || f.failure != "Read(fifo) still running after 30ms" {
		t.Fatalf("Returns = %v, failure %q; want a failure naming the call and the bound", err, f.failure)
	}
}

func TestWantError(t *testing.T) {
	target := errors.New("fileread: not a regular file")
	err := fmt.Errorf("load %q: %w", "/dev/zero", target)
	for _, tc := range []struct {
		name  string
		err   error
		parts []string
		ok    bool
	}{
		{"wrapping and naming", err, []string{"/dev/zero", "regular"}, true},
		{"no parts", err, nil, true},
		{"a part missing", err, []string{"/dev/zero", "named pipe"}, false},
		{"another error", errors.New(`load "/dev/zero": too large`), []string{"/dev/zero"}, false},
		{"no error", nil, nil, false},
	} {
		f := &fakeTB{}
		if ok := WantError(f, "Load", tc.err, target, tc.parts...); ok != tc.ok || (f.failure == "") != ok {
			t.Errorf("%s: WantError = %v, failure %q; want %v", tc.name, ok, f.failure, tc.ok)
		}
		if !tc.ok && !strings.HasPrefix(f.failure, "Load: err = ") {
			t.Errorf("%s: failure %q does not name the call", tc.name, f.failure)
		}
	}
}

func TestRefused(t *testing.T) {
	target := errors.New("fileread: file too large")
	f := &fakeTB{}
	if !Refused(f, "Load(big)", func() error { return fmt.Errorf("big.yaml: %w", target) }, target, "big.yaml") || f.failure != "" {
		t.Fatalf("a refusal naming the file: failure %q", f.failure)
	}
	if Refused(f, "Load(big)", func() error { return nil }, target, "big.yaml") || f.failure == "" {
		t.Fatal("no refusal passed")
	}
}
