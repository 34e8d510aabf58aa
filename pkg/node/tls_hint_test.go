// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package node

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"

	"github.com/a2abus/a2abus/config"
)

// Every way a server's refusal of a TLS client surfaces reads as refused —
// its alert, a reset, an end of stream, or the client library having closed
// the connection on it (the TLS 1.3 case that once made a CI run fail) —
// and an unrelated failure does not.
func TestRefusedRecognisesTheServerEndingTLS(t *testing.T) {
	for _, err := range []error{
		&net.OpError{Op: "remote error", Err: errors.New("tls: certificate required")},
		fmt.Errorf("read: %w", syscall.ECONNRESET),
		fmt.Errorf("write: %w", syscall.EPIPE),
		fmt.Errorf("handshake: %w", io.EOF),
		fmt.Errorf("dial (publish): %w", net.ErrClosed),
		errors.New("Exception (501) Reason: \"read tcp 127.0.0.1:1->127.0.0.1:2: use of closed network connection\""),
		errors.New("Exception (504) Reason: \"channel/connection is not open\""), // amqp091-go's ErrClosed, seen in CI
	} {
		if !refused(err) {
			t.Errorf("refused(%v) = false", err)
		}
	}
	if refused(errors.New("dial tcp 127.0.0.1:1: connect: connection refused")) {
		t.Error("a closed port reads as a TLS refusal")
	}
}

// redisReply stands for a Redis server's error reply.
type redisReply string

func (r redisReply) Error() string { return string(r) }
func (redisReply) RedisError()     {}

// A server that asked for a client certificate none was configured for is
// named as requiring one, whatever form the failure took; unless the server
// went on to answer at the application level (a Redis reply), and never
// when it did not ask.
func TestHintNamesACertificateTheServerAskedFor(t *testing.T) {
	const want = "asked for a client certificate and none is configured"
	for _, err := range []error{
		errors.New(`Exception (503) Reason: "unexpected command received"`), // amqp091-go, seen in CI
		errors.New(`Exception (403) Reason: "username or password not allowed"`),
		io.EOF,
	} {
		if got := tlsHint(err, "bus.tls", config.TLSConfig{}, true); !strings.Contains(got, want) || !strings.Contains(got, "bus.tls.cert_file") {
			t.Errorf("tlsHint(%v, asked) = %q, want it to contain %q and the key", err, got, want)
		}
		if got := tlsHint(err, "bus.tls", config.TLSConfig{}, false); strings.Contains(got, want) {
			t.Errorf("tlsHint(%v, not asked) = %q", err, got)
		}
	}
	if got := tlsHint(fmt.Errorf("auth: %w", redisReply("WRONGPASS invalid username-password pair")), "redis.tls", config.TLSConfig{}, true); got != "" {
		t.Errorf("tlsHint(WRONGPASS, asked) = %q, want no hint", got)
	}
}
