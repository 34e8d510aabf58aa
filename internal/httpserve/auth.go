// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package httpserve

import (
	"crypto/sha256"
	"crypto/subtle"
	"net"
	"net/http"
	"strconv"
	"strings"
)

// BearerAuth wraps h so that only requests whose Authorization header is
// "Bearer <token>" reach it; the token is compared in constant time (of
// digests, so its length does not leak either). Any other request gets 401
// with a WWW-Authenticate challenge naming realm and a body saying what was
// wrong, never the token. token must not be empty.
func BearerAuth(h http.Handler, token, realm string) http.Handler {
	want := sha256.Sum256([]byte(token))
	challenge := "Bearer realm=" + strconv.Quote(realm)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, reason := bearer(r.Header.Values("Authorization"))
		if reason == "" {
			sum := sha256.Sum256([]byte(got))
			if subtle.ConstantTimeCompare(sum[:], want[:]) == 1 {
				h.ServeHTTP(w, r)
				return
			}
			reason = "the bearer token is not the one configured"
		}
		w.Header().Set("WWW-Authenticate", challenge)
		http.Error(w, "unauthorized: "+reason, http.StatusUnauthorized)
	})
}

// bearer returns the token of an Authorization header, or why there is none.
func bearer(values []string) (token, reason string) {
	switch len(values) {
	case 0:
		return "", "no Authorization header: send \"Authorization: Bearer <token>\""
	case 1:
	default:
		return "", "more than one Authorization header"
	}
	scheme, cred, _ := strings.Cut(strings.TrimSpace(values[0]), " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", "the Authorization header is not \"Bearer <token>\""
	}
	if cred = strings.TrimSpace(cred); cred == "" {
		return "", "the bearer token is empty"
	}
	return cred, ""
}

// IsLoopback reports whether addr is a loopback address (127.0.0.0/8,
// ::1): only local processes reach it. An unspecified address (0.0.0.0,
// [::]) listens on every interface and is not loopback.
func IsLoopback(addr net.Addr) bool {
	switch a := addr.(type) {
	case *net.TCPAddr:
		return a.IP.IsLoopback()
	default:
		host, _, err := net.SplitHostPort(addr.String())
		if err != nil {
			return false
		}
		ip := net.ParseIP(host)
		return ip != nil && ip.IsLoopback()
	}
}
