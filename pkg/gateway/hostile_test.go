// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package gateway_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	spec "github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/internal/agents/sample"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/gateway"
)

// rpcAnswer is a JSON-RPC answer as the wire has it.
type rpcAnswer struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// post POSTs body to url with the headers (key: value pairs).
func post(t testing.TB, url, contentType, body string, headers ...string) (*http.Response, rpcAnswer) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Add(headers[i], headers[i+1])
	}
	resp, b := do(t, req)
	var a rpcAnswer
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(strings.NewReader(string(b)))
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				_ = json.Unmarshal([]byte(d), &a)
				if a.Error != nil {
					break
				}
			}
		}
		return resp, a
	}
	_ = json.Unmarshal(b, &a)
	return resp, a
}

func rpc(method string, params any) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	return string(b)
}

func sendParams(text, skill string, meta map[string]any) map[string]any {
	m := map[string]any{"message": map[string]any{"messageId": "m-" + text, "role": "ROLE_USER", "parts": []any{map[string]any{"text": text}}}}
	if skill != "" {
		if meta == nil {
			meta = map[string]any{}
		}
		meta[gateway.MetaSkill] = skill
	}
	if meta != nil {
		m["metadata"] = meta
	}
	return m
}

// TestHostileInput: malformed JSON-RPC, huge bodies, wrong content types,
// unknown methods, missing and bad credentials and unsupported content
// each get their standard error, and none reaches an agent.
func TestHostileInput(t *testing.T) {
	m := newMesh(t, testworld.Embedded(t), nil)
	url := m.agentURL(m.sample)
	auth := []string{"Authorization", "Bearer " + aliceKey}
	type want struct {
		status int
		code   int
	}
	huge := strings.Repeat("x", int(m.cfg.HTTP.MaxBodyBytes)+1)
	for _, tc := range []struct {
		name, contentType, body string
		headers                 []string
		want                    want
	}{
		{"no credential", "application/json", rpc("GetTask", map[string]any{"id": "x"}), nil, want{401, -31401}},
		{"a wrong key", "application/json", rpc("GetTask", map[string]any{"id": "x"}), []string{"Authorization", "Bearer not-a-key-of-this-gateway"}, want{401, -31401}},
		{"two credentials", "application/json", rpc("GetTask", map[string]any{"id": "x"}), append(auth, gateway.APIKeyHeader, aliceKey), want{401, -31401}},
		{"basic auth", "application/json", rpc("GetTask", map[string]any{"id": "x"}), []string{"Authorization", "Basic YWxpY2U6eA=="}, want{401, -31401}},
		{"malformed JSON", "application/json", `{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {`, auth, want{200, -32700}},
		{"not JSON-RPC 2.0", "application/json", `{"jsonrpc": "1.0", "id": 1, "method": "GetTask", "params": {"id": "x"}}`, auth, want{200, -32600}},
		{"an unknown method", "application/json", rpc("tasks/explode", map[string]any{}), auth, want{200, -32601}},
		{"params of the wrong type", "application/json", rpc("SendMessage", 42), auth, want{200, -32602}},
		{"a huge body", "application/json", huge, auth, want{413, -32600}},
		{"text/plain", "text/plain", rpc("GetTask", map[string]any{"id": "x"}), auth, want{415, -32005}},
		{"no content type", "", rpc("GetTask", map[string]any{"id": "x"}), auth, want{415, -32005}},
		{"a file part", "application/json", rpc("SendMessage", map[string]any{"message": map[string]any{"messageId": "f", "role": "ROLE_USER",
			"parts": []any{map[string]any{"url": "https://example.com/x.png", "mediaType": "image/png"}}}}), auth, want{200, -32005}},
		{"an output mode no skill has", "application/json", rpc("SendMessage", map[string]any{"message": sendParams("hi", "", nil)["message"],
			"configuration": map[string]any{"acceptedOutputModes": []string{"image/png"}}}), auth, want{200, -32005}},
		{"an unknown skill", "application/json", rpc("SendMessage", sendParams("hi", "nosuchskill", nil)), auth, want{200, -32602}},
		{"no parts", "application/json", rpc("SendMessage", map[string]any{"message": map[string]any{"messageId": "e", "role": "ROLE_USER", "parts": []any{}}}), auth, want{200, -32602}},
		{"a bad timeout", "application/json", rpc("SendMessage", sendParams("hi", sample.SkillEcho, map[string]any{gateway.MetaTimeout: "soon"})), auth, want{200, -32602}},
		{"an unknown task", "application/json", rpc("GetTask", map[string]any{"id": "no-such-task"}), auth, want{200, -32001}},
		{"a task id no task has", "application/json", rpc("GetTask", map[string]any{"id": "../../etc/passwd"}), auth, want{200, -32001}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, a := post(t, url, tc.contentType, tc.body, tc.headers...)
			if resp.StatusCode != tc.want.status || a.Error == nil || a.Error.Code != tc.want.code {
				t.Fatalf("HTTP %d %+v, want %d with JSON-RPC error %d", resp.StatusCode, a.Error, tc.want.status, tc.want.code)
			}
			if tc.want.status == 401 {
				if c := resp.Header.Get("WWW-Authenticate"); !strings.HasPrefix(c, `Bearer realm="a2abus gateway"`) {
					t.Errorf("WWW-Authenticate %q", c)
				}
				if strings.Contains(a.Error.Message, "not-a-key") || strings.Contains(a.Error.Message, aliceKey) {
					t.Errorf("the answer quotes the credential: %s", a.Error.Message)
				}
			}
			t.Logf("%d %d %s", resp.StatusCode, a.Error.Code, a.Error.Message)
		})
	}
	if resp, _ := get(t, url, aliceKey); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET on the JSON-RPC endpoint: %d", resp.StatusCode)
	}
	resp, a := post(t, url, "application/json", rpc("SendMessage", sendParams("by api key", sample.SkillEcho, nil)), gateway.APIKeyHeader, aliceKey)
	if resp.StatusCode != 200 || a.Error != nil {
		t.Errorf("a send with X-API-Key: %d %+v", resp.StatusCode, a.Error)
	}
}

// TestPrincipalsAreKeptApart: a principal's task ids are not found by
// another principal (get, cancel, subscribe, push configs), nor through
// another agent's URL; caller fields forged in the metadata change
// nothing: the agent sees the principal's name.
func TestPrincipalsAreKeptApart(t *testing.T) {
	m := newMesh(t, testworld.Embedded(t), func(o *gateway.Options) { o.Push.Allow = []string{"127.0.0.1"} })
	ctx := context.Background()
	res, err := m.client(t, m.alice, m.sample, spec.TransportProtocolJSONRPC).SendMessage(ctx, send("mine", sample.SkillEcho))
	if err != nil {
		t.Fatal(err)
	}
	id := string(res.(*spec.Task).ID)
	bob := []string{"Authorization", "Bearer " + bobKey}
	for _, tc := range []struct{ name, url, body string }{
		{"get", m.agentURL(m.sample), rpc("GetTask", map[string]any{"id": id})},
		{"cancel", m.agentURL(m.sample), rpc("CancelTask", map[string]any{"id": id})},
		{"subscribe", m.agentURL(m.sample), rpc("SubscribeToTask", map[string]any{"id": id})},
		{"push configs", m.agentURL(m.sample), rpc("ListTaskPushNotificationConfigs", map[string]any{"taskId": id})},
		{"set a push config", m.agentURL(m.sample), rpc("CreateTaskPushNotificationConfig", map[string]any{"taskId": id, "url": "http://127.0.0.1:9/hook"})},
		{"an answer", m.agentURL(m.sample), rpc("SendMessage", map[string]any{"message": map[string]any{"messageId": "a", "role": "ROLE_USER", "taskId": id, "parts": []any{map[string]any{"text": "x"}}}})},
	} {
		t.Run("Bob "+tc.name, func(t *testing.T) {
			resp, a := post(t, tc.url, "application/json", tc.body, bob...)
			if a.Error == nil || a.Error.Code != -32001 {
				t.Fatalf("Bob's %s of Alice's task: HTTP %d %+v %s, want task not found", tc.name, resp.StatusCode, a.Error, a.Result)
			}
		})
	}
	if _, a := post(t, m.agentURL(m.whoami), "application/json", rpc("GetTask", map[string]any{"id": id}), "Authorization", "Bearer "+aliceKey); a.Error == nil || a.Error.Code != -32001 {
		t.Errorf("Alice's task through another agent's URL: %+v", a.Error)
	}

	forged := map[string]any{"caller": m.bob, "callChain": []string{m.bob}, "sessionId": "forged-session", "a2a-caller": m.bob}
	p := sendParams("who", "whoami", forged)
	p["message"].(map[string]any)["metadata"] = forged
	_, a := post(t, m.agentURL(m.whoami), "application/json", rpc("SendMessage", p), "Authorization", "Bearer "+aliceKey)
	var task spec.Task
	if a.Error != nil || json.Unmarshal(a.Result, &struct{ Task *spec.Task }{&task}) != nil {
		t.Fatalf("whoami: %+v %s", a.Error, a.Result)
	}
	got := taskText(&task)
	if !strings.HasPrefix(got, "caller="+m.alice+" chain="+m.alice+" ") || strings.Contains(got, "forged") {
		t.Errorf("the agent saw %q: the forged metadata reached it", got)
	}
}

// TestPolicyAndRateAnswerTheirStatus: a call the policy forbids is 403;
// a principal past its rate is 429 with Retry-After; past the stream
// bound, a stream is 503.
func TestPolicyAndRateAnswerTheirStatus(t *testing.T) {
	w := testworld.Embedded(t)
	var bobName string
	m := newMesh(t, w, func(o *gateway.Options) { o.Rate, o.Burst, o.MaxStreams = 0.5, 2, 1 }, func(c *config.Config) {
		bobName = w.N("Bob")
		c.Policy.Rules = []config.PolicyRule{{Caller: bobName, Allow: []string{"*"}, Deny: []string{w.N("SampleAgent")}},
			{Caller: w.N("Alice"), Allow: []string{w.N("SampleAgent")}}}
	})
	bob := []string{"Authorization", "Bearer " + bobKey}
	resp, a := post(t, m.agentURL(m.sample), "application/json", rpc("SendMessage", sendParams("hi", sample.SkillEcho, nil)), bob...)
	if resp.StatusCode != http.StatusForbidden || a.Error == nil || a.Error.Code != -31403 || !strings.Contains(a.Error.Message, "FORBIDDEN") {
		t.Errorf("Bob's call the policy forbids: %d %+v", resp.StatusCode, a.Error)
	}
	resp, a = post(t, m.agentURL(m.whoami), "application/json", rpc("SendMessage", sendParams("hi", "whoami", nil)), bob...)
	if resp.StatusCode != http.StatusOK || a.Error != nil {
		t.Errorf("Bob's call to another agent: %d %+v", resp.StatusCode, a.Error)
	}
	resp, a = post(t, m.agentURL(m.sample), "application/json", rpc("SendMessage", sendParams("hi", sample.SkillEcho, nil)), bob...)
	ra, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
	if resp.StatusCode != http.StatusTooManyRequests || ra < 1 || a.Error == nil {
		t.Errorf("Bob past his rate: %d Retry-After %q %+v", resp.StatusCode, resp.Header.Get("Retry-After"), a.Error)
	}

	alice := []string{"Authorization", "Bearer " + aliceKey}
	stream := make(chan *http.Response, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, m.agentURL(m.sample), strings.NewReader(rpc("SendStreamingMessage", sendParams("3000", sample.SkillSleep, nil))))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(alice[0], alice[1])
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			resp = &http.Response{}
		}
		stream <- resp
	}()
	first := <-stream
	defer func() {
		if first.Body != nil {
			_ = first.Body.Close()
		}
	}()
	resp, a = post(t, m.agentURL(m.sample), "application/json", rpc("SendStreamingMessage", sendParams("10", sample.SkillSleep, nil)), alice...)
	if resp.StatusCode != http.StatusServiceUnavailable || a.Error == nil {
		t.Errorf("a second stream past gateway.max_streams 1: %d %+v", resp.StatusCode, a.Error)
	}
	if first.StatusCode != http.StatusOK {
		t.Errorf("the first stream: %d", first.StatusCode)
	}
}

// TestRefusalBeforeAStreamSetsItsStatus: a stream whose send the guard
// refuses answers the refusal's HTTP status, not the stream's 200.
func TestRefusalBeforeAStreamSetsItsStatus(t *testing.T) {
	w := testworld.Embedded(t)
	m := newMesh(t, w, nil, func(c *config.Config) {
		c.Policy.Rules = []config.PolicyRule{{Caller: w.N("Alice"), Allow: []string{"*"}, Deny: []string{w.N("SampleAgent")}}}
	})
	resp, a := post(t, m.agentURL(m.sample), "application/json", rpc("SendStreamingMessage", sendParams("hi", sample.SkillEcho, nil)), "Authorization", "Bearer "+aliceKey)
	if resp.StatusCode != http.StatusForbidden || a.Error == nil || a.Error.Code != -31403 {
		t.Errorf("a refused stream: %d %+v", resp.StatusCode, a.Error)
	}
	_, err := m.client(t, m.alice, m.sample, spec.TransportProtocolJSONRPC).SendMessage(context.Background(), send("x", sample.SkillEcho))
	if err == nil || !strings.Contains(fmt.Sprint(err), "403") && !errors.Is(err, spec.ErrUnauthorized) {
		t.Errorf("a2aclient's refused send: %v", err)
	}
}
