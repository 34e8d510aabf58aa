// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package rabbitmq

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net/url"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/internal/redact"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// ErrInvalidOptions is returned by Dial when Options are unusable; the
// message names the offending field.
var ErrInvalidOptions = errors.New("rabbitmq: invalid options")

// Queue types accepted in Options.QueueType.
const (
	// QueueTypeClassic is the default: task queues are priority queues.
	QueueTypeClassic = "classic"
	// QueueTypeQuorum makes durable queues replicated quorum queues (clusters);
	// RabbitMQ 3.10 quorum queues ignore message priority.
	QueueTypeQuorum = "quorum"
)

// Defaults applied by Dial to zero Options fields.
const (
	DefaultPublishTimeout = 10 * time.Second
	DefaultReconnectMin   = 100 * time.Millisecond
	DefaultReconnectMax   = 10 * time.Second
	// DefaultPublishChannels is how many channels publishes are spread over:
	// one, so that the broker confirms many publishes per frame (measured by
	// a2abus bench: about 10% more calls/s and 10% less broker CPU per call
	// than four channels). One channel carries thousands of publishes/s.
	DefaultPublishChannels = 1
)

// closeTimeout bounds Close: waiting for consumers and closing connections.
const closeTimeout = 5 * time.Second

// Options configure a Bus.
type Options struct {
	// URL is the broker address, amqp:// or amqps://.
	URL string
	// Exchange is the topic exchange; default a2a.DefaultExchange.
	Exchange string
	// QueueType is QueueTypeClassic (default) or QueueTypeQuorum.
	QueueType string
	// ConnectionName is shown in the management UI (suffixed with the role).
	ConnectionName string
	// PublishTimeout bounds a Publish, including waiting for a lost connection
	// to come back and for the confirm; default 10s.
	PublishTimeout time.Duration
	// ReconnectMin and ReconnectMax bound the exponential re-dial backoff;
	// defaults 100ms and 10s.
	ReconnectMin, ReconnectMax time.Duration
	// PublishChannels is how many confirm channels publishes are spread over,
	// each carrying any number in flight; default DefaultPublishChannels.
	PublishChannels int
	// Logger receives connection events; nil means no logging.
	Logger *zap.Logger
	// TLS, when not nil, is the TLS client configuration of an amqps:// URL
	// (CA, client certificate, server name; see tls.go); nil leaves TLS to
	// the URL's scheme and query (amqp091-go: system roots by default).
	TLS *tls.Config
}

// withDefaults validates o and fills its zero fields.
func (o Options) withDefaults() (Options, error) {
	if o.URL == "" {
		return o, fmt.Errorf("%w: URL is empty", ErrInvalidOptions)
	}
	if _, err := amqp.ParseURI(o.URL); err != nil {
		var ue *url.Error
		if errors.As(err, &ue) { // its text would repeat the URL, password included
			err = ue.Err
		}
		return o, fmt.Errorf("%w: URL %q: %w", ErrInvalidOptions, RedactURL(o.URL), err)
	}
	if err := o.checkTLS(); err != nil {
		return o, err
	}
	if o.Exchange == "" {
		o.Exchange = a2a.DefaultExchange
	}
	switch o.QueueType {
	case "":
		o.QueueType = QueueTypeClassic
	case QueueTypeClassic, QueueTypeQuorum:
	default:
		return o, fmt.Errorf("%w: QueueType %q must be %q or %q",
			ErrInvalidOptions, o.QueueType, QueueTypeClassic, QueueTypeQuorum)
	}
	for _, d := range []struct {
		name string
		v    *time.Duration
		def  time.Duration
	}{
		{"PublishTimeout", &o.PublishTimeout, DefaultPublishTimeout},
		{"ReconnectMin", &o.ReconnectMin, DefaultReconnectMin},
		{"ReconnectMax", &o.ReconnectMax, DefaultReconnectMax},
	} {
		if *d.v < 0 {
			return o, fmt.Errorf("%w: %s is negative (%s)", ErrInvalidOptions, d.name, *d.v)
		}
		if *d.v == 0 {
			*d.v = d.def
		}
	}
	if o.ReconnectMin > o.ReconnectMax {
		return o, fmt.Errorf("%w: ReconnectMin %s exceeds ReconnectMax %s",
			ErrInvalidOptions, o.ReconnectMin, o.ReconnectMax)
	}
	switch {
	case o.PublishChannels < 0:
		return o, fmt.Errorf("%w: PublishChannels is negative (%d)", ErrInvalidOptions, o.PublishChannels)
	case o.PublishChannels == 0:
		o.PublishChannels = DefaultPublishChannels
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	return o, nil
}

// RedactURL returns raw with its password (and credential-named query
// values) replaced by "xxxxx", for logs and errors: [redact.URL].
func RedactURL(raw string) string { return redact.URL(raw) }
