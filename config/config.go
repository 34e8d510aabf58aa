// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package config holds a2abus's configuration: plain structs with defaults
// (Default) and validation (Validate). Load (load.go) fills them from a YAML
// file, A2ABUS_* environment variables and command-line flags; nothing else in
// the project reads configuration sources.
package config

import (
	"errors"
	"slices"
	"time"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/bus/rabbitmq"
	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/memory/redismem"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/guard"
	"github.com/a2abus/a2abus/pkg/guard/redislimits"
	"github.com/a2abus/a2abus/pkg/intent"
	"github.com/a2abus/a2abus/pkg/ops"
	"github.com/a2abus/a2abus/pkg/workflow"
)

// ErrInvalid is wrapped by every error about a bad configuration value.
var ErrInvalid = errors.New("config: invalid")

// Config is the whole configuration. Keys are the snake_case paths of the
// mapstructure tags (bus.url, redis.key_prefix, ...).
type Config struct {
	Log      LogConfig      `mapstructure:"log" yaml:"log"`
	Bus      BusConfig      `mapstructure:"bus" yaml:"bus"`
	Identity IdentityConfig `mapstructure:"identity" yaml:"identity"`
	Redis    RedisConfig    `mapstructure:"redis" yaml:"redis"`
	Memory   MemoryConfig   `mapstructure:"memory" yaml:"memory"`
	// Audit configures the call history (audit records) and its export.
	Audit AuditConfig `mapstructure:"audit" yaml:"audit"`
	// Redact configures the one redaction pass.
	Redact    RedactConfig    `mapstructure:"redact" yaml:"redact"`
	Directory DirectoryConfig `mapstructure:"directory" yaml:"directory"`
	Agent     AgentConfig     `mapstructure:"agent" yaml:"agent"`
	Caller    CallerConfig    `mapstructure:"caller" yaml:"caller"`
	Policy    PolicyConfig    `mapstructure:"policy" yaml:"policy"`
	Limits    LimitsConfig    `mapstructure:"limits" yaml:"limits"`
	Research  ResearchConfig  `mapstructure:"research" yaml:"research"`
	LLM       LLMConfig       `mapstructure:"llm" yaml:"llm"`
	Chat      ChatConfig      `mapstructure:"chat" yaml:"chat"`
	Workflow  WorkflowConfig  `mapstructure:"workflow" yaml:"workflow"`
	// Orchestrator configures the Orchestrator's route skill.
	Orchestrator OrchestratorConfig `mapstructure:"orchestrator" yaml:"orchestrator"`
	Ops          OpsConfig          `mapstructure:"ops" yaml:"ops"`
	HTTP         HTTPConfig         `mapstructure:"http" yaml:"http"`
	MCP          MCPConfig          `mapstructure:"mcp" yaml:"mcp"`
	Remote       RemoteConfig       `mapstructure:"remote" yaml:"remote"`
	Gateway      GatewayConfig      `mapstructure:"gateway" yaml:"gateway"`
}

// LogConfig selects the log level and encoding.
type LogConfig struct {
	// Level is debug, info, warn or error.
	Level string `mapstructure:"level" yaml:"level"`
	// Format is json (production) or console (development).
	Format string `mapstructure:"format" yaml:"format"`
}

// BusConfig configures the message bus.
type BusConfig struct {
	// URL is the RabbitMQ URL (amqp:// or amqps://), or EmbeddedURL for the
	// embedded in-process bus; empty: see EmbeddedURL.
	URL string `mapstructure:"url" yaml:"url"`
	// Exchange is the durable topic exchange every message goes through.
	Exchange string `mapstructure:"exchange" yaml:"exchange"`
	// QueueType is the type of the durable queues: classic or quorum.
	QueueType string `mapstructure:"queue_type" yaml:"queue_type"`
	// PublishTimeout bounds the wait for a publish confirm.
	PublishTimeout time.Duration `mapstructure:"publish_timeout" yaml:"publish_timeout"`
	// ReconnectMin is the first delay before re-dialling a lost connection.
	ReconnectMin time.Duration `mapstructure:"reconnect_min" yaml:"reconnect_min"`
	// ReconnectMax caps the exponential re-dial delay.
	ReconnectMax time.Duration `mapstructure:"reconnect_max" yaml:"reconnect_max"`
	// MaxMessageBytes is the largest message body published or accepted.
	MaxMessageBytes int `mapstructure:"max_message_bytes" yaml:"max_message_bytes"`
	// MaxAttempts is how many deliveries of one message are tried before it is dead-lettered.
	MaxAttempts int `mapstructure:"max_attempts" yaml:"max_attempts"`
	// ConsumerTimeout must equal RabbitMQ's consumer_timeout; a2abus keeps
	// every unacked delivery below it (see Validate).
	ConsumerTimeout time.Duration `mapstructure:"consumer_timeout" yaml:"consumer_timeout"`
	// TLS configures TLS to the broker (amqps://): CA, client certificate, server name.
	TLS TLSConfig `mapstructure:"tls" yaml:"tls"`
}

// RedisConfig configures working memory. With neither URL nor Addrs the
// embedded in-memory store is used.
type RedisConfig struct {
	// URL is a redis:// or rediss:// URL of a single server, or EmbeddedURL
	// for the embedded in-memory store; empty: see EmbeddedURL.
	URL string `mapstructure:"url" yaml:"url"`
	// Addrs are host:port seeds: Sentinels when MasterName is set, else Cluster nodes.
	Addrs []string `mapstructure:"addrs" yaml:"addrs"`
	// MasterName is the Sentinel master set name.
	MasterName string `mapstructure:"master_name" yaml:"master_name"`
	// Username is the ACL user (Addrs mode, or overriding the URL's).
	Username string `mapstructure:"username" yaml:"username"`
	// Password is the ACL or requirepass password (Addrs mode, or overriding the URL's).
	Password string `mapstructure:"password" yaml:"password"`
	// DB is the database number (Cluster supports only 0).
	DB int `mapstructure:"db" yaml:"db"`
	// KeyPrefix starts every key a2abus writes.
	KeyPrefix string `mapstructure:"key_prefix" yaml:"key_prefix"`
	// Timeout bounds dialling and each command.
	Timeout time.Duration `mapstructure:"timeout" yaml:"timeout"`
	// WaitReplicas, when > 0, makes each batched write (a result stored
	// before its response is acked) wait until that many replicas have it (WAIT).
	WaitReplicas int `mapstructure:"wait_replicas" yaml:"wait_replicas"`
	// WaitTimeout bounds that wait; a batch fewer replicas acknowledged fails and is retried.
	WaitTimeout time.Duration `mapstructure:"wait_timeout" yaml:"wait_timeout"`
	// TLS configures TLS to Redis (rediss://, or redis.addrs with enabled): CA, client certificate, server name.
	TLS TLSConfig `mapstructure:"tls" yaml:"tls"`
}

// MemoryConfig configures what is kept in working memory.
type MemoryConfig struct {
	// ResultTTL is how long a task result stays in working memory.
	ResultTTL time.Duration `mapstructure:"result_ttl" yaml:"result_ttl"`
	// ConversationTTL expires a session's conversation that long after its
	// last append; 0 keeps conversations forever.
	ConversationTTL time.Duration `mapstructure:"conversation_ttl" yaml:"conversation_ttl"`
	// RetryBound is how long a workflow run, a conversation's driver and a
	// chat session ride out an outage of working memory before they fail.
	RetryBound time.Duration `mapstructure:"retry_bound" yaml:"retry_bound"`
	// MaxContextMessages bounds a context's history (the request and final
	// answer of each task of the context, the oldest left out first), which
	// the next task of the context carries; 0 keeps no context history.
	MaxContextMessages int `mapstructure:"max_context_messages" yaml:"max_context_messages"`
}

// DirectoryConfig configures the agent directory's files.
type DirectoryConfig struct {
	// WellKnownFile lists agents that are always known; empty means none.
	WellKnownFile string `mapstructure:"well_known_file" yaml:"well_known_file"`
	// KnownAgentsFile persists announced cards across restarts; empty disables persistence.
	KnownAgentsFile string `mapstructure:"known_agents_file" yaml:"known_agents_file"`
	// StaleAfter marks an agent that stopped announcing offline; 0 means 3 × agent.announce_interval.
	StaleAfter time.Duration `mapstructure:"stale_after" yaml:"stale_after"`
	// ForgetAfter removes an offline agent (never a well-known one) from the directory.
	ForgetAfter time.Duration `mapstructure:"forget_after" yaml:"forget_after"`
	// MaxAgents bounds the agents a directory learns from announcements
	// (well-known ones not counted); a new agent past it is dropped.
	MaxAgents int `mapstructure:"max_agents" yaml:"max_agents"`
	// AnnounceSecret signs agents' announcements and makes directories reject
	// unsigned or forged ones; empty means unauthenticated discovery.
	AnnounceSecret string `mapstructure:"announce_secret" yaml:"announce_secret"`
	// Trust is what directories do with agents' ed25519 card signatures:
	// pinned (the well-known file's publicKey entries are pinned), tofu (also
	// the first key each name signs with, kept in PinsFile) or any (ignored).
	Trust string `mapstructure:"trust" yaml:"trust"`
	// PinsFile keeps the keys pinned on first use (trust: tofu; required then).
	PinsFile string `mapstructure:"pins_file" yaml:"pins_file"`
	// VetWait is how long a call to an agent the directory does not know yet
	// waits for it to announce itself before it is refused AGENT_NOT_FOUND.
	VetWait time.Duration `mapstructure:"vet_wait" yaml:"vet_wait"`
	// WellKnownWait is how long a task for a well-known agent (it may not
	// be running: a KEDA job) may wait in its queue to be taken, unless its
	// entry's waitTimeout says.
	WellKnownWait time.Duration `mapstructure:"well_known_wait" yaml:"well_known_wait"`
}

// AgentConfig configures the agent runtime (a2abus serve, the agent mains).
type AgentConfig struct {
	// Concurrency is how many tasks one instance runs at once (= the prefetch).
	Concurrency int `mapstructure:"concurrency" yaml:"concurrency"`
	// StopTimeout bounds how long in-flight tasks may finish on stop before they are requeued.
	StopTimeout time.Duration `mapstructure:"stop_timeout" yaml:"stop_timeout"`
	// MaxTaskDuration is the longest a task's handler may run before the agent
	// cuts it off; it stays below bus.consumer_timeout.
	MaxTaskDuration time.Duration `mapstructure:"max_task_duration" yaml:"max_task_duration"`
	// Ephemeral runs MaxTasks tasks (or waits IdleTimeout for one) and exits: KEDA jobs.
	Ephemeral bool `mapstructure:"ephemeral" yaml:"ephemeral"`
	// MaxTasks is how many tasks an ephemeral instance runs before it exits.
	MaxTasks int `mapstructure:"max_tasks" yaml:"max_tasks"`
	// IdleTimeout is how long an ephemeral instance waits for a task before it exits.
	IdleTimeout time.Duration `mapstructure:"idle_timeout" yaml:"idle_timeout"`
	// AnnounceInterval is how often a running agent announces its card on discovery.announce.
	AnnounceInterval time.Duration `mapstructure:"announce_interval" yaml:"announce_interval"`
	// SigningKeyFile is the agent's ed25519 private key (PEM, PKCS #8; a2abus
	// keys generate writes one): its announcements are signed with it. Empty: unsigned.
	SigningKeyFile string `mapstructure:"signing_key_file" yaml:"signing_key_file"`
}

// CallerConfig configures the calling side (a2abus invoke, agents that delegate).
type CallerConfig struct {
	// Name is the caller's agent name: results come back on agent.response.<name>.
	Name string `mapstructure:"name" yaml:"name"`
	// DefaultTimeout is the deadline of a call that names none.
	DefaultTimeout time.Duration `mapstructure:"default_timeout" yaml:"default_timeout"`
	// MaxTimeout clamps every call's timeout.
	MaxTimeout time.Duration `mapstructure:"max_timeout" yaml:"max_timeout"`
	// DefaultWait is how long a task may wait in its queue to be taken when
	// neither the call nor the target (a well-known agent) says; 0: no wait
	// bound apart from the timeout. MaxWait clamps every wait bound.
	DefaultWait time.Duration `mapstructure:"default_wait" yaml:"default_wait"`
	MaxWait     time.Duration `mapstructure:"max_wait" yaml:"max_wait"`
	// SweepInterval is how often overdue tasks are looked for and timed out.
	SweepInterval time.Duration `mapstructure:"sweep_interval" yaml:"sweep_interval"`
	// MaxDepth is the longest call chain (origin included) a call may extend;
	// agents refuse longer chains too.
	MaxDepth int `mapstructure:"max_depth" yaml:"max_depth"`
	// MemoryRetryBound is how long a result waits for working memory before
	// its delivery is requeued; it stays below bus.consumer_timeout.
	MemoryRetryBound time.Duration `mapstructure:"memory_retry_bound" yaml:"memory_retry_bound"`
	// InputTimeout is how long a task whose agent asked a question waits
	// for the caller's answer before it ends TIMEOUT.
	InputTimeout time.Duration `mapstructure:"input_timeout" yaml:"input_timeout"`
	// MaxTaskHistory bounds the messages kept of a task that talks back
	// (requests, questions, answers; the oldest left out first).
	MaxTaskHistory int `mapstructure:"max_task_history" yaml:"max_task_history"`
	// Concurrency is how many responses the caller handles at once (its
	// response queue's prefetch).
	Concurrency int `mapstructure:"concurrency" yaml:"concurrency"`
}

// PolicyConfig says which callers may call which agents. Callers check it
// before they publish a call, agents again before they run a task.
type PolicyConfig struct {
	// Default is deny (DefaultPolicy) or allow: what happens to a caller no
	// rule matches, and to a target a matching rule neither allows nor denies.
	Default string `mapstructure:"default" yaml:"default"`
	// Rules are per caller (a name, or a pattern with '*' and '?'). A rule
	// naming the caller exactly wins over patterns; among patterns the first wins.
	Rules []PolicyRule `mapstructure:"rules" yaml:"rules"`
}

// DefaultPolicyRules is policy.rules's default: the operator's command line
// (caller.name's default, Cli) may call any agent; nothing else may call
// anything. A policy.rules of one's own replaces it.
func DefaultPolicyRules() []PolicyRule {
	return []PolicyRule{{Caller: DefaultCallerName, Allow: []string{"*"}}}
}

// PolicyRule is the policy of the callers whose name matches Caller. Names
// and patterns compare case-insensitively.
type PolicyRule struct {
	// Caller is a caller name or pattern.
	Caller string `mapstructure:"caller" yaml:"caller"`
	// MayCall false forbids these callers to call any agent; nil means true.
	MayCall *bool `mapstructure:"may_call" yaml:"may_call,omitempty"`
	// Allow lists the targets (names or patterns) they may call; empty leaves
	// the targets Deny does not name to policy.default.
	Allow []string `mapstructure:"allow" yaml:"allow,omitempty"`
	// Deny lists the targets they may not call; deny wins over allow.
	Deny []string `mapstructure:"deny" yaml:"deny,omitempty"`
}

// LimitsConfig bounds the calls of a caller; 0 means unlimited. With
// Shared and Redis the bounds hold across the caller's processes, else per process.
type LimitsConfig struct {
	// MaxInFlight is how many calls of one caller may be unfinished at once (BUSY beyond).
	MaxInFlight int `mapstructure:"max_in_flight" yaml:"max_in_flight"`
	// Rate is how many calls per second one caller may make to one target (RATE_LIMITED beyond).
	Rate float64 `mapstructure:"rate" yaml:"rate"`
	// Burst is the token bucket of the rate limit: calls that may go at once.
	Burst int `mapstructure:"burst" yaml:"burst"`
	// BreakerFailures is how many consecutive failures or timeouts of a
	// target open its circuit (CIRCUIT_OPEN); 0 disables the breaker.
	BreakerFailures int `mapstructure:"breaker_failures" yaml:"breaker_failures"`
	// BreakerCooldown is how long an open circuit refuses calls before one probe goes through.
	BreakerCooldown time.Duration `mapstructure:"breaker_cooldown" yaml:"breaker_cooldown"`
	// Shared keeps the limits in Redis when the working memory is Redis, so
	// that every process of a caller together stays under them (each
	// process's own limits hold as well, and alone while Redis is down).
	Shared bool `mapstructure:"shared" yaml:"shared"`
	// SharedLease is how long a shared in-flight slot outlives the last
	// renewal of its process: a killed process's slots are free after at most this.
	SharedLease time.Duration `mapstructure:"shared_lease" yaml:"shared_lease"`
}

// ResearchConfig configures ResearchAgent.
type ResearchConfig struct {
	// DocsDir is the folder of text and Markdown files the research skill searches.
	DocsDir string `mapstructure:"docs_dir" yaml:"docs_dir"`
	// SearchURL, when set, is the metasearch endpoint (SearXNG's JSON API)
	// the research skill searches the web with, instead of DocsDir.
	SearchURL string `mapstructure:"search_url" yaml:"search_url"`
	// MaxPages is how many search results are fetched per task.
	MaxPages int `mapstructure:"max_pages" yaml:"max_pages"`
	// FetchTimeout bounds one page's fetch (its robots.txt included).
	FetchTimeout time.Duration `mapstructure:"fetch_timeout" yaml:"fetch_timeout"`
	// MaxPageBytes bounds a page's body; a larger page is skipped.
	MaxPageBytes int `mapstructure:"max_page_bytes" yaml:"max_page_bytes"`
	// AllowPrivateAddresses lets pages on loopback, private and link-local
	// addresses be fetched.
	AllowPrivateAddresses bool `mapstructure:"allow_private_addresses" yaml:"allow_private_addresses"`
}

// LLMConfig configures the OpenAI-compatible Chat Completions endpoint the
// chat loop, LLM-backed agents and ResearchAgent's answers use. An empty
// BaseURL means no model is configured.
type LLMConfig struct {
	// BaseURL is the endpoint's API root, e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1.
	BaseURL string `mapstructure:"base_url" yaml:"base_url"`
	// APIKey is sent as a bearer token; a secret, redacted wherever the configuration is printed.
	APIKey string `mapstructure:"api_key" yaml:"api_key"`
	// Model is the model name sent with every request.
	Model string `mapstructure:"model" yaml:"model"`
	// MaxTokens bounds each completion; 0 leaves it to the endpoint.
	MaxTokens int `mapstructure:"max_tokens" yaml:"max_tokens"`
	// Temperature is the sampling temperature (0 to 2).
	Temperature float64 `mapstructure:"temperature" yaml:"temperature"`
	// Timeout bounds one request, retries included.
	Timeout time.Duration `mapstructure:"timeout" yaml:"timeout"`
	// MaxRetries is how often a 429, 5xx or connection failure is retried (backoff, honouring Retry-After).
	MaxRetries int `mapstructure:"max_retries" yaml:"max_retries"`
	// MaxResponseBytes bounds the body of one answer of the endpoint, applied
	// while it is read: a longer answer is an error, and no more of it is read.
	MaxResponseBytes int `mapstructure:"max_response_bytes" yaml:"max_response_bytes"`
	// MaxToolArgumentBytes bounds the arguments of one tool call the model
	// asks for (chat, LLM-backed agents): longer ones are refused unparsed,
	// and the model is told the bound.
	MaxToolArgumentBytes int `mapstructure:"max_tool_argument_bytes" yaml:"max_tool_argument_bytes"`
}

// Configured reports whether a model endpoint is set.
func (c *LLMConfig) Configured() bool { return c.BaseURL != "" }

// ChatConfig bounds the primary chat loop (a2abus chat, serve --agent Primary).
type ChatConfig struct {
	// SystemPrompt is the primary agent's system prompt; empty uses the built-in one.
	SystemPrompt string `mapstructure:"system_prompt" yaml:"system_prompt"`
	// MaxToolRounds bounds the model calls of one turn that ask for tools.
	MaxToolRounds int `mapstructure:"max_tool_rounds" yaml:"max_tool_rounds"`
	// TokenBudget bounds the tokens one session may spend; 0 means unbounded.
	TokenBudget int `mapstructure:"token_budget" yaml:"token_budget"`
	// MaxHistoryTurns bounds the turns sent to the model; older ones are summarised.
	MaxHistoryTurns int `mapstructure:"max_history_turns" yaml:"max_history_turns"`
	// MaxHistoryChars bounds the characters of history sent to the model.
	MaxHistoryChars int `mapstructure:"max_history_chars" yaml:"max_history_chars"`
	// MaxInputBytes bounds one user turn read by a2abus chat (piped
	// standard input, an interactive line): a longer one is refused.
	MaxInputBytes int `mapstructure:"max_input_bytes" yaml:"max_input_bytes"`
}

// WorkflowConfig bounds the workflows a2abus loads and runs (workflow run,
// the Orchestrator).
type WorkflowConfig struct {
	// MaxRenderBytes bounds what one step's templates render to, its text
	// and input together, applied while rendering: a step past it fails.
	MaxRenderBytes int `mapstructure:"max_render_bytes" yaml:"max_render_bytes"`
	// MaxSteps bounds the steps of one workflow, the members of its
	// parallel groups included; a workflow with more is refused at load.
	MaxSteps int `mapstructure:"max_steps" yaml:"max_steps"`
}

// OrchestratorConfig bounds the decisions of the Orchestrator's route
// skill (pkg/intent, docs/routing.md): route, ask, offer options or
// decline by the confidence of the request's classification.
type OrchestratorConfig struct {
	// RouteThreshold: a routing this confident or more (0..1) is taken;
	// below it the skill asks a clarifying question.
	RouteThreshold float64 `mapstructure:"route_threshold" yaml:"route_threshold"`
	// RouteMargin: routings this close to the best one are offered as
	// options beside it.
	RouteMargin float64 `mapstructure:"route_margin" yaml:"route_margin"`
	// RouteFloor: below this confidence a routing does not fit at all; when
	// none reaches it the skill declines.
	RouteFloor float64 `mapstructure:"route_floor" yaml:"route_floor"`
	// RouteMaxQuestions bounds the questions one route task asks before it
	// routes to the best fit (or declines).
	RouteMaxQuestions int `mapstructure:"route_max_questions" yaml:"route_max_questions"`
}

// Defaults that belong to the configuration itself. Every other default is
// the constant of the package the setting configures (Default refers to
// it): written once, and a test checks every key against it.
const (
	DefaultLogLevel  = "info"
	DefaultLogFormat = "json"
	// DefaultConsumerTimeout is RabbitMQ's own default consumer_timeout.
	DefaultConsumerTimeout = 30 * time.Minute
	DefaultConversationTTL = 7 * 24 * time.Hour
	// maxInputTimeout bounds caller.input_timeout: a session's ownership
	// (caller.DefaultSessionOwnerTTL), which a task waiting longer could outlive.
	maxInputTimeout        = caller.DefaultSessionOwnerTTL
	DefaultWellKnownFile   = "well-known-agents.json"
	DefaultKnownAgentsFile = "known-agents.json"
	DefaultCallerName      = "Cli"
	// DefaultPolicy is policy.default: a call no rule allows is refused
	// (agents call no other agent until a rule lets them).
	DefaultPolicy          = string(guard.Deny)
	DefaultDocsDir         = "docs"
	DefaultLLMTemperature  = 0.2
	DefaultLLMTimeout      = 2 * time.Minute
	DefaultLLMMaxRetries   = 2
	DefaultMaxToolRounds   = 8
	DefaultMaxHistoryTurns = 40
	DefaultMaxHistoryChars = 48_000
	// DefaultMaxChatInput is chat.max_input_bytes's default: the longest
	// user turn a2abus chat reads.
	DefaultMaxChatInput = 1 << 20
	// DefaultLLMMaxResponseBytes is llm.max_response_bytes's default. The
	// llm.* defaults are the configuration's own: config does not import
	// the model client (a program that runs no model does not link it).
	DefaultLLMMaxResponseBytes = 4 << 20
	// DefaultLLMMaxToolArgumentBytes is llm.max_tool_argument_bytes's default.
	DefaultLLMMaxToolArgumentBytes = 1 << 20
)

// Default returns the configuration used when nothing is set: no bus.url nor
// redis.url (see EmbeddedURL), JSON logs at info, and every other key at
// the default of the package it configures.
func Default() *Config {
	return &Config{
		Log: LogConfig{Level: DefaultLogLevel, Format: DefaultLogFormat},
		Bus: BusConfig{
			Exchange:        a2a.DefaultExchange,
			QueueType:       rabbitmq.QueueTypeClassic,
			PublishTimeout:  rabbitmq.DefaultPublishTimeout,
			ReconnectMin:    rabbitmq.DefaultReconnectMin,
			ReconnectMax:    rabbitmq.DefaultReconnectMax,
			MaxMessageBytes: a2a.DefaultMaxBodyBytes,
			MaxAttempts:     bus.DefaultMaxAttempts,
			ConsumerTimeout: DefaultConsumerTimeout,
		},
		Identity: IdentityConfig{Mode: bus.IdentityAuto, SharedUsers: slices.Clone(bus.DefaultSharedUsers), Users: []string{}},
		Redis: RedisConfig{
			Addrs:       []string{},
			KeyPrefix:   redismem.DefaultKeyPrefix,
			Timeout:     redismem.DefaultTimeout,
			WaitTimeout: redismem.DefaultWaitTimeout,
		},
		Memory: MemoryConfig{ResultTTL: caller.DefaultResultTTL, ConversationTTL: DefaultConversationTTL,
			RetryBound: memory.DefaultRetryBound, MaxContextMessages: caller.DefaultMaxContextMessages},
		Audit:  defaultAudit(),
		Redact: defaultRedact(),
		Directory: DirectoryConfig{
			WellKnownFile:   DefaultWellKnownFile,
			KnownAgentsFile: DefaultKnownAgentsFile,
			ForgetAfter:     directory.DefaultForgetAfter,
			VetWait:         directory.DefaultVetWait,
			WellKnownWait:   directory.DefaultWellKnownWait,
			MaxAgents:       directory.DefaultMaxAgents,
			Trust:           TrustPinned,
		},
		Agent: AgentConfig{
			Concurrency:      agent.DefaultConcurrency,
			StopTimeout:      agent.DefaultStopTimeout,
			MaxTaskDuration:  agent.DefaultMaxTaskDuration,
			MaxTasks:         agent.DefaultMaxTasks,
			IdleTimeout:      agent.DefaultIdleTimeout,
			AnnounceInterval: agent.DefaultAnnounceInterval,
		},
		Caller: CallerConfig{
			Name:             DefaultCallerName,
			DefaultTimeout:   caller.DefaultTimeout,
			MaxTimeout:       caller.DefaultMaxTimeout,
			MaxWait:          caller.DefaultMaxWait,
			SweepInterval:    caller.DefaultSweepInterval,
			MaxDepth:         a2a.DefaultMaxDepth,
			MemoryRetryBound: caller.DefaultMemoryRetryBound,
			InputTimeout:     caller.DefaultInputTimeout,
			MaxTaskHistory:   caller.DefaultMaxTaskHistory,
			Concurrency:      caller.DefaultConcurrency,
		},
		Policy: PolicyConfig{Default: DefaultPolicy, Rules: DefaultPolicyRules()},
		Limits: LimitsConfig{
			MaxInFlight:     guard.DefaultMaxInFlight,
			Burst:           guard.DefaultBurst,
			BreakerFailures: guard.DefaultBreakerFailures,
			BreakerCooldown: guard.DefaultBreakerCooldown,
			Shared:          true,
			SharedLease:     redislimits.DefaultLease,
		},
		Research: ResearchConfig{DocsDir: DefaultDocsDir, MaxPages: DefaultResearchMaxPages,
			FetchTimeout: DefaultResearchFetchTimeout, MaxPageBytes: DefaultResearchMaxPageBytes},
		Ops: OpsConfig{TraceSampleRatio: ops.DefaultTraceSampleRatio},
		LLM: LLMConfig{Temperature: DefaultLLMTemperature, Timeout: DefaultLLMTimeout, MaxRetries: DefaultLLMMaxRetries,
			MaxResponseBytes: DefaultLLMMaxResponseBytes, MaxToolArgumentBytes: DefaultLLMMaxToolArgumentBytes},
		Chat: ChatConfig{MaxToolRounds: DefaultMaxToolRounds, MaxHistoryTurns: DefaultMaxHistoryTurns, MaxHistoryChars: DefaultMaxHistoryChars,
			MaxInputBytes: DefaultMaxChatInput},
		Workflow: WorkflowConfig{MaxRenderBytes: workflow.DefaultMaxRenderBytes, MaxSteps: workflow.DefaultMaxSteps},
		Orchestrator: OrchestratorConfig{RouteThreshold: intent.DefaultThreshold, RouteMargin: intent.DefaultMargin, RouteFloor: intent.DefaultFloor,
			RouteMaxQuestions: intent.DefaultMaxQuestions},
		HTTP:    defaultHTTP(),
		MCP:     MCPConfig{MaxSessions: DefaultMCPMaxSessions, SessionIdleTimeout: DefaultMCPSessionIdleTimeout},
		Remote:  defaultRemote(),
		Gateway: defaultGateway(),
	}
}

// EffectiveStaleAfter is directory.stale_after, or 3 × agent.announce_interval when it is 0.
func (c *Config) EffectiveStaleAfter() time.Duration {
	if c.Directory.StaleAfter > 0 {
		return c.Directory.StaleAfter
	}
	return 3 * c.Agent.AnnounceInterval
}

// EmbeddedURL, as bus.url or redis.url, asks for the embedded in-process bus
// or working memory on purpose: only this process reaches it. An empty URL
// is the embedded one too for an SDK program (node.Open warns that nothing
// else can reach it), but the local servers for the a2abus commands; see
// docs/operations.md.
const EmbeddedURL = "embedded://"

// Embedded reports whether the bus is the embedded in-process one: bus.url
// empty or EmbeddedURL.
func (c *BusConfig) Embedded() bool { return c.URL == "" || c.URL == EmbeddedURL }

// Embedded reports whether working memory is the embedded in-memory store:
// redis.url empty or EmbeddedURL, and no redis.addrs.
func (c *RedisConfig) Embedded() bool {
	return (c.URL == "" || c.URL == EmbeddedURL) && len(c.Addrs) == 0
}
