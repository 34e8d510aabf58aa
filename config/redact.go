package config

import (
	"slices"
	"strings"
)

// Secret replaces every secret in the output of Redacted.
const Secret = "xxxxx"

// Redacted returns a copy of c that is safe to print: the passwords in
// bus.url and redis.url, redis.password and directory.announce_secret are
// replaced by Secret.
func (c *Config) Redacted() *Config {
	r := *c
	r.Redis.Addrs = slices.Clone(c.Redis.Addrs)
	r.Bus.URL = redactURL(c.Bus.URL)
	r.Redis.URL = redactURL(c.Redis.URL)
	if r.Redis.Password != "" {
		r.Redis.Password = Secret
	}
	if r.Directory.AnnounceSecret != "" {
		r.Directory.AnnounceSecret = Secret
	}
	return &r
}

// redactURL hides the password of raw: everything between the first ':' after
// "://" and the last '@'. It works on the text, not on a parsed URL, so that a
// URL that does not parse (it ends up in an error message) or one that parses
// in an unexpected way ("amqp://u:123/x@host") never leaks its secret.
func redactURL(raw string) string {
	_, rest, ok := strings.Cut(raw, "://")
	if !ok {
		if strings.Contains(raw, "@") {
			return Secret
		}
		return raw
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return raw
	}
	colon := strings.Index(rest[:at], ":")
	if colon < 0 {
		return raw
	}
	prefix := len(raw) - len(rest)
	return raw[:prefix+colon+1] + Secret + rest[at:]
}
