// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package directory

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// A well-known entry with a URL is a remote A2A agent: one that speaks A2A
// over HTTP somewhere on the web, which `a2abus serve --remote NAME`
// bridges onto the bus under the entry's agentName (docs/a2a-remote.md).

// MaxCardURLBytes bounds the URL of a remote agent's card.
const MaxCardURLBytes = 2048

// DefaultAPIKeyHeader is the header an API key is sent in when none is named.
const DefaultAPIKeyHeader = "X-API-Key"

// WellKnownAuth is how the bridge of a remote agent authenticates to it:
// the files its secret is read from, never the secret itself (the
// well-known file is shared by every directory). At most one of
// BearerTokenFile and APIKeyFile.
type WellKnownAuth struct {
	// BearerTokenFile holds a token sent as Authorization: Bearer <token>
	// (its first line, surrounding spaces trimmed).
	BearerTokenFile string `json:"bearerTokenFile,omitempty"`
	// APIKeyFile holds an API key sent in APIKeyHeader (its first line).
	APIKeyFile string `json:"apiKeyFile,omitempty"`
	// APIKeyHeader names the header of the API key; default X-API-Key.
	APIKeyHeader string `json:"apiKeyHeader,omitempty"`
}

// ValidateCardURL reports what is wrong with the URL of a remote agent's
// card: it must be an absolute http or https URL with a host, without a
// user or password (a secret goes in the authentication, not the URL), a
// fragment, or more than MaxCardURLBytes. The error never quotes a password.
func ValidateCardURL(raw string) error {
	if raw == "" {
		return errors.New("required")
	}
	if len(raw) > MaxCardURLBytes {
		return fmt.Errorf("at most %d bytes, got %d", MaxCardURLBytes, len(raw))
	}
	u, err := url.Parse(raw)
	if err != nil {
		return errors.New("not a URL")
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("must be an http:// or https:// URL, got scheme %q", u.Scheme)
	case u.Host == "" || u.Hostname() == "":
		return errors.New("must name a host")
	case u.User != nil:
		return errors.New("must not carry a user or password (give the credential as the remote's authentication)")
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return errors.New("must not have a fragment (#…)")
	}
	return nil
}

// ValidHeaderName reports whether name is an HTTP header field name (an
// RFC 9110 token: letters, digits and !#$%&'*+-.^_`|~).
func ValidHeaderName(name string) bool {
	if name == "" || len(name) > 256 {
		return false
	}
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', strings.ContainsRune("!#$%&'*+-.^_`|~", r):
		default:
			return false
		}
	}
	return true
}

// validateRemote checks an entry's url and auth; errs gets one reason each.
func (w WellKnownAgent) validateRemote() []string {
	var errs []string
	if w.URL == "" {
		if w.Auth != nil {
			errs = append(errs, "auth: only with url (the authentication of a remote agent)")
		}
		return errs
	}
	if err := ValidateCardURL(w.URL); err != nil {
		errs = append(errs, "url: "+err.Error())
	}
	if a := w.Auth; a != nil {
		if a.BearerTokenFile != "" && a.APIKeyFile != "" {
			errs = append(errs, "auth: give bearerTokenFile or apiKeyFile, not both")
		}
		if a.APIKeyHeader != "" && (a.APIKeyFile == "" || !ValidHeaderName(a.APIKeyHeader)) {
			errs = append(errs, fmt.Sprintf("auth.apiKeyHeader: must name an HTTP header (letters, digits, '-', …) and come with apiKeyFile, got %q", a.APIKeyHeader))
		}
	}
	return errs
}
