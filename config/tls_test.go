// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package config

import (
	"crypto/x509"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/internal/testca"
)

func TestValidateTLS(t *testing.T) {
	ca := testca.New(t)
	notPEM := filepath.Join(t.TempDir(), "ca.txt")
	if err := os.WriteFile(notPEM, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "missing.pem")
	files := func(tc *TLSConfig) { tc.CAFile, tc.CertFile, tc.KeyFile = ca.CA, ca.ClientCert, ca.ClientKey }
	tests := []struct {
		name   string
		mutate func(*Config)
		want   string // the one expected error; "" = valid
	}{
		{"amqps with files", func(c *Config) {
			c.Bus.URL = "amqps://u:p@rabbit:5671/"
			files(&c.Bus.TLS)
			c.Bus.TLS.ServerName = "rabbit.internal"
		}, ""},
		{"amqps alone: system roots", func(c *Config) { c.Bus.URL = "amqps://rabbit:5671/" }, ""},
		{"amqps and enabled", func(c *Config) { c.Bus.URL = "amqps://rabbit:5671/"; c.Bus.TLS.Enabled = true }, ""},
		{"rediss with files", func(c *Config) { c.Redis.URL = "rediss://:pw@cache:6380/0"; files(&c.Redis.TLS) }, ""},
		{"sentinel enabled, system roots", func(c *Config) {
			c.Redis.Addrs, c.Redis.MasterName, c.Redis.TLS.Enabled = []string{"s1:26379"}, "m", true
		}, ""},
		{"cluster enabled with files", func(c *Config) {
			c.Redis.Addrs, c.Redis.TLS.Enabled = []string{"n1:7000", "n2:7000"}, true
			files(&c.Redis.TLS)
		}, ""},
		{"ca file with amqp://", func(c *Config) { c.Bus.URL = "amqp://u:secretpw@rabbit/"; c.Bus.TLS.CAFile = ca.CA },
			`config: bus.tls.ca_file: is set, but TLS is off: use an amqps:// bus.url, got "amqp://u:xxxxx@rabbit/"`},
		{"enabled with amqp://", func(c *Config) { c.Bus.URL = "amqp://rabbit/"; c.Bus.TLS.Enabled = true },
			`config: bus.tls.enabled: is set, but TLS is off: use an amqps:// bus.url, got "amqp://rabbit/"`},
		{"tls for the embedded bus", func(c *Config) { c.Bus.TLS.ServerName = "rabbit" },
			`config: bus.tls.server_name: is set, but TLS is off: bus.url is empty (the embedded bus has no network)`},
		{"tls for the embedded memory", func(c *Config) { c.Redis.TLS.Enabled = true },
			`config: redis.tls.enabled: is set, but TLS is off: neither redis.url nor redis.addrs is set (the embedded memory has no network)`},
		{"enabled with redis://", func(c *Config) { c.Redis.URL = "redis://cache:6379/0"; c.Redis.TLS.Enabled = true },
			`config: redis.tls.enabled: is set, but TLS is off: use a rediss:// redis.url, got "redis://cache:6379/0"`},
		{"addrs files without enabled", func(c *Config) { c.Redis.Addrs = []string{"n1:7000"}; c.Redis.TLS.CAFile = ca.CA },
			`config: redis.tls.ca_file: is set, but TLS is off: set redis.tls.enabled: true for redis.addrs`},
		{"cert without key", func(c *Config) { c.Bus.URL = "amqps://rabbit/"; c.Bus.TLS.CertFile = ca.ClientCert },
			`config: bus.tls.key_file: must be set with bus.tls.cert_file ("` + ca.ClientCert + `")`},
		{"key without cert", func(c *Config) { c.Redis.URL = "rediss://cache/0"; c.Redis.TLS.KeyFile = ca.ClientKey },
			`config: redis.tls.cert_file: must be set with redis.tls.key_file ("` + ca.ClientKey + `")`},
		{"missing ca file", func(c *Config) { c.Bus.URL = "amqps://rabbit/"; c.Bus.TLS.CAFile = missing },
			`config: bus.tls.ca_file: cannot read "` + missing + `": no such file or directory`},
		{"ca file a device", func(c *Config) { c.Bus.URL = "amqps://rabbit/"; c.Bus.TLS.CAFile = "/dev/zero" },
			`config: bus.tls.ca_file: "/dev/zero" is a character device, not a regular file`},
		{"key file a device", func(c *Config) {
			c.Redis.URL = "rediss://cache/0"
			c.Redis.TLS.CertFile, c.Redis.TLS.KeyFile = ca.ClientCert, "/dev/zero"
		}, `config: redis.tls.key_file: "/dev/zero" is a character device, not a regular file`},
		{"ca file not PEM", func(c *Config) { c.Redis.URL = "rediss://cache/0"; c.Redis.TLS.CAFile = notPEM },
			`config: redis.tls.ca_file: "` + notPEM + `" holds no PEM certificate`},
		{"missing key file", func(c *Config) {
			c.Bus.URL = "amqps://rabbit/"
			c.Bus.TLS.CertFile, c.Bus.TLS.KeyFile = ca.ClientCert, missing
		}, `config: bus.tls.key_file: cannot read "` + missing + `": no such file or directory`},
		{"key of another certificate", func(c *Config) {
			c.Bus.URL = "amqps://rabbit/"
			c.Bus.TLS.CertFile, c.Bus.TLS.KeyFile = ca.ClientCert, ca.ServerKey
		}, `config: bus.tls.cert_file: "` + ca.ClientCert + `" with bus.tls.key_file "` + ca.ServerKey + `": tls: private key does not match public key`},
		{"insecure with a CA", func(c *Config) {
			c.Bus.URL = "amqps://rabbit/"
			c.Bus.TLS.CAFile, c.Bus.TLS.InsecureSkipVerify = ca.CA, true
		}, `config: bus.tls.insecure_skip_verify: true ignores bus.tls.ca_file ("` + ca.CA + `"): set one or the other`},
		{"bad server name", func(c *Config) { c.Bus.URL = "amqps://rabbit/"; c.Bus.TLS.ServerName = "rabbit internal" },
			`config: bus.tls.server_name: must be a host name, got "rabbit internal"`},
		{"url TLS parameters with bus.tls", func(c *Config) {
			c.Bus.URL = "amqps://rabbit/?cacertfile=/etc/ca.pem"
			c.Bus.TLS.CAFile = ca.CA
		}, `config: bus.url: its TLS parameter "cacertfile" cannot be combined with bus.tls.*: set the files in bus.tls only`},
		{"url TLS parameters alone", func(c *Config) { c.Bus.URL = "amqps://rabbit/?cacertfile=/etc/ca.pem" }, ""},
		{"redis skip_verify in the url", func(c *Config) { c.Redis.URL = "rediss://cache:6380/0?skip_verify=true" },
			`config: redis.url: skip_verify in the URL is refused: certificate checks are turned off only by redis.tls.insecure_skip_verify: true`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := Default()
			tc.mutate(c)
			err := c.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tc.want != "" && (err == nil || err.Error() != tc.want):
				t.Errorf("Validate() = %v\nwant %s", err, tc.want)
			case tc.want != "" && !errors.Is(err, ErrInvalid):
				t.Errorf("Validate() = %v, does not wrap ErrInvalid", err)
			}
		})
	}
}

func TestClientTLS(t *testing.T) {
	ca := testca.New(t)
	c := Default()
	c.Bus.URL = "amqps://rabbit:5671/"
	if tc, err := c.Bus.ClientTLS(); tc != nil || err != nil {
		t.Errorf("amqps:// without bus.tls: ClientTLS = %v, %v; want nil (the URL's defaults)", tc, err)
	}
	c.Bus.TLS = TLSConfig{CAFile: ca.CA, CertFile: ca.ClientCert, KeyFile: ca.ClientKey, ServerName: "rabbit.internal"}
	tc, err := c.Bus.ClientTLS()
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(tc.Certificates[0].Certificate[0])
	if err != nil || leaf.Subject.CommonName != testca.ClientName || tc.RootCAs == nil || tc.ServerName != "rabbit.internal" || tc.InsecureSkipVerify {
		t.Errorf("ClientTLS = %+v (leaf %v), want the CA, the client certificate and the server name", tc, err)
	}
	c.Bus.URL = "amqp://rabbit/" // TLS off: nothing, whatever bus.tls says (Validate refuses it)
	if tc, _ := c.Bus.ClientTLS(); tc != nil {
		t.Errorf("amqp://: ClientTLS = %+v, want nil", tc)
	}

	c.Redis.Addrs, c.Redis.TLS.Enabled = []string{"n1:7000", "n2:7000"}, true
	tc, err = c.Redis.ClientTLS()
	if err != nil || tc == nil || tc.RootCAs != nil || len(tc.Certificates) != 0 {
		t.Errorf("redis.addrs with enabled only: ClientTLS = %+v, %v; want TLS with the system roots", tc, err)
	}
	c.Redis.TLS.Enabled = false
	if tc, _ := c.Redis.ClientTLS(); tc != nil {
		t.Errorf("redis.addrs without enabled: ClientTLS = %+v, want nil (plain TCP)", tc)
	}
	c.Redis.Addrs, c.Redis.URL = nil, "rediss://cache:6380/0"
	if tc, _ := c.Redis.ClientTLS(); tc != nil {
		t.Errorf("rediss:// without redis.tls: ClientTLS = %+v, want nil (go-redis's defaults)", tc)
	}
	c.Redis.TLS.CAFile = filepath.Join(t.TempDir(), "gone.pem")
	var fe *FieldError
	if _, err := c.Redis.ClientTLS(); !errors.As(err, &fe) || fe.Key != "redis.tls.ca_file" {
		t.Errorf("ClientTLS with a missing CA file = %v, want a FieldError for redis.tls.ca_file", err)
	}
}

func TestTLSWarnings(t *testing.T) {
	c := Default()
	if w := c.TLSWarnings(); len(w) != 0 {
		t.Errorf("default: TLSWarnings = %q, want none", w)
	}
	c.Bus.URL, c.Redis.URL = "amqp://guest:guest@127.0.0.1:5672/", "redis://localhost:6379/0"
	if w := c.TLSWarnings(); len(w) != 0 {
		t.Errorf("loopback in clear: TLSWarnings = %q, want none", w)
	}
	c.Bus.URL, c.Redis.URL = "amqps://rabbit/", "rediss://cache/0"
	c.Bus.TLS.InsecureSkipVerify, c.Redis.TLS.InsecureSkipVerify = true, true
	w := c.TLSWarnings()
	if len(w) != 2 || !strings.HasPrefix(w[0], "bus.tls.insecure_skip_verify is true") || !strings.HasPrefix(w[1], "redis.tls.insecure_skip_verify is true") {
		t.Errorf("insecure_skip_verify: TLSWarnings = %q, want one warning for each", w)
	}
	c = Default()
	c.Bus.URL, c.Redis.URL = "amqp://u:secretpw@rabbit.prod:5672/", "redis://:secretpw@cache.prod:6379/0"
	w = c.TLSWarnings()
	if len(w) != 2 || !strings.Contains(w[0], "amqps://") || !strings.Contains(w[1], "rediss://") || strings.Contains(strings.Join(w, " "), "secretpw") {
		t.Errorf("remote hosts in clear: TLSWarnings = %q, want one warning for each, passwords hidden", w)
	}
}

// A TLS key set through its environment variable is validated on Load.
func TestLoadTLSFromEnv(t *testing.T) {
	isolate(t)
	t.Setenv("A2ABUS_BUS_URL", "amqps://rabbit:5671/")
	t.Setenv("A2ABUS_BUS_TLS_CA_FILE", "/nonexistent/ca.pem")
	_, err := Load(LoadOptions{SearchDirs: []string{}})
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Key != "bus.tls.ca_file" {
		t.Errorf("Load with a missing bus.tls.ca_file = %v, want a FieldError for it", err)
	}
}
