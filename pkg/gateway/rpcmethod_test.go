// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package gateway

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestRPCMethod: the method the gateway reads before a2asrv is the one
// a2asrv decodes (json.Decoder, the first value), whatever the body: keys
// in another case, repeated, escaped; nested objects and strings holding
// braces, quotes and a "method" of their own; trailing bytes; bodies that
// are not JSON-RPC at all.
func TestRPCMethod(t *testing.T) {
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"parts":[{"text":"}{\"method\":\"x\"]["}]}}}`,
		`{"params":{"method":"SubscribeToTask"},"method":"GetTask"}`,
		`{"method":"GetTask","method":"SendStreamingMessage"}`,
		`{"METHOD":"SendStreamingMessage"}`,
		`{"MeThOd":"SendStreamingMessage","id":[1,{"a":[2,3]}],"x":null,"y":true,"z":-1.5e3}`,
		`{"\u006dethod":"SendStreamingMessage"}`,
		`{"method":"Send\u0053treamingMessage"}`,
		`{"method":"SubscribeToTask"} {"method":"GetTask"}`,
		`{"method":"SubscribeToTask"}garbage`,
		` { "method" : "SendStreamingMessage" , "id" : 2 } `,
		`{"method":7}`,
		`{"method":null}`,
		`{"mеthod":"SendStreamingMessage"}`, // a Cyrillic е: not the key
		`{"id":1,"params":{"a":"b"}`,
		`{}`, `[]`, `"method"`, ``, `{`, `{"method"`, `{"method":"Get`, `{"a":"\"}`, `nonsense`,
	} {
		var want struct {
			Method string `json:"method"`
		}
		_ = json.NewDecoder(bytes.NewReader([]byte(body))).Decode(&want)
		if got := rpcMethod([]byte(body)); got != want.Method {
			t.Errorf("rpcMethod(%s) = %q, want %q (as a2asrv decodes it)", body, got, want.Method)
		}
	}
}

// BenchmarkRPCMethod measures reading the method of a SendMessage.
func BenchmarkRPCMethod(b *testing.B) {
	body := []byte(`{"id":1,"jsonrpc":"2.0","method":"SendMessage","params":{"configuration":{"returnImmediately":true},` +
		`"message":{"messageId":"m-bench","parts":[{"text":"bench"}],"role":"ROLE_USER"},"metadata":{"skill":"echo"}}}`)
	b.ReportAllocs()
	for b.Loop() {
		if rpcMethod(body) != "SendMessage" {
			b.Fatal("not SendMessage")
		}
	}
}
