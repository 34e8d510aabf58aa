// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package node_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/internal/soak"
	"github.com/a2abus/a2abus/internal/testca"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/llm/openai"
	"github.com/a2abus/a2abus/pkg/node"
)

// tlsServers are a private RabbitMQ and Redis, each listening for TLS with
// the certificates of files and requiring client certificates of its CA;
// started by the first test that needs them, stopped by TestMain.
var tlsServers struct {
	once   sync.Once
	err    error
	dir    string
	files  testca.Files
	broker *soak.TLSBroker
	redis  *soak.Redis
}

func TestMain(m *testing.M) {
	openai.Register() // the model tests build the node's model client
	code := m.Run()
	s := &tlsServers
	if s.broker != nil {
		s.broker.Stop(context.Background())
	}
	if s.redis != nil {
		s.redis.Stop()
	}
	if s.dir != "" {
		_ = os.RemoveAll(s.dir)
	}
	os.Exit(code)
}

// startTLSServers starts the servers once; without rabbitmq-server or
// redis-server installed the test skips (fails under CI=true).
func startTLSServers(t *testing.T) {
	t.Helper()
	for _, bin := range []string{"redis-server", "rabbitmq-server"} {
		if _, err := exec.LookPath(bin); err != nil {
			if _, err := os.Stat(filepath.Join("/usr/lib/rabbitmq/bin", bin)); err != nil {
				if testenv.InCI() {
					t.Fatalf("%s is not installed", bin)
				}
				t.Skipf("%s is not installed", bin)
			}
		}
	}
	s := &tlsServers
	s.once.Do(func() {
		if s.dir, s.err = os.MkdirTemp("", "a2abus-node-tls-"); s.err != nil {
			return
		}
		dirs := map[string]string{"ca": "", "broker": "", "redis": ""}
		for name := range dirs {
			dirs[name] = filepath.Join(s.dir, name)
			if s.err = os.Mkdir(dirs[name], 0o755); s.err != nil {
				return
			}
		}
		if s.files, s.err = testca.Write(dirs["ca"]); s.err != nil {
			return
		}
		st := soak.ServerTLS{CA: s.files.CA, Cert: s.files.ServerCert, Key: s.files.ServerKey}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		if s.redis, s.err = soak.StartRedisTLS(ctx, dirs["redis"], st); s.err != nil {
			return
		}
		s.broker, s.err = soak.StartBrokerTLS(ctx, dirs["broker"], st, zap.NewNop())
	})
	if s.err != nil {
		t.Fatalf("start the TLS servers: %v", s.err)
	}
}

// tlsConfig is a configuration for the TLS servers, trusting their CA and
// presenting the client certificate.
func tlsConfig() *config.Config {
	s := &tlsServers
	cfg := config.Default()
	cfg.Bus.URL, cfg.Redis.URL = s.broker.TLSURL, s.redis.URL
	client := config.TLSConfig{CAFile: s.files.CA, CertFile: s.files.ClientCert, KeyFile: s.files.ClientKey}
	cfg.Bus.TLS, cfg.Redis.TLS = client, client
	cfg.Policy.Rules = []config.PolicyRule{{Caller: "TLSCaller*", Allow: []string{"TLSEcho*"}}}
	return cfg
}

func randomName(t *testing.T, prefix string) string {
	t.Helper()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// A call goes from a caller to an agent and back over amqps, its result kept
// in Redis over rediss, both connections presenting the client certificate.
func TestTLSInvokeRoundTrip(t *testing.T) {
	startTLSServers(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	n, err := node.Open(ctx, tlsConfig(), "tls-test", zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = n.Close() }()
	target := randomName(t, "TLSEcho")
	a, err := n.Agent(a2a.AgentCard{Name: target, Version: "1.0"})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Handle("echo", func(_ context.Context, task *agent.Task) (*agent.Result, error) {
		return agent.TextResult("echo: " + task.Text()), nil
	}); err != nil {
		t.Fatal(err)
	}
	c, err := n.TransientCaller(randomName(t, "TLSCaller"), nil)
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { _ = a.Run(runCtx) })
	wg.Go(func() { _ = c.Run(runCtx) })
	defer wg.Wait()
	defer stop()

	out, err := c.Call(ctx, caller.Request{Target: target, Skill: "echo", Text: "over TLS", SessionID: randomName(t, "s")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := out.Err(); err != nil || out.Result.Text() != "echo: over TLS" {
		t.Fatalf("Call = %q, %v; want \"echo: over TLS\"", out.Result.Text(), err)
	}
	if stored, err := n.Memory.Get(ctx, out.MemoryKey); err != nil || !strings.Contains(string(stored), "echo: over TLS") {
		t.Errorf("the result in Redis = %q, %v; want it stored", stored, err)
	}
	// The broker saw TLS connections authenticated by the client certificate.
	conns, err := tlsServers.broker.Ctl(ctx, 30*time.Second, "list_connections", "-q", "name", "ssl", "peer_cert_subject")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(conns), "\n")[1:] // a header, then one line per connection
	ok := len(lines) >= 2                                      // the bus's publish and consume connections
	for _, l := range lines {
		ok = ok && strings.HasSuffix(l, "\ttrue\tCN="+testca.ClientName)
	}
	if !ok {
		t.Errorf("the broker's connections are not all TLS with the client certificate:\n%s", conns)
	}
}

// openErr is node.Open's error for cfg, which must fail.
func openErr(t *testing.T, cfg *config.Config) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	n, err := node.Open(ctx, cfg, "tls-test", zap.NewNop())
	if err == nil {
		_ = n.Close()
		t.Fatal("Open succeeded")
	}
	if strings.Contains(err.Error(), "guest:guest") {
		t.Errorf("the error shows the password: %v", err)
	}
	return err.Error()
}

// A server whose certificate the configured CA did not sign is refused; the
// error names the server's URL (redacted) and the key to look at.
func TestTLSWrongCARefused(t *testing.T) {
	startTLSServers(t)
	other := testca.New(t)
	brokerURL := strings.Replace(tlsServers.broker.TLSURL, "guest:guest", "guest:xxxxx", 1)

	cfg := tlsConfig()
	cfg.Bus.TLS.CAFile = other.CA
	msg := openErr(t, cfg)
	for _, want := range []string{"open bus", brokerURL, "certificate signed by unknown authority", `bus.tls.ca_file "` + other.CA + `"`} {
		if !strings.Contains(msg, want) {
			t.Errorf("Open trusting another CA for the broker = %s\nwant it to contain %q", msg, want)
		}
	}

	cfg = tlsConfig()
	cfg.Bus.URL, cfg.Bus.TLS = "", config.TLSConfig{} // the embedded bus: only Redis fails
	cfg.Redis.TLS.CAFile = other.CA
	msg = openErr(t, cfg)
	for _, want := range []string{"open working memory", tlsServers.redis.URL, "certificate signed by unknown authority", `redis.tls.ca_file "` + other.CA + `"`} {
		if !strings.Contains(msg, want) {
			t.Errorf("Open trusting another CA for Redis = %s\nwant it to contain %q", msg, want)
		}
	}

	cfg = tlsConfig()
	cfg.Bus.TLS.ServerName = "elsewhere.example"
	if msg := openErr(t, cfg); !strings.Contains(msg, `not valid for "elsewhere.example": set bus.tls.server_name`) {
		t.Errorf("Open with another server name = %s\nwant it to name bus.tls.server_name", msg)
	}
}

// Servers that require a client certificate refuse a client without one.
func TestTLSClientCertificateRequired(t *testing.T) {
	startTLSServers(t)
	cfg := tlsConfig()
	cfg.Bus.TLS.CertFile, cfg.Bus.TLS.KeyFile = "", ""
	msg := openErr(t, cfg)
	for _, want := range []string{"open bus", "asked for a client certificate and none is configured", "set bus.tls.cert_file and bus.tls.key_file"} {
		if !strings.Contains(msg, want) {
			t.Errorf("Open without a client certificate for the broker = %s\nwant it to contain %q", msg, want)
		}
	}
	cfg = tlsConfig()
	cfg.Redis.TLS.CertFile, cfg.Redis.TLS.KeyFile = "", ""
	msg = openErr(t, cfg)
	for _, want := range []string{"open working memory", "asked for a client certificate and none is configured", "set redis.tls.cert_file and redis.tls.key_file"} {
		if !strings.Contains(msg, want) {
			t.Errorf("Open without a client certificate for Redis = %s\nwant it to contain %q", msg, want)
		}
	}
}

// A TLS setting that cannot take effect is refused before anything is dialled.
func TestTLSConfigurationRefusedByOpen(t *testing.T) {
	cfg := config.Default()
	cfg.Bus.URL = "amqp://guest:guest@127.0.0.1:1/"
	cfg.Bus.TLS.CAFile = "/nonexistent/ca.pem"
	_, err := node.Open(t.Context(), cfg, "tls-test", nil)
	var fe *config.FieldError
	if !errors.As(err, &fe) || fe.Key != "bus.tls.ca_file" || !strings.Contains(err.Error(), "use an amqps:// bus.url") {
		t.Errorf("Open with bus.tls.ca_file and amqp:// = %v, want a FieldError for bus.tls.ca_file asking for amqps://", err)
	}
}
