// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package config

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"

	"github.com/a2abus/a2abus/bus/rabbitmq"
	"github.com/a2abus/a2abus/internal/testca"
)

// isolate clears every A2ABUS_* configuration variable for the test (an empty
// variable counts as unset) and returns an empty directory to search.
func isolate(t *testing.T) string {
	t.Helper()
	for _, k := range Keys() {
		t.Setenv(EnvName(k), "")
	}
	return t.TempDir()
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadDefaults(t *testing.T) {
	dir := isolate(t)
	cfg, err := Load(LoadOptions{SearchDirs: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cfg, Default()) {
		t.Errorf("Load() with no sources =\n%+v\nwant\n%+v", cfg, Default())
	}
}

func TestLoadPrecedence(t *testing.T) {
	dir := isolate(t)
	writeFile(t, dir, FileName, "log:\n  level: debug\nbus:\n  exchange: fromfile\n")
	load := func(t *testing.T, args ...string) *Config {
		t.Helper()
		fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
		AddFlags(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		cfg, err := Load(LoadOptions{SearchDirs: []string{dir}, Flags: fs})
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	if got := load(t).Log.Level; got != "debug" {
		t.Errorf("file: log.level = %q, want debug", got)
	}
	t.Setenv("A2ABUS_LOG_LEVEL", "warn")
	if got := load(t).Log.Level; got != "warn" {
		t.Errorf("env over file: log.level = %q, want warn", got)
	}
	if got := load(t, "--log-level", "error").Log.Level; got != "error" {
		t.Errorf("flag over env: log.level = %q, want error", got)
	}
	cfg := load(t, "--amqp-url", "amqp://h/", "--redis-url", "redis://r:6379/0", "--log-format", "console")
	if cfg.Bus.URL != "amqp://h/" || cfg.Redis.URL != "redis://r:6379/0" || cfg.Log.Format != "console" {
		t.Errorf("flags not applied: %+v", cfg)
	}
	if cfg.Bus.Exchange != "fromfile" || cfg.Bus.QueueType != rabbitmq.QueueTypeClassic {
		t.Errorf("file and default values lost: exchange %q queue_type %q", cfg.Bus.Exchange, cfg.Bus.QueueType)
	}
}

// TestLoadEveryKeyFromEnv sets every key through its environment variable,
// with no file, and checks each reached the struct.
func TestLoadEveryKeyFromEnv(t *testing.T) {
	dir := isolate(t)
	env := map[string]string{
		"log.level":                        "debug",
		"log.format":                       "console",
		"bus.url":                          "amqps://u:p@rabbit:5671/v",
		"bus.exchange":                     "tenant-1",
		"bus.queue_type":                   "quorum",
		"bus.publish_timeout":              "3s",
		"bus.reconnect_min":                "250ms",
		"bus.reconnect_max":                "1m",
		"bus.max_message_bytes":            "2048",
		"bus.max_attempts":                 "7",
		"bus.consumer_timeout":             "1h",
		"identity.mode":                    "broker",
		"identity.shared_users":            "guest,dev",
		"identity.users":                   "svc-sample=SampleAgent, svc-sample=ResearchAgent",
		"redis.url":                        "",
		"redis.addrs":                      "s1:26379, s2:26379,",
		"redis.master_name":                "mymaster",
		"redis.username":                   "agent",
		"redis.password":                   "pw",
		"redis.db":                         "4",
		"redis.key_prefix":                 "t1:",
		"redis.timeout":                    "500ms",
		"redis.wait_replicas":              "1",
		"redis.wait_timeout":               "750ms",
		"memory.result_ttl":                "2h",
		"memory.conversation_ttl":          "72h",
		"memory.retry_bound":               "40s",
		"memory.max_context_messages":      "7",
		"audit.retention":                  "48h",
		"audit.preview_chars":              "64",
		"audit.export":                     "stdout+stream",
		"audit.stream_max_len":             "500",
		"redact.patterns":                  "ACME-[0-9]{6},employee=(\\d+)",
		"redact.stored_results":            "false",
		"directory.well_known_file":        "/data/wk.json",
		"directory.known_agents_file":      "/data/known.json",
		"agent.concurrency":                "16",
		"agent.announce_interval":          "30s",
		"directory.stale_after":            "90s",
		"directory.forget_after":           "1h",
		"directory.max_agents":             "50",
		"directory.announce_secret":        "0123456789abcdef",
		"directory.trust":                  "tofu",
		"directory.pins_file":              "/data/pins.json",
		"directory.vet_wait":               "5s",
		"directory.well_known_wait":        "20m",
		"caller.default_wait":              "45s",
		"caller.max_wait":                  "2h",
		"agent.signing_key_file":           "/keys/agent.key",
		"agent.stop_timeout":               "5s",
		"agent.max_task_duration":          "45m",
		"agent.ephemeral":                  "true",
		"agent.max_tasks":                  "3",
		"agent.idle_timeout":               "45s",
		"caller.name":                      "Primary",
		"caller.default_timeout":           "20s",
		"caller.max_timeout":               "2m",
		"caller.sweep_interval":            "250ms",
		"caller.max_depth":                 "7",
		"caller.memory_retry_bound":        "50m",
		"caller.input_timeout":             "2h",
		"caller.max_task_history":          "12",
		"caller.concurrency":               "48",
		"policy.default":                   "deny",
		"policy.rules":                     `[{"caller": "Primary", "allow": ["Sample*"], "deny": ["SampleAdmin"]}, {"caller": "Bot-?", "may_call": false}]`,
		"limits.max_in_flight":             "3",
		"limits.rate":                      "2.5",
		"limits.burst":                     "4",
		"limits.breaker_failures":          "2",
		"limits.breaker_cooldown":          "10s",
		"limits.shared":                    "false",
		"limits.shared_lease":              "5s",
		"research.docs_dir":                "/data/docs",
		"research.search_url":              "http://searxng:8080",
		"research.max_pages":               "5",
		"research.fetch_timeout":           "4s",
		"research.max_page_bytes":          "65536",
		"research.allow_private_addresses": "true",
		"llm.base_url":                     "http://127.0.0.1:11434/v1",
		"llm.api_key":                      "sk-local",
		"llm.model":                        "llama3.1:8b",
		"llm.max_tokens":                   "1024",
		"llm.temperature":                  "0.7",
		"llm.timeout":                      "90s",
		"llm.max_retries":                  "4",
		"llm.max_response_bytes":           "8388608",
		"llm.max_tool_argument_bytes":      "65536",
		"workflow.max_render_bytes":        "2097152",
		"chat.system_prompt":               "You are the primary agent.",
		"chat.max_tool_rounds":             "12",
		"chat.token_budget":                "200000",
		"chat.max_history_turns":           "20",
		"chat.max_history_chars":           "30000",
		"chat.max_input_bytes":             "4096",
		"workflow.max_steps":               "50",
		"orchestrator.route_threshold":     "0.7",
		"orchestrator.route_margin":        "0.05",
		"orchestrator.route_floor":         "0.3",
		"orchestrator.route_max_questions": "3",
		"ops.listen":                       ":9090",
		"ops.pprof":                        "true",
		"ops.trace_sample_ratio":           "0.5",
		"http.read_header_timeout":         "5s",
		"http.read_timeout":                "20s",
		"http.write_timeout":               "15s",
		"http.idle_timeout":                "1m",
		"http.max_header_bytes":            "8192",
		"http.max_body_bytes":              "1048576",
		"http.max_connections":             "64",
		"mcp.token":                        "",
		"mcp.token_file":                   "/run/secrets/mcp-token",
		"mcp.insecure_no_auth":             "true",
		"mcp.max_sessions":                 "20",
		"mcp.session_idle_timeout":         "3m",
		"gateway.listen":                   ":8443",
		"gateway.public_url":               "https://a2a.example.com",
		"gateway.public_cards":             "true",
		"gateway.keys":                     "Alice=alice-key-0123456789abcdef,Bob=bob-key-0123456789abcdef0",
		"gateway.keys_file":                "/run/secrets/gateway-keys",
		"gateway.rate":                     "20",
		"gateway.burst":                    "40",
		"gateway.max_streams":              "500",
		"gateway.stream_keepalive":         "30s",
		"gateway.cancel_wait":              "5s",
		"gateway.max_listed_tasks":         "200",
		"gateway.jwt.jwks_url":             "https://idp.example.com/jwks.json",
		"gateway.jwt.audience":             "a2abus",
		"gateway.jwt.issuer":               "https://idp.example.com",
		"gateway.jwt.claim":                "agent",
		"gateway.jwt.callers":              "Carol,Dave",
		"gateway.jwt.refresh":              "5m",
		"gateway.push.allow":               "hooks.example.com,10.0.0.0/8",
		"gateway.push.timeout":             "3s",
		"gateway.push.max_attempts":        "3",
		"gateway.push.max_pending":         "50",
		"remote.agents": `[{"name": "Weather", "card_url": "https://weather.example.com", "bearer_token_file": "/run/secrets/weather"},
			{"name": "Docs", "card_url": "http://127.0.0.1:8080/card.json", "api_key": "k-123", "api_key_header": "X-Key", "transport": "HTTP+JSON"}]`,
		"remote.card_check_interval": "30s",
		"remote.card_timeout":        "4s",
		"remote.max_card_bytes":      "65536",
		"remote.max_response_bytes":  "1048576",
		"remote.poll_interval":       "500ms",
		"remote.cancel_timeout":      "2s",
		"remote.retry_min":           "100ms",
		"remote.retry_max":           "3s",
	}
	want := &Config{
		Log: LogConfig{Level: "debug", Format: "console"},
		Bus: BusConfig{
			URL: "amqps://u:p@rabbit:5671/v", Exchange: "tenant-1", QueueType: "quorum",
			PublishTimeout: 3 * time.Second, ReconnectMin: 250 * time.Millisecond, ReconnectMax: time.Minute,
			MaxMessageBytes: 2048, MaxAttempts: 7, ConsumerTimeout: time.Hour,
		},
		Identity: IdentityConfig{Mode: "broker", SharedUsers: []string{"guest", "dev"}, Users: []string{"svc-sample=SampleAgent", "svc-sample=ResearchAgent"}},
		Redis: RedisConfig{
			Addrs: []string{"s1:26379", "s2:26379"}, MasterName: "mymaster", Username: "agent",
			Password: "pw", DB: 4, KeyPrefix: "t1:", Timeout: 500 * time.Millisecond, WaitReplicas: 1, WaitTimeout: 750 * time.Millisecond,
		},
		Memory: MemoryConfig{ResultTTL: 2 * time.Hour, ConversationTTL: 72 * time.Hour, RetryBound: 40 * time.Second, MaxContextMessages: 7},
		Audit:  AuditConfig{Retention: 48 * time.Hour, PreviewChars: 64, Export: AuditExportBoth, StreamMaxLen: 500},
		Redact: RedactConfig{Patterns: []string{"ACME-[0-9]{6}", `employee=(\d+)`}},
		Directory: DirectoryConfig{WellKnownFile: "/data/wk.json", KnownAgentsFile: "/data/known.json", StaleAfter: 90 * time.Second, ForgetAfter: time.Hour, MaxAgents: 50, AnnounceSecret: "0123456789abcdef",
			Trust: "tofu", PinsFile: "/data/pins.json", VetWait: 5 * time.Second, WellKnownWait: 20 * time.Minute},
		Agent: AgentConfig{Concurrency: 16, StopTimeout: 5 * time.Second, MaxTaskDuration: 45 * time.Minute, Ephemeral: true, MaxTasks: 3, IdleTimeout: 45 * time.Second, AnnounceInterval: 30 * time.Second,
			SigningKeyFile: "/keys/agent.key"},
		Caller: CallerConfig{Name: "Primary", DefaultTimeout: 20 * time.Second, MaxTimeout: 2 * time.Minute, DefaultWait: 45 * time.Second, MaxWait: 2 * time.Hour, SweepInterval: 250 * time.Millisecond, MaxDepth: 7, MemoryRetryBound: 50 * time.Minute,
			InputTimeout: 2 * time.Hour, MaxTaskHistory: 12, Concurrency: 48},
		Policy: PolicyConfig{Default: "deny", Rules: []PolicyRule{
			{Caller: "Primary", Allow: []string{"Sample*"}, Deny: []string{"SampleAdmin"}},
			{Caller: "Bot-?", MayCall: new(false)},
		}},
		Limits:   LimitsConfig{MaxInFlight: 3, Rate: 2.5, Burst: 4, BreakerFailures: 2, BreakerCooldown: 10 * time.Second, SharedLease: 5 * time.Second},
		Research: ResearchConfig{DocsDir: "/data/docs", SearchURL: "http://searxng:8080", MaxPages: 5, FetchTimeout: 4 * time.Second, MaxPageBytes: 65536, AllowPrivateAddresses: true},
		LLM: LLMConfig{BaseURL: "http://127.0.0.1:11434/v1", APIKey: "sk-local", Model: "llama3.1:8b", MaxTokens: 1024,
			Temperature: 0.7, Timeout: 90 * time.Second, MaxRetries: 4, MaxResponseBytes: 8 << 20, MaxToolArgumentBytes: 64 << 10},
		Chat:         ChatConfig{SystemPrompt: "You are the primary agent.", MaxToolRounds: 12, TokenBudget: 200_000, MaxHistoryTurns: 20, MaxHistoryChars: 30_000, MaxInputBytes: 4096},
		Workflow:     WorkflowConfig{MaxRenderBytes: 2 << 20, MaxSteps: 50},
		Orchestrator: OrchestratorConfig{RouteThreshold: 0.7, RouteMargin: 0.05, RouteFloor: 0.3, RouteMaxQuestions: 3},
		Ops:          OpsConfig{Listen: ":9090", PProf: true, TraceSampleRatio: 0.5},
		HTTP: HTTPConfig{ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 20 * time.Second, WriteTimeout: 15 * time.Second,
			IdleTimeout: time.Minute, MaxHeaderBytes: 8192, MaxBodyBytes: 1 << 20, MaxConnections: 64},
		MCP: MCPConfig{TokenFile: "/run/secrets/mcp-token", InsecureNoAuth: true, MaxSessions: 20, SessionIdleTimeout: 3 * time.Minute},
		Remote: RemoteConfig{Agents: []RemoteAgent{
			{Name: "Weather", CardURL: "https://weather.example.com", BearerTokenFile: "/run/secrets/weather"},
			{Name: "Docs", CardURL: "http://127.0.0.1:8080/card.json", APIKey: "k-123", APIKeyHeader: "X-Key", Transport: "HTTP+JSON"},
		}, CardCheckInterval: 30 * time.Second, CardTimeout: 4 * time.Second, MaxCardBytes: 64 << 10, MaxResponseBytes: 1 << 20,
			PollInterval: 500 * time.Millisecond, CancelTimeout: 2 * time.Second, RetryMin: 100 * time.Millisecond, RetryMax: 3 * time.Second},
		Gateway: GatewayConfig{Listen: ":8443", PublicURL: "https://a2a.example.com", PublicCards: true,
			Keys: []string{"Alice=alice-key-0123456789abcdef", "Bob=bob-key-0123456789abcdef0"}, KeysFile: "/run/secrets/gateway-keys",
			Rate: 20, Burst: 40, MaxStreams: 500, StreamKeepAlive: 30 * time.Second, CancelWait: 5 * time.Second, MaxListedTasks: 200,
			JWT: GatewayJWTConfig{JWKSURL: "https://idp.example.com/jwks.json", Audience: "a2abus", Issuer: "https://idp.example.com",
				Claim: "agent", Callers: []string{"Carol", "Dave"}, Refresh: 5 * time.Minute},
			Push: GatewayPushConfig{Allow: []string{"hooks.example.com", "10.0.0.0/8"}, Timeout: 3 * time.Second, MaxAttempts: 3, MaxPending: 50}},
	}
	ca := testca.New(t)
	maps.Copy(env, map[string]string{ // TLS files must exist
		"bus.tls.enabled": "true", "bus.tls.ca_file": ca.CA, "bus.tls.cert_file": ca.ClientCert,
		"bus.tls.key_file": ca.ClientKey, "bus.tls.server_name": "rabbit.internal", "bus.tls.insecure_skip_verify": "false",
		"redis.tls.enabled": "true", "redis.tls.ca_file": "", "redis.tls.cert_file": ca.ClientCert,
		"redis.tls.key_file": ca.ClientKey, "redis.tls.server_name": "", "redis.tls.insecure_skip_verify": "true",
	})
	want.Bus.TLS = TLSConfig{Enabled: true, CAFile: ca.CA, CertFile: ca.ClientCert, KeyFile: ca.ClientKey, ServerName: "rabbit.internal"}
	want.Redis.TLS = TLSConfig{Enabled: true, CertFile: ca.ClientCert, KeyFile: ca.ClientKey, InsecureSkipVerify: true}
	for _, k := range Keys() {
		v, ok := env[k]
		if !ok {
			t.Fatalf("key %s has no test value: add it to this table", k)
		}
		t.Setenv(EnvName(k), v)
	}
	cfg, err := Load(LoadOptions{SearchDirs: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("Load() =\n%+v\nwant\n%+v", cfg, want)
	}
}

// LoadGiven names the keys the file, the environment and the flags set,
// and no key left to its default: what the commands complete themselves.
func TestLoadGivenNamesWhatWasSet(t *testing.T) {
	dir := isolate(t)
	p := writeFile(t, dir, "given.yaml", "log:\n  format: json\nmemory:\n  result_ttl: 15m\n")
	t.Setenv(EnvName("caller.name"), "Primary")
	t.Setenv(EnvName("caller.max_depth"), "") // empty: unset
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	AddFlags(fs)
	if err := fs.Parse([]string{"--log-level", "debug"}); err != nil {
		t.Fatal(err)
	}
	cfg, given, err := LoadGiven(LoadOptions{File: p, Flags: fs})
	if err != nil {
		t.Fatal(err)
	}
	want := Given{"log.format": true, "memory.result_ttl": true, "caller.name": true, "log.level": true}
	if !maps.Equal(given, want) || cfg.Log.Level != "debug" || cfg.Caller.Name != "Primary" {
		t.Errorf("given %v, want %v (level %s, caller %s)", given, want, cfg.Log.Level, cfg.Caller.Name)
	}
}

// embedded:// names the embedded bus and memory explicitly; any other
// spelling of that scheme is refused.
func TestEmbeddedURL(t *testing.T) {
	c := Default()
	c.Bus.URL, c.Redis.URL = EmbeddedURL, EmbeddedURL
	if err := c.Validate(); err != nil || !c.Bus.Embedded() || !c.Redis.Embedded() || c.Bus.TLSOn() || c.Redis.TLSOn() || len(c.TLSWarnings()) != 0 {
		t.Fatalf("embedded://: %v (embedded %v/%v, warnings %v)", err, c.Bus.Embedded(), c.Redis.Embedded(), c.TLSWarnings())
	}
	c.Bus.URL, c.Redis.URL = "embedded://x", "embedded:"
	err := c.Validate()
	for _, key := range []string{"bus.url", "redis.url"} {
		if !strings.Contains(fmt.Sprint(err), "config: "+key+": the embedded one is spelt exactly embedded://") {
			t.Errorf("%s: %v", key, err)
		}
	}
	c = Default()
	c.Redis.URL, c.Redis.Addrs = EmbeddedURL, []string{"a:1"}
	if err := c.Validate(); !strings.Contains(fmt.Sprint(err), "redis.addrs: cannot be combined with redis.url") {
		t.Errorf("embedded:// with redis.addrs: %v", err)
	}
}

func TestLoadFileValues(t *testing.T) {
	dir := isolate(t)
	p := writeFile(t, dir, "custom.yml", `
bus:
  url: amqp://guest:guest@127.0.0.1:5672/
  max_attempts: 3
  publish_timeout: 1m30s
redis:
  addrs: [n1:7000, n2:7000]
  password: 12345
memory:
  result_ttl: 15m
`)
	cfg, err := Load(LoadOptions{File: p, SearchDirs: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Bus.MaxAttempts != 3 || cfg.Bus.PublishTimeout != 90*time.Second || cfg.Memory.ResultTTL != 15*time.Minute {
		t.Errorf("bus/memory = %+v %+v", cfg.Bus, cfg.Memory)
	}
	if !reflect.DeepEqual(cfg.Redis.Addrs, []string{"n1:7000", "n2:7000"}) || cfg.Redis.Password != "12345" {
		t.Errorf("redis = %+v", cfg.Redis)
	}
}

func TestLoadPolicyAndLimitsFromFile(t *testing.T) {
	dir := isolate(t)
	p := writeFile(t, dir, FileName, `
policy:
  default: deny
  rules:
    - caller: Cli
      allow: ["*"]
      deny: [Admin*]
    - caller: "Research*"
      may_call: false
    - caller: Ops
      allow: SampleAgent, Other
limits:
  max_in_flight: 0
  rate: 5
  burst: 1
  breaker_failures: 0
  breaker_cooldown: 1m
  shared: false
  shared_lease: 2s
`)
	cfg, err := Load(LoadOptions{File: p})
	if err != nil {
		t.Fatal(err)
	}
	want := PolicyConfig{Default: "deny", Rules: []PolicyRule{
		{Caller: "Cli", Allow: []string{"*"}, Deny: []string{"Admin*"}},
		{Caller: "Research*", MayCall: new(false)},
		{Caller: "Ops", Allow: []string{"SampleAgent", "Other"}},
	}}
	if !reflect.DeepEqual(cfg.Policy, want) {
		t.Errorf("policy = %+v, want %+v", cfg.Policy, want)
	}
	if l := cfg.Limits; l != (LimitsConfig{Rate: 5, Burst: 1, BreakerCooldown: time.Minute, SharedLease: 2 * time.Second}) {
		t.Errorf("limits = %+v", l)
	}
	// What `config check` prints (Redacted, as YAML) loads back the same.
	out, err := yaml.Marshal(cfg.Redacted())
	if err != nil {
		t.Fatal(err)
	}
	again, err := Load(LoadOptions{File: writeFile(t, dir, "again.yaml", string(out))})
	if err != nil {
		t.Fatalf("reload:\n%s\n%v", out, err)
	}
	if !reflect.DeepEqual(again.Policy, cfg.Policy) || again.Limits != cfg.Limits {
		t.Errorf("reloaded %+v %+v, want %+v %+v", again.Policy, again.Limits, cfg.Policy, cfg.Limits)
	}
}

func TestLoadJSONFile(t *testing.T) {
	dir := isolate(t)
	p := writeFile(t, dir, "a2abus.json", `{"bus": {"exchange": "j"}, "log": {"format": "console"}}`)
	cfg, err := Load(LoadOptions{File: p})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Bus.Exchange != "j" || cfg.Log.Format != "console" {
		t.Errorf("got exchange %q format %q", cfg.Bus.Exchange, cfg.Log.Format)
	}
}

func TestLoadSearch(t *testing.T) {
	first, second := isolate(t), t.TempDir()
	writeFile(t, second, FileName, "bus:\n  exchange: second\n")
	opts := LoadOptions{SearchDirs: []string{first, second}}
	if got, _ := opts.ResolveFile(); got != filepath.Join(second, FileName) {
		t.Errorf("ResolveFile() = %q", got)
	}
	cfg, err := Load(opts)
	if err != nil || cfg.Bus.Exchange != "second" {
		t.Fatalf("Load() = %+v, %v; want exchange from the second dir", cfg, err)
	}
	writeFile(t, first, FileName, "bus:\n  exchange: first\n")
	if cfg, err := Load(opts); err != nil || cfg.Bus.Exchange != "first" {
		t.Fatalf("Load() = %+v, %v; want exchange from the first dir", cfg, err)
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name    string
		file    string // content of a2abus.yaml; "" = no file
		env     map[string]string
		args    []string
		want    []string // substrings of the error, each on one line
		invalid bool     // errors.Is(err, ErrInvalid)
	}{
		{
			name: "bad env url", env: map[string]string{"A2ABUS_BUS_URL": "http://rabbit:5672"},
			want: []string{`config: bus.url: scheme must be amqp or amqps, got "http"`}, invalid: true,
		},
		{
			name: "bad flag", args: []string{"--log-format", "xml"},
			want: []string{`config: log.format: must be one of json|console, got "xml"`}, invalid: true,
		},
		{
			name: "several bad keys", env: map[string]string{"A2ABUS_BUS_MAX_ATTEMPTS": "lots", "A2ABUS_MEMORY_RESULT_TTL": "60", "A2ABUS_REDIS_URL": "memcache://x"},
			want: []string{
				`config: bus.max_attempts: must be an integer, got "lots"`,
				`config: memory.result_ttl: must be a duration such as "10s" or "1h30m", got "60"`,
				`config: redis.url: scheme must be redis or rediss, got "memcache"`,
			},
			invalid: true,
		},
		{
			name: "unknown keys", file: "bus:\n  ulr: amqp://x\n  exchange: a2a\nextra: 1\n",
			want:    []string{`config: bus.ulr: unknown key in `, `config: extra: unknown key in `},
			invalid: true,
		},
		{
			name: "section as scalar", file: "bus: amqp://x\n",
			want: []string{`config: bus: must be a mapping of keys in `}, invalid: true,
		},
		{
			name: "duration as number", file: "redis:\n  timeout: 2\n",
			want: []string{`config: redis.timeout: must be a duration with a unit such as "10s", got 2`}, invalid: true,
		},
		{
			name: "list as string key", file: "redis:\n  password: [a, b]\n",
			want: []string{`config: redis.password: must be a string, got a list`}, invalid: true,
		},
		{
			name: "bad policy rules", file: "policy:\n  rules:\n    - caller: Cli\n      alow: [x]\n      may_call: maybe\n    - nope\n",
			want: []string{
				`config: policy.rules[0].alow: unknown key (a rule has caller, may_call, allow, deny)`,
				`config: policy.rules[0].may_call: must be true or false, got "maybe"`,
				`config: policy.rules[1]: must be a mapping of caller, may_call, allow, deny, got a string`,
			},
			invalid: true,
		},
		{
			name: "rules as a mapping", file: "policy:\n  rules:\n    caller: Cli\n",
			want: []string{`config: policy.rules: must be a value or a list, not a mapping, in `}, invalid: true,
		},
		{
			name: "bad env rules and rate", env: map[string]string{"A2ABUS_POLICY_RULES": "[{", "A2ABUS_LIMITS_RATE": "fast"},
			want: []string{
				`config: policy.rules: must be a list of rules written as JSON or YAML`,
				`config: limits.rate: must be a number, got "fast"`,
			},
			invalid: true,
		},
		{
			name: "bad rule pattern", file: "policy:\n  rules:\n    - caller: Cli\n      deny: [a.b]\n",
			want: []string{`config: policy.rules[0].deny[0]: must be an agent name or a pattern`}, invalid: true,
		},
		{
			name: "malformed yaml", file: "bus:\n  url: [\n",
			want: []string{`config: invalid: parse `}, invalid: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := isolate(t)
			if tt.file != "" {
				writeFile(t, dir, FileName, tt.file)
			}
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
			AddFlags(fs)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			cfg, err := Load(LoadOptions{SearchDirs: []string{dir}, Flags: fs})
			if err == nil {
				t.Fatalf("Load() = %+v, want an error", cfg)
			}
			lines := strings.Split(err.Error(), "\n")
			if len(lines) != len(tt.want) {
				t.Errorf("got %d error lines, want %d:\n%v", len(lines), len(tt.want), err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not contain %q:\n%v", w, err)
				}
			}
			if errors.Is(err, ErrInvalid) != tt.invalid {
				t.Errorf("errors.Is(err, ErrInvalid) = %v, want %v", !tt.invalid, tt.invalid)
			}
		})
	}
}

func TestLoadNamedFileMissing(t *testing.T) {
	dir := isolate(t)
	_, err := Load(LoadOptions{File: filepath.Join(dir, "nope.yaml")})
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "nope.yaml") {
		t.Fatalf("Load() error = %v, want a not-exist error naming the file", err)
	}
}

func TestLoadErrorHidesPassword(t *testing.T) {
	isolate(t)
	t.Setenv("A2ABUS_REDIS_URL", "redis://:topsecret@cache:6379/x")
	_, err := Load(LoadOptions{SearchDirs: []string{}})
	if err == nil || strings.Contains(err.Error(), "topsecret") {
		t.Fatalf("Load() error = %v, want an error without the password", err)
	}
}

// TestExampleFile loads a2abus.example.yaml: it documents every key, and each
// value it shows is the default.
func TestExampleFile(t *testing.T) {
	isolate(t)
	p := filepath.Join("..", "a2abus.example.yaml")
	cfg, err := Load(LoadOptions{File: p})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cfg, Default()) {
		t.Errorf("the example's values differ from the defaults:\n%+v\nwant\n%+v", cfg, Default())
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range Keys() {
		if !shows(doc, strings.Split(k, ".")) {
			t.Errorf("the example does not show key %s", k)
		}
	}
}

// shows reports whether the YAML mapping doc holds the nested key path.
func shows(doc map[string]any, path []string) bool {
	v, ok := doc[path[0]]
	if !ok || len(path) == 1 {
		return ok
	}
	m, isMap := v.(map[string]any)
	return isMap && shows(m, path[1:])
}

// TestLoadFileKeysAsViperReadThem: the file is read as viper read it
// before: keys in any case, a null value keeps the default (but counts as
// given by the file), an empty mapping sets nothing, a key spelt with dots
// is the nested key, and a flag not given leaves the file's value.
func TestLoadFileKeysAsViperReadThem(t *testing.T) {
	dir := isolate(t)
	writeFile(t, dir, FileName, "Log:\n  LEVEL: debug\nbus:\n  exchange:\n  url: amqp://f/\nredis: {}\nagent.max_tasks: 7\n")
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	AddFlags(fs)
	if err := fs.Parse([]string{"--redis-url", "redis://flag:6379/0"}); err != nil {
		t.Fatal(err)
	}
	cfg, src, err := LoadSourced(LoadOptions{SearchDirs: []string{dir}, Flags: fs})
	if err != nil {
		t.Fatal(err)
	}
	def := Default()
	if cfg.Log.Level != "debug" || cfg.Bus.Exchange != def.Bus.Exchange || cfg.Bus.URL != "amqp://f/" ||
		cfg.Agent.MaxTasks != 7 || cfg.Redis.URL != "redis://flag:6379/0" {
		t.Errorf("log.level %q, bus.exchange %q (default %q), bus.url %q, agent.max_tasks %d, redis.url %q",
			cfg.Log.Level, cfg.Bus.Exchange, def.Bus.Exchange, cfg.Bus.URL, cfg.Agent.MaxTasks, cfg.Redis.URL)
	}
	for key, want := range map[string]Source{"log.level": SourceFile, "bus.exchange": SourceFile, "agent.max_tasks": SourceFile,
		"redis.url": SourceFlag, "redis.db": SourceDefault, "log.format": SourceDefault} {
		if src[key] != want {
			t.Errorf("source of %s = %q, want %q", key, src[key], want)
		}
	}
}

// TestLoadAsksViperOnlyForWhatWasGiven: without a file, a key neither its
// variable nor its flag sets keeps Default's value without a look-up in
// viper (which cost every program about 4,000 allocations at start, for
// 156 keys); the keys given are read as before (TestLoadEveryKeyFromEnv).
func TestLoadAsksViperOnlyForWhatWasGiven(t *testing.T) {
	isolate(t)
	t.Setenv(EnvName("bus.url"), "amqp://guest:guest@127.0.0.1:5672/")
	t.Setenv(EnvName("policy.rules"), `[{"caller":"*","allow":["*"]}]`)
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	AddFlags(fs)
	if err := fs.Parse([]string{"--log-level", "debug"}); err != nil {
		t.Fatal(err)
	}
	load := func() {
		cfg, src, err := LoadSourced(LoadOptions{SearchDirs: []string{}, Flags: fs, Warn: func(string) {}})
		if err != nil || cfg.Bus.URL != "amqp://guest:guest@127.0.0.1:5672/" || len(cfg.Policy.Rules) != 1 || cfg.Log.Level != "debug" ||
			src["bus.url"] != SourceEnv || src["log.level"] != SourceFlag || src["redis.url"] != SourceDefault {
			t.Fatalf("config %+v, sources %v, err %v", cfg, src, err)
		}
	}
	if n := testing.AllocsPerRun(5, load); n > 400 {
		t.Errorf("a load allocates %.0f times, want at most 400 (every key looked up in viper: about 4,000)", n)
	}
}
