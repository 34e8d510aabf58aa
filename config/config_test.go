// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package config

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func TestDefaultIsValid(t *testing.T) {
	c := Default()
	if err := c.Validate(); err != nil {
		t.Fatalf("Default().Validate() = %v", err)
	}
	if !c.Bus.Embedded() || !c.Redis.Embedded() {
		t.Errorf("default must use the embedded bus and memory, got bus %q redis %q %v", c.Bus.URL, c.Redis.URL, c.Redis.Addrs)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*Config)
		want   string // the full message of the one expected error; "" = valid
	}{
		{"amqp url", func(c *Config) { c.Bus.URL = "amqp://guest:guest@127.0.0.1:5672/" }, ""},
		{"amqps url", func(c *Config) { c.Bus.URL = "amqps://rabbit.example:5671/tenant" }, ""},
		{"agent concurrency", func(c *Config) { c.Agent.Concurrency = 0 }, "config: agent.concurrency: must be within 1..1000, got 0"},
		{"agent max tasks", func(c *Config) { c.Agent.MaxTasks = 0 }, "config: agent.max_tasks: must be at least 1, got 0"},
		{"caller name", func(c *Config) { c.Caller.Name = "a.b" }, `config: caller.name: must be an agent name (a letter, then letters, digits, '_' or '-'; at most 64), got "a.b"`},
		{"caller timeouts", func(c *Config) { c.Caller.DefaultTimeout = time.Hour }, "config: caller.default_timeout: must not exceed caller.max_timeout (5m0s), got 1h0m0s"},
		{"research docs", func(c *Config) { c.Research.DocsDir = "" }, `config: research.docs_dir: must name a folder, got ""`},
		{"max depth", func(c *Config) { c.Caller.MaxDepth = 0 }, "config: caller.max_depth: must be within 1..64, got 0"},
		{"announce secret", func(c *Config) { c.Directory.AnnounceSecret = "short" }, "config: directory.announce_secret: must be at least 16 bytes, got 5"},
		{"http scheme", func(c *Config) { c.Bus.URL = "http://x" }, `config: bus.url: scheme must be amqp or amqps, got "http"`},
		{"no scheme", func(c *Config) { c.Bus.URL = "rabbit" }, `config: bus.url: scheme must be amqp or amqps, got none in "rabbit"`},
		{"unparsable url hides password", func(c *Config) { c.Bus.URL = "amqp://u:p%zz@h/" }, `config: bus.url: not a valid URL: "amqp://u:xxxxx@h/"`},
		{"opaque url", func(c *Config) { c.Bus.URL = "amqp:host" }, `config: bus.url: must be amqp://host..., got "amqp:host"`},
		{"log level", func(c *Config) { c.Log.Level = "verbose" }, `config: log.level: must be one of debug|info|warn|error, got "verbose"`},
		{"log format", func(c *Config) { c.Log.Format = "text" }, `config: log.format: must be one of json|console, got "text"`},
		{"exchange chars", func(c *Config) { c.Bus.Exchange = "a2a/x" }, `config: bus.exchange: must be 1 to 200 of [A-Za-z0-9_.-], got "a2a/x"`},
		{"exchange empty", func(c *Config) { c.Bus.Exchange = "" }, `config: bus.exchange: must be 1 to 200 of [A-Za-z0-9_.-], got ""`},
		{"exchange too long", func(c *Config) { c.Bus.Exchange = strings.Repeat("x", 201) }, `config: bus.exchange: must be 1 to 200 of [A-Za-z0-9_.-], got "` + strings.Repeat("x", 201) + `"`},
		{"exchange 200", func(c *Config) { c.Bus.Exchange = strings.Repeat("x", 200) }, ""},
		{"exchange reserved", func(c *Config) { c.Bus.Exchange = "amq.topic" }, `config: bus.exchange: the amq. prefix is reserved by the broker, got "amq.topic"`},
		{"queue type", func(c *Config) { c.Bus.QueueType = "stream" }, `config: bus.queue_type: must be one of classic|quorum, got "stream"`},
		{"quorum", func(c *Config) { c.Bus.QueueType = "quorum" }, ""},
		{"publish timeout", func(c *Config) { c.Bus.PublishTimeout = 0 }, `config: bus.publish_timeout: must be a positive duration such as "10s", got 0s`},
		{"reconnect min", func(c *Config) { c.Bus.ReconnectMin = -time.Second }, `config: bus.reconnect_min: must be a positive duration such as "10s", got -1s`},
		{"reconnect max below min", func(c *Config) { c.Bus.ReconnectMax = 50 * time.Millisecond }, `config: bus.reconnect_max: must be at least bus.reconnect_min (100ms), got 50ms`},
		{"message bytes low", func(c *Config) { c.Bus.MaxMessageBytes = 1023 }, `config: bus.max_message_bytes: must be between 1024 and 134217728, got 1023`},
		{"message bytes high", func(c *Config) { c.Bus.MaxMessageBytes = 128<<20 + 1 }, `config: bus.max_message_bytes: must be between 1024 and 134217728, got 134217729`},
		{"message bytes bounds", func(c *Config) { c.Bus.MaxMessageBytes = 128 << 20 }, ""},
		{"attempts zero", func(c *Config) { c.Bus.MaxAttempts = 0 }, `config: bus.max_attempts: must be between 1 and 100, got 0`},
		{"attempts high", func(c *Config) { c.Bus.MaxAttempts = 101 }, `config: bus.max_attempts: must be between 1 and 100, got 101`},
		{"max agents zero", func(c *Config) { c.Directory.MaxAgents = 0 }, `config: directory.max_agents: must be within 1..1000000, got 0`},
		{"redis url", func(c *Config) { c.Redis.URL = "rediss://:pw@cache:6380/2" }, ""},
		{"redis scheme", func(c *Config) { c.Redis.URL = "tcp://cache:6379" }, `config: redis.url: scheme must be redis or rediss, got "tcp"`},
		{"redis db path", func(c *Config) { c.Redis.URL = "redis://:pw@cache:6379/zero" }, `config: redis.url: path must be a database number such as /0, got "redis://:xxxxx@cache:6379/zero"`},
		{"redis url and addrs", func(c *Config) { c.Redis.URL = "redis://cache"; c.Redis.Addrs = []string{"a:1"} }, `config: redis.addrs: cannot be combined with redis.url (use one or the other)`},
		{"sentinel", func(c *Config) {
			c.Redis.Addrs = []string{"s1:26379", "s2:26379"}
			c.Redis.MasterName = "mymaster"
			c.Redis.DB = 3
		}, ""},
		{"cluster", func(c *Config) { c.Redis.Addrs = []string{"n1:7000", "[::1]:7001"} }, ""},
		{"addr without port", func(c *Config) { c.Redis.Addrs = []string{"n1:7000", "n2"} }, `config: redis.addrs[1]: must be host:port, got "n2"`},
		{"addr bad port", func(c *Config) { c.Redis.Addrs = []string{"n1:70000"} }, `config: redis.addrs[0]: port must be 1..65535, got "70000"`},
		{"addr no host", func(c *Config) { c.Redis.Addrs = []string{":7000"} }, `config: redis.addrs[0]: host is empty in ":7000"`},
		{"master without addrs", func(c *Config) { c.Redis.MasterName = "mymaster" }, `config: redis.master_name: needs redis.addrs (the Sentinel addresses), got master "mymaster" without them`},
		{"negative db", func(c *Config) { c.Redis.DB = -1 }, `config: redis.db: must not be negative, got -1`},
		{"cluster db", func(c *Config) { c.Redis.Addrs = []string{"n1:7000"}; c.Redis.DB = 1 }, `config: redis.db: Redis Cluster (redis.addrs without redis.master_name) supports only db 0, got 1`},
		{"key prefix space", func(c *Config) { c.Redis.KeyPrefix = "a b:" }, `config: redis.key_prefix: must not contain spaces or control characters, got "a b:"`},
		{"key prefix long", func(c *Config) { c.Redis.KeyPrefix = strings.Repeat("k", 65) }, `config: redis.key_prefix: must be at most 64 bytes, got 65`},
		{"key prefix empty", func(c *Config) { c.Redis.KeyPrefix = "" }, ""},
		{"redis timeout", func(c *Config) { c.Redis.Timeout = 0 }, `config: redis.timeout: must be a positive duration such as "10s", got 0s`},
		{"result ttl", func(c *Config) { c.Memory.ResultTTL = 0 }, `config: memory.result_ttl: must be a positive duration such as "10s", got 0s`},
		{"trust", func(c *Config) { c.Directory.Trust = "maybe" }, `config: directory.trust: must be pinned, tofu or any, got "maybe"`},
		{"tofu without pins file", func(c *Config) { c.Directory.Trust = TrustTOFU }, "config: directory.pins_file: must name a file when directory.trust is tofu (the keys trusted on first use are kept there)"},
		{"tofu", func(c *Config) { c.Directory.Trust, c.Directory.PinsFile = TrustTOFU, "pins.json" }, ""},
		{"pins over known agents", func(c *Config) { c.Directory.PinsFile = c.Directory.KnownAgentsFile }, `config: directory.pins_file: must differ from directory.known_agents_file, both are "known-agents.json"`},
		{"same directory files", func(c *Config) { c.Directory.KnownAgentsFile = c.Directory.WellKnownFile }, `config: directory.known_agents_file: must differ from directory.well_known_file, both are "well-known-agents.json"`},
		{"no directory files", func(c *Config) { c.Directory.KnownAgentsFile = ""; c.Directory.WellKnownFile = "" }, ""},
		{"policy deny", func(c *Config) { c.Policy.Default = "deny" }, ""},
		{"policy default", func(c *Config) { c.Policy.Default = "Allow" }, `config: policy.default: must be one of allow|deny, got "Allow"`},
		{"policy rules", func(c *Config) {
			c.Policy.Rules = []PolicyRule{{Caller: "Cli", Allow: []string{"*"}, Deny: []string{"Admin*", "Sec?et"}}, {Caller: "research-*", MayCall: new(false)}}
		}, ""},
		{"policy rule caller", func(c *Config) { c.Policy.Rules = []PolicyRule{{Caller: ""}} }, `config: policy.rules[0].caller: must be an agent name or a pattern of letters, digits, '_', '-', '*' and '?' (at most 128), got ""`},
		{"policy rule duplicate", func(c *Config) { c.Policy.Rules = []PolicyRule{{Caller: "Cli*"}, {Caller: "x"}, {Caller: "cli*"}} }, `config: policy.rules[2].caller: "cli*" is already the caller of policy.rules[0]`},
		{"policy rule allow", func(c *Config) { c.Policy.Rules = []PolicyRule{{Caller: "Cli", Allow: []string{"ok", "a.b"}}} }, `config: policy.rules[0].allow[1]: must be an agent name or a pattern of letters, digits, '_', '-', '*' and '?' (at most 128), got "a.b"`},
		{"policy rule deny", func(c *Config) { c.Policy.Rules = []PolicyRule{{Caller: "Cli", Deny: []string{"[a]"}}} }, `config: policy.rules[0].deny[0]: must be an agent name or a pattern of letters, digits, '_', '-', '*' and '?' (at most 128), got "[a]"`},
		{"unlimited", func(c *Config) { c.Limits.MaxInFlight = 0; c.Limits.BreakerFailures = 0; c.Limits.Rate = 0 }, ""},
		{"rate", func(c *Config) { c.Limits.Rate = 0.5; c.Limits.Burst = 1 }, ""},
		{"max in flight", func(c *Config) { c.Limits.MaxInFlight = -1 }, `config: limits.max_in_flight: must be within 0..1000000 (0: unlimited), got -1`},
		{"negative rate", func(c *Config) { c.Limits.Rate = -1 }, `config: limits.rate: must be within 0..1e+06 calls per second (0: unlimited), got -1`},
		{"burst", func(c *Config) { c.Limits.Burst = 0 }, `config: limits.burst: must be between 1 and 1000000, got 0`},
		{"breaker failures", func(c *Config) { c.Limits.BreakerFailures = 1001 }, `config: limits.breaker_failures: must be within 0..1000 (0: no circuit breaker), got 1001`},
		{"breaker cooldown", func(c *Config) { c.Limits.BreakerCooldown = 0 }, `config: limits.breaker_cooldown: must be a positive duration such as "10s", got 0s`},
		{"conversation ttl forever", func(c *Config) { c.Memory.ConversationTTL = 0 }, ""},
		{"conversation ttl negative", func(c *Config) { c.Memory.ConversationTTL = -time.Hour }, `config: memory.conversation_ttl: must be 0 (keep conversations forever) or a positive duration, got -1h0m0s`},
		{"consumer timeout", func(c *Config) { c.Bus.ConsumerTimeout = 0 }, `config: bus.consumer_timeout: must be a positive duration such as "10s", got 0s`},
		{"max task duration zero", func(c *Config) { c.Agent.MaxTaskDuration = 0 }, `config: agent.max_task_duration: must be a positive duration such as "10s", got 0s`},
		{"memory retry bound zero", func(c *Config) { c.Caller.MemoryRetryBound = 0 }, `config: caller.memory_retry_bound: must be a positive duration such as "10s", got 0s`},
		{"memory outage bound zero", func(c *Config) { c.Memory.RetryBound = 0 }, `config: memory.retry_bound: must be a positive duration such as "10s", got 0s`},
		{"input timeout zero", func(c *Config) { c.Caller.InputTimeout = 0 }, `config: caller.input_timeout: must be a positive duration of at most 168h0m0s (a session's ownership), got 0s`},
		{"input timeout too long", func(c *Config) { c.Caller.InputTimeout = 200 * time.Hour }, `config: caller.input_timeout: must be a positive duration of at most 168h0m0s (a session's ownership), got 200h0m0s`},
		{"task history too short", func(c *Config) { c.Caller.MaxTaskHistory = 1 }, `config: caller.max_task_history: must be within 2..256, got 1`},
		{"caller concurrency", func(c *Config) { c.Caller.Concurrency = 0 }, "config: caller.concurrency: must be within 1..1000, got 0"},
		{"context history negative", func(c *Config) { c.Memory.MaxContextMessages = -1 }, `config: memory.max_context_messages: must be within 0..256 (0 keeps no context history), got -1`},
		{"context history too long", func(c *Config) { c.Memory.MaxContextMessages = 257 }, `config: memory.max_context_messages: must be within 0..256 (0 keeps no context history), got 257`},
		{"task as long as the consumer timeout", func(c *Config) { c.Agent.MaxTaskDuration = 30 * time.Minute },
			`config: agent.max_task_duration: must be below bus.consumer_timeout (30m0s), got 30m0s: a task's delivery stays unacked while it runs; lower it, or raise RabbitMQ's consumer_timeout and bus.consumer_timeout with it`},
		{"broker's consumer timeout lowered", func(c *Config) { c.Bus.ConsumerTimeout = 15 * time.Minute },
			`config: agent.max_task_duration: must be below bus.consumer_timeout (15m0s), got 25m0s: a task's delivery stays unacked while it runs; lower it, or raise RabbitMQ's consumer_timeout and bus.consumer_timeout with it` + "\n" +
				`config: caller.memory_retry_bound: must be below bus.consumer_timeout (15m0s), got 25m0s: a result's delivery stays unacked while it waits for working memory`},
		{"long tasks with a raised consumer timeout", func(c *Config) {
			c.Bus.ConsumerTimeout = 3 * time.Hour
			c.Agent.MaxTaskDuration = 2 * time.Hour
			c.Caller.MaxTimeout = 2 * time.Hour
		}, ""},
		{"memory retry bound", func(c *Config) { c.Caller.MemoryRetryBound = 31 * time.Minute },
			`config: caller.memory_retry_bound: must be below bus.consumer_timeout (30m0s), got 31m0s: a result's delivery stays unacked while it waits for working memory`},
		{"caller allows as long as a task runs", func(c *Config) { c.Caller.MaxTimeout = 25 * time.Minute }, ""},
		{"caller allows longer than a task runs", func(c *Config) { c.Caller.MaxTimeout = 26 * time.Minute },
			`config: caller.max_timeout: must not exceed agent.max_task_duration (25m0s), got 26m0s: a task the caller allows could not finish before the agent cuts it off`},
		{"stop timeout as long as a task", func(c *Config) { c.Agent.StopTimeout = 25 * time.Minute },
			`config: agent.stop_timeout: must be below agent.max_task_duration (25m0s), got 25m0s: stopping waits this long for in-flight tasks before requeueing them, and a wait as long as a whole task bounds nothing`},
		{"llm endpoint", func(c *Config) { c.LLM.BaseURL = "http://127.0.0.1:11434/v1"; c.LLM.Model = "llama3.1" }, ""},
		{"llm https endpoint with key", func(c *Config) {
			c.LLM.BaseURL = "HTTPS://api.openai.com/v1"
			c.LLM.Model = "gpt-4o-mini"
			c.LLM.APIKey = "sk-x"
		}, ""},
		{"llm model without endpoint", func(c *Config) { c.LLM.Model = "gpt-4o-mini" }, ""},
		{"llm scheme", func(c *Config) { c.LLM.BaseURL = "ftp://h/v1"; c.LLM.Model = "m" }, `config: llm.base_url: scheme must be http or https, got "ftp"`},
		{"llm no scheme", func(c *Config) { c.LLM.BaseURL = "127.0.0.1:11434/v1"; c.LLM.Model = "m" }, `config: llm.base_url: must be an http:// or https:// URL such as http://127.0.0.1:11434/v1, got "127.0.0.1:11434/v1"`},
		{"llm bare host", func(c *Config) { c.LLM.BaseURL = "ollama"; c.LLM.Model = "m" }, `config: llm.base_url: must be an http:// or https:// URL such as http://127.0.0.1:11434/v1, got "ollama"`},
		{"llm no host", func(c *Config) { c.LLM.BaseURL = "http:///v1"; c.LLM.Model = "m" }, `config: llm.base_url: must name a host, such as http://127.0.0.1:11434/v1, got "http:///v1"`},
		{"llm url hides password", func(c *Config) { c.LLM.BaseURL = "http://u:p%zz@h/v1"; c.LLM.Model = "m" }, `config: llm.base_url: not a valid URL: "http://u:xxxxx@h/v1"`},
		{"llm no model", func(c *Config) { c.LLM.BaseURL = "http://h/v1" }, `config: llm.model: must name the model when llm.base_url is set (A2ABUS_LLM_MODEL), got ""`},
		{"llm max tokens", func(c *Config) { c.LLM.MaxTokens = -1 }, `config: llm.max_tokens: must be 0 (the endpoint's bound) or positive, got -1`},
		{"llm temperature bounds", func(c *Config) { c.LLM.Temperature = 2 }, ""},
		{"llm temperature zero", func(c *Config) { c.LLM.Temperature = 0 }, ""},
		{"llm temperature high", func(c *Config) { c.LLM.Temperature = 2.5 }, `config: llm.temperature: must be within 0..2, got 2.5`},
		{"llm temperature negative", func(c *Config) { c.LLM.Temperature = -0.1 }, `config: llm.temperature: must be within 0..2, got -0.1`},
		{"llm temperature NaN", func(c *Config) { c.LLM.Temperature = math.NaN() }, `config: llm.temperature: must be within 0..2, got NaN`},
		{"llm timeout", func(c *Config) { c.LLM.Timeout = 0 }, `config: llm.timeout: must be a positive duration such as "10s", got 0s`},
		{"llm no retries", func(c *Config) { c.LLM.MaxRetries = 0 }, ""},
		{"llm retries", func(c *Config) { c.LLM.MaxRetries = 11 }, `config: llm.max_retries: must be within 0..10, got 11`},
		{"llm negative retries", func(c *Config) { c.LLM.MaxRetries = -1 }, `config: llm.max_retries: must be within 0..10, got -1`},
		{"chat tool rounds", func(c *Config) { c.Chat.MaxToolRounds = 0 }, `config: chat.max_tool_rounds: must be within 1..100, got 0`},
		{"chat tool rounds high", func(c *Config) { c.Chat.MaxToolRounds = 101 }, `config: chat.max_tool_rounds: must be within 1..100, got 101`},
		{"chat input", func(c *Config) { c.Chat.MaxInputBytes = 0 }, `config: chat.max_input_bytes: must be within 1..67108864, got 0`},
		{"workflow steps", func(c *Config) { c.Workflow.MaxSteps = 0 }, `config: workflow.max_steps: must be within 1..10000, got 0`},
		{"workflow steps high", func(c *Config) { c.Workflow.MaxSteps = 10_001 }, `config: workflow.max_steps: must be within 1..10000, got 10001`},
		{"chat bounds", func(c *Config) {
			c.Chat.MaxToolRounds, c.Chat.TokenBudget, c.Chat.MaxHistoryTurns, c.Chat.MaxHistoryChars = 100, 50_000, 1, 1000
		}, ""},
		{"chat token budget", func(c *Config) { c.Chat.TokenBudget = -1 }, `config: chat.token_budget: must be 0 (unbounded) or positive, got -1`},
		{"chat history turns", func(c *Config) { c.Chat.MaxHistoryTurns = 0 }, `config: chat.max_history_turns: must be at least 1, got 0`},
		{"chat history chars", func(c *Config) { c.Chat.MaxHistoryChars = 999 }, `config: chat.max_history_chars: must be at least 1000, got 999`},
		{"llm response bound", func(c *Config) { c.LLM.MaxResponseBytes = 0 }, `config: llm.max_response_bytes: must be within 1024..134217728 bytes (1 KiB..128 MiB), got 0`},
		{"llm tool argument bound", func(c *Config) { c.LLM.MaxToolArgumentBytes = 1 << 30 }, `config: llm.max_tool_argument_bytes: must be within 1024..134217728 bytes (1 KiB..128 MiB), got 1073741824`},
		{"workflow render bound", func(c *Config) { c.Workflow.MaxRenderBytes = 1023 }, `config: workflow.max_render_bytes: must be within 1024..134217728 bytes (1 KiB..128 MiB), got 1023`},
		{"route threshold", func(c *Config) { c.Orchestrator.RouteThreshold = 0 }, `config: orchestrator.route_threshold: must be above 0 and at most 1, got 0`},
		{"route threshold high", func(c *Config) { c.Orchestrator.RouteThreshold = 1.2 }, `config: orchestrator.route_threshold: must be above 0 and at most 1, got 1.2`},
		{"route threshold NaN", func(c *Config) { c.Orchestrator.RouteThreshold = math.NaN() }, `config: orchestrator.route_threshold: must be above 0 and at most 1, got NaN`},
		{"route threshold one", func(c *Config) { c.Orchestrator.RouteThreshold = 1 }, ""},
		{"route margin", func(c *Config) { c.Orchestrator.RouteMargin = 1 }, `config: orchestrator.route_margin: must be at least 0 and below 1, got 1`},
		{"route margin negative", func(c *Config) { c.Orchestrator.RouteMargin = -0.1 }, `config: orchestrator.route_margin: must be at least 0 and below 1, got -0.1`},
		{"route margin zero", func(c *Config) { c.Orchestrator.RouteMargin = 0 }, ""},
		{"route floor", func(c *Config) { c.Orchestrator.RouteFloor = -0.5 }, `config: orchestrator.route_floor: must be within 0..1, got -0.5`},
		{"route floor above threshold", func(c *Config) { c.Orchestrator.RouteFloor = 0.7 }, `config: orchestrator.route_floor: must not exceed orchestrator.route_threshold (0.6), got 0.7`},
		{"route floor zero", func(c *Config) { c.Orchestrator.RouteFloor = 0 }, ""},
		{"route questions", func(c *Config) { c.Orchestrator.RouteMaxQuestions = 0 }, `config: orchestrator.route_max_questions: must be within 1..10, got 0`},
		{"route questions high", func(c *Config) { c.Orchestrator.RouteMaxQuestions = 11 }, `config: orchestrator.route_max_questions: must be within 1..10, got 11`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Default()
			tt.mutate(c)
			err := c.Validate()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate() = nil, want %q", tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("Validate() =\n  %s\nwant\n  %s", err, tt.want)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error %v does not wrap ErrInvalid", err)
			}
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Errorf("error %v is not a *FieldError", err)
			}
		})
	}
}

func TestValidateReportsEveryBadKey(t *testing.T) {
	c := Default()
	c.Bus.URL = "http://x"
	c.Log.Level = "loud"
	c.Memory.ResultTTL = -time.Minute
	err := c.Validate()
	if err == nil {
		t.Fatal("Validate() = nil, want three errors")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 3 {
		t.Fatalf("got %d errors, want 3:\n%v", len(lines), err)
	}
	for _, key := range []string{"log.level", "bus.url", "memory.result_ttl"} {
		if !strings.Contains(err.Error(), "config: "+key+": ") {
			t.Errorf("error does not name %s:\n%v", key, err)
		}
	}
}

func TestRedacted(t *testing.T) {
	c := Default()
	c.Bus.URL = "amqps://agent:s3cr%40t@rabbit:5671/prod"
	c.Redis.URL = "redis://:hunter2@cache:6379/1"
	c.Redis.Password = "hunter3"
	r := c.Redacted()
	if r.Bus.URL != "amqps://agent:xxxxx@rabbit:5671/prod" {
		t.Errorf("bus.url = %q", r.Bus.URL)
	}
	if r.Redis.URL != "redis://:xxxxx@cache:6379/1" {
		t.Errorf("redis.url = %q", r.Redis.URL)
	}
	if r.Redis.Password != Secret {
		t.Errorf("redis.password = %q", r.Redis.Password)
	}
	if c.Bus.URL != "amqps://agent:s3cr%40t@rabbit:5671/prod" || c.Redis.Password != "hunter3" {
		t.Error("Redacted modified the original")
	}
	if r.LLM.APIKey != "" || r.LLM.BaseURL != "" {
		t.Errorf("unset llm secrets shown as %q %q, want empty", r.LLM.APIKey, r.LLM.BaseURL)
	}
	c.LLM.APIKey = "sk-proj-0123456789abcdef"
	c.LLM.BaseURL = "https://proxy:pr0xy@llm.example/v1"
	r = c.Redacted()
	if r.LLM.APIKey != Secret || r.LLM.BaseURL != "https://proxy:xxxxx@llm.example/v1" {
		t.Errorf("llm.api_key = %q, llm.base_url = %q", r.LLM.APIKey, r.LLM.BaseURL)
	}
	if c.LLM.APIKey != "sk-proj-0123456789abcdef" {
		t.Error("Redacted modified the original")
	}
}

func TestLLMTurnBound(t *testing.T) {
	c := Default()
	if got, want := c.LLMTurnBound(), 9*DefaultLLMTimeout; got != want {
		t.Errorf("default LLMTurnBound() = %s, want %s (8 tool rounds + the answer)", got, want)
	}
	// The defaults fit in the default task budget, with room for the tools.
	if c.LLMTurnBound() >= c.Agent.MaxTaskDuration {
		t.Errorf("default LLMTurnBound() %s does not fit agent.max_task_duration %s", c.LLMTurnBound(), c.Agent.MaxTaskDuration)
	}
	c.LLM.Timeout = 30 * time.Second
	c.Chat.MaxToolRounds = 3
	if got := c.LLMTurnBound(); got != 2*time.Minute {
		t.Errorf("LLMTurnBound() = %s, want 2m0s", got)
	}
	c.LLM.Timeout = math.MaxInt64 / 2
	if got := c.LLMTurnBound(); got != math.MaxInt64 {
		t.Errorf("LLMTurnBound() = %s, want the longest duration, not an overflow", got)
	}
}

func TestKeysAndEnvNames(t *testing.T) {
	keys := Keys()
	want := []string{
		"log.level", "log.format",
		"bus.url", "bus.exchange", "bus.queue_type", "bus.publish_timeout", "bus.reconnect_min",
		"bus.reconnect_max", "bus.max_message_bytes", "bus.max_attempts", "bus.consumer_timeout",
		"bus.tls.enabled", "bus.tls.ca_file", "bus.tls.cert_file", "bus.tls.key_file", "bus.tls.server_name", "bus.tls.insecure_skip_verify",
		"identity.mode", "identity.shared_users", "identity.users",
		"redis.url", "redis.addrs", "redis.master_name", "redis.username", "redis.password",
		"redis.db", "redis.key_prefix", "redis.timeout", "redis.wait_replicas", "redis.wait_timeout",
		"redis.tls.enabled", "redis.tls.ca_file", "redis.tls.cert_file", "redis.tls.key_file", "redis.tls.server_name", "redis.tls.insecure_skip_verify",
		"memory.result_ttl", "memory.conversation_ttl", "memory.retry_bound", "memory.max_context_messages",
		"audit.retention", "audit.preview_chars", "audit.export", "audit.stream_max_len", "redact.patterns", "redact.stored_results",
		"directory.well_known_file", "directory.known_agents_file", "directory.stale_after", "directory.forget_after", "directory.max_agents", "directory.announce_secret",
		"directory.trust", "directory.pins_file", "directory.vet_wait", "directory.well_known_wait",
		"agent.concurrency", "agent.stop_timeout", "agent.max_task_duration", "agent.ephemeral", "agent.max_tasks", "agent.idle_timeout", "agent.announce_interval", "agent.signing_key_file",
		"caller.name", "caller.default_timeout", "caller.max_timeout", "caller.default_wait", "caller.max_wait", "caller.sweep_interval", "caller.max_depth", "caller.memory_retry_bound",
		"caller.input_timeout", "caller.max_task_history", "caller.concurrency",
		"policy.default", "policy.rules",
		"limits.max_in_flight", "limits.rate", "limits.burst", "limits.breaker_failures", "limits.breaker_cooldown", "limits.shared", "limits.shared_lease",
		"research.docs_dir", "research.search_url", "research.max_pages", "research.fetch_timeout", "research.max_page_bytes",
		"research.allow_private_addresses",
		"llm.base_url", "llm.api_key", "llm.model", "llm.max_tokens", "llm.temperature", "llm.timeout", "llm.max_retries",
		"llm.max_response_bytes", "llm.max_tool_argument_bytes",
		"chat.system_prompt", "chat.max_tool_rounds", "chat.token_budget", "chat.max_history_turns", "chat.max_history_chars", "chat.max_input_bytes",
		"workflow.max_render_bytes", "workflow.max_steps",
		"orchestrator.route_threshold", "orchestrator.route_margin", "orchestrator.route_floor", "orchestrator.route_max_questions",
		"ops.listen", "ops.pprof", "ops.trace_sample_ratio",
		"http.read_header_timeout", "http.read_timeout", "http.write_timeout", "http.idle_timeout",
		"http.max_header_bytes", "http.max_body_bytes", "http.max_connections",
		"mcp.token", "mcp.token_file", "mcp.insecure_no_auth", "mcp.max_sessions", "mcp.session_idle_timeout",
		"remote.agents", "remote.card_check_interval", "remote.card_timeout", "remote.max_card_bytes", "remote.max_response_bytes",
		"remote.poll_interval", "remote.cancel_timeout", "remote.retry_min", "remote.retry_max",
		"gateway.listen", "gateway.public_url", "gateway.public_cards", "gateway.keys", "gateway.keys_file", "gateway.rate", "gateway.burst",
		"gateway.max_streams", "gateway.stream_keepalive", "gateway.cancel_wait", "gateway.max_listed_tasks",
		"gateway.jwt.jwks_url", "gateway.jwt.audience", "gateway.jwt.issuer", "gateway.jwt.claim", "gateway.jwt.callers", "gateway.jwt.refresh",
		"gateway.push.allow", "gateway.push.timeout", "gateway.push.max_attempts", "gateway.push.max_pending",
	}
	if strings.Join(keys, " ") != strings.Join(want, " ") {
		t.Errorf("Keys() =\n  %v\nwant\n  %v", keys, want)
	}
	if got := EnvName("bus.max_message_bytes"); got != "A2ABUS_BUS_MAX_MESSAGE_BYTES" {
		t.Errorf("EnvName = %q", got)
	}
	// pkg/llm's ErrNotConfigured message names these.
	if EnvName("llm.base_url") != "A2ABUS_LLM_BASE_URL" || EnvName("llm.model") != "A2ABUS_LLM_MODEL" {
		t.Errorf("EnvName(llm.*) = %q %q", EnvName("llm.base_url"), EnvName("llm.model"))
	}
}
