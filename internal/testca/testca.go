// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package testca makes the certificates of TLS tests: a new certificate
// authority with a server and a client certificate, written as PEM files.
// It imports only the standard library, so any package's tests may use it.
package testca

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Files are the PEM files of a test certificate authority written by Write: the CA's certificate, a server certificate for 127.0.0.1
// and localhost, and a client certificate, each signed by the CA.
type Files struct {
	// Dir holds every file.
	Dir string
	// CA is the CA certificate (ca.pem).
	CA string
	// ServerCert and ServerKey are the server's certificate and PKCS#8 key.
	ServerCert, ServerKey string
	// ClientCert and ClientKey are the client's certificate and PKCS#8 key.
	ClientCert, ClientKey string
}

// ClientName is the common name of the client certificate.
const ClientName = "a2abus-test-client"

// tlsValidity is how long the generated certificates are valid, from an hour ago.
const tlsValidity = 24 * time.Hour

// New writes a new CA and its certificates into a temporary folder of tb.
func New(tb testing.TB) Files {
	tb.Helper()
	f, err := Write(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	return f
}

// Write generates a new CA (ECDSA P-256), a server certificate for
// localhost and 127.0.0.1 and a client certificate (common name
// ClientName) signed by it, and writes them into dir (which must exist).
// Each call makes a different CA: one call's certificates do not verify
// against another's CA.
func Write(dir string) (Files, error) {
	f := Files{
		Dir: dir, CA: filepath.Join(dir, "ca.pem"),
		ServerCert: filepath.Join(dir, "server.pem"), ServerKey: filepath.Join(dir, "server-key.pem"),
		ClientCert: filepath.Join(dir, "client.pem"), ClientKey: filepath.Join(dir, "client-key.pem"),
	}
	now := time.Now().Add(-time.Hour)
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return f, fmt.Errorf("testca: CA key: %w", err)
	}
	caTmpl := &x509.Certificate{
		SerialNumber: serial(), Subject: pkix.Name{CommonName: "a2abus test CA " + filepath.Base(dir)},
		NotBefore: now, NotAfter: now.Add(tlsValidity),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return f, fmt.Errorf("testca: CA certificate: %w", err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return f, fmt.Errorf("testca: parse CA certificate: %w", err)
	}
	if err := writePEM(f.CA, "CERTIFICATE", caDER); err != nil {
		return f, err
	}
	server := &x509.Certificate{
		SerialNumber: serial(), Subject: pkix.Name{CommonName: "localhost"},
		NotBefore: now, NotAfter: now.Add(tlsValidity),
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	if err := issue(server, ca, caKey, f.ServerCert, f.ServerKey); err != nil {
		return f, err
	}
	client := &x509.Certificate{
		SerialNumber: serial(), Subject: pkix.Name{CommonName: ClientName},
		NotBefore: now, NotAfter: now.Add(tlsValidity),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if err := issue(client, ca, caKey, f.ClientCert, f.ClientKey); err != nil {
		return f, err
	}
	return f, nil
}

// issue makes a key for tmpl, signs tmpl with the CA and writes both files.
func issue(tmpl, ca *x509.Certificate, caKey *ecdsa.PrivateKey, certFile, keyFile string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("testca: key for %s: %w", tmpl.Subject.CommonName, err)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return fmt.Errorf("testca: certificate for %s: %w", tmpl.Subject.CommonName, err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return fmt.Errorf("testca: encode key for %s: %w", tmpl.Subject.CommonName, err)
	}
	if err := writePEM(certFile, "CERTIFICATE", der); err != nil {
		return err
	}
	return writePEM(keyFile, "PRIVATE KEY", keyDER)
}

// serial is a random 128-bit certificate serial number.
func serial() *big.Int {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // never fails (crypto/rand.Read documents it)
	return new(big.Int).SetBytes(b)
}

// writePEM writes one PEM block; keys are readable by the owner only.
func writePEM(path, typ string, der []byte) error {
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		return fmt.Errorf("testca: write %s: %w", path, err)
	}
	return nil
}

// ClientTLS is a client configuration trusting f's CA and, when withCert,
// presenting f's client certificate.
func (f Files) ClientTLS(tb testing.TB, withCert bool) *tls.Config {
	tb.Helper()
	pem, err := os.ReadFile(f.CA)
	if err != nil {
		tb.Fatal(err)
	}
	c := &tls.Config{RootCAs: x509.NewCertPool(), MinVersion: tls.VersionTLS12}
	if !c.RootCAs.AppendCertsFromPEM(pem) {
		tb.Fatalf("testca: no certificate in %s", f.CA)
	}
	if withCert {
		pair, err := tls.LoadX509KeyPair(f.ClientCert, f.ClientKey)
		if err != nil {
			tb.Fatal(err)
		}
		c.Certificates = []tls.Certificate{pair}
	}
	return c
}
