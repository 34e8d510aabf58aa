// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package execbridge

import (
	"strings"
	"testing"
)

// lineHead recovers type, request_id, call_id and code wherever they stand
// in the top-level object, however the line is cut into chunks, and nothing
// from nested values, other fields or a line that is not an object.
func TestLineHead(t *testing.T) {
	big := strings.Repeat("x", 100_000)
	for _, tc := range []struct {
		line                     string
		typ, request, call, code string
	}{
		{`{"type":"task.result","request_id":"r1","text":"` + big + `"}`, "task.result", "r1", "", ""},
		{`{"text":"` + big + `","request_id":"r2","type":"task.result"}`, "task.result", "r2", "", ""},
		{` { "message" : "a \"quoted\" \\ ` + big + `" , "code":"INVALID_INPUT", "type" : "task.error" , "request_id" : "r\u00e93" }`,
			"task.error", "ré3", "", "INVALID_INPUT"},
		{`{"data":{"type":"nested","request_id":"no","list":["type","request_id"]},"type":"invoke","call_id":"c1","request_id":"r4","input":"` + big + `"}`,
			"invoke", "r4", "c1", ""},
		{`{"ty\u0070e":"agent.card","card":{"description":"` + big + `"}}`, "agent.card", "", "", ""},
		{`{"request_id":5,"type":"task.result","text":"` + big + `"}`, "task.result", "", "", ""},
		{`{"request_id":"` + strings.Repeat("r", maxHeadValue+1) + `","type":"task.result"}`, "task.result", "", "", ""},
		{`{"type":"task.result","type":"task.error","request_id":"r5"}`, "task.result", "r5", "", ""},
		{`["type","task.result","request_id","r6"]`, "", "", "", ""},
		{`"type":"task.result","request_id":"r7"`, "", "", "", ""},
		{big, "", "", "", ""},
	} {
		for _, chunk := range []int{len(tc.line), 1, 7, 4096} {
			var h lineHead
			for i := 0; i < len(tc.line); i += chunk {
				h.write([]byte(tc.line[i:min(i+chunk, len(tc.line))]))
			}
			if h.typ != tc.typ || h.requestID != tc.request || h.callID != tc.call || h.code != tc.code || h.n != len(tc.line) {
				t.Errorf("lineHead(%.60q…) in chunks of %d = type %q, request %q, call %q, code %q, %d bytes; want %q, %q, %q, %q, %d",
					tc.line, chunk, h.typ, h.requestID, h.callID, h.code, h.n, tc.typ, tc.request, tc.call, tc.code, len(tc.line))
			}
		}
	}
}
