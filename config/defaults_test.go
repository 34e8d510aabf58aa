// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package config

import (
	"reflect"
	"testing"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/bus/rabbitmq"
	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/internal/httpserve"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/memory/redismem"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/gateway"
	"github.com/a2abus/a2abus/pkg/guard"
	"github.com/a2abus/a2abus/pkg/guard/redislimits"
	"github.com/a2abus/a2abus/pkg/intent"
	"github.com/a2abus/a2abus/pkg/llm"
	"github.com/a2abus/a2abus/pkg/ops"
	"github.com/a2abus/a2abus/pkg/workflow"
)

// packageDefaults are the keys a package configures, with that package's
// default: the configuration must default to exactly it.
var packageDefaults = map[string]any{
	"bus.exchange":                     a2a.DefaultExchange,
	"bus.queue_type":                   rabbitmq.QueueTypeClassic,
	"bus.publish_timeout":              rabbitmq.DefaultPublishTimeout,
	"bus.reconnect_min":                rabbitmq.DefaultReconnectMin,
	"bus.reconnect_max":                rabbitmq.DefaultReconnectMax,
	"bus.max_message_bytes":            a2a.DefaultMaxBodyBytes,
	"bus.max_attempts":                 bus.DefaultMaxAttempts,
	"identity.mode":                    bus.IdentityAuto,
	"identity.shared_users":            bus.DefaultSharedUsers,
	"redis.key_prefix":                 redismem.DefaultKeyPrefix,
	"redis.timeout":                    redismem.DefaultTimeout,
	"redis.wait_timeout":               redismem.DefaultWaitTimeout,
	"memory.result_ttl":                caller.DefaultResultTTL,
	"memory.retry_bound":               memory.DefaultRetryBound,
	"memory.max_context_messages":      caller.DefaultMaxContextMessages,
	"audit.retention":                  caller.DefaultAuditTTL,
	"audit.preview_chars":              caller.DefaultPreviewRunes,
	"directory.forget_after":           directory.DefaultForgetAfter,
	"directory.max_agents":             directory.DefaultMaxAgents,
	"directory.vet_wait":               directory.DefaultVetWait,
	"directory.well_known_wait":        directory.DefaultWellKnownWait,
	"workflow.max_render_bytes":        workflow.DefaultMaxRenderBytes,
	"workflow.max_steps":               workflow.DefaultMaxSteps,
	"orchestrator.route_threshold":     intent.DefaultThreshold,
	"orchestrator.route_margin":        intent.DefaultMargin,
	"orchestrator.route_floor":         intent.DefaultFloor,
	"orchestrator.route_max_questions": intent.DefaultMaxQuestions,
	"ops.trace_sample_ratio":           ops.DefaultTraceSampleRatio,
	"http.read_header_timeout":         httpserve.DefaultReadHeaderTimeout,
	"http.read_timeout":                httpserve.DefaultReadTimeout,
	"http.write_timeout":               httpserve.DefaultWriteTimeout,
	"http.idle_timeout":                httpserve.DefaultIdleTimeout,
	"http.max_header_bytes":            httpserve.DefaultMaxHeaderBytes,
	"http.max_body_bytes":              httpserve.DefaultMaxBodyBytes,
	"http.max_connections":             httpserve.DefaultMaxConnections,
	"agent.concurrency":                agent.DefaultConcurrency,
	"agent.stop_timeout":               agent.DefaultStopTimeout,
	"agent.max_task_duration":          agent.DefaultMaxTaskDuration,
	"agent.max_tasks":                  agent.DefaultMaxTasks,
	"agent.idle_timeout":               agent.DefaultIdleTimeout,
	"agent.announce_interval":          agent.DefaultAnnounceInterval,
	"caller.default_timeout":           caller.DefaultTimeout,
	"caller.max_timeout":               caller.DefaultMaxTimeout,
	"caller.max_wait":                  caller.DefaultMaxWait,
	"caller.sweep_interval":            caller.DefaultSweepInterval,
	"caller.max_depth":                 a2a.DefaultMaxDepth,
	"caller.memory_retry_bound":        caller.DefaultMemoryRetryBound,
	"caller.concurrency":               caller.DefaultConcurrency,
	"caller.input_timeout":             caller.DefaultInputTimeout,
	"caller.max_task_history":          caller.DefaultMaxTaskHistory,
	"limits.max_in_flight":             guard.DefaultMaxInFlight,
	"limits.burst":                     guard.DefaultBurst,
	"limits.breaker_failures":          guard.DefaultBreakerFailures,
	"limits.breaker_cooldown":          guard.DefaultBreakerCooldown,
	"limits.shared_lease":              redislimits.DefaultLease,
}

// ownDefaults are the keys whose default belongs to the configuration (the
// binaries' choices, a server's setting, the chat and model loop).
var ownDefaults = map[string]any{
	"limits.shared":               true,
	"log.level":                   DefaultLogLevel,
	"log.format":                  DefaultLogFormat,
	"bus.consumer_timeout":        DefaultConsumerTimeout,
	"memory.conversation_ttl":     DefaultConversationTTL,
	"audit.export":                AuditExportNone,
	"audit.stream_max_len":        DefaultAuditStreamMaxLen,
	"redact.stored_results":       true,
	"directory.well_known_file":   DefaultWellKnownFile,
	"directory.known_agents_file": DefaultKnownAgentsFile,
	"directory.trust":             TrustPinned,
	"caller.name":                 DefaultCallerName,
	"policy.default":              guard.Deny,
	"policy.rules":                []PolicyRule{{Caller: DefaultCallerName, Allow: []string{"*"}}},
	"research.docs_dir":           DefaultDocsDir,
	"research.max_pages":          DefaultResearchMaxPages,
	"research.fetch_timeout":      DefaultResearchFetchTimeout,
	"research.max_page_bytes":     DefaultResearchMaxPageBytes,
	"llm.temperature":             DefaultLLMTemperature,
	"llm.timeout":                 DefaultLLMTimeout,
	"llm.max_retries":             DefaultLLMMaxRetries,
	"chat.max_tool_rounds":        DefaultMaxToolRounds,
	"chat.max_history_turns":      DefaultMaxHistoryTurns,
	"chat.max_history_chars":      DefaultMaxHistoryChars,
	"chat.max_input_bytes":        DefaultMaxChatInput,
	"llm.max_tool_argument_bytes": DefaultLLMMaxToolArgumentBytes,
	"llm.max_response_bytes":      DefaultLLMMaxResponseBytes,
	// The MCP server's package links the MCP SDK: config does not import it.
	"mcp.max_sessions":         DefaultMCPMaxSessions,
	"mcp.session_idle_timeout": DefaultMCPSessionIdleTimeout,
	// The remote bridges' package links the A2A client: config does not import it.
	"remote.card_check_interval": DefaultRemoteCardCheckInterval,
	"remote.card_timeout":        DefaultRemoteCardTimeout,
	"remote.max_card_bytes":      DefaultRemoteMaxCardBytes,
	"remote.max_response_bytes":  DefaultRemoteMaxResponseBytes,
	"remote.poll_interval":       DefaultRemotePollInterval,
	"remote.cancel_timeout":      DefaultRemoteCancelTimeout,
	"remote.retry_min":           DefaultRemoteRetryMin,
	"remote.retry_max":           DefaultRemoteRetryMax,
	// The gateway's package links a2a-go's server: config does not import it.
	"gateway.listen":            DefaultGatewayListen,
	"gateway.rate":              DefaultGatewayRate,
	"gateway.burst":             DefaultGatewayBurst,
	"gateway.max_streams":       DefaultGatewayMaxStreams,
	"gateway.stream_keepalive":  DefaultGatewayStreamKeepAlive,
	"gateway.cancel_wait":       DefaultGatewayCancelWait,
	"gateway.max_listed_tasks":  DefaultGatewayMaxListedTasks,
	"gateway.jwt.claim":         DefaultGatewayJWTClaim,
	"gateway.jwt.refresh":       DefaultGatewayJWKSRefresh,
	"gateway.push.timeout":      DefaultGatewayPushTimeout,
	"gateway.push.max_attempts": DefaultGatewayPushAttempts,
	"gateway.push.max_pending":  DefaultGatewayPushMaxPending,
}

// Every key with a default is in one of the two tables, and defaults to its
// value: a setting a package configures to that package's constant. A
// literal written into Default that differs from the package's constant,
// or a new key with a default nobody classified, fails here.
func TestDefaultsAreThePackagesConstants(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range fields(Default()) {
		want, ok := packageDefaults[f.key]
		if !ok {
			want, ok = ownDefaults[f.key]
		}
		if !ok {
			if !f.val.IsZero() && !(f.val.Kind() == reflect.Slice && f.val.Len() == 0) {
				t.Errorf("%s defaults to %v, but is in neither packageDefaults nor ownDefaults: add it to one", f.key, f.val.Interface())
			}
			continue
		}
		seen[f.key] = true
		w := reflect.ValueOf(want)
		if w.Type().ConvertibleTo(f.val.Type()) {
			w = w.Convert(f.val.Type())
		}
		if !reflect.DeepEqual(f.val.Interface(), w.Interface()) {
			t.Errorf("%s defaults to %v, its package's default is %v", f.key, f.val.Interface(), want)
		}
	}
	for _, table := range []map[string]any{packageDefaults, ownDefaults} {
		for k := range table {
			if !seen[k] {
				t.Errorf("%s is not a configuration key (stale table entry)", k)
			}
		}
	}
	// directory.stale_after 0 means 3 × agent.announce_interval: the directory's own default.
	if got := Default().EffectiveStaleAfter(); got != directory.DefaultStaleAfter {
		t.Errorf("the effective directory.stale_after is %s, the directory's default %s", got, directory.DefaultStaleAfter)
	}
}

// The model client's own default is config's: config does not import the
// client (programs that run no model must not link it), so the two
// constants are held equal here.
func TestLLMDefaultsAgreeWithTheClient(t *testing.T) {
	if DefaultLLMMaxResponseBytes != llm.DefaultMaxResponseBytes {
		t.Errorf("llm.max_response_bytes defaults to %d, the client's DefaultMaxResponseBytes is %d", DefaultLLMMaxResponseBytes, llm.DefaultMaxResponseBytes)
	}
}

// The gateway's own defaults are config's: config does not import the
// gateway (agents must not link a2a-go's server), so the constants are
// held equal here.
func TestGatewayDefaultsAgreeWithTheGateway(t *testing.T) {
	for _, c := range []struct {
		key       string
		got, want any
	}{
		{"gateway.rate", DefaultGatewayRate, gateway.DefaultRate},
		{"gateway.burst", DefaultGatewayBurst, gateway.DefaultBurst},
		{"gateway.max_streams", DefaultGatewayMaxStreams, gateway.DefaultMaxStreams},
		{"gateway.stream_keepalive", DefaultGatewayStreamKeepAlive, gateway.DefaultStreamKeepAlive},
		{"gateway.cancel_wait", DefaultGatewayCancelWait, gateway.DefaultCancelWait},
		{"gateway.max_listed_tasks", DefaultGatewayMaxListedTasks, gateway.DefaultMaxListedTasks},
		{"gateway.jwt.claim", DefaultGatewayJWTClaim, gateway.DefaultJWTClaim},
		{"gateway.jwt.refresh", DefaultGatewayJWKSRefresh, gateway.DefaultJWKSRefresh},
		{"gateway.push.timeout", DefaultGatewayPushTimeout, gateway.DefaultPushTimeout},
		{"gateway.push.max_attempts", DefaultGatewayPushAttempts, gateway.DefaultPushAttempts},
		{"gateway.push.max_pending", DefaultGatewayPushMaxPending, gateway.DefaultPushMaxPending},
	} {
		if c.got != c.want {
			t.Errorf("%s defaults to %v, the gateway's own default is %v", c.key, c.got, c.want)
		}
	}
}
