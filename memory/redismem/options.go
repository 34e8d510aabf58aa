// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package redismem

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/memory"
)

// Defaults applied by New to zero Options fields.
const (
	DefaultKeyPrefix = "a2abus:"
	DefaultTimeout   = 2 * time.Second
)

// maxKeyPrefixLen bounds Options.KeyPrefix.
const maxKeyPrefixLen = 128

// noRetries turns off go-redis's own retries: a retried SET NX or append
// whose first reply was lost would report "already set" or append twice.
// A failed call returns memory.ErrUnavailable and the caller decides.
const noRetries = -1

// Options configures the Redis working memory. Exactly one of URL and Addrs is set.
type Options struct {
	// URL is a redis:// or rediss:// URL of one server (see go-redis ParseURL).
	URL string
	// Addrs are several host:port seeds: Sentinels when MasterName is set,
	// Cluster nodes otherwise (one address without MasterName: a single server).
	Addrs []string
	// MasterName is the Sentinel master set name.
	MasterName string
	// Username and Password authenticate; with URL, when set they replace the URL's.
	Username, Password string
	// DB is the database number (Cluster supports only 0); with URL, when set it replaces the URL's.
	DB int
	// KeyPrefix starts every Redis key and channel this package uses; "" means DefaultKeyPrefix.
	KeyPrefix string
	// Timeout bounds dialling and each call; 0 means DefaultTimeout.
	Timeout time.Duration
	// ConversationTTL, when > 0, expires a conversation that long after its
	// last append (it then starts again at Seq 1, unseen by older
	// subscriptions); 0 keeps conversations forever.
	ConversationTTL time.Duration
	// WaitReplicas, when > 0, makes every Batch wait, before it returns,
	// until that many replicas acknowledged its writes (Redis WAIT, on the
	// connection that wrote them), and fail with ErrNotReplicated (and
	// memory.ErrUnavailable) when fewer did within WaitTimeout: a write a
	// Batch reported done then survives a failover. 0 does not wait.
	WaitReplicas int
	// WaitTimeout bounds that wait; 0 means DefaultWaitTimeout.
	WaitTimeout time.Duration
	// Logger receives the connection and what background subscriptions cannot
	// return; nil means zap.NewNop(). It also receives, at warn level, the
	// lines go-redis logs itself (e.g. a pool that cannot dial), which would
	// otherwise go to stderr: go-redis has one logger per process, so those of
	// every client go to the Logger of the latest New given one (none until then).
	Logger *zap.Logger
	// TLS, when not nil, is the TLS client configuration (CA, client
	// certificate, server name; see tls.go): of a rediss:// URL, or of every
	// connection to Addrs (Sentinels and the master they name, or Cluster
	// nodes). Nil means a rediss:// URL's defaults (system roots) and plain
	// TCP to Addrs.
	TLS *tls.Config
}

// withDefaults validates o and fills its zero fields.
func (o Options) withDefaults() (Options, error) {
	bad := func(format string, args ...any) (Options, error) {
		return Options{}, fmt.Errorf("%w: redis options: %s", memory.ErrInvalidArgument, fmt.Sprintf(format, args...))
	}
	switch {
	case o.URL == "" && len(o.Addrs) == 0:
		return bad("neither URL nor Addrs is set")
	case o.URL != "" && len(o.Addrs) > 0:
		return bad("both URL and Addrs are set; use one")
	case o.URL != "" && o.MasterName != "":
		return bad("MasterName %q needs Sentinel Addrs, not a URL", o.MasterName)
	case o.Timeout < 0:
		return bad("Timeout %v is negative", o.Timeout)
	case o.WaitReplicas < 0:
		return bad("WaitReplicas %d is negative", o.WaitReplicas)
	case o.WaitTimeout < 0:
		return bad("WaitTimeout %v is negative", o.WaitTimeout)
	case o.ConversationTTL < 0:
		return bad("ConversationTTL %v is negative", o.ConversationTTL)
	case o.DB < 0:
		return bad("DB %d is negative", o.DB)
	case len(o.Addrs) > 1 && o.MasterName == "" && o.DB != 0:
		return bad("DB %d with Cluster Addrs %v: Cluster supports only DB 0", o.DB, o.Addrs)
	case len(o.KeyPrefix) > maxKeyPrefixLen:
		return bad("KeyPrefix is %d bytes, the limit is %d", len(o.KeyPrefix), maxKeyPrefixLen)
	}
	if err := o.checkTLS(); err != nil {
		return Options{}, err
	}
	for i, a := range o.Addrs {
		if strings.TrimSpace(a) == "" {
			return bad("Addrs[%d] is empty", i)
		}
	}
	for i := 0; i < len(o.KeyPrefix); i++ {
		if c := o.KeyPrefix[i]; c <= ' ' || c > '~' {
			return bad("KeyPrefix %q: byte %d (%q) is a space, a control character or not ASCII", o.KeyPrefix, i, c)
		}
	}
	if o.KeyPrefix == "" {
		o.KeyPrefix = DefaultKeyPrefix
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if o.WaitTimeout == 0 {
		o.WaitTimeout = DefaultWaitTimeout
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	return o, nil
}

// waitTimeout is how long a Batch may wait for replicas: 0 when it does not.
func (o Options) waitTimeout() time.Duration {
	if o.WaitReplicas == 0 {
		return 0
	}
	return o.WaitTimeout
}

// readTimeout bounds reading a reply: the timeout, and the wait for
// replicas too when writes wait (a WAIT's reply comes only then).
func (o Options) readTimeout() time.Duration { return o.Timeout + o.waitTimeout() }

// newClient builds the go-redis client o asks for and names the server(s) it
// talks to (never the password) for error messages.
func (o Options) newClient() (goredis.UniversalClient, string, error) {
	if o.URL != "" {
		opt, err := goredis.ParseURL(o.URL)
		if err != nil {
			var ue *url.Error // its message holds the whole URL, password included
			if errors.As(err, &ue) {
				err = ue.Err
			}
			return nil, "", fmt.Errorf("%w: redis options: URL: %w", memory.ErrInvalidArgument, err)
		}
		if o.Username != "" {
			opt.Username = o.Username
		}
		if o.Password != "" {
			opt.Password = o.Password
		}
		if o.DB != 0 {
			opt.DB = o.DB
		}
		if o.TLS != nil {
			opt.TLSConfig = o.tlsConfig()
		}
		opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout, opt.PoolTimeout = o.Timeout, o.readTimeout(), o.Timeout, o.Timeout
		opt.ContextTimeoutEnabled = true
		opt.MaxRetries = noRetries
		return goredis.NewClient(opt), opt.Addr, nil
	}
	where := strings.Join(o.Addrs, ",")
	if o.MasterName != "" {
		where = fmt.Sprintf("sentinel master %q at %s", o.MasterName, where)
	}
	return goredis.NewUniversalClient(&goredis.UniversalOptions{
		Addrs:                 o.Addrs,
		MasterName:            o.MasterName,
		Username:              o.Username,
		Password:              o.Password,
		DB:                    o.DB,
		DialTimeout:           o.Timeout,
		ReadTimeout:           o.readTimeout(),
		WriteTimeout:          o.Timeout,
		PoolTimeout:           o.Timeout,
		ContextTimeoutEnabled: true,
		MaxRetries:            noRetries,
		TLSConfig:             o.tlsConfig(),
	}), where, nil
}
