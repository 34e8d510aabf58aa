// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package config

import "slices"

// The values of directory.trust (directory.Trust).
const (
	TrustPinned = "pinned"
	TrustTOFU   = "tofu"
	TrustAny    = "any"
)

// validateSigning checks directory.trust, directory.pins_file and agent.signing_key_file.
func (c *Config) validateSigning() []error {
	var errs []error
	d := c.Directory
	if !slices.Contains([]string{TrustPinned, TrustTOFU, TrustAny}, d.Trust) {
		errs = append(errs, invalid("directory.trust", "must be %s, %s or %s, got %q", TrustPinned, TrustTOFU, TrustAny, d.Trust))
	}
	if d.Trust == TrustTOFU && d.PinsFile == "" {
		errs = append(errs, invalid("directory.pins_file", "must name a file when directory.trust is %s (the keys trusted on first use are kept there)", TrustTOFU))
	}
	for _, other := range []struct{ key, file string }{{"directory.well_known_file", d.WellKnownFile}, {"directory.known_agents_file", d.KnownAgentsFile}} {
		if d.PinsFile != "" && d.PinsFile == other.file {
			errs = append(errs, invalid("directory.pins_file", "must differ from %s, both are %q", other.key, d.PinsFile))
		}
	}
	return errs
}
