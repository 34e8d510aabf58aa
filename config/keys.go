// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package config

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"
)

// EnvPrefix starts the environment variable of every key.
const EnvPrefix = "A2ABUS"

// EnvName is the environment variable that sets key: EnvPrefix, "_", then the
// key upper-cased with dots as underscores (bus.url → A2ABUS_BUS_URL).
func EnvName(key string) string {
	return EnvPrefix + "_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// Keys lists every configuration key (bus.url, redis.addrs, ...) in struct order.
func Keys() []string {
	ls := leaves()
	keys := make([]string, len(ls))
	for i, l := range ls {
		keys[i] = l.key
	}
	return keys
}

// leaf is one key of the Config type: its dotted key (the path of its
// mapstructure tags), its environment variable (EnvName) and the index of
// its field (reflect.Value.FieldByIndex).
type leaf struct {
	key, env string
	index    []int
}

// leaves lists the keys of the Config type in struct order. It is built on
// first use, once: every program's configuration is loaded at its start,
// and building it per load was most of what loading allocated.
var leaves = sync.OnceValue(func() []leaf {
	var out []leaf
	walk(reflect.TypeFor[Config](), "", nil, &out)
	return out
})

func walk(t reflect.Type, prefix string, index []int, out *[]leaf) {
	for i := range t.NumField() {
		f := t.Field(i)
		key := f.Tag.Get("mapstructure")
		if prefix != "" {
			key = prefix + "." + key
		}
		idx := append(slices.Clip(index), i)
		if f.Type.Kind() == reflect.Struct {
			walk(f.Type, key, idx, out)
		} else {
			*out = append(*out, leaf{key: key, env: EnvName(key), index: idx})
		}
	}
}

// field is one leaf of a Config: its dotted key and its settable value.
type field struct {
	key string
	val reflect.Value
}

// fields returns c's leaves, in the order of Keys.
func fields(c *Config) []field {
	v := reflect.ValueOf(c).Elem()
	ls := leaves()
	out := make([]field, len(ls))
	for i, l := range ls {
		out[i] = field{key: l.key, val: v.FieldByIndex(l.index)}
	}
	return out
}

var (
	durationType     = reflect.TypeFor[time.Duration]()
	policyRulesType  = reflect.TypeFor[[]PolicyRule]()
	remoteAgentsType = reflect.TypeFor[[]RemoteAgent]()
)

// set stores raw (from a file, an environment variable, a flag or a default)
// into f, converting it to the field's type.
func (f field) set(raw any) error {
	if raw == nil {
		return nil
	}
	var (
		v   any
		err error
	)
	switch {
	case f.val.Type() == durationType:
		v, err = toDuration(raw)
	case f.val.Kind() == reflect.String:
		v, err = toString(raw)
	case f.val.Kind() == reflect.Int:
		v, err = toInt(raw)
	case f.val.Kind() == reflect.Bool:
		v, err = toBool(raw)
	case f.val.Kind() == reflect.Float64:
		v, err = toFloat(raw)
	case f.val.Kind() == reflect.Slice && f.val.Type().Elem().Kind() == reflect.String:
		v, err = toStrings(raw)
	case f.val.Type() == policyRulesType:
		v, err = toRules(f.key, raw)
	case f.val.Type() == remoteAgentsType:
		v, err = toRemoteAgents(f.key, raw)
	default:
		return fmt.Errorf("config: key %s has unsupported type %s", f.key, f.val.Type())
	}
	if errors.Is(err, ErrInvalid) {
		return err // already names its key (an item of a list)
	}
	if err != nil {
		return &FieldError{Key: f.key, Reason: err.Error()}
	}
	f.val.Set(reflect.ValueOf(v).Convert(f.val.Type()))
	return nil
}

func toDuration(raw any) (time.Duration, error) {
	switch x := raw.(type) {
	case time.Duration:
		return x, nil
	case string:
		d, err := time.ParseDuration(strings.TrimSpace(x))
		if err != nil {
			return 0, fmt.Errorf("must be a duration such as \"10s\" or \"1h30m\", got %q", x)
		}
		return d, nil
	default:
		return 0, fmt.Errorf("must be a duration with a unit such as \"10s\", got %v", raw)
	}
}

func toString(raw any) (string, error) {
	switch x := raw.(type) {
	case string:
		return x, nil
	case bool, int, int64, uint64, float64:
		return fmt.Sprint(x), nil
	default:
		return "", fmt.Errorf("must be a string, got %s", describe(raw))
	}
}

func toInt(raw any) (int, error) {
	switch x := raw.(type) {
	case int:
		return x, nil
	case int64:
		return int(x), nil
	case uint64:
		if x <= uint64(int(^uint(0)>>1)) {
			return int(x), nil
		}
	case float64:
		if x == float64(int(x)) {
			return int(x), nil
		}
	case string:
		if n, err := strconv.Atoi(strings.TrimSpace(x)); err == nil {
			return n, nil
		}
		return 0, fmt.Errorf("must be an integer, got %q", x)
	}
	return 0, fmt.Errorf("must be an integer, got %s", describe(raw))
}

// toFloat accepts a YAML number or, as environment variables and flags give,
// a string such as "2.5".
func toFloat(raw any) (float64, error) {
	switch x := raw.(type) {
	case float64:
		return x, nil
	case int:
		return float64(x), nil
	case int64:
		return float64(x), nil
	case uint64:
		return float64(x), nil
	case string:
		if f, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f, nil
		}
		return 0, fmt.Errorf("must be a number, got %q", x)
	}
	return 0, fmt.Errorf("must be a number, got %s", describe(raw))
}

// toBool accepts a YAML boolean or, as environment variables and flags give,
// a string such as "true", "false", "1" or "0".
func toBool(raw any) (bool, error) {
	switch x := raw.(type) {
	case bool:
		return x, nil
	case string:
		if b, err := strconv.ParseBool(strings.TrimSpace(x)); err == nil {
			return b, nil
		}
		return false, fmt.Errorf("must be true or false, got %q", x)
	}
	return false, fmt.Errorf("must be true or false, got %s", describe(raw))
}

// toStrings accepts a list or, as environment variables give, one
// comma-separated string; blank items are dropped.
func toStrings(raw any) ([]string, error) {
	var items []string
	switch x := raw.(type) {
	case []string:
		items = x
	case string:
		items = strings.Split(x, ",")
	case []any:
		for i, e := range x {
			s, err := toString(e)
			if err != nil {
				return nil, fmt.Errorf("item %d: %w", i, err)
			}
			items = append(items, s)
		}
	default:
		return nil, fmt.Errorf("must be a list of strings, got %s", describe(raw))
	}
	out := make([]string, 0, len(items))
	for _, s := range items {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out, nil
}

// toRules accepts a list of rule mappings or, as an environment variable
// gives, the same list written as JSON or YAML. An error names the item and
// key (policy.rules[1].allow), and unknown keys are errors.
func toRules(key string, raw any) ([]PolicyRule, error) {
	switch x := raw.(type) {
	case []PolicyRule: // the default
		return slices.Clone(x), nil
	case string:
		var parsed any
		if err := yaml.Unmarshal([]byte(x), &parsed); err != nil {
			return nil, errors.New("must be a list of rules written as JSON or YAML, e.g. [{\"caller\": \"Cli\", \"deny\": [\"Admin*\"]}]")
		}
		if parsed == nil {
			return []PolicyRule{}, nil
		}
		raw = parsed
	}
	items, ok := raw.([]any)
	if !ok {
		return nil, fmt.Errorf("must be a list of rules (mappings of caller, may_call, allow, deny), got %s", describe(raw))
	}
	rules := make([]PolicyRule, 0, len(items))
	var errs []error
	for i, item := range items {
		r, err := toRule(fmt.Sprintf("%s[%d]", key, i), item)
		errs = append(errs, err)
		rules = append(rules, r)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return rules, nil
}

// toMapping reads raw, one entry of a list under key, as a mapping (YAML
// gives map[string]any or map[any]any); anything else is refused naming
// the keys the mapping takes.
func toMapping(key string, raw any, keys []string) (map[string]any, error) {
	switch x := raw.(type) {
	case map[string]any:
		return x, nil
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, v := range x {
			m[fmt.Sprint(k)] = v
		}
		return m, nil
	}
	return nil, invalid(key, "must be a mapping of %s, got %s", strings.Join(keys, ", "), describe(raw))
}

// ruleKeys are the keys of one policy rule.
var ruleKeys = []string{"caller", "may_call", "allow", "deny"}

func toRule(key string, raw any) (PolicyRule, error) {
	m, err := toMapping(key, raw, ruleKeys)
	if err != nil {
		return PolicyRule{}, err
	}
	var (
		r    PolicyRule
		errs []error
	)
	fail := func(k string, err error) {
		if err != nil {
			errs = append(errs, invalid(key+"."+k, "%v", err))
		}
	}
	names := slices.Sorted(maps.Keys(m))
	for _, k := range names {
		v := m[k]
		if v == nil {
			continue // written but empty: the default
		}
		var err error
		switch strings.ToLower(k) {
		case "caller":
			r.Caller, err = toString(v)
		case "may_call":
			var b bool
			if b, err = toBool(v); err == nil {
				r.MayCall = &b
			}
		case "allow":
			r.Allow, err = toStrings(v)
		case "deny":
			r.Deny, err = toStrings(v)
		default:
			err = fmt.Errorf("unknown key (a rule has %s)", strings.Join(ruleKeys, ", "))
		}
		fail(k, err)
	}
	if len(r.Allow) == 0 {
		r.Allow = nil // "allow: []" and no allow mean the same
	}
	if len(r.Deny) == 0 {
		r.Deny = nil
	}
	return r, errors.Join(errs...)
}

// describe names the shape of a value without printing it (it may be a secret).
func describe(raw any) string {
	switch raw.(type) {
	case map[string]any:
		return "a mapping"
	case []any:
		return "a list"
	case bool:
		return "a boolean"
	case float64:
		return fmt.Sprintf("the number %v", raw)
	default:
		return fmt.Sprintf("a %T", raw)
	}
}
