package main

import (
	"context"
	"encoding/json"
	"io"
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
	} {
		code, _, errOut := runCLI(t, append(tc.args, "--embedded")...)
		if code != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 1 and %q", tc.args, code, errOut, tc.want)
		}
	}
}
