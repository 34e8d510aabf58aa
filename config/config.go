// Package config holds a2abus's configuration: plain structs with defaults
// (Default) and validation (Validate). Load (load.go) fills them from a YAML
// file, A2ABUS_* environment variables and command-line flags; nothing else in
// the project reads configuration sources.
package config

import (
	"errors"
	"time"
)

// ErrInvalid is wrapped by every error about a bad configuration value.
var ErrInvalid = errors.New("config: invalid")

// Config is the whole configuration. Keys are the snake_case paths of the
// mapstructure tags (bus.url, redis.key_prefix, ...).
type Config struct {
	Log       LogConfig       `mapstructure:"log" yaml:"log"`
	Bus       BusConfig       `mapstructure:"bus" yaml:"bus"`
	Redis     RedisConfig     `mapstructure:"redis" yaml:"redis"`
	Memory    MemoryConfig    `mapstructure:"memory" yaml:"memory"`
	Directory DirectoryConfig `mapstructure:"directory" yaml:"directory"`
	Agent     AgentConfig     `mapstructure:"agent" yaml:"agent"`
	Caller    CallerConfig    `mapstructure:"caller" yaml:"caller"`
	Policy    PolicyConfig    `mapstructure:"policy" yaml:"policy"`
	Limits    LimitsConfig    `mapstructure:"limits" yaml:"limits"`
	Research  ResearchConfig  `mapstructure:"research" yaml:"research"`
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
	// URL is the RabbitMQ URL (amqp:// or amqps://); empty selects the embedded in-process bus.
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
}

// RedisConfig configures working memory. With neither URL nor Addrs the
// embedded in-memory store is used.
type RedisConfig struct {
	// URL is a redis:// or rediss:// URL of a single server.
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
}

// MemoryConfig configures what is kept in working memory.
type MemoryConfig struct {
	// ResultTTL is how long a task result stays in working memory.
	ResultTTL time.Duration `mapstructure:"result_ttl" yaml:"result_ttl"`
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
	// AnnounceSecret signs agents' announcements and makes directories reject
	// unsigned or forged ones; empty means unauthenticated discovery.
	AnnounceSecret string `mapstructure:"announce_secret" yaml:"announce_secret"`
}

// AgentConfig configures the agent runtime (a2abus serve, the agent mains).
type AgentConfig struct {
	// Concurrency is how many tasks one instance runs at once (= the prefetch).
	Concurrency int `mapstructure:"concurrency" yaml:"concurrency"`
	// StopTimeout bounds how long in-flight tasks may finish on stop before they are requeued.
	StopTimeout time.Duration `mapstructure:"stop_timeout" yaml:"stop_timeout"`
	// Ephemeral runs MaxTasks tasks (or waits IdleTimeout for one) and exits: KEDA jobs.
	Ephemeral bool `mapstructure:"ephemeral" yaml:"ephemeral"`
	// MaxTasks is how many tasks an ephemeral instance runs before it exits.
	MaxTasks int `mapstructure:"max_tasks" yaml:"max_tasks"`
	// IdleTimeout is how long an ephemeral instance waits for a task before it exits.
	IdleTimeout time.Duration `mapstructure:"idle_timeout" yaml:"idle_timeout"`
	// AnnounceInterval is how often a running agent announces its card on discovery.announce.
	AnnounceInterval time.Duration `mapstructure:"announce_interval" yaml:"announce_interval"`
}

// CallerConfig configures the calling side (a2abus invoke, agents that delegate).
type CallerConfig struct {
	// Name is the caller's agent name: results come back on agent.response.<name>.
	Name string `mapstructure:"name" yaml:"name"`
	// DefaultTimeout is the deadline of a call that names none.
	DefaultTimeout time.Duration `mapstructure:"default_timeout" yaml:"default_timeout"`
	// MaxTimeout clamps every call's timeout.
	MaxTimeout time.Duration `mapstructure:"max_timeout" yaml:"max_timeout"`
	// SweepInterval is how often overdue tasks are looked for and timed out.
	SweepInterval time.Duration `mapstructure:"sweep_interval" yaml:"sweep_interval"`
	// MaxDepth is the longest call chain (origin included) a call may extend;
	// agents refuse longer chains too.
	MaxDepth int `mapstructure:"max_depth" yaml:"max_depth"`
}

// PolicyConfig says which callers may call which agents. Callers check it
// before they publish a call, agents again before they run a task.
type PolicyConfig struct {
	// Default is allow or deny: what happens to a caller no rule matches, and
	// to a target a matching rule neither allows nor denies.
	Default string `mapstructure:"default" yaml:"default"`
	// Rules are per caller (a name, or a pattern with '*' and '?'). A rule
	// naming the caller exactly wins over patterns; among patterns the first wins.
	Rules []PolicyRule `mapstructure:"rules" yaml:"rules"`
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

// LimitsConfig bounds the calls of one caller process; 0 means unlimited.
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
}

// ResearchConfig configures ResearchAgent.
type ResearchConfig struct {
	// DocsDir is the folder of text and Markdown files the research skill searches.
	DocsDir string `mapstructure:"docs_dir" yaml:"docs_dir"`
}

// Default values; a2abus.example.yaml documents the same values.
const (
	DefaultLogLevel         = "info"
	DefaultLogFormat        = "json"
	DefaultExchange         = "a2a"
	DefaultQueueType        = "classic"
	DefaultPublishTimeout   = 10 * time.Second
	DefaultReconnectMin     = 100 * time.Millisecond
	DefaultReconnectMax     = 10 * time.Second
	DefaultMaxMessageBytes  = 4 << 20
	DefaultMaxAttempts      = 5
	DefaultKeyPrefix        = "a2abus:"
	DefaultRedisTimeout     = 2 * time.Second
	DefaultResultTTL        = 60 * time.Minute
	DefaultWellKnownFile    = "well-known-agents.json"
	DefaultKnownAgentsFile  = "known-agents.json"
	DefaultConcurrency      = 4
	DefaultStopTimeout      = 30 * time.Second
	DefaultMaxTasks         = 1
	DefaultIdleTimeout      = 30 * time.Second
	DefaultCallerName       = "Cli"
	DefaultCallTimeout      = 30 * time.Second
	DefaultMaxCallTimeout   = 5 * time.Minute
	DefaultSweepInterval    = time.Second
	DefaultMaxDepth         = 5
	DefaultDocsDir          = "docs"
	DefaultAnnounceInterval = 2 * time.Minute
	DefaultForgetAfter      = 24 * time.Hour
	DefaultPolicy           = "allow"
	DefaultMaxInFlight      = 10
	DefaultBurst            = 10
	DefaultBreakerFailures  = 5
	DefaultBreakerCooldown  = 30 * time.Second
)

// Default returns the configuration used when nothing is set: the embedded
// bus and working memory, JSON logs at info.
func Default() *Config {
	return &Config{
		Log: LogConfig{Level: DefaultLogLevel, Format: DefaultLogFormat},
		Bus: BusConfig{
			Exchange:        DefaultExchange,
			QueueType:       DefaultQueueType,
			PublishTimeout:  DefaultPublishTimeout,
			ReconnectMin:    DefaultReconnectMin,
			ReconnectMax:    DefaultReconnectMax,
			MaxMessageBytes: DefaultMaxMessageBytes,
			MaxAttempts:     DefaultMaxAttempts,
		},
		Redis: RedisConfig{
			Addrs:     []string{},
			KeyPrefix: DefaultKeyPrefix,
			Timeout:   DefaultRedisTimeout,
		},
		Memory: MemoryConfig{ResultTTL: DefaultResultTTL},
		Directory: DirectoryConfig{
			WellKnownFile:   DefaultWellKnownFile,
			KnownAgentsFile: DefaultKnownAgentsFile,
			ForgetAfter:     DefaultForgetAfter,
		},
		Agent: AgentConfig{
			Concurrency:      DefaultConcurrency,
			StopTimeout:      DefaultStopTimeout,
			MaxTasks:         DefaultMaxTasks,
			IdleTimeout:      DefaultIdleTimeout,
			AnnounceInterval: DefaultAnnounceInterval,
		},
		Caller: CallerConfig{
			Name:           DefaultCallerName,
			DefaultTimeout: DefaultCallTimeout,
			MaxTimeout:     DefaultMaxCallTimeout,
			SweepInterval:  DefaultSweepInterval,
			MaxDepth:       DefaultMaxDepth,
		},
		Policy: PolicyConfig{Default: DefaultPolicy, Rules: []PolicyRule{}},
		Limits: LimitsConfig{
			MaxInFlight:     DefaultMaxInFlight,
			Burst:           DefaultBurst,
			BreakerFailures: DefaultBreakerFailures,
			BreakerCooldown: DefaultBreakerCooldown,
		},
		Research: ResearchConfig{DocsDir: DefaultDocsDir},
	}
}

// EffectiveStaleAfter is directory.stale_after, or 3 × agent.announce_interval when it is 0.
func (c *Config) EffectiveStaleAfter() time.Duration {
	if c.Directory.StaleAfter > 0 {
		return c.Directory.StaleAfter
	}
	return 3 * c.Agent.AnnounceInterval
}

// Embedded reports whether the bus is the embedded in-process one (no bus.url).
func (c *BusConfig) Embedded() bool { return c.URL == "" }

// Embedded reports whether working memory is the embedded in-memory store (no redis.url nor redis.addrs).
func (c *RedisConfig) Embedded() bool { return c.URL == "" && len(c.Addrs) == 0 }
