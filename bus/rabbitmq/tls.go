// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package rabbitmq

import (
	"crypto/tls"
	"fmt"
	"strings"

	amqp "github.com/rabbitmq/amqp091-go"
)

// checkTLS refuses Options.TLS with a URL that is not amqps://, to which
// amqp091-go would connect in clear, ignoring it.
func (o Options) checkTLS() error {
	if o.TLS == nil {
		return nil
	}
	u, err := amqp.ParseURI(o.URL)
	if err != nil {
		return nil // reported by withDefaults
	}
	if !strings.EqualFold(u.Scheme, "amqps") {
		return fmt.Errorf("%w: TLS is set but URL %q is %s://, not amqps://", ErrInvalidOptions, RedactURL(o.URL), u.Scheme)
	}
	return nil
}

// tlsConfig is the TLS configuration of one dial: a copy of Options.TLS,
// since amqp091-go writes the URL's host into its ServerName when empty and
// the links dial concurrently; at least TLS 1.2. Nil without Options.TLS.
func (l *link) tlsConfig() *tls.Config {
	if l.tls == nil {
		return nil
	}
	c := l.tls.Clone()
	if c.MinVersion < tls.VersionTLS12 {
		c.MinVersion = tls.VersionTLS12
	}
	return c
}
