// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package config

import (
	"errors"
	"fmt"
	"math"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/a2abus/a2abus/internal/redact"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/guard/redislimits"
)

// Bounds checked by Validate.
const (
	MinMessageBytes = 1 << 10
	MaxMessageBytes = 128 << 20
	MaxMaxAttempts  = 100
	maxKeyPrefixLen = 64
	// minAnnounceSecret is the shortest announcement signing secret accepted.
	minAnnounceSecret = 16
)

// FieldError is one bad configuration value: the key and what is wrong with
// it. It wraps ErrInvalid.
type FieldError struct {
	Key    string // the dotted key, e.g. "bus.url"
	Reason string // what is wrong, quoting the (redacted) value
}

// Error formats as `config: <key>: <reason>`.
func (e *FieldError) Error() string { return "config: " + e.Key + ": " + e.Reason }

// Unwrap returns ErrInvalid.
func (e *FieldError) Unwrap() error { return ErrInvalid }

func invalid(key, format string, args ...any) error {
	return &FieldError{Key: key, Reason: fmt.Sprintf(format, args...)}
}

// exchangeChars are bus.exchange's characters ([A-Za-z0-9_.-]); its
// length, 1 to 200, is checked apart.
const exchangeChars = alnum + "_.-"

// alnum is the ASCII letters and digits.
const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// madeOf reports whether s is not empty and every byte of it is one of
// chars (ASCII). The name rules are checked so rather than by regular
// expressions, which every program would compile at its start.
func madeOf(s, chars string) bool { return s != "" && strings.Trim(s, chars) == "" }

// Validate checks every key and reports all bad ones (errors.Join of
// *FieldError), or nil.
func (c *Config) Validate() error { return errors.Join(c.validate()...) }

// validate returns every error Validate reports, as a flat list.
func (c *Config) validate() []error {
	errs := []error{
		oneOf("log.level", c.Log.Level, "debug", "info", "warn", "error"),
		oneOf("log.format", c.Log.Format, "json", "console"),
	}
	errs = append(errs, c.Bus.validate()...)
	errs = append(errs, c.validateIdentity()...)
	errs = append(errs, c.Redis.validate()...)
	errs = append(errs, positive("memory.result_ttl", c.Memory.ResultTTL), positive("memory.retry_bound", c.Memory.RetryBound))
	if c.Memory.ConversationTTL < 0 {
		errs = append(errs, invalid("memory.conversation_ttl", "must be 0 (keep conversations forever) or a positive duration, got %s", c.Memory.ConversationTTL))
	}
	if n := c.Memory.MaxContextMessages; n < 0 || n > a2a.MaxHistoryMessages {
		errs = append(errs, invalid("memory.max_context_messages", "must be within 0..%d (0 keeps no context history), got %d", a2a.MaxHistoryMessages, n))
	}
	errs = append(errs, c.Audit.validate()...)
	errs = append(errs, c.Redact.validate())
	errs = append(errs, c.Agent.validate()...)
	if c.Directory.StaleAfter < 0 {
		errs = append(errs, invalid("directory.stale_after", "must be 0 (3 × agent.announce_interval) or a positive duration, got %s", c.Directory.StaleAfter))
	}
	errs = append(errs, positive("directory.forget_after", c.Directory.ForgetAfter))
	errs = append(errs, positive("directory.vet_wait", c.Directory.VetWait), positive("directory.well_known_wait", c.Directory.WellKnownWait))
	if n := c.Directory.MaxAgents; n < 1 || n > maxMaxAgents {
		errs = append(errs, invalid("directory.max_agents", "must be within 1..%d, got %d", maxMaxAgents, n))
	}
	if n := len(c.Directory.AnnounceSecret); n > 0 && n < minAnnounceSecret {
		errs = append(errs, invalid("directory.announce_secret", "must be at least %d bytes, got %d", minAnnounceSecret, n))
	}
	errs = append(errs, c.validateSigning()...)
	errs = append(errs, c.Caller.validate()...)
	errs = append(errs, c.Policy.validate()...)
	errs = append(errs, c.Limits.validate()...)
	errs = append(errs, c.validateUnacked()...)
	errs = append(errs, c.LLM.validate()...)
	errs = append(errs, c.Chat.validate()...)
	errs = append(errs, c.Workflow.validate()...)
	errs = append(errs, c.Orchestrator.validate()...)
	errs = append(errs, c.Ops.validate()...)
	errs = append(errs, c.HTTP.validate()...)
	errs = append(errs, c.MCP.validate()...)
	errs = append(errs, c.Remote.validate()...)
	errs = append(errs, c.Gateway.validate()...)
	errs = append(errs, c.Research.validate()...)
	if f := c.Directory.KnownAgentsFile; f != "" && f == c.Directory.WellKnownFile {
		errs = append(errs, invalid("directory.known_agents_file", "must differ from directory.well_known_file, both are %q", f))
	}
	return slices.DeleteFunc(errs, func(err error) bool { return err == nil })
}

func (c *AgentConfig) validate() []error {
	errs := []error{
		positive("agent.stop_timeout", c.StopTimeout),
		positive("agent.idle_timeout", c.IdleTimeout),
		positive("agent.announce_interval", c.AnnounceInterval),
	}
	if c.Concurrency < 1 || c.Concurrency > 1000 {
		errs = append(errs, invalid("agent.concurrency", "must be within 1..1000, got %d", c.Concurrency))
	}
	if c.MaxTasks < 1 {
		errs = append(errs, invalid("agent.max_tasks", "must be at least 1, got %d", c.MaxTasks))
	}
	return errs
}

func (c *CallerConfig) validate() []error {
	errs := []error{
		positive("caller.default_timeout", c.DefaultTimeout),
		positive("caller.max_timeout", c.MaxTimeout),
		positive("caller.sweep_interval", c.SweepInterval),
		positive("caller.max_wait", c.MaxWait),
	}
	if c.DefaultWait < 0 {
		errs = append(errs, invalid("caller.default_wait", "must not be negative, got %s", c.DefaultWait))
	}
	if err := a2a.ValidateAgentName(c.Name); err != nil {
		errs = append(errs, invalid("caller.name", "must be an agent name (a letter, then letters, digits, '_' or '-'; at most 64), got %q", c.Name))
	}
	if c.MaxDepth < 1 || c.MaxDepth > a2a.MaxCallChain {
		errs = append(errs, invalid("caller.max_depth", "must be within 1..%d, got %d", a2a.MaxCallChain, c.MaxDepth))
	}
	if c.DefaultTimeout > c.MaxTimeout && c.MaxTimeout > 0 {
		errs = append(errs, invalid("caller.default_timeout", "must not exceed caller.max_timeout (%s), got %s", c.MaxTimeout, c.DefaultTimeout))
	}
	if c.InputTimeout <= 0 || c.InputTimeout > maxInputTimeout {
		errs = append(errs, invalid("caller.input_timeout", "must be a positive duration of at most %s (a session's ownership), got %s", maxInputTimeout, c.InputTimeout))
	}
	if n := c.MaxTaskHistory; n < 2 || n > a2a.MaxHistoryMessages {
		errs = append(errs, invalid("caller.max_task_history", "must be within 2..%d, got %d", a2a.MaxHistoryMessages, n))
	}
	if c.Concurrency < 1 || c.Concurrency > 1000 {
		errs = append(errs, invalid("caller.concurrency", "must be within 1..1000, got %d", c.Concurrency))
	}
	return errs
}

// namePatternChars are the characters of an agent name or a pattern of one
// ('*' any run, '?' one character), of at most 128 characters (checked
// apart, as bus.exchange's).
const namePatternChars = alnum + "_*?-"

func namePattern(key, p string) error {
	if len(p) > 128 || !madeOf(p, namePatternChars) {
		return invalid(key, "must be an agent name or a pattern of letters, digits, '_', '-', '*' and '?' (at most 128), got %q", p)
	}
	return nil
}

func (c *PolicyConfig) validate() []error {
	errs := []error{oneOf("policy.default", c.Default, "allow", "deny")}
	seen := map[string]int{}
	for i, r := range c.Rules {
		key := fmt.Sprintf("policy.rules[%d]", i)
		if err := namePattern(key+".caller", r.Caller); err != nil {
			errs = append(errs, err)
		} else if j, dup := seen[strings.ToLower(r.Caller)]; dup {
			errs = append(errs, invalid(key+".caller", "%q is already the caller of policy.rules[%d]", r.Caller, j))
		} else {
			seen[strings.ToLower(r.Caller)] = i
		}
		for j, p := range r.Allow {
			errs = append(errs, namePattern(fmt.Sprintf("%s.allow[%d]", key, j), p))
		}
		for j, p := range r.Deny {
			errs = append(errs, namePattern(fmt.Sprintf("%s.deny[%d]", key, j), p))
		}
	}
	return errs
}

// Bounds of the limits section.
const (
	maxInFlight        = 1_000_000
	maxRate            = 1_000_000.0
	maxBurst           = 1_000_000
	maxBreakerFailures = 1_000
)

func (c *LimitsConfig) validate() []error {
	errs := []error{
		between("limits.burst", c.Burst, 1, maxBurst),
		positive("limits.breaker_cooldown", c.BreakerCooldown),
	}
	if c.MaxInFlight < 0 || c.MaxInFlight > maxInFlight {
		errs = append(errs, invalid("limits.max_in_flight", "must be within 0..%d (0: unlimited), got %d", maxInFlight, c.MaxInFlight))
	}
	if math.IsNaN(c.Rate) || c.Rate < 0 || c.Rate > maxRate {
		errs = append(errs, invalid("limits.rate", "must be within 0..%g calls per second (0: unlimited), got %g", maxRate, c.Rate))
	}
	if c.BreakerFailures < 0 || c.BreakerFailures > maxBreakerFailures {
		errs = append(errs, invalid("limits.breaker_failures", "must be within 0..%d (0: no circuit breaker), got %d", maxBreakerFailures, c.BreakerFailures))
	}
	if c.Shared && c.SharedLease < redislimits.MinLease {
		errs = append(errs, invalid("limits.shared_lease", "must be at least %s, got %s", redislimits.MinLease, c.SharedLease))
	}
	return errs
}

func (c *BusConfig) validate() []error {
	errs := []error{
		validateServerURL("bus.url", c.URL, "amqp", "amqps"),
		oneOf("bus.queue_type", c.QueueType, "classic", "quorum"),
		positive("bus.publish_timeout", c.PublishTimeout),
		positive("bus.reconnect_min", c.ReconnectMin),
		positive("bus.reconnect_max", c.ReconnectMax),
		between("bus.max_message_bytes", c.MaxMessageBytes, MinMessageBytes, MaxMessageBytes),
		between("bus.max_attempts", c.MaxAttempts, 1, MaxMaxAttempts),
	}
	switch {
	case len(c.Exchange) > 200 || !madeOf(c.Exchange, exchangeChars):
		errs = append(errs, invalid("bus.exchange", "must be 1 to 200 of [A-Za-z0-9_.-], got %q", c.Exchange))
	case strings.HasPrefix(c.Exchange, "amq."):
		errs = append(errs, invalid("bus.exchange", "the amq. prefix is reserved by the broker, got %q", c.Exchange))
	}
	if c.ReconnectMin > 0 && c.ReconnectMax > 0 && c.ReconnectMax < c.ReconnectMin {
		errs = append(errs, invalid("bus.reconnect_max", "must be at least bus.reconnect_min (%s), got %s", c.ReconnectMin, c.ReconnectMax))
	}
	return append(errs, c.validateTLS()...)
}

func (c *RedisConfig) validate() []error {
	errs := []error{
		validateServerURL("redis.url", c.URL, "redis", "rediss"),
		positive("redis.timeout", c.Timeout),
	}
	if c.URL != "" && c.URL != EmbeddedURL {
		errs = append(errs, redisDBPath(c.URL))
	}
	if c.URL != "" {
		if len(c.Addrs) > 0 {
			errs = append(errs, invalid("redis.addrs", "cannot be combined with redis.url (use one or the other)"))
		}
	}
	for i, a := range c.Addrs {
		errs = append(errs, hostPort(fmt.Sprintf("redis.addrs[%d]", i), a))
	}
	if c.MasterName != "" && len(c.Addrs) == 0 {
		errs = append(errs, invalid("redis.master_name", "needs redis.addrs (the Sentinel addresses), got master %q without them", c.MasterName))
	}
	switch {
	case c.DB < 0:
		errs = append(errs, invalid("redis.db", "must not be negative, got %d", c.DB))
	case c.DB != 0 && len(c.Addrs) > 0 && c.MasterName == "":
		errs = append(errs, invalid("redis.db", "Redis Cluster (redis.addrs without redis.master_name) supports only db 0, got %d", c.DB))
	}
	if c.WaitReplicas < 0 {
		errs = append(errs, invalid("redis.wait_replicas", "must not be negative, got %d", c.WaitReplicas))
	}
	if c.WaitReplicas > 0 && c.WaitTimeout <= 0 {
		errs = append(errs, invalid("redis.wait_timeout", "must be positive with redis.wait_replicas %d, got %s", c.WaitReplicas, c.WaitTimeout))
	}
	if len(c.KeyPrefix) > maxKeyPrefixLen {
		errs = append(errs, invalid("redis.key_prefix", "must be at most %d bytes, got %d", maxKeyPrefixLen, len(c.KeyPrefix)))
	} else if strings.IndexFunc(c.KeyPrefix, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
		errs = append(errs, invalid("redis.key_prefix", "must not contain spaces or control characters, got %q", c.KeyPrefix))
	}
	return append(errs, c.validateTLS()...)
}

func oneOf(key, v string, allowed ...string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return invalid(key, "must be one of %s, got %q", strings.Join(allowed, "|"), v)
}

// maxMaxAgents bounds directory.max_agents.
const maxMaxAgents = 1_000_000

func positive(key string, d time.Duration) error {
	if d <= 0 {
		return invalid(key, "must be a positive duration such as \"10s\", got %s", d)
	}
	return nil
}

func between(key string, v, lo, hi int) error {
	if v < lo || v > hi {
		return invalid(key, "must be between %d and %d, got %d", lo, hi, v)
	}
	return nil
}

// validateServerURL accepts what validateURL does, and EmbeddedURL.
func validateServerURL(key, raw string, schemes ...string) error {
	if raw == EmbeddedURL {
		return nil
	}
	if hasScheme(raw, "embedded") {
		return invalid(key, "the embedded one is spelt exactly %s, got %q", EmbeddedURL, redact.URL(raw))
	}
	return validateURL(key, raw, schemes...)
}

// validateURL accepts "" or a URL with one of schemes. Values in messages are
// redacted: a URL may carry a password.
func validateURL(key, raw string, schemes ...string) error {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		// url.Parse's message quotes parts of raw, which may hold a password.
		return invalid(key, "not a valid URL: %q", redact.URL(raw))
	}
	for _, s := range schemes {
		if strings.EqualFold(u.Scheme, s) {
			if u.Opaque != "" {
				return invalid(key, "must be %s://host..., got %q", s, redact.URL(raw))
			}
			return nil
		}
	}
	if u.Scheme == "" {
		return invalid(key, "scheme must be %s, got none in %q", strings.Join(schemes, " or "), redact.URL(raw))
	}
	return invalid(key, "scheme must be %s, got %q", strings.Join(schemes, " or "), u.Scheme)
}

// redisDBPath checks that a redis URL's path, if any, is a database number.
func redisDBPath(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return nil // reported by validateURL
	}
	p := strings.TrimPrefix(u.Path, "/")
	if p == "" {
		return nil
	}
	if n, err := strconv.Atoi(p); err != nil || n < 0 {
		return invalid("redis.url", "path must be a database number such as /0, got %q", redact.URL(raw))
	}
	return nil
}

func hostPort(key, addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return invalid(key, "must be host:port, got %q", addr)
	}
	if host == "" {
		return invalid(key, "host is empty in %q", addr)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return invalid(key, "port must be 1..65535, got %q", port)
	}
	return nil
}
