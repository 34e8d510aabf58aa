// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package redismem

import (
	"crypto/tls"
	"fmt"
	"net/url"
	"strings"

	"github.com/a2abus/a2abus/memory"
)

// checkTLS refuses Options.TLS with a redis:// URL, which go-redis would
// dial in clear, ignoring it.
func (o Options) checkTLS() error {
	if o.TLS == nil || o.URL == "" {
		return nil
	}
	u, err := url.Parse(o.URL)
	if err != nil {
		return nil // reported by newClient
	}
	if !strings.EqualFold(u.Scheme, "rediss") {
		return invalidOptions("TLS is set but URL is %s://, not rediss://", u.Scheme)
	}
	return nil
}

// tlsConfig is the client's copy of Options.TLS (nil without it), at least
// TLS 1.2. Without a ServerName each connection checks the host it dials
// (go-redis dials with tls.DialWithDialer), so one configuration serves
// every Sentinel and Cluster node.
func (o Options) tlsConfig() *tls.Config {
	if o.TLS == nil {
		return nil
	}
	c := o.TLS.Clone()
	if c.MinVersion < tls.VersionTLS12 {
		c.MinVersion = tls.VersionTLS12
	}
	return c
}

// invalidOptions is withDefaults' error for bad Options.
func invalidOptions(format string, args ...any) error {
	return fmt.Errorf("%w: redis options: %s", memory.ErrInvalidArgument, fmt.Sprintf(format, args...))
}
