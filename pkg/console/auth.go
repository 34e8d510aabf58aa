// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package console

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
)

// cookieName is the cookie a browser keeps the token in once it opened a
// page with ?token=.
const cookieName = "a2abus_console"

// tokenAuth lets in a request that carries token: "Authorization: Bearer
// <token>", the console's cookie, or ?token= (which sets the cookie and
// redirects to the same page without it, so the token leaves the address
// bar and the history). Anything else is 401.
func tokenAuth(h http.Handler, token string) http.Handler {
	want := sha256.Sum256([]byte(token))
	ok := func(got string) bool {
		sum := sha256.Sum256([]byte(got))
		return got != "" && subtle.ConstantTimeCompare(sum[:], want[:]) == 1
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if q := r.URL.Query().Get("token"); q != "" {
			if !ok(q) {
				http.Error(w, "unauthorized: the token is not the one configured", http.StatusUnauthorized)
				return
			}
			http.SetCookie(w, &http.Cookie{Name: cookieName, Value: q, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
			u := *r.URL
			v := u.Query()
			v.Del("token")
			u.RawQuery = v.Encode()
			http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
			return
		}
		if scheme, cred, found := strings.Cut(r.Header.Get("Authorization"), " "); found && strings.EqualFold(scheme, "Bearer") && ok(strings.TrimSpace(cred)) {
			h.ServeHTTP(w, r)
			return
		}
		if ck, err := r.Cookie(cookieName); err == nil && ok(ck.Value) {
			h.ServeHTTP(w, r)
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="a2abus console"`)
		http.Error(w, "unauthorized: open the console with ?token=<token> or send \"Authorization: Bearer <token>\"", http.StatusUnauthorized)
	})
}
