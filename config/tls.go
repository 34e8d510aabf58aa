// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package config

import (
	"cmp"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/a2abus/a2abus/internal/fileread"
	"github.com/a2abus/a2abus/internal/redact"
)

// TLSConfig configures TLS to a server: the broker (bus.tls) or Redis
// (redis.tls). TLS is on with an amqps:// bus.url or a rediss:// redis.url,
// or for redis.addrs (Sentinel, Cluster: no scheme) with redis.tls.enabled.
// With TLS on and no file set, the server is checked against the system's
// root CAs and no client certificate is sent.
type TLSConfig struct {
	// Enabled turns TLS on for redis.addrs; with a URL the scheme decides,
	// and enabled: true with amqp:// or redis:// is an error.
	Enabled bool `mapstructure:"enabled" yaml:"enabled"`
	// CAFile is a PEM file of the CA certificates the server's certificate
	// must chain to; empty means the system's roots.
	CAFile string `mapstructure:"ca_file" yaml:"ca_file"`
	// CertFile and KeyFile are the PEM client certificate and its key,
	// for servers that require one; set both or neither.
	CertFile string `mapstructure:"cert_file" yaml:"cert_file"`
	KeyFile  string `mapstructure:"key_file" yaml:"key_file"`
	// ServerName is the name the server's certificate must be valid for;
	// empty means the host dialled.
	ServerName string `mapstructure:"server_name" yaml:"server_name"`
	// InsecureSkipVerify turns off checking the server's certificate (never
	// implied; config check warns). Only for tests.
	InsecureSkipVerify bool `mapstructure:"insecure_skip_verify" yaml:"insecure_skip_verify"`
}

// configured reports whether a setting beyond Enabled is set.
func (t *TLSConfig) configured() bool {
	return t.CAFile != "" || t.CertFile != "" || t.KeyFile != "" || t.ServerName != "" || t.InsecureSkipVerify
}

// setKeys names the keys of t under prefix that are set.
func (t *TLSConfig) setKeys(prefix string) []string {
	var keys []string
	for _, f := range []struct {
		key string
		set bool
	}{
		{"enabled", t.Enabled}, {"ca_file", t.CAFile != ""}, {"cert_file", t.CertFile != ""},
		{"key_file", t.KeyFile != ""}, {"server_name", t.ServerName != ""}, {"insecure_skip_verify", t.InsecureSkipVerify},
	} {
		if f.set {
			keys = append(keys, prefix+"."+f.key)
		}
	}
	return keys
}

// TLSOn reports whether the broker is dialled with TLS: bus.url is amqps://.
func (c *BusConfig) TLSOn() bool { return hasScheme(c.URL, "amqps") }

// TLSOn reports whether Redis is dialled with TLS: redis.url is rediss://,
// or redis.addrs with redis.tls.enabled.
func (c *RedisConfig) TLSOn() bool {
	if c.URL != "" {
		return hasScheme(c.URL, "rediss")
	}
	return len(c.Addrs) > 0 && c.TLS.Enabled
}

// ClientTLS is the TLS client configuration of bus.tls, or nil when TLS is
// off or bus.tls sets nothing (the URL's defaults: system roots, or the
// TLS parameters of its query).
func (c *BusConfig) ClientTLS() (*tls.Config, error) {
	if !c.TLSOn() || !c.TLS.configured() {
		return nil, nil
	}
	return c.TLS.load("bus.tls")
}

// ClientTLS is the TLS client configuration of redis.tls, or nil when TLS
// is off or, with a rediss:// URL, redis.tls sets nothing (go-redis's
// defaults: system roots).
func (c *RedisConfig) ClientTLS() (*tls.Config, error) {
	if !c.TLSOn() || (c.URL != "" && !c.TLS.configured()) {
		return nil, nil
	}
	return c.TLS.load("redis.tls")
}

// MaxPEMFileBytes bounds each CA, certificate and key file; a longer one, or
// a path that is not a regular file, is refused before it is parsed.
const MaxPEMFileBytes = 4 << 20

// load reads the files of t into a TLS client configuration (at least TLS
// 1.2); an error is a *FieldError naming the key under prefix and the file.
func (t *TLSConfig) load(prefix string) (*tls.Config, error) {
	c := &tls.Config{ServerName: t.ServerName, InsecureSkipVerify: t.InsecureSkipVerify, MinVersion: tls.VersionTLS12}
	if t.CAFile != "" {
		pem, err := readPEM(prefix+".ca_file", t.CAFile)
		if err != nil {
			return nil, err
		}
		c.RootCAs = x509.NewCertPool()
		if !c.RootCAs.AppendCertsFromPEM(pem) {
			return nil, invalid(prefix+".ca_file", "%q holds no PEM certificate", t.CAFile)
		}
	}
	if t.CertFile != "" && t.KeyFile != "" {
		cert, err := readPEM(prefix+".cert_file", t.CertFile)
		if err != nil {
			return nil, err
		}
		key, err := readPEM(prefix+".key_file", t.KeyFile)
		if err != nil {
			return nil, err
		}
		pair, err := tls.X509KeyPair(cert, key)
		if err != nil {
			return nil, invalid(prefix+".cert_file", "%q with %s %q: %v", t.CertFile, prefix+".key_file", t.KeyFile, err)
		}
		c.Certificates = []tls.Certificate{pair}
	}
	return c, nil
}

// readPEM reads the file of key (a regular file of at most MaxPEMFileBytes).
func readPEM(key, path string) ([]byte, error) { return readKeyFile(key, path, MaxPEMFileBytes) }

// readKeyFile reads the file of key through fileread (a regular file of at
// most maxBytes); an error is a *FieldError naming the key and the file.
func readKeyFile(key, path string, maxBytes int64) ([]byte, error) {
	data, err := fileread.Read(path, maxBytes)
	if fe := (*fileread.Error)(nil); errors.As(err, &fe) {
		return nil, invalid(key, "%v", fe)
	}
	if err != nil {
		return nil, invalid(key, "cannot read %q: %v", path, unwrapPath(err))
	}
	return data, nil
}

// unwrapPath drops the *fs.PathError's repetition of the file name.
func unwrapPath(err error) error {
	if pe, ok := err.(interface{ Unwrap() error }); ok && pe.Unwrap() != nil {
		return pe.Unwrap()
	}
	return err
}

// validateTLS checks t under prefix: TLS settings need TLS on (off says how
// to turn it on), certificate and key come together, the files load, and
// insecure_skip_verify is not combined with a CA file.
func (t *TLSConfig) validateTLS(prefix string, on bool, off string) []error {
	if !on {
		var errs []error
		for _, k := range t.setKeys(prefix) {
			errs = append(errs, invalid(k, "is set, but TLS is off: %s", off))
		}
		return errs
	}
	var errs []error
	switch {
	case t.CertFile != "" && t.KeyFile == "":
		errs = append(errs, invalid(prefix+".key_file", "must be set with %s.cert_file (%q)", prefix, t.CertFile))
	case t.KeyFile != "" && t.CertFile == "":
		errs = append(errs, invalid(prefix+".cert_file", "must be set with %s.key_file (%q)", prefix, t.KeyFile))
	}
	if t.InsecureSkipVerify && t.CAFile != "" {
		errs = append(errs, invalid(prefix+".insecure_skip_verify", "true ignores %s.ca_file (%q): set one or the other", prefix, t.CAFile))
	}
	if strings.ContainsFunc(t.ServerName, func(r rune) bool { return r <= ' ' || r == '/' }) {
		errs = append(errs, invalid(prefix+".server_name", "must be a host name, got %q", t.ServerName))
	}
	if _, err := t.load(prefix); err != nil {
		errs = append(errs, err)
	}
	return errs
}

// amqpTLSParams are the bus.url query parameters amqp091-go reads TLS files from.
var amqpTLSParams = []string{"cacertfile", "certfile", "keyfile", "server_name_indication"}

func (c *BusConfig) validateTLS() []error {
	off := fmt.Sprintf("bus.url is %s (the embedded bus has no network)", cmp.Or(c.URL, "empty"))
	if !c.Embedded() {
		off = fmt.Sprintf("use an amqps:// bus.url, got %q", redact.URL(c.URL))
	}
	errs := c.TLS.validateTLS("bus.tls", c.TLSOn(), off)
	if c.TLSOn() && c.TLS.configured() {
		for _, p := range amqpTLSParams {
			if queryHas(c.URL, p) {
				errs = append(errs, invalid("bus.url", "its TLS parameter %q cannot be combined with bus.tls.*: set the files in bus.tls only", p))
			}
		}
	}
	return errs
}

func (c *RedisConfig) validateTLS() []error {
	var off string
	switch {
	case c.URL != "" && c.URL != EmbeddedURL:
		off = fmt.Sprintf("use a rediss:// redis.url, got %q", redact.URL(c.URL))
	case len(c.Addrs) > 0:
		off = "set redis.tls.enabled: true for redis.addrs"
	case c.URL == EmbeddedURL:
		off = "redis.url is " + EmbeddedURL + " (the embedded memory has no network)"
	default:
		off = "neither redis.url nor redis.addrs is set (the embedded memory has no network)"
	}
	errs := c.TLS.validateTLS("redis.tls", c.TLSOn(), off)
	if queryHas(c.URL, "skip_verify") {
		errs = append(errs, invalid("redis.url", "skip_verify in the URL is refused: certificate checks are turned off only by redis.tls.insecure_skip_verify: true"))
	}
	return errs
}

// TLSWarnings are the TLS settings config check warns about: certificate
// checks turned off, and a broker or Redis off this host reached without
// TLS. Each names its key.
func (c *Config) TLSWarnings() []string {
	return append(c.Bus.TLSWarnings(), c.Redis.TLSWarnings()...)
}

// TLSWarnings are Config.TLSWarnings of the bus section.
func (c *BusConfig) TLSWarnings() []string {
	var w []string
	if c.TLSOn() && c.TLS.InsecureSkipVerify {
		w = append(w, "bus.tls.insecure_skip_verify is true: the broker's certificate is not checked, so anyone on the network path can impersonate it and read every message")
	}
	if !c.Embedded() && !c.TLSOn() && !loopback(c.URL) {
		w = append(w, fmt.Sprintf("bus.url %q is amqp:// to another host: messages and the broker password travel in clear (use amqps://)", redact.URL(c.URL)))
	}
	return w
}

// TLSWarnings are Config.TLSWarnings of the redis section.
func (c *RedisConfig) TLSWarnings() []string {
	var w []string
	if c.TLSOn() && c.TLS.InsecureSkipVerify {
		w = append(w, "redis.tls.insecure_skip_verify is true: Redis's certificate is not checked, so anyone on the network path can impersonate it and read working memory")
	}
	if c.URL != "" && c.URL != EmbeddedURL && !c.TLSOn() && !loopback(c.URL) {
		w = append(w, fmt.Sprintf("redis.url %q is redis:// to another host: working memory and the password travel in clear (use rediss://)", redact.URL(c.URL)))
	}
	return w
}

// hasScheme reports whether raw parses with scheme (case-insensitive).
func hasScheme(raw, scheme string) bool {
	u, err := url.Parse(raw)
	return err == nil && strings.EqualFold(u.Scheme, scheme)
}

// queryHas reports whether raw parses with query parameter p.
func queryHas(raw, p string) bool {
	u, err := url.Parse(raw)
	return err == nil && u.Query().Has(p)
}

// loopback reports whether raw's host is localhost or a loopback address.
func loopback(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	h := u.Hostname()
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
