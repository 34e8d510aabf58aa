// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package gateway_test

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/agents/sample"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/gateway"
)

// signer signs JWTs with an RSA or an EC key published in a JWKS.
type signer struct {
	kid string
	rsa *rsa.PrivateKey
	ec  *ecdsa.PrivateKey
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func (s signer) jwk() map[string]any {
	if s.rsa != nil {
		return map[string]any{"kty": "RSA", "kid": s.kid, "use": "sig", "alg": "RS256",
			"n": b64(s.rsa.N.Bytes()), "e": b64(big.NewInt(int64(s.rsa.E)).Bytes())}
	}
	pad := func(b []byte) []byte { return append(make([]byte, 32-len(b)), b...) }
	return map[string]any{"kty": "EC", "kid": s.kid, "crv": "P-256", "x": b64(pad(s.ec.X.Bytes())), "y": b64(pad(s.ec.Y.Bytes()))}
}

// token signs claims with alg (RS256 or ES256, or "none" unsigned).
func (s signer) token(t testing.TB, alg string, claims map[string]any) string {
	t.Helper()
	h, _ := json.Marshal(map[string]any{"alg": alg, "kid": s.kid, "typ": "JWT"})
	c, _ := json.Marshal(claims)
	input := b64(h) + "." + b64(c)
	digest := sha256.Sum256([]byte(input))
	var sig []byte
	var err error
	switch alg {
	case "RS256":
		sig, err = rsa.SignPKCS1v15(rand.Reader, s.rsa, crypto.SHA256, digest[:])
	case "ES256":
		var r, ss *big.Int
		r, ss, err = ecdsa.Sign(rand.Reader, s.ec, digest[:])
		sig = append(r.FillBytes(make([]byte, 32)), ss.FillBytes(make([]byte, 32))...)
	}
	if err != nil {
		t.Fatal(err)
	}
	return input + "." + b64(sig)
}

// TestJWT: tokens signed by a key of the JWKS (RS256 and ES256), for the
// audience, unexpired, naming one of the gateway's callers are let in as
// that caller; every other token is 401 — expired, for another audience,
// signed by a key not in the set, unsigned (alg none), tampered — and one
// naming a caller the gateway does not act as is 403.
func TestJWT(t *testing.T) {
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ek, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	rs, es, stranger := signer{kid: "r1", rsa: rk}, signer{kid: "e1", ec: ek}, signer{kid: "e1", ec: other}
	var fetches atomic.Int32
	jwks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fetches.Add(1)
		_ = json.NewEncoder(w).Encode(map[string]any{"keys": []any{rs.jwk(), es.jwk(), map[string]any{"kty": "oct", "k": "c2VjcmV0"}}})
	}))
	t.Cleanup(jwks.Close)

	m := newMesh(t, testworld.Embedded(t), func(o *gateway.Options) {
		o.JWT = &gateway.JWTOptions{JWKSURL: jwks.URL, Audience: "a2abus-test", Issuer: "https://idp.test", Claim: "agent"}
	})
	now := time.Now().Unix()
	claims := func(mod func(map[string]any)) map[string]any {
		c := map[string]any{"iss": "https://idp.test", "aud": []string{"other", "a2abus-test"}, "exp": now + 300, "iat": now, "agent": m.bob}
		if mod != nil {
			mod(c)
		}
		return c
	}
	whoami := rpc("SendMessage", sendParams("who", "whoami", nil))
	for _, tc := range []struct {
		name   string
		token  string
		status int
	}{
		{"RS256", rs.token(t, "RS256", claims(nil)), 200},
		{"ES256", es.token(t, "ES256", claims(nil)), 200},
		{"expired", rs.token(t, "RS256", claims(func(c map[string]any) { c["exp"] = now - 3600 })), 401},
		{"not yet valid", rs.token(t, "RS256", claims(func(c map[string]any) { c["nbf"] = now + 3600 })), 401},
		{"another audience", rs.token(t, "RS256", claims(func(c map[string]any) { c["aud"] = "someone-else" })), 401},
		{"another issuer", rs.token(t, "RS256", claims(func(c map[string]any) { c["iss"] = "https://evil.test" })), 401},
		{"no exp", rs.token(t, "RS256", claims(func(c map[string]any) { delete(c, "exp") })), 401},
		{"no caller claim", rs.token(t, "RS256", claims(func(c map[string]any) { delete(c, "agent") })), 401},
		{"a key not in the set", stranger.token(t, "ES256", claims(nil)), 401},
		{"alg none", strings.TrimSuffix(rs.token(t, "none", claims(nil)), ".") + ".", 401},
		{"tampered", tamper(rs.token(t, "RS256", claims(nil)), m.alice, m.bob), 401},
		{"a caller the gateway does not act as", rs.token(t, "RS256", claims(func(c map[string]any) { c["agent"] = "Mallory" })), 403},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, a := post(t, m.agentURL(m.whoami), "application/json", whoami, "Authorization", "Bearer "+tc.token)
			if resp.StatusCode != tc.status {
				t.Fatalf("HTTP %d %+v, want %d", resp.StatusCode, a.Error, tc.status)
			}
			if tc.status == 200 && !strings.Contains(string(a.Result), "caller="+m.bob+" ") {
				t.Errorf("the agent saw %s, want caller %s", a.Result, m.bob)
			}
			if tc.status != 200 {
				t.Logf("%d: %s", resp.StatusCode, a.Error.Message)
			}
		})
	}
	if n := fetches.Load(); n != 1 {
		t.Errorf("the JWKS was fetched %d times, want once (cached; a key not in it refetches at most every 30s)", n)
	}
	// Keys still work beside the JWTs.
	if resp, a := post(t, m.agentURL(m.sample), "application/json", rpc("SendMessage", sendParams("k", sample.SkillEcho, nil)), "Authorization", "Bearer "+aliceKey); resp.StatusCode != 200 || a.Error != nil {
		t.Errorf("a key beside JWTs: %d %+v", resp.StatusCode, a.Error)
	}
}

// tamper replaces from by to in a token's claims, keeping its signature.
func tamper(token, to, from string) string {
	parts := strings.Split(token, ".")
	c, _ := base64.RawURLEncoding.DecodeString(parts[1])
	parts[1] = b64([]byte(strings.ReplaceAll(string(c), from, to)))
	return strings.Join(parts, ".")
}
