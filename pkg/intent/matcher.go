// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package intent

import (
	"context"
	"maps"
	"math"
	"slices"
)

// Weights of where a term of a candidate comes from.
const (
	// weightSkill: the skill's id, name, tags, examples and description.
	weightSkill = 1.0
	// weightAgent: the agent's name, and the description of an agent of
	// one skill.
	weightAgent = 0.5
	// noneWeight scales the evidence that no candidate fits (see Matcher).
	noneWeight = 0.25
	// maxSecondary is the most secondary intents reported.
	maxSecondary = 3
)

// Matcher is the deterministic Classifier: it needs no model, and the same
// request and candidates always classify the same. It compares the
// request's terms (Tokens) with each candidate's — the skill's id, name,
// tags, examples and description at full weight, the agent's name (and the
// description of an agent with one skill) at half — each term weighted by
// its rarity among the candidates (idf = ln(1 + N/df)). A candidate's
// confidence is its evidence E (the weighted terms it shares with the
// request) against the evidence for other readings of the same terms and
// for none:
//
//	confidence = E / (E + rival + none)
//
// where rival sums, over the candidate's terms, the strongest other
// candidate's weight on each, and none = 0.25 × ln(1+N) × (1 + ln(1+u))
// grows slowly with u, the request's terms no candidate has (the request's
// payload: the text to echo, the topic to research). The primary intent
// is the candidate of the highest confidence × evidence (of two parts of a
// request the larger, of two readings of the same words the surer);
// candidates that share its terms are its alternatives; candidates that
// explain other terms of the request are secondary intents.
type Matcher struct{}

// Classify classifies req; it never fails.
func (Matcher) Classify(_ context.Context, req Request) (*Classification, error) {
	return Match(req), nil
}

// scored is a candidate with its terms and scores.
type scored struct {
	c      Candidate
	index  int
	terms  map[string]float64 // term → weight
	shared map[string]bool    // the request's terms it has
	e      float64            // evidence
	conf   float64
}

// Match is Matcher's classification of req.
func Match(req Request) *Classification {
	out := &Classification{Classifier: "matcher", SecondaryIntents: []string{}, SecondaryTargets: []Target{}}
	query := distinct(Tokens(cut(req.Text)))
	if len(query) == 0 || len(req.Candidates) == 0 {
		return out
	}
	cands := make([]*scored, len(req.Candidates))
	df := map[string]int{}
	for i, c := range req.Candidates {
		s := &scored{c: c, index: i, terms: candidateTerms(c), shared: map[string]bool{}}
		for t := range s.terms {
			df[t]++
		}
		cands[i] = s
	}
	n := float64(len(cands))
	idf := func(t string) float64 { return math.Log(1 + n/float64(df[t])) }
	unmatched := 0
	for _, t := range query {
		if df[t] == 0 {
			unmatched++
		}
	}
	none := noneWeight * math.Log(1+n) * (1 + math.Log(1+float64(unmatched)))
	tops := map[string]*topTwo{} // per term of the request: the two highest weights
	for i, s := range cands {
		for _, t := range query {
			w := s.terms[t]
			if w == 0 {
				continue
			}
			s.e += idf(t) * w
			s.shared[t] = true
			tp := tops[t]
			if tp == nil {
				tp = &topTwo{owner: -1}
				tops[t] = tp
			}
			tp.add(i, w)
		}
	}
	for i, s := range cands {
		if s.e == 0 {
			continue
		}
		rival := 0.0
		for t := range s.shared {
			rival += idf(t) * tops[t].other(i)
		}
		s.conf = round2(s.e / (s.e + rival + none))
	}
	// The primary is the candidate that explains the most of the request
	// with confidence (confidence × evidence): of two parts of a request,
	// the larger; of two readings of the same words, the surer. The others
	// follow by confidence.
	byConf := func(a, b *scored) int {
		switch {
		case a.conf != b.conf:
			return cmpDesc(a.conf, b.conf)
		case a.e != b.e:
			return cmpDesc(a.e, b.e)
		}
		return a.index - b.index
	}
	slices.SortStableFunc(cands, func(a, b *scored) int {
		if x, y := a.conf*a.e, b.conf*b.e; x != y {
			return cmpDesc(x, y)
		}
		return byConf(a, b)
	})
	slices.SortStableFunc(cands[1:], byConf)
	top := cands[0]
	if top.conf == 0 {
		return out
	}
	out.PrimaryIntent, out.IntentConfidence = top.c.Intent(), top.conf
	out.TargetAgent, out.TargetCapability = top.c.Agent, top.c.Skill
	explained := maps.Clone(top.shared)
	for _, s := range cands[1:] {
		switch {
		case s.conf == 0:
		case overlaps(s.shared, top.shared):
			if len(out.Alternatives) < MaxOptions-1 {
				out.Alternatives = append(out.Alternatives, Routing{Intent: s.c.Intent(), Agent: s.c.Agent, Capability: s.c.Skill, Confidence: s.conf})
			}
		case len(out.SecondaryTargets) < maxSecondary && !overlaps(s.shared, explained):
			out.SecondaryIntents = append(out.SecondaryIntents, s.c.Intent())
			out.SecondaryTargets = append(out.SecondaryTargets, s.c.Target())
			for t := range s.shared {
				explained[t] = true
			}
		}
	}
	return out
}

// topTwo are the two highest weights of a term among the candidates, and
// which candidate has the highest.
type topTwo struct {
	best, second float64
	owner        int
}

// add counts candidate i's weight w.
func (tp *topTwo) add(i int, w float64) {
	switch {
	case w > tp.best:
		tp.second, tp.best, tp.owner = tp.best, w, i
	case w > tp.second:
		tp.second = w
	}
}

// other is the highest weight of a candidate other than i.
func (tp *topTwo) other(i int) float64 {
	if tp.owner == i {
		return tp.second
	}
	return tp.best
}

// candidateTerms are c's terms with their weight (the highest where a term
// occurs in several places).
func candidateTerms(c Candidate) map[string]float64 {
	terms := map[string]float64{}
	add := func(w float64, texts ...string) {
		for _, s := range texts {
			for _, t := range Tokens(cut(s)) {
				terms[t] = max(terms[t], w)
			}
		}
	}
	add(weightAgent, c.Agent)
	if c.SingleSkill {
		add(weightAgent, c.AgentDescription)
	}
	add(weightSkill, c.Skill, c.Name, c.Description)
	add(weightSkill, c.Tags...)
	add(weightSkill, c.Examples...)
	return terms
}

// cut bounds a text the matcher reads to MaxRequestBytes.
func cut(s string) string {
	if len(s) > MaxRequestBytes {
		return s[:MaxRequestBytes] // a split character at the end is one odd term at worst
	}
	return s
}

// distinct is ts without repeats, in first-seen order.
func distinct(ts []string) []string {
	seen := make(map[string]bool, len(ts))
	out := ts[:0]
	for _, t := range ts {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// overlaps reports whether a and b share a key.
func overlaps(a, b map[string]bool) bool {
	for k := range a {
		if b[k] {
			return true
		}
	}
	return false
}

// round2 rounds f to two decimals, as confidences are reported.
func round2(f float64) float64 { return math.Round(f*100) / 100 }

// cmpDesc orders a before b when a is the larger.
func cmpDesc(a, b float64) int {
	if a > b {
		return -1
	}
	return 1
}
