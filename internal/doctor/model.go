// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/a2abus/a2abus/internal/redact"
)

// model checks the model endpoint, when one is configured: GET /models
// answers, and lists llm.model when it is set.
func (r *run) model(ctx context.Context) {
	const name = "model endpoint"
	llm := r.l.Config.LLM
	if llm.BaseURL == "" {
		r.add(name, Pass, "none configured (llm.base_url is empty): chat, the Primary and LLM agents are unavailable")
		return
	}
	ctx, cancel := r.bounded(ctx)
	defer cancel()
	where := strings.TrimSuffix(llm.BaseURL, "/") + "/models"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, where, nil)
	if err != nil {
		r.add(name, Fail, "llm.base_url %s: %v", redact.URL(llm.BaseURL), err)
		return
	}
	if llm.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+llm.APIKey)
	}
	resp, err := r.opts.HTTP.Do(req)
	if err != nil {
		r.add(name, Fail, "GET %s: %v", redact.URL(where), redact.String(cause(err).Error()))
		return
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := readBounded(resp.Body)
	switch {
	case err != nil:
		r.add(name, Fail, "GET %s: %v", redact.URL(where), err)
		return
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		r.add(name, Fail, "GET %s answered %s: check llm.api_key", redact.URL(where), resp.Status)
		return
	case resp.StatusCode != http.StatusOK:
		r.add(name, Fail, "GET %s answered %s: is llm.base_url an OpenAI-compatible endpoint (ending in /v1)?", redact.URL(where), resp.Status)
		return
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		r.add(name, Warn, "GET %s answered, but not with a list of models: %v", redact.URL(where), err)
		return
	}
	ids := make([]string, 0, len(list.Data))
	for _, m := range list.Data {
		ids = append(ids, m.ID)
	}
	switch {
	case llm.Model == "":
		r.add(name, Warn, "%s answers with %d model(s), but llm.model is not set", redact.URL(llm.BaseURL), len(ids))
	case !slices.Contains(ids, llm.Model):
		r.add(name, Warn, "%s answers, but does not list llm.model %q (it lists %s)", redact.URL(llm.BaseURL), llm.Model, listed(ids))
	default:
		r.add(name, Pass, "%s answers and lists llm.model %q", redact.URL(llm.BaseURL), llm.Model)
	}
}

// cause is the error behind an HTTP client's *url.Error (whose message
// repeats the URL), else err.
func cause(err error) error {
	if ue, ok := errors.AsType[*url.Error](err); ok {
		return ue.Err
	}
	return err
}

// listed names up to five ids.
func listed(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	if len(ids) > 5 {
		return strings.Join(ids[:5], ", ") + fmt.Sprintf(" and %d more", len(ids)-5)
	}
	return strings.Join(ids, ", ")
}
