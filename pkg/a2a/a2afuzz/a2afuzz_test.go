// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2afuzz

import (
	"bytes"
	"os/exec"
	"reflect"
	"slices"
	"strings"
	"testing"
)

const self = "github.com/a2abus/a2abus/pkg/a2a/a2afuzz"

// Only tests import the package: no package of the module imports it in
// its own (non-test) files.
func TestOnlyTestsImportIt(t *testing.T) {
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "github.com/a2abus/a2abus/...")
	cmd.Dir = "../../.."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("listing the module's imports: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 10 {
		t.Fatalf("go list named only %d packages:\n%s", len(lines), out)
	}
	for _, line := range lines {
		fields := strings.Fields(line)
		if slices.Contains(fields[1:], self) {
			t.Errorf("%s imports %s outside its tests: it is test support only", fields[0], self)
		}
	}
}

// An input builds the same values every time, and a used-up input keeps
// building (each choice its first).
func TestSameInputSameValues(t *testing.T) {
	data := bytes.Repeat([]byte{5, 250, 3, 9, 1, 'x', 0xe2, 0x80, 0xa8, 2}, 60)
	a, b := New(data), New(data)
	if ra, rb := a.Request(), b.Request(); !reflect.DeepEqual(ra, rb) {
		t.Fatalf("one input, two requests:\n%+v\n%+v", ra, rb)
	}
	if a.i != b.i || a.i == 0 {
		t.Fatalf("the two gens read %d and %d bytes", a.i, b.i)
	}
	empty := New(nil)
	if r := empty.Result(); r == nil || r.TaskID != "" || empty.Byte() != 0 {
		t.Fatalf("a used-up input built %+v", r)
	}
}
