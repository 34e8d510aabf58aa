// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
)

func TestKeysGenerate(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runCLI(t, "keys", "generate", "--name", "Billing", "--dir", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	key, err := agent.LoadSigningKey(filepath.Join(dir, "Billing.key")) // 0600, PKCS #8
	if err != nil {
		t.Fatal(err)
	}
	pubPEM, err := os.ReadFile(filepath.Join(dir, "Billing.pub"))
	if err != nil {
		t.Fatal(err)
	}
	pub, err := a2a.ParsePublicKey(string(pubPEM))
	if err != nil || !pub.Equal(key.Public()) {
		t.Fatalf("public key file: %v", err)
	}
	m := regexp.MustCompile(`"publicKey": "([^"]+)"`).FindStringSubmatch(out)
	if m == nil || m[1] != a2a.EncodePublicKey(pub) {
		t.Fatalf("printed public key missing or wrong:\n%s", out)
	}

	code, _, errOut = runCLI(t, "keys", "generate", "--name", "Billing", "--dir", dir)
	if code != 1 || !strings.Contains(errOut, "--force") {
		t.Fatalf("overwriting without --force: exit %d, %s", code, errOut)
	}
	if again, err := agent.LoadSigningKey(filepath.Join(dir, "Billing.key")); err != nil || !again.Equal(key) {
		t.Fatal("the existing key was replaced")
	}
	if code, _, _ := runCLI(t, "keys", "generate", "--name", "Billing", "--dir", dir, "--force"); code != 0 {
		t.Fatalf("--force: exit %d", code)
	}
	if code, _, errOut := runCLI(t, "keys", "generate", "--name", "a.b", "--dir", dir); code != 1 || !strings.Contains(errOut, "--name") {
		t.Fatalf("bad name: exit %d, %s", code, errOut)
	}
}
