// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/a2abus/a2abus/internal/testenv"
)

// TestMCPOverStdio runs `a2abus mcp` on the embedded bus with the Go SDK's
// client on its stdin and stdout: the tools are listed, a bad call is an
// isError result with the CLI's code, and the command ends when the client
// closes stdin.
func TestMCPOverStdio(t *testing.T) {
	isolate(t, "")
	t.Setenv("A2ABUS_LOG_LEVEL", "error")
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	stderr := &testenv.Buffer{}
	root := newRootCmd(outW, stderr)
	root.SetIn(inR)
	root.SetArgs([]string{"mcp", "--session", "stdio-test", "--embedded"})
	done := make(chan error, 1)
	go func() {
		err := root.ExecuteContext(context.Background())
		_ = outW.Close()
		done <- err
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "cmd-test", Version: "1"}, nil).
		Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr: %s", err, stderr)
	}
	listed, err := cs.ListTools(ctx, nil)
	if err != nil || len(listed.Tools) < 3 {
		t.Fatalf("tools/list = %+v, %v", listed, err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_from_working_memory", Arguments: map[string]any{"key": "session/stdio-test/a2a/A/t1/result"}})
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Error struct{ Code string } `json:"error"`
	}
	if text, ok := res.Content[0].(*mcp.TextContent); !res.IsError || !ok || json.Unmarshal([]byte(text.Text), &body) != nil || body.Error.Code != "NOT_FOUND" {
		t.Fatalf("get_from_working_memory of a missing key = %+v", res)
	}
	_ = cs.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("a2abus mcp: %v\nstderr: %s", err, stderr)
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("a2abus mcp did not end after its stdin closed\nstderr: %s", stderr)
	}
}

// TestMCPOverHTTPTakesItsConfiguration: `a2abus mcp --http` takes its
// token, session cap and listener bounds from the configuration: a request
// without the token is refused, one with it opens a session, the session
// beyond mcp.max_sessions is refused with a clear error; a token from a file
// works the same; a token too short stops it before it listens.
func TestMCPOverHTTPTakesItsConfiguration(t *testing.T) {
	isolate(t, "")
	const token = "cli-test-token-0123456789"
	t.Setenv("A2ABUS_LOG_LEVEL", "error")
	t.Setenv("A2ABUS_MCP_MAX_SESSIONS", "1")
	t.Setenv("A2ABUS_HTTP_READ_TIMEOUT", "1s")
	for _, source := range []string{"env", "file"} {
		t.Run(source, func(t *testing.T) {
			if source == "env" {
				t.Setenv("A2ABUS_MCP_TOKEN", token)
			} else {
				p := filepath.Join(t.TempDir(), "token")
				if err := os.WriteFile(p, []byte(token+"\n"), 0o600); err != nil {
					t.Fatal(err)
				}
				t.Setenv("A2ABUS_MCP_TOKEN_FILE", p)
			}
			url, stop := startMCPHTTP(t)
			defer stop()
			for _, tc := range []struct {
				token string
				want  int
				says  string
			}{
				{"", http.StatusUnauthorized, "no Authorization header"},
				{"not-the-token-0123456789", http.StatusUnauthorized, "not the one configured"},
				{token, http.StatusOK, ""},
				{token, http.StatusServiceUnavailable, "too many sessions: 1 are open"},
			} {
				status, body := mcpInitialize(t, url, tc.token)
				if status != tc.want || !strings.Contains(body, tc.says) || strings.Contains(body, token) {
					t.Errorf("token %q: %d %q, want %d saying %q", tc.token, status, body, tc.want, tc.says)
				}
			}
		})
	}
	t.Setenv("A2ABUS_MCP_TOKEN", "short")
	t.Setenv("A2ABUS_MCP_TOKEN_FILE", "")
	code, _, errOut := runCLI(t, "mcp", "--http", "127.0.0.1:0", "--embedded")
	if code != 1 || !strings.Contains(errOut, "mcp.token: must be at least 16 bytes") || strings.Contains(errOut, "short") {
		t.Errorf("a short token: exit %d, stderr %q", code, errOut)
	}
}

// startMCPHTTP runs `a2abus mcp --http 127.0.0.1:0 --embedded` and returns
// its URL and a function that stops it and checks it ended cleanly.
func startMCPHTTP(t *testing.T) (string, func()) {
	t.Helper()
	outR, outW := io.Pipe()
	stderr := &testenv.Buffer{}
	root := newRootCmd(outW, stderr)
	root.SetArgs([]string{"mcp", "--http", "127.0.0.1:0", "--embedded"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		err := root.ExecuteContext(ctx)
		_ = outW.Close()
		done <- err
	}()
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("no URL printed: %v\nstderr: %s", err, stderr)
	}
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "mcp: ")
	if !ok {
		cancel()
		t.Fatalf("printed %q, want mcp: <url>", line)
	}
	return url, func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("a2abus mcp --http: %v\nstderr: %s", err, stderr)
			}
		case <-time.After(30 * time.Second):
			t.Errorf("a2abus mcp --http did not stop\nstderr: %s", stderr)
		}
	}
}

// mcpInitialize posts an MCP initialize to url, with token when not empty.
func mcpInitialize(t *testing.T, url, token string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"cli-test","version":"1"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func TestMCPRejectsBadFlags(t *testing.T) {
	isolate(t, "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"mcp", "--session", "a/b"}, "--session: "},
		{[]string{"mcp", "--call-timeout", "0s"}, "must be positive"},
		{[]string{"mcp", "extra"}, "unknown command"},
		{[]string{"mcp", "--http", "127.0.0.1:-1"}, "listen on 127.0.0.1:-1"},
		{[]string{"mcp", "--http", "0.0.0.0:0"}, "is not a loopback address: set mcp.token or mcp.token_file"},
	} {
		code, _, errOut := runCLI(t, append(tc.args, "--embedded")...)
		if code != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 1 and %q", tc.args, code, errOut, tc.want)
		}
	}
}
