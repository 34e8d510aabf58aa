// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package config

import (
	"fmt"
	"math"
	"net"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// GatewayConfig configures `a2abus gateway`, the A2A HTTP front end of the
// bus (docs/a2a-http.md): its listener (bounded by the http section), who
// may call it (API keys, OIDC JWTs) and the caller name each acts as, and
// its per-principal, stream and push bounds.
type GatewayConfig struct {
	// Listen is the host:port the gateway serves (--listen overrides it).
	Listen string `mapstructure:"listen" yaml:"listen"`
	// PublicURL is the URL clients reach the gateway at, behind a proxy or
	// an ingress; the cards name it. Empty: each request's scheme and Host.
	PublicURL string `mapstructure:"public_url" yaml:"public_url"`
	// PublicCards serves the agents' cards and the catalog without
	// authentication (the methods always need it).
	PublicCards bool `mapstructure:"public_cards" yaml:"public_cards"`
	// Keys are API keys, entries "CallerName=key": a request sending the
	// key (Authorization: Bearer <key>, or X-API-Key) acts as CallerName.
	// Secrets, redacted wherever the configuration is printed: prefer
	// KeysFile.
	Keys []string `mapstructure:"keys" yaml:"keys"`
	// KeysFile holds more keys, one "CallerName key" (or CallerName=key)
	// per line, # comments: a mounted Secret.
	KeysFile string `mapstructure:"keys_file" yaml:"keys_file"`
	// Rate is the requests per second one principal may make (429 beyond,
	// with Retry-After); 0 is unlimited. Burst is how many it may make at
	// once after a quiet spell.
	Rate  float64 `mapstructure:"rate" yaml:"rate"`
	Burst int     `mapstructure:"burst" yaml:"burst"`
	// MaxStreams bounds the event streams open at once on one gateway (503 beyond).
	MaxStreams int `mapstructure:"max_streams" yaml:"max_streams"`
	// StreamKeepAlive is how often an idle event stream gets a comment line,
	// so that proxies keep it open.
	StreamKeepAlive time.Duration `mapstructure:"stream_keepalive" yaml:"stream_keepalive"`
	// CancelWait bounds how long CancelTask waits for the task's final state.
	CancelWait time.Duration `mapstructure:"cancel_wait" yaml:"cancel_wait"`
	// MaxListedTasks is how many of its latest tasks ListTasks keeps per principal.
	MaxListedTasks int `mapstructure:"max_listed_tasks" yaml:"max_listed_tasks"`
	// JWT accepts OIDC JSON Web Tokens besides the keys.
	JWT GatewayJWTConfig `mapstructure:"jwt" yaml:"jwt"`
	// Push configures push notifications to the clients' webhooks.
	Push GatewayPushConfig `mapstructure:"push" yaml:"push"`
}

// GatewayJWTConfig configures OIDC JWTs: RS256/ES256 (384, 512) signed by a
// key of the JWKS, for Audience, naming one of Callers in Claim.
type GatewayJWTConfig struct {
	// JWKSURL is the identity provider's key set (https; http only on a
	// loopback address). Empty: no JWTs.
	JWKSURL string `mapstructure:"jwks_url" yaml:"jwks_url"`
	// Audience must be in the token's aud.
	Audience string `mapstructure:"audience" yaml:"audience"`
	// Issuer, when set, must be the token's iss.
	Issuer string `mapstructure:"issuer" yaml:"issuer"`
	// Claim names the caller.
	Claim string `mapstructure:"claim" yaml:"claim"`
	// Callers are the caller names a token may name (the gateway runs a
	// caller for each, as for the keys' names).
	Callers []string `mapstructure:"callers" yaml:"callers"`
	// Refresh is how long the fetched keys are used before they are fetched again.
	Refresh time.Duration `mapstructure:"refresh" yaml:"refresh"`
}

// GatewayPushConfig configures push notifications.
type GatewayPushConfig struct {
	// Allow lists the host names ("hooks.example.com", "*.example.com")
	// and networks ("203.0.113.0/24", "127.0.0.1") webhooks may be at; a
	// listed host is never reached at a loopback or link-local address.
	// Empty: push notifications are off.
	Allow []string `mapstructure:"allow" yaml:"allow"`
	// Timeout bounds one POST to a webhook.
	Timeout time.Duration `mapstructure:"timeout" yaml:"timeout"`
	// MaxAttempts bounds the POSTs of one notification (with backoff between).
	MaxAttempts int `mapstructure:"max_attempts" yaml:"max_attempts"`
	// MaxPending bounds the tasks one gateway waits on to push.
	MaxPending int `mapstructure:"max_pending" yaml:"max_pending"`
}

// Defaults of the gateway section: the configuration's own (config does
// not import the gateway, which agents must not link); a test holds them
// equal to pkg/gateway's.
const (
	DefaultGatewayListen          = "127.0.0.1:8090"
	DefaultGatewayRate            = 100.0
	DefaultGatewayBurst           = 200
	DefaultGatewayMaxStreams      = 2000
	DefaultGatewayStreamKeepAlive = 15 * time.Second
	DefaultGatewayCancelWait      = 10 * time.Second
	DefaultGatewayMaxListedTasks  = 1000
	DefaultGatewayJWTClaim        = "sub"
	DefaultGatewayJWKSRefresh     = 10 * time.Minute
	DefaultGatewayPushTimeout     = 10 * time.Second
	DefaultGatewayPushAttempts    = 5
	DefaultGatewayPushMaxPending  = 1000
	// maxGatewayKeysFileBytes bounds gateway.keys_file.
	maxGatewayKeysFileBytes = 1 << 20
)

func defaultGateway() GatewayConfig {
	return GatewayConfig{
		Listen: DefaultGatewayListen, Keys: []string{}, Rate: DefaultGatewayRate, Burst: DefaultGatewayBurst,
		MaxStreams: DefaultGatewayMaxStreams, StreamKeepAlive: DefaultGatewayStreamKeepAlive, CancelWait: DefaultGatewayCancelWait,
		MaxListedTasks: DefaultGatewayMaxListedTasks,
		JWT:            GatewayJWTConfig{Claim: DefaultGatewayJWTClaim, Callers: []string{}, Refresh: DefaultGatewayJWKSRefresh},
		Push: GatewayPushConfig{Allow: []string{}, Timeout: DefaultGatewayPushTimeout, MaxAttempts: DefaultGatewayPushAttempts,
			MaxPending: DefaultGatewayPushMaxPending},
	}
}

// GatewayKey is one API key of the gateway and the caller name it acts as.
type GatewayKey struct {
	Name, Secret string
}

// GatewayKeys returns the keys of gateway.keys and gateway.keys_file (a
// regular file of at most 1 MiB). A malformed entry is an error naming its
// key and line, never quoting a secret.
func (c *GatewayConfig) GatewayKeys() ([]GatewayKey, error) {
	var keys []GatewayKey
	for i, e := range c.Keys {
		k, err := parseGatewayKey(e, "=")
		if err != nil {
			return nil, invalid("gateway.keys", "entry %d: %v", i+1, err)
		}
		keys = append(keys, k)
	}
	if c.KeysFile == "" {
		return keys, nil
	}
	data, err := readKeyFile("gateway.keys_file", c.KeysFile, maxGatewayKeysFileBytes)
	if err != nil {
		return nil, err
	}
	for n, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		sep := " "
		if name, _, ok := strings.Cut(line, "="); ok && !strings.ContainsAny(name, " \t") {
			sep = "="
		}
		k, err := parseGatewayKey(line, sep)
		if err != nil {
			return nil, invalid("gateway.keys_file", "%s line %d: %v", c.KeysFile, n+1, err)
		}
		keys = append(keys, k)
	}
	return keys, nil
}

func parseGatewayKey(entry, sep string) (GatewayKey, error) {
	name, secret, ok := strings.Cut(strings.TrimSpace(entry), sep)
	name, secret = strings.TrimSpace(name), strings.TrimSpace(secret)
	if !ok || name == "" || secret == "" {
		return GatewayKey{}, fmt.Errorf("want \"CallerName%skey\"", sep)
	}
	if err := a2a.ValidateAgentName(name); err != nil {
		return GatewayKey{}, fmt.Errorf("caller name: %w", err)
	}
	if err := checkToken(secret); err != nil {
		return GatewayKey{}, fmt.Errorf("the key of %s %w", name, err)
	}
	return GatewayKey{Name: name, Secret: secret}, nil
}

// Callers are the caller names the gateway acts as: the keys' names and
// gateway.jwt.callers, each once (ignoring case), in that order.
func (c *GatewayConfig) Callers() ([]string, error) {
	keys, err := c.GatewayKeys()
	if err != nil {
		return nil, err
	}
	var names []string
	add := func(n string) {
		for _, o := range names {
			if strings.EqualFold(o, n) {
				return
			}
		}
		names = append(names, n)
	}
	for _, k := range keys {
		add(k.Name)
	}
	if c.JWT.JWKSURL != "" {
		for _, n := range c.JWT.Callers {
			add(n)
		}
	}
	return names, nil
}

// Bounds of the gateway section.
const (
	maxGatewayRate    = 1_000_000.0
	maxGatewayBurst   = 1_000_000
	maxGatewayStreams = 1_000_000
	maxGatewayListed  = 100_000
	maxPushAttempts   = 100
	maxPushPending    = 1_000_000
)

// hostPattern is a host name or a *.domain of gateway.push.allow, compiled
// on first use: only a gateway's configuration has one.
var hostPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$`)
})

func (c *GatewayConfig) validate() []error {
	errs := []error{
		positive("gateway.stream_keepalive", c.StreamKeepAlive),
		positive("gateway.cancel_wait", c.CancelWait),
		between("gateway.max_streams", c.MaxStreams, 1, maxGatewayStreams),
		between("gateway.max_listed_tasks", c.MaxListedTasks, 1, maxGatewayListed),
		positive("gateway.push.timeout", c.Push.Timeout),
		between("gateway.push.max_attempts", c.Push.MaxAttempts, 1, maxPushAttempts),
		between("gateway.push.max_pending", c.Push.MaxPending, 1, maxPushPending),
	}
	if _, _, err := net.SplitHostPort(c.Listen); err != nil {
		errs = append(errs, invalid("gateway.listen", "must be host:port, got %q", c.Listen))
	}
	if c.PublicURL != "" {
		if u, err := url.Parse(c.PublicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
			errs = append(errs, invalid("gateway.public_url", "must be an http(s) URL without credentials, got %q", c.PublicURL))
		}
	}
	if math.IsNaN(c.Rate) || c.Rate < 0 || c.Rate > maxGatewayRate {
		errs = append(errs, invalid("gateway.rate", "must be within 0..%g requests per second (0: unlimited), got %g", maxGatewayRate, c.Rate))
	}
	if c.Rate > 0 {
		errs = append(errs, between("gateway.burst", c.Burst, 1, maxGatewayBurst))
	}
	for i, e := range c.Keys {
		if _, err := parseGatewayKey(e, "="); err != nil {
			errs = append(errs, invalid("gateway.keys", "entry %d: %v", i+1, err))
		}
	}
	errs = append(errs, c.JWT.validate()...)
	for _, e := range c.Push.Allow {
		if !allowEntry(e) {
			errs = append(errs, invalid("gateway.push.allow", "%q is not a host name, a *.domain, an address or a network (CIDR)", e))
		}
	}
	return errs
}

func allowEntry(e string) bool {
	e = strings.ToLower(strings.TrimSpace(e))
	if _, err := netip.ParsePrefix(e); err == nil {
		return true
	}
	if _, err := netip.ParseAddr(e); err == nil {
		return true
	}
	return hostPattern().MatchString(e)
}

func (c *GatewayJWTConfig) validate() []error {
	if c.JWKSURL == "" {
		if c.Audience != "" || c.Issuer != "" || len(c.Callers) > 0 {
			return []error{invalid("gateway.jwt.jwks_url", "is required with gateway.jwt.audience, issuer or callers")}
		}
		return nil
	}
	var errs []error
	u, err := url.Parse(c.JWKSURL)
	if err != nil || u.Host == "" || (u.Scheme != "https" && !(u.Scheme == "http" && loopbackHost(u.Hostname()))) {
		errs = append(errs, invalid("gateway.jwt.jwks_url", "must be an https URL (http only on a loopback address), got %q", c.JWKSURL))
	}
	if c.Audience == "" {
		errs = append(errs, invalid("gateway.jwt.audience", "is required with gateway.jwt.jwks_url: tokens for another audience must be refused"))
	}
	if c.Claim == "" {
		errs = append(errs, invalid("gateway.jwt.claim", "must name the claim that holds the caller name"))
	}
	if len(c.Callers) == 0 {
		errs = append(errs, invalid("gateway.jwt.callers", "must list the caller names a token may name"))
	}
	for _, n := range c.Callers {
		if err := a2a.ValidateAgentName(n); err != nil {
			errs = append(errs, invalid("gateway.jwt.callers", "%v", err))
		}
	}
	return append(errs, positive("gateway.jwt.refresh", c.Refresh))
}

// CheckGatewayCallers refuses caller names the gateway could not act as:
// where receivers take the sender from the broker (bus.url's user is not
// shared, identity.mode is not body), every name must be one
// identity.users maps the gateway's broker user to, or receivers would
// refuse its tasks as forged. It returns nil on a bus where names are not
// verified (the embedded bus, a shared user, identity.mode body).
func (c *Config) CheckGatewayCallers(names []string) error {
	if c.Bus.Embedded() {
		return nil
	}
	ids, err := c.Identity.Identities()
	if err != nil {
		return err
	}
	user := c.Bus.BusUser()
	if ids.Mode() == bus.IdentityBody || ids.Shared(user) {
		return nil
	}
	may := ids.Names(user)
	var missing []string
	for _, n := range names {
		if !slices.ContainsFunc(may, func(m string) bool { return strings.EqualFold(m, n) }) {
			missing = append(missing, n)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	entries := make([]string, len(missing))
	for i, n := range missing {
		entries[i] = user + "=" + n
	}
	return invalid("identity.users", "the gateway connects as broker user %q, which may not act as %s (the callers of gateway.keys, "+
		"gateway.keys_file and gateway.jwt.callers): add %s to identity.users, and the permissions a2abus access plan prints",
		user, strings.Join(missing, ", "), strings.Join(entries, ", "))
}
