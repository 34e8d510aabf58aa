// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package rabbitmq

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testca"
)

func TestTLSNeedsAnAMQPSURL(t *testing.T) {
	_, err := Options{URL: "amqp://u:topsecret@h/", TLS: &tls.Config{}}.withDefaults()
	if !errors.Is(err, ErrInvalidOptions) || !strings.Contains(err.Error(), "amqps://") || strings.Contains(err.Error(), "topsecret") {
		t.Errorf("TLS with amqp:// = %v, want ErrInvalidOptions naming amqps:// without the password", err)
	}
	if _, err := (Options{URL: "amqps://u:p@h/", TLS: &tls.Config{}}).withDefaults(); err != nil {
		t.Errorf("TLS with amqps:// = %v, want nil", err)
	}
}

func TestTLSConfigIsACopyPerDial(t *testing.T) {
	orig := &tls.Config{ServerName: ""}
	l := &link{tls: orig}
	a, b := l.tlsConfig(), l.tlsConfig()
	if a == orig || a == b {
		t.Fatal("tlsConfig returned the shared configuration, which amqp091-go writes to")
	}
	a.ServerName = "written-by-a-dial"
	if orig.ServerName != "" || b.ServerName != "" {
		t.Error("a dial's write reached the shared configuration")
	}
	if a.MinVersion != tls.VersionTLS12 {
		t.Errorf("MinVersion = %x, want TLS 1.2", a.MinVersion)
	}
	if (&link{}).tlsConfig() != nil {
		t.Error("a link without TLS got a TLS configuration")
	}
}

// tlsListener is a TLS server on 127.0.0.1 with the server certificate of
// files, requiring a client certificate of its CA; it reports the common
// name of each client that completed the handshake, then hangs up.
func tlsListener(t *testing.T, files testca.Files) (addr string, clients <-chan string) {
	t.Helper()
	pair, err := tls.LoadX509KeyPair(files.ServerCert, files.ServerKey)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{
		Certificates: []tls.Certificate{pair}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: files.ClientTLS(t, false).RootCAs,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	names := make(chan string, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			tc := c.(*tls.Conn)
			_ = tc.SetDeadline(time.Now().Add(5 * time.Second))
			if tc.Handshake() == nil {
				names <- tc.ConnectionState().PeerCertificates[0].Subject.CommonName
			}
			_ = tc.Close()
		}
	}()
	return ln.Addr().String(), names
}

// The configuration given in Options.TLS is the one the dial's handshake
// uses: the CA verifies the server and the client certificate is presented.
func TestDialUsesTheTLSConfiguration(t *testing.T) {
	files := testca.New(t)
	addr, clients := tlsListener(t, files)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	url := "amqps://guest:topsecret@" + addr + "/"
	// The server hangs up after the TLS handshake, so the AMQP handshake fails.
	_, err := Dial(ctx, Options{URL: url, TLS: files.ClientTLS(t, true)})
	if err == nil {
		t.Fatal("Dial to a server that hangs up succeeded")
	}
	select {
	case cn := <-clients:
		if cn != testca.ClientName {
			t.Errorf("the server saw client %q, want a2abus-test-client", cn)
		}
	case <-ctx.Done():
		t.Fatalf("no TLS handshake completed (Dial: %v)", err)
	}

	// Another CA does not verify the server: the error says so and names the URL, redacted.
	other := testca.New(t)
	wrongCA := files.ClientTLS(t, true)
	wrongCA.RootCAs = other.ClientTLS(t, false).RootCAs
	_, err = Dial(ctx, Options{URL: url, TLS: wrongCA})
	var unknown x509.UnknownAuthorityError
	if !errors.As(err, &unknown) || !strings.Contains(err.Error(), "amqps://guest:xxxxx@"+addr) || strings.Contains(err.Error(), "topsecret") {
		t.Errorf("Dial trusting another CA = %v, want x509.UnknownAuthorityError naming the redacted URL", err)
	}

	// The server name checked is ServerName, when set, not the URL's host.
	elsewhere := files.ClientTLS(t, true)
	elsewhere.ServerName = "elsewhere.example"
	_, err = Dial(ctx, Options{URL: url, TLS: elsewhere})
	var host x509.HostnameError
	if !errors.As(err, &host) || host.Host != "elsewhere.example" {
		t.Errorf("Dial with ServerName elsewhere.example = %v, want x509.HostnameError for it", err)
	}
}
