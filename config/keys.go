package config

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
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
	fs := fields(new(Config))
	keys := make([]string, len(fs))
	for i, f := range fs {
		keys[i] = f.key
	}
	return keys
}

// field is one leaf of a Config: its dotted key and its settable value.
type field struct {
	key string
	val reflect.Value
}

// fields walks c's leaves; the key of each is the path of its mapstructure tags.
func fields(c *Config) []field {
	var out []field
	walk(reflect.ValueOf(c).Elem(), "", &out)
	return out
}

func walk(v reflect.Value, prefix string, out *[]field) {
	t := v.Type()
	for i := range t.NumField() {
		key := t.Field(i).Tag.Get("mapstructure")
		if prefix != "" {
			key = prefix + "." + key
		}
		if fv := v.Field(i); fv.Kind() == reflect.Struct {
			walk(fv, key, out)
		} else {
			*out = append(*out, field{key: key, val: fv})
		}
	}
}

var durationType = reflect.TypeFor[time.Duration]()

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
	case f.val.Kind() == reflect.Slice && f.val.Type().Elem().Kind() == reflect.String:
		v, err = toStrings(raw)
	default:
		return fmt.Errorf("config: key %s has unsupported type %s", f.key, f.val.Type())
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
