// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/a2abus/a2abus/internal/fileread"
	"github.com/a2abus/a2abus/internal/text"
)

// FileName is the configuration file searched for when none is named.
const FileName = "a2abus.yaml"

// MaxFileBytes bounds the configuration file; a longer one, or a path that
// is not a regular file (a FIFO, /dev/zero), is refused before it is parsed.
const MaxFileBytes = 1 << 20

// defaultSearchDirs are searched, in order, for FileName.
var defaultSearchDirs = []string{".", "/etc/a2abus"}

// flagKeys maps the flags AddFlags defines to the keys they set.
var flagKeys = map[string]string{
	"amqp-url":   "bus.url",
	"redis-url":  "redis.url",
	"log-level":  "log.level",
	"log-format": "log.format",
}

// LoadOptions says where Load reads the configuration from.
type LoadOptions struct {
	// File is the file to read (--config); it must exist. Empty searches
	// SearchDirs for FileName and reads it when present.
	File string
	// SearchDirs are searched in order when File is empty; nil means the
	// working directory, then /etc/a2abus.
	SearchDirs []string
	// Flags holds the flags AddFlags defined; those given on the command line
	// override every other source. Nil means no flags.
	Flags *pflag.FlagSet
	// Warn, when set, receives a warning for every A2ABUS_* environment
	// variable that sets no configuration key (a mistyped A2ABUS_BUS_URLL
	// would otherwise be ignored silently), naming the closest variable
	// that does; see UnknownEnv.
	Warn func(string)
}

// AddFlags defines on fs the flags Load understands: --amqp-url (bus.url),
// --redis-url (redis.url), --log-level (log.level), --log-format (log.format).
func AddFlags(fs *pflag.FlagSet) {
	fs.String("amqp-url", "", "RabbitMQ URL, amqp:// or amqps://, or "+EmbeddedURL+" for the in-process bus (bus.url)")
	fs.String("redis-url", "", "Redis URL, redis:// or rediss://, or "+EmbeddedURL+" for the in-process memory (redis.url)")
	fs.String("log-level", "", "log level: debug|info|warn|error (log.level; default "+DefaultLogLevel+")")
	fs.String("log-format", "", "log format: json|console (log.format; default "+DefaultLogFormat+")")
}

// ResolveFile returns the file Load reads: File when set, else the first
// FileName found in SearchDirs, else "" (no file: defaults, env and flags only).
func (o LoadOptions) ResolveFile() (string, error) {
	if o.File != "" {
		return o.File, nil
	}
	dirs := o.SearchDirs
	if dirs == nil {
		dirs = defaultSearchDirs
	}
	for _, dir := range dirs {
		p := filepath.Join(dir, FileName)
		st, err := os.Stat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return "", fmt.Errorf("config: look for %q: %w", p, err)
		case st.IsDir():
			return "", fmt.Errorf("config: %q is a directory, not a file", p)
		}
		return p, nil
	}
	return "", nil
}

// Load resolves the configuration: defaults, then the file, then A2ABUS_*
// environment variables, then flags (each overriding the one before), and
// validates it. Every bad key is reported (errors.Join of errors wrapping
// ErrInvalid); unknown keys in the file are errors too.
func Load(opts LoadOptions) (*Config, error) {
	cfg, _, err := LoadGiven(opts)
	return cfg, err
}

// Given is the set of keys whose value came from the file, an A2ABUS_*
// variable or a flag, rather than from the defaults.
type Given map[string]bool

// LoadGiven is Load that also says which keys were given (see Given), for a
// program that completes what was left to the defaults.
func LoadGiven(opts LoadOptions) (*Config, Given, error) {
	cfg, src, err := LoadSourced(opts)
	if err != nil {
		return nil, nil, err
	}
	return cfg, src.Given(), nil
}

// LoadSourced is Load that also says where every key's value came from
// (see Sources). Every error is reported together: unknown keys of the
// file, values that do not parse and values Validate refuses.
func LoadSourced(opts LoadOptions) (*Config, Sources, error) {
	path, err := opts.ResolveFile()
	if err != nil {
		return nil, nil, err
	}
	v := viper.New()
	cfg := Default()
	leaves := fields(cfg)
	sources := make(Sources, len(leaves))
	for _, f := range leaves {
		sources[f.key] = SourceDefault
	}
	v.SetEnvPrefix(EnvPrefix)
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	v.AutomaticEnv()
	var errs []error
	if path != "" {
		fileKeys, unknown, err := readFile(v, path)
		if err != nil {
			return nil, nil, err
		}
		errs = append(errs, unknown...) // reported with the other errors, not instead of them
		for _, k := range fileKeys {
			if _, known := sources[k]; known {
				sources[k] = SourceFile
			}
		}
	}
	if err := bindFlags(v, opts.Flags); err != nil {
		return nil, nil, err
	}
	environ := os.Environ()
	if opts.Warn != nil {
		for _, w := range UnknownEnv(environ) {
			opts.Warn(w)
		}
	}
	for _, e := range environ {
		name, _, _ := strings.Cut(e, "=")
		if key, known := envKeys()[name]; known && os.Getenv(name) != "" { // an empty variable counts as unset, as for viper
			sources[key] = SourceEnv
		}
	}
	if opts.Flags != nil {
		for name, key := range flagKeys {
			if f := opts.Flags.Lookup(name); f != nil && f.Changed {
				sources[key] = SourceFlag
			}
		}
	}
	reported := map[string]bool{} // keys the file's shape already made an error of
	for _, err := range errs {
		if fe, ok := errors.AsType[*FieldError](err); ok {
			reported[fe.Key] = true
		}
	}
	for _, f := range leaves {
		// Without a file, viper has a value other than the default only for
		// a key set by its variable or flag: the others keep Default's
		// value, without asking viper (most of what a load cost). With a
		// file every key is asked, since a file may shadow or empty a key
		// in ways its list of keys does not show.
		if path == "" && sources[f.key] == SourceDefault {
			continue
		}
		v.SetDefault(f.key, f.val.Interface()) // what viper returns when the file leaves the key null
		if err := f.set(v.Get(f.key)); err != nil && !reported[f.key] {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(append(errs, cfg.validate()...)...); err != nil {
		return nil, nil, err
	}
	return cfg, sources, nil
}

// readFile merges the YAML (or JSON) file at path into v and returns the
// keys it sets, and an error for each key that is no configuration key
// (the other keys still apply, so that their errors are reported too).
func readFile(v *viper.Viper, path string) (keys []string, unknown []error, err error) {
	data, err := fileread.Read(path, MaxFileBytes)
	if err != nil {
		return nil, nil, fmt.Errorf("config: read file: %w", err)
	}
	typ := "yaml"
	if strings.EqualFold(filepath.Ext(path), ".json") {
		typ = "json"
	}
	// A separate instance holds only the file's keys, to find unknown ones.
	fv := viper.New()
	fv.SetConfigType(typ)
	if err := fv.ReadConfig(bytes.NewReader(data)); err != nil {
		return nil, nil, fmt.Errorf("%w: parse %q: %v", ErrInvalid, path, err)
	}
	v.SetConfigType(typ)
	if err := v.ReadConfig(bytes.NewReader(data)); err != nil {
		return nil, nil, fmt.Errorf("%w: parse %q: %v", ErrInvalid, path, err)
	}
	return fv.AllKeys(), unknownKeys(fv.AllKeys(), path), nil
}

// unknownKeys reports every key of a file that is not a configuration key.
func unknownKeys(fileKeys []string, path string) []error {
	known := Keys()
	var errs []error
	slices.Sort(fileKeys)
	mapped := map[string]bool{} // known keys written as a mapping, reported once
	for _, k := range fileKeys {
		i := slices.IndexFunc(known, func(s string) bool { return strings.HasPrefix(k, s+".") })
		switch {
		case slices.Contains(known, k):
		case slices.ContainsFunc(known, func(s string) bool { return strings.HasPrefix(s, k+".") }):
			errs = append(errs, invalid(k, "must be a mapping of keys in %q", path))
		case i >= 0:
			if !mapped[known[i]] {
				mapped[known[i]] = true
				errs = append(errs, invalid(known[i], "must be a value or a list, not a mapping, in %q", path))
			}
		default:
			errs = append(errs, invalid(k, "unknown key in %q", path))
		}
	}
	return errs
}

// bindFlags makes the flags of fs that AddFlags defined override their keys.
func bindFlags(v *viper.Viper, fs *pflag.FlagSet) error {
	if fs == nil {
		return nil
	}
	for name, key := range flagKeys {
		f := fs.Lookup(name)
		if f == nil {
			continue
		}
		if err := v.BindPFlag(key, f); err != nil {
			return fmt.Errorf("config: bind flag --%s to %s: %w", name, key, err)
		}
	}
	return nil
}

// otherEnvPrefixes start the A2ABUS_* variables that are not configuration
// keys but are read by something else: the test suite's servers, and the
// broker passwords of the scripts `a2abus access plan` prints.
var otherEnvPrefixes = []string{EnvPrefix + "_TEST_", EnvPrefix + "_PASSWORD_"}

// UnknownEnv returns a warning for each variable of environ (KEY=value
// entries, as os.Environ gives them) named A2ABUS_* that is the variable of
// no configuration key (EnvName) and not one of otherEnvPrefixes: Load
// ignores it. The warning names the closest known variable when one is
// within a few edits (A2ABUS_BUS_URLL: did you mean A2ABUS_BUS_URL?).
func UnknownEnv(environ []string) []string {
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, EnvPrefix+"_") ||
			slices.ContainsFunc(otherEnvPrefixes, func(p string) bool { return strings.HasPrefix(name, p) }) {
			continue
		}
		if _, known := envKeys()[name]; known {
			continue
		}
		w := fmt.Sprintf("config: environment variable %s sets no configuration key and is ignored", name)
		if near := text.Nearest(name, envNames(), 1, maxSuggestEdits); len(near) == 1 {
			w += fmt.Sprintf(" (did you mean %s?)", near[0])
		}
		out = append(out, w)
	}
	slices.Sort(out)
	return out
}

// envKeys maps the variable of every key (EnvName) to its key; built once.
var envKeys = sync.OnceValue(func() map[string]string {
	m := make(map[string]string, len(leaves()))
	for _, l := range leaves() {
		m[l.env] = l.key
	}
	return m
})

// envNames lists the variable of every key, in the order of Keys; built once.
var envNames = sync.OnceValue(func() []string {
	names := make([]string, len(leaves()))
	for i, l := range leaves() {
		names[i] = l.env
	}
	return names
})

// maxSuggestEdits bounds the edits between a mistyped variable and the one suggested.
const maxSuggestEdits = 3
