// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package soak

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"
)

// ServerTLS names the PEM files of a TLS server: the CA that signed the
// clients' certificates (which it requires), and its own certificate and key.
type ServerTLS struct {
	CA, Cert, Key string
}

// check refuses empty names and names a rabbitmq.conf value cannot hold.
func (s ServerTLS) check() error {
	for name, v := range map[string]string{"CA": s.CA, "Cert": s.Cert, "Key": s.Key} {
		if v == "" || strings.ContainsAny(v, " \t\r\n#") {
			return fmt.Errorf("soak: ServerTLS.%s %q: empty, or holds a space or '#'", name, v)
		}
	}
	return nil
}

// TLSBroker is a private RabbitMQ node (see StartBroker) that also listens
// for amqps, verifying clients' certificates and refusing clients without one.
type TLSBroker struct {
	*Broker
	// TLSURL is its amqps:// URL (user guest, host 127.0.0.1).
	TLSURL string
}

// StartBrokerTLS starts a private RabbitMQ node as StartBroker does, with a
// TLS listener on another free port presenting files.Cert and requiring a
// client certificate signed by files.CA.
func StartBrokerTLS(ctx context.Context, dir string, files ServerTLS, log *zap.Logger) (*TLSBroker, error) {
	if err := files.check(); err != nil {
		return nil, err
	}
	var tlsPort int
	b, err := startBroker(ctx, dir, log, func(taken ...int) (string, error) {
		p, err := freePort(taken...)
		if err != nil {
			return "", err
		}
		tlsPort = p
		return fmt.Sprintf("listeners.ssl.local = 127.0.0.1:%d\n"+
			"ssl_options.cacertfile = %s\nssl_options.certfile = %s\nssl_options.keyfile = %s\n"+
			"ssl_options.verify = verify_peer\nssl_options.fail_if_no_peer_cert = true\n",
			p, files.CA, files.Cert, files.Key), nil
	})
	if err != nil {
		return nil, err
	}
	return &TLSBroker{Broker: b, TLSURL: fmt.Sprintf("amqps://guest:guest@127.0.0.1:%d/", tlsPort)}, nil
}

// StartRedisTLS starts redis-server as StartRedis does, listening only for
// TLS: it presents files.Cert and requires a client certificate signed by
// files.CA. Its URL is rediss://127.0.0.1:<port>/0.
func StartRedisTLS(ctx context.Context, dir string, files ServerTLS) (*Redis, error) {
	if err := files.check(); err != nil {
		return nil, err
	}
	ping, port, addr, err := tlsEndpoint(files)
	if err != nil {
		return nil, err
	}
	return startRedis(ctx, dir, "rediss://"+addr+"/0", &redis.Options{Addr: addr, TLSConfig: ping},
		"--port", "0", "--tls-port", strconv.Itoa(port), "--tls-cert-file", files.Cert, "--tls-key-file", files.Key,
		"--tls-ca-cert-file", files.CA, "--tls-auth-clients", "yes")
}

// tlsEndpoint picks a free loopback port for a TLS server of files and
// returns the client configuration of its readiness ping, which presents
// the server's own certificate as its client one.
func tlsEndpoint(files ServerTLS) (ping *tls.Config, port int, addr string, err error) {
	ping, err = clientTLS(files.CA, files.Cert, files.Key)
	if err != nil {
		return nil, 0, "", err
	}
	if port, err = freePort(); err != nil {
		return nil, 0, "", err
	}
	ping.ServerName = "127.0.0.1"
	return ping, port, "127.0.0.1:" + strconv.Itoa(port), nil
}

// clientTLS is a TLS client configuration trusting ca and presenting cert.
func clientTLS(ca, cert, key string) (*tls.Config, error) {
	pem, err := os.ReadFile(ca)
	if err != nil {
		return nil, fmt.Errorf("soak: read CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, errors.New("soak: CA file " + ca + " holds no PEM certificate")
	}
	pair, err := tls.LoadX509KeyPair(cert, key)
	if err != nil {
		return nil, fmt.Errorf("soak: load certificate %s: %w", cert, err)
	}
	return &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}, nil
}

// StartSentinelTLS starts a Redis Sentinel, listening only for TLS as
// StartRedisTLS does, that monitors master (a StartRedisTLS server) as the
// master set name, talking to it over TLS with files.Cert. Its URL is
// rediss://127.0.0.1:<port>, the address of the Sentinel.
func StartSentinelTLS(ctx context.Context, dir string, files ServerTLS, master *Redis, name string) (*Redis, error) {
	if err := files.check(); err != nil {
		return nil, err
	}
	u, err := url.Parse(master.URL)
	if err != nil || u.Port() == "" {
		return nil, fmt.Errorf("soak: master URL %q has no port", master.URL)
	}
	ping, port, addr, err := tlsEndpoint(files)
	if err != nil {
		return nil, err
	}
	// A Sentinel rewrites its configuration file, so it needs one.
	conf := filepath.Join(dir, "sentinel.conf")
	body := fmt.Sprintf("port 0\ntls-port %d\ntls-cert-file %s\ntls-key-file %s\ntls-ca-cert-file %s\n"+
		"tls-auth-clients yes\ntls-replication yes\nsentinel monitor %s 127.0.0.1 %s 1\n",
		port, files.Cert, files.Key, files.CA, name, u.Port())
	if err := os.WriteFile(conf, []byte(body), 0o600); err != nil {
		return nil, fmt.Errorf("soak: sentinel configuration: %w", err)
	}
	return startRedis(ctx, dir, "rediss://"+addr, &redis.Options{Addr: addr, TLSConfig: ping}, conf, "--sentinel")
}
