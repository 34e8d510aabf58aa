// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"errors"
	"fmt"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/schema"
)

// checkInput refuses a request whose input breaks the schema its target
// declares for the skill (Resolver.InputSchema): INVALID_INPUT naming the path and the rule, before
// anything is published. The input checked is req.Input; without it, a Text
// that is a JSON object; otherwise null (see agent.WithInputSchema: the agent
// checks the same value again). Without a Resolver or a schema it does
// nothing, and nothing either in a program that registered no JSON Schema
// validator (pkg/schema/jsonschema): the pre-check only spares a round trip,
// the agent checks its input anyway, so such a program (research-agent, an
// SDK program that did not register it) publishes unchecked, without a
// warning per call.
func (c *Caller) checkInput(req Request) error {
	if c.opts.Resolver == nil || !schema.Linked() {
		return nil
	}
	raw, ok := c.opts.Resolver.InputSchema(req.Target, req.Skill)
	if !ok {
		return nil
	}
	s, err := schema.Compile(raw)
	if err != nil { // the directory keeps only schemas that compile; the agent checks anyway
		c.log.Warn("input schema not usable; input not checked before publishing",
			zap.String("target", req.Target), zap.String("skill", req.Skill), zap.Error(err))
		return nil
	}
	err = s.Validate(schema.Input(req.Input, req.Text))
	if err == nil {
		return nil
	}
	e := a2a.NewError(a2a.CodeInvalidInput, "%v", err)
	errors.As(err, &e)
	return fmt.Errorf("caller %q: invoke %s.%s: %w", c.opts.Name, req.Target, req.Skill, e)
}
