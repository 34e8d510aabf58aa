// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package rabbitmq

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/pkg/a2a"
)

func TestOptionsDefaults(t *testing.T) {
	o, err := Options{URL: "amqp://guest:guest@localhost/"}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if o.Exchange != a2a.DefaultExchange || o.QueueType != QueueTypeClassic ||
		o.PublishTimeout != DefaultPublishTimeout || o.ReconnectMin != DefaultReconnectMin ||
		o.ReconnectMax != DefaultReconnectMax || o.PublishChannels != DefaultPublishChannels || o.Logger == nil {
		t.Errorf("defaults not applied: %+v", o)
	}
}

func TestOptionsInvalid(t *testing.T) {
	for _, tc := range []struct {
		name  string
		opts  Options
		field string
	}{
		{"no URL", Options{}, "URL"},
		{"bad scheme", Options{URL: "http://u:topsecret@host/"}, "URL"},
		{"unparsable URL", Options{URL: "amqp://u:topsecret@host:port/"}, "URL"},
		{"queue type", Options{URL: "amqp://h/", QueueType: "stream"}, "QueueType"},
		{"negative timeout", Options{URL: "amqp://h/", PublishTimeout: -time.Second}, "PublishTimeout"},
		{"min above max", Options{URL: "amqp://h/", ReconnectMin: time.Minute, ReconnectMax: time.Second}, "ReconnectMin"},
		{"negative channels", Options{URL: "amqp://h/", PublishChannels: -1}, "PublishChannels"},
	} {
		_, err := tc.opts.withDefaults()
		if !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("%s: err = %v, want ErrInvalidOptions", tc.name, err)
			continue
		}
		if !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%s: error %q does not name %s", tc.name, err, tc.field)
		}
		if strings.Contains(err.Error(), "topsecret") {
			t.Errorf("%s: error %q leaks the password", tc.name, err)
		}
	}
}

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"amqp://guest:guest@127.0.0.1:5672/":  "amqp://guest:xxxxx@127.0.0.1:5672/",
		"amqps://u:p%40ss@rabbit.example/vh":  "amqps://u:xxxxx@rabbit.example/vh",
		"amqp://127.0.0.1/":                   "amqp://127.0.0.1/",
		"amqp://only-user@host/":              "amqp://only-user@host/",
		"amqp://u:secret@host:port-not-a-num": "amqp://u:xxxxx@host:port-not-a-num",
		"amqp://u:pw@host/?api_key=k1":        "amqp://u:xxxxx@host/?api_key=xxxxx",
	} {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
}
