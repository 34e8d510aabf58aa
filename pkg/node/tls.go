// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package node

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"syscall"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/internal/redact"
)

// warnTLS logs each TLS warning (config.Config.TLSWarnings) of a section.
func warnTLS(log *zap.Logger, warnings []string) {
	if log == nil {
		return
	}
	for _, w := range warnings {
		log.Warn(w)
	}
}

// redisWhere names the Redis of r for errors: its URL, else its addresses.
func redisWhere(r config.RedisConfig) string {
	if r.URL != "" {
		return r.URL
	}
	return "redis.addrs " + strings.Join(r.Addrs, ",")
}

// certRequest records whether a TLS server asked for a client certificate
// while none is configured. Under TLS 1.3 the client's handshake ends before
// the server checks for one, so its refusal surfaces later and in whatever
// form the client library gives it (an alert, a reset, "unexpected command",
// even "username or password not allowed"); the request itself is the sure
// sign.
type certRequest struct{ asked atomic.Bool }

// watchCertRequest installs a certRequest on tc when tc sends no client
// certificate (nil, or one with its own GetClientCertificate, is left as it
// is and nothing is recorded). It sends none, as before.
func watchCertRequest(tc *tls.Config) *certRequest {
	r := &certRequest{}
	if tc == nil || len(tc.Certificates) > 0 || tc.GetClientCertificate != nil {
		return r
	}
	tc.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
		r.asked.Store(true)
		return &tls.Certificate{}, nil
	}
	return r
}

// explainTLS adds to a failed connection's err, when it is a TLS failure,
// which side refused what and the keys under prefix (bus.tls, redis.tls) to
// look at; rawURL (the server, redacted here) is named too. req tells
// whether the server asked for a client certificate. Other errors are
// returned as they are.
func explainTLS(err error, on bool, prefix string, t config.TLSConfig, rawURL string, req *certRequest) error {
	if !on {
		return err
	}
	hint := tlsHint(err, prefix, t, req.asked.Load())
	if hint == "" {
		return err
	}
	return fmt.Errorf("%w (TLS to %s: %s)", err, redact.URL(rawURL), hint)
}

// tlsHint is what explainTLS adds, or "". askedForCert: the server asked for
// a client certificate and none was configured.
func tlsHint(err error, prefix string, t config.TLSConfig, askedForCert bool) string {
	var (
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		invalid  x509.CertificateInvalidError
		record   tls.RecordHeaderError
	)
	switch {
	case errors.As(err, &unknown) && t.CAFile != "":
		return fmt.Sprintf("the server's certificate is not signed by a CA of %s.ca_file %q", prefix, t.CAFile)
	case errors.As(err, &unknown):
		return fmt.Sprintf("the server's certificate is not signed by a CA this system trusts: set %s.ca_file", prefix)
	case errors.As(err, &hostname):
		return fmt.Sprintf("the server's certificate is not valid for %q: set %s.server_name to a name it is valid for", hostname.Host, prefix)
	case errors.As(err, &invalid):
		return fmt.Sprintf("the server's certificate is not valid (%v): renew it, or check %s.ca_file", invalid, prefix)
	case errors.As(err, &record):
		return "the server does not speak TLS on this port: check the port, or use the plain scheme"
	case askedForCert && !repliedByRedis(err):
		return fmt.Sprintf("the server asked for a client certificate and none is configured: it requires one, most likely: set %s.cert_file and %s.key_file", prefix, prefix)
	case refused(err) && t.CertFile == "":
		return fmt.Sprintf("the server refused the connection or hung up after the handshake, likely because it requires a client certificate: set %s.cert_file and %s.key_file", prefix, prefix)
	case refused(err):
		return fmt.Sprintf("the server refused the connection or hung up after the handshake, likely over the client certificate %s.cert_file %q (is it signed by a CA the server trusts, for client authentication?)", prefix, t.CertFile)
	}
	return ""
}

// repliedByRedis reports whether err is a Redis server's reply (such as
// WRONGPASS): the TLS session worked, whatever the server asked in it.
func repliedByRedis(err error) bool {
	var reply interface{ RedisError() }
	return errors.As(err, &reply)
}

// refused reports whether err is the server ending a TLS connection it
// just accepted: its TLS alert, or, under TLS 1.3 (the client's handshake
// ends before the server has checked its certificate), a reset or an end of
// stream on the first write or read — or, when the client library closed
// the connection on that error first, its next use failing on the closed
// connection (net.ErrClosed, or amqp091-go's "channel/connection is not
// open"). amqp091-go turns these into the text of an *amqp.Error, so the
// text is matched too.
func refused(err error) bool {
	var op *net.OpError
	if (errors.As(err, &op) && op.Op == "remote error") || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) {
		return true
	}
	msg := err.Error()
	for _, s := range []string{"remote error: tls:", "connection reset by peer", "broken pipe", "EOF", "use of closed network connection", "channel/connection is not open"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}
