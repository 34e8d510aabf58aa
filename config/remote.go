// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package config

import (
	"errors"
	"fmt"
	"maps"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// RemoteConfig configures the bridges that make remote A2A agents (agents
// that speak A2A over HTTP) bus agents: `a2abus serve --remote NAME`
// (docs/a2a-remote.md). A remote is declared here (Agents) or as a
// well-known entry with a url; the other keys apply to every remote.
type RemoteConfig struct {
	// Agents are the remote agents declared here, each by its bus name and
	// card URL, with its authentication.
	Agents []RemoteAgent `mapstructure:"agents" yaml:"agents"`
	// CardCheckInterval is how often a bridge fetches its remote's card
	// again: a good fetch announces the agent on the bus (the directory's
	// lastSeen), a failed one holds its announcements until the next good one.
	CardCheckInterval time.Duration `mapstructure:"card_check_interval" yaml:"card_check_interval"`
	// CardTimeout bounds one fetch of a card, and the bridge's start: the
	// card it waits for before it serves (its transient failures retried).
	CardTimeout time.Duration `mapstructure:"card_timeout" yaml:"card_timeout"`
	// MaxCardBytes bounds a remote's card; a longer one is refused.
	MaxCardBytes int `mapstructure:"max_card_bytes" yaml:"max_card_bytes"`
	// MaxResponseBytes bounds each HTTP response of a remote (a stream's
	// events included); past it the call fails.
	MaxResponseBytes int `mapstructure:"max_response_bytes" yaml:"max_response_bytes"`
	// PollInterval is how often the task of a remote that does not stream
	// is read (GetTask) until it ends its turn.
	PollInterval time.Duration `mapstructure:"poll_interval" yaml:"poll_interval"`
	// CancelTimeout bounds the cancel a bridge forwards to the remote when
	// its bus task is cancelled or passes its deadline.
	CancelTimeout time.Duration `mapstructure:"cancel_timeout" yaml:"cancel_timeout"`
	// RetryMin and RetryMax bound the backoff between the attempts of a
	// call that failed transiently (a connection error, HTTP 502, 503, 504,
	// or 429 — then at least its Retry-After), within the task's deadline.
	RetryMin time.Duration `mapstructure:"retry_min" yaml:"retry_min"`
	RetryMax time.Duration `mapstructure:"retry_max" yaml:"retry_max"`
}

// RemoteAgent is one remote A2A agent of remote.agents.
type RemoteAgent struct {
	// Name is the agent's bus name (agent.task.<Name>). Required.
	Name string `mapstructure:"name" yaml:"name"`
	// CardURL is the URL of its agent card (http or https); a URL without
	// a path gets /.well-known/agent-card.json. Required.
	CardURL string `mapstructure:"card_url" yaml:"card_url"`
	// BearerToken is sent as Authorization: Bearer <token> with every
	// request to the remote; a secret, redacted when printed.
	BearerToken string `mapstructure:"bearer_token" yaml:"bearer_token,omitempty"`
	// BearerTokenFile holds the token instead (its first line): a mounted Secret.
	BearerTokenFile string `mapstructure:"bearer_token_file" yaml:"bearer_token_file,omitempty"`
	// APIKey is sent in APIKeyHeader with every request; a secret.
	APIKey string `mapstructure:"api_key" yaml:"api_key,omitempty"`
	// APIKeyFile holds the API key instead (its first line).
	APIKeyFile string `mapstructure:"api_key_file" yaml:"api_key_file,omitempty"`
	// APIKeyHeader names the API key's header; default X-API-Key.
	APIKeyHeader string `mapstructure:"api_key_header" yaml:"api_key_header,omitempty"`
	// Transport, when set, is the transport preferred among those the card
	// offers: JSONRPC or HTTP+JSON. Empty: the card's order (JSON-RPC first).
	Transport string `mapstructure:"transport" yaml:"transport,omitempty"`
}

// Defaults and bounds of the remote section (config's own: the bridge's
// package links the A2A client, which config must not).
const (
	DefaultRemoteCardCheckInterval = time.Minute
	DefaultRemoteCardTimeout       = 10 * time.Second
	DefaultRemoteMaxCardBytes      = 1 << 20
	DefaultRemoteMaxResponseBytes  = 16 << 20
	DefaultRemotePollInterval      = time.Second
	DefaultRemoteCancelTimeout     = 5 * time.Second
	DefaultRemoteRetryMin          = 250 * time.Millisecond
	DefaultRemoteRetryMax          = 10 * time.Second
	// MaxRemoteSecretBytes bounds a remote's token or API key, and the file holding it.
	MaxRemoteSecretBytes = 16 << 10
	maxRemoteAgents      = 1000
	maxRemoteBytes       = 1 << 30
)

// The transports remote.agents[].transport may prefer.
const (
	RemoteTransportJSONRPC  = "JSONRPC"
	RemoteTransportHTTPJSON = "HTTP+JSON"
)

func defaultRemote() RemoteConfig {
	return RemoteConfig{
		Agents:            []RemoteAgent{},
		CardCheckInterval: DefaultRemoteCardCheckInterval, CardTimeout: DefaultRemoteCardTimeout,
		MaxCardBytes: DefaultRemoteMaxCardBytes, MaxResponseBytes: DefaultRemoteMaxResponseBytes,
		PollInterval: DefaultRemotePollInterval, CancelTimeout: DefaultRemoteCancelTimeout,
		RetryMin: DefaultRemoteRetryMin, RetryMax: DefaultRemoteRetryMax,
	}
}

// Agent returns the remote of remote.agents called name (case-insensitive).
func (c *RemoteConfig) Agent(name string) (RemoteAgent, bool) {
	for _, a := range c.Agents {
		if strings.EqualFold(a.Name, name) {
			return a, true
		}
	}
	return RemoteAgent{}, false
}

// Credential returns the header and value the remote's requests carry —
// Authorization: Bearer <token>, or the API key in its header — read from
// the key or its file (the first line, trimmed; a regular file of at most
// MaxRemoteSecretBytes). No credential configured: "", "", nil. The secret
// itself is in no error. key names the entry in errors (remote.agents[0]).
func (a *RemoteAgent) Credential(key string) (header, value string, err error) {
	secret, secretKey := a.BearerToken, key+".bearer_token"
	switch {
	case a.BearerTokenFile != "":
		secret, secretKey, err = readSecretFile(key+".bearer_token_file", a.BearerTokenFile)
	case a.APIKey != "":
		secret, secretKey = a.APIKey, key+".api_key"
	case a.APIKeyFile != "":
		secret, secretKey, err = readSecretFile(key+".api_key_file", a.APIKeyFile)
	}
	if err != nil || secret == "" {
		return "", "", err
	}
	if err := checkSecret(secret); err != nil {
		return "", "", invalid(secretKey, "%v", err)
	}
	if a.BearerToken != "" || a.BearerTokenFile != "" {
		return "Authorization", "Bearer " + secret, nil
	}
	if a.APIKeyHeader != "" {
		return a.APIKeyHeader, secret, nil
	}
	return directory.DefaultAPIKeyHeader, secret, nil
}

// readSecretFile reads the first line of a secret's file, trimmed.
func readSecretFile(key, path string) (secret, secretKey string, err error) {
	data, err := readKeyFile(key, path, MaxRemoteSecretBytes)
	if err != nil {
		return "", key, err
	}
	line, _, _ := strings.Cut(string(data), "\n")
	secret = strings.TrimSpace(line)
	if secret == "" {
		return "", key, invalid(key, "%q holds no secret (its first line is empty)", path)
	}
	return secret, key, nil
}

// checkSecret says what is wrong with a token or API key, never quoting it.
func checkSecret(s string) error {
	if len(s) > MaxRemoteSecretBytes {
		return fmt.Errorf("must be at most %d bytes, got %d", MaxRemoteSecretBytes, len(s))
	}
	if strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) || r > unicode.MaxASCII }) >= 0 {
		return errors.New("must be printable ASCII without spaces (it is sent in an HTTP header)")
	}
	return nil
}

func (c *RemoteConfig) validate() []error {
	errs := []error{
		positive("remote.card_check_interval", c.CardCheckInterval),
		positive("remote.card_timeout", c.CardTimeout),
		positive("remote.poll_interval", c.PollInterval),
		positive("remote.cancel_timeout", c.CancelTimeout),
		positive("remote.retry_min", c.RetryMin),
		between("remote.max_card_bytes", c.MaxCardBytes, 1<<10, maxRemoteBytes),
		between("remote.max_response_bytes", c.MaxResponseBytes, 1<<10, maxRemoteBytes),
	}
	if c.RetryMax < c.RetryMin {
		errs = append(errs, invalid("remote.retry_max", "must be at least remote.retry_min (%s), got %s", c.RetryMin, c.RetryMax))
	}
	if len(c.Agents) > maxRemoteAgents {
		errs = append(errs, invalid("remote.agents", "at most %d agents, got %d", maxRemoteAgents, len(c.Agents)))
	}
	seen := map[string]int{}
	for i, a := range c.Agents {
		key := fmt.Sprintf("remote.agents[%d]", i)
		if err := a2a.ValidateAgentName(a.Name); err != nil {
			errs = append(errs, invalid(key+".name", "must be an agent name (a letter, then letters, digits, '_' or '-'; at most 64), got %q", a.Name))
		} else if first, dup := seen[strings.ToLower(a.Name)]; dup {
			errs = append(errs, invalid(key+".name", "%q is remote.agents[%d] already (names are case-insensitive)", a.Name, first))
		} else {
			seen[strings.ToLower(a.Name)] = i
		}
		errs = append(errs, a.validate(key)...)
	}
	return errs
}

func (a *RemoteAgent) validate(key string) []error {
	var errs []error
	if err := directory.ValidateCardURL(a.CardURL); err != nil {
		errs = append(errs, invalid(key+".card_url", "%v", err))
	}
	var given []string
	for _, c := range []struct{ key, val string }{{"bearer_token", a.BearerToken}, {"bearer_token_file", a.BearerTokenFile},
		{"api_key", a.APIKey}, {"api_key_file", a.APIKeyFile}} {
		if c.val == "" {
			continue
		}
		given = append(given, c.key)
		if c.key == "bearer_token" || c.key == "api_key" {
			if err := checkSecret(c.val); err != nil {
				errs = append(errs, invalid(key+"."+c.key, "%v", err))
			}
		}
	}
	if len(given) > 1 {
		errs = append(errs, invalid(key, "give one credential, got %s", strings.Join(given, " and ")))
	}
	if a.APIKeyHeader != "" && (!directory.ValidHeaderName(a.APIKeyHeader) || (a.APIKey == "" && a.APIKeyFile == "")) {
		errs = append(errs, invalid(key+".api_key_header", "must name an HTTP header (letters, digits, '-', …) and come with api_key or api_key_file, got %q", a.APIKeyHeader))
	}
	if t := a.Transport; t != "" && !strings.EqualFold(t, RemoteTransportJSONRPC) && !strings.EqualFold(t, RemoteTransportHTTPJSON) {
		errs = append(errs, invalid(key+".transport", "must be %s or %s, got %q", RemoteTransportJSONRPC, RemoteTransportHTTPJSON, t))
	}
	return errs
}

// warnings says when a remote's credential would cross the network in clear.
func (c *RemoteConfig) warnings() []string {
	var out []string
	for _, a := range c.Agents {
		has := a.BearerToken != "" || a.BearerTokenFile != "" || a.APIKey != "" || a.APIKeyFile != ""
		if u, err := url.Parse(a.CardURL); err == nil && has && u.Scheme == "http" && !loopbackHost(u.Hostname()) {
			out = append(out, fmt.Sprintf("remote agent %q: its credential is sent over plain http to %s; use https", a.Name, u.Host))
		}
	}
	return out
}

// loopbackHost reports whether host is localhost or a loopback address.
func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// remoteAgentKeys are the keys of one remote.agents entry.
var remoteAgentKeys = []string{"name", "card_url", "bearer_token", "bearer_token_file", "api_key", "api_key_file", "api_key_header", "transport"}

// toRemoteAgents accepts a list of mappings or, as an environment variable
// gives, the same list written as JSON or YAML. An error names the item and
// key (remote.agents[1].card_url); unknown keys are errors. Values are never
// quoted: a token may be among them.
func toRemoteAgents(key string, raw any) ([]RemoteAgent, error) {
	switch x := raw.(type) {
	case []RemoteAgent: // the default
		return slices.Clone(x), nil
	case string:
		var parsed any
		if err := yaml.Unmarshal([]byte(x), &parsed); err != nil {
			return nil, errors.New(`must be a list of remote agents written as JSON or YAML, e.g. [{"name": "Weather", "card_url": "https://…"}]`)
		}
		if parsed == nil {
			return []RemoteAgent{}, nil
		}
		raw = parsed
	}
	items, ok := raw.([]any)
	if !ok {
		return nil, fmt.Errorf("must be a list of remote agents (mappings of %s), got %s", strings.Join(remoteAgentKeys, ", "), describe(raw))
	}
	out := make([]RemoteAgent, 0, len(items))
	var errs []error
	for i, item := range items {
		a, err := toRemoteAgent(fmt.Sprintf("%s[%d]", key, i), item)
		errs = append(errs, err)
		out = append(out, a)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

func toRemoteAgent(key string, raw any) (RemoteAgent, error) {
	m, err := toMapping(key, raw, remoteAgentKeys)
	if err != nil {
		return RemoteAgent{}, err
	}
	var (
		a    RemoteAgent
		errs []error
	)
	fields := map[string]*string{"name": &a.Name, "card_url": &a.CardURL, "bearer_token": &a.BearerToken, "bearer_token_file": &a.BearerTokenFile,
		"api_key": &a.APIKey, "api_key_file": &a.APIKeyFile, "api_key_header": &a.APIKeyHeader, "transport": &a.Transport}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v := m[k]
		dst, ok := fields[strings.ToLower(k)]
		switch {
		case !ok:
			errs = append(errs, invalid(key+"."+k, "unknown key (a remote agent has %s)", strings.Join(remoteAgentKeys, ", ")))
		case v == nil:
		default:
			s, err := toString(v)
			if err != nil {
				errs = append(errs, invalid(key+"."+k, "must be a string, got %s", describe(v)))
			}
			*dst = s
		}
	}
	return a, errors.Join(errs...)
}
