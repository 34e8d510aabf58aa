// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package gateway

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"

	spec "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/a2abus/a2abus/directory"
)

// InputSchemaExtension is the URI of the card extension that carries the
// JSON Schemas of the skills' structured input: its params map each skill
// id that declares one to its schema ({"skills": {"npv": {...}}}). A2A
// v1.0 cards have no field of their own for them.
const InputSchemaExtension = "urn:a2abus:extension:input-schema:v1"

// The security scheme names of the cards.
const (
	SchemeAPIKey = "apiKey"
	SchemeBearer = "bearer"
	SchemeJWT    = "oidcJwt"
)

// card is the A2A card of a bus agent as the gateway serves it: the bus
// card's identity, description and skills (with their input schemas in
// InputSchemaExtension), the gateway's interfaces for the agent, its
// security schemes, and the capabilities it supports.
func (g *Gateway) card(e directory.Entry, base string) *spec.AgentCard {
	c := e.Card
	agentURL := base + AgentsPath + "/" + url.PathEscape(e.Name)
	card := &spec.AgentCard{
		Name: e.Name, Description: c.Description, Version: c.Version,
		Provider: c.Provider, DocumentationURL: c.DocumentationURL, IconURL: c.IconURL,
		DefaultInputModes:  orModes(c.DefaultInputModes),
		DefaultOutputModes: orModes(c.DefaultOutputModes),
		SupportedInterfaces: []*spec.AgentInterface{
			spec.NewAgentInterface(agentURL, spec.TransportProtocolJSONRPC),
			spec.NewAgentInterface(agentURL+RESTPath, spec.TransportProtocolHTTPJSON),
		},
		Capabilities: spec.AgentCapabilities{Streaming: true, PushNotifications: g.push.enabled()},
		Skills:       make([]spec.AgentSkill, 0, len(c.Skills)),
	}
	if card.Description == "" {
		card.Description = "Agent " + e.Name + " of the a2abus bus"
	}
	if card.Version == "" {
		card.Version = "unknown"
	}
	for _, s := range c.Skills {
		s.Tags = append([]string{}, s.Tags...) // a2a-go's cards always have a tags list
		if s.Description == "" {
			s.Description = s.Name
		}
		if s.Name == "" {
			s.Name = s.ID
		}
		card.Skills = append(card.Skills, s)
	}
	if len(e.InputSchemas) > 0 {
		schemas := map[string]any{}
		for id, raw := range e.InputSchemas {
			schemas[id] = json.RawMessage(raw)
		}
		card.Capabilities.Extensions = []spec.AgentExtension{{URI: InputSchemaExtension,
			Description: "the JSON Schema of each skill's structured input (a data part of the message)",
			Params:      map[string]any{"skills": schemas}}}
	}
	card.SecuritySchemes, card.SecurityRequirements = g.security()
	return card
}

func orModes(m []string) []string {
	if len(m) == 0 {
		return slices.Clone(defaultModes)
	}
	return m
}

// security is the cards' security schemes and requirements (any one).
func (g *Gateway) security() (spec.NamedSecuritySchemes, spec.SecurityRequirementsOptions) {
	schemes := spec.NamedSecuritySchemes{}
	var reqs spec.SecurityRequirementsOptions
	if len(g.opts.Keys) > 0 {
		schemes[SchemeBearer] = spec.HTTPAuthSecurityScheme{Scheme: "Bearer", Description: "an API key of the gateway as a bearer token"}
		schemes[SchemeAPIKey] = spec.APIKeySecurityScheme{Location: spec.APIKeySecuritySchemeLocationHeader, Name: APIKeyHeader,
			Description: "an API key of the gateway"}
		reqs = append(reqs, spec.SecurityRequirements{SchemeBearer: {}}, spec.SecurityRequirements{SchemeAPIKey: {}})
	}
	if g.jwt != nil {
		schemes[SchemeJWT] = spec.HTTPAuthSecurityScheme{Scheme: "Bearer", BearerFormat: "JWT",
			Description: "an OIDC JWT for audience " + g.jwt.o.Audience}
		reqs = append(reqs, spec.SecurityRequirements{SchemeJWT: {}})
	}
	return schemes, reqs
}

// serveCard is GET /agents/<Name>/.well-known/agent-card.json, through
// a2asrv's card handler (CORS for browsers).
func (g *Gateway) serveCard(w http.ResponseWriter, r *http.Request, rq *request) {
	if !g.listed(w, rq, r.PathValue("name"), true) {
		return
	}
	card := g.card(rq.agent, g.baseURL(r))
	a2asrv.NewAgentCardHandler(a2asrv.AgentCardProducerFn(func(context.Context) (*spec.AgentCard, error) { return card, nil })).ServeHTTP(w, r)
}

// CatalogEntry is one agent of the catalog (GET /agents).
type CatalogEntry struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Status is online, offline (served while well-known) or well-known.
	Status    directory.Status `json:"status"`
	WellKnown bool             `json:"wellKnown"`
	Skills    []string         `json:"skills"`
	// CardURL is where the agent's card is.
	CardURL string `json:"cardUrl"`
	// URL is the agent's JSON-RPC endpoint.
	URL string `json:"url"`
}

// Catalog is the answer of GET /agents.
type Catalog struct {
	Agents []CatalogEntry `json:"agents"`
}

// serveCatalog is GET /agents: every agent the gateway serves.
func (g *Gateway) serveCatalog(w http.ResponseWriter, r *http.Request, rq *request) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		writeError(w, rq, http.StatusMethodNotAllowed, codeInvalidRequest, "the catalog is read with GET")
		return
	}
	cat, base := Catalog{Agents: []CatalogEntry{}}, g.baseURL(r)
	for _, e := range g.opts.Directory.List(directory.Filter{Query: r.URL.Query().Get("q"), Skill: r.URL.Query().Get("skill")}) {
		if !served(e) {
			continue
		}
		u := base + AgentsPath + "/" + url.PathEscape(e.Name)
		cat.Agents = append(cat.Agents, CatalogEntry{Name: e.Name, Description: e.Card.Description, Status: e.Status,
			WellKnown: e.WellKnown, Skills: e.SkillIDs(), CardURL: u + CardPath, URL: u})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(cat)
}
