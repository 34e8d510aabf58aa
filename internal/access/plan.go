// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package access works out the least-privilege RabbitMQ users and
// permissions of a set of agents and callers (a2abus access plan): for each,
// the vhost permissions (configure, write, read regexes) and the topic
// permissions on the exchange and its dead-letter exchange that the bus
// topology (bus/rabbitmq) needs, and no more. A plan prints as rabbitmqctl
// commands (commands.go) or RabbitMQ Messaging Topology Operator manifests
// (manifests.go).
package access

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// ErrInvalid: a principal or option cannot be planned.
var ErrInvalid = errors.New("access: invalid plan input")

// Principal is one identity to plan for: an agent (serves tasks), a caller
// (sends them), or both, connecting as User.
type Principal struct {
	// Name is the agent/caller name.
	Name string
	// User is the broker user; default Name (the identity convention).
	User string
	// Agent: it serves agent.task.<Name>, answers any caller, announces itself.
	Agent bool
	// Caller: it has agent.response.<Name> and may call Targets.
	Caller bool
	// Targets are the agents it may call (nil with Caller: none).
	Targets []string
}

// Options are a plan's inputs.
type Options struct {
	// VHost is the RabbitMQ virtual host; default "/".
	VHost string
	// Exchange is bus.exchange; default a2a.DefaultExchange.
	Exchange string
	// Principals are the agents and callers.
	Principals []Principal
}

// Plan is the users and permissions of every principal.
type Plan struct {
	VHost, Exchange string
	Users           []User
}

// User is one broker user and what it may do.
type User struct {
	// Name is the broker user name; Acts are the agent names it acts as.
	Name string
	Acts []string
	// Configure, Write and Read are the vhost permission regexes.
	Configure, Write, Read string
	// Topics are its topic permissions, one per exchange.
	Topics []TopicPermission
}

// TopicPermission is a user's topic permission on one topic exchange.
type TopicPermission struct {
	Exchange, Write, Read string
}

// Build works out the plan. Every name must be a valid agent name; a user
// that several principals share acts as all of them (their permissions merged).
func Build(opts Options) (*Plan, error) {
	if opts.VHost == "" {
		opts.VHost = "/"
	}
	if opts.Exchange == "" {
		opts.Exchange = a2a.DefaultExchange
	}
	byUser := map[string]*grants{}
	var order []string
	for _, p := range opts.Principals {
		if err := a2a.ValidateAgentName(p.Name); err != nil {
			return nil, fmt.Errorf("%w: principal: %w", ErrInvalid, err)
		}
		if !p.Agent && !p.Caller {
			return nil, fmt.Errorf("%w: principal %q is neither an agent nor a caller", ErrInvalid, p.Name)
		}
		for _, t := range p.Targets {
			if err := a2a.ValidateAgentName(t); err != nil {
				return nil, fmt.Errorf("%w: target of %q: %w", ErrInvalid, p.Name, err)
			}
		}
		user := p.User
		if user == "" {
			user = p.Name
		}
		g, ok := byUser[user]
		if !ok {
			g = &grants{}
			byUser[user] = g
			order = append(order, user)
		}
		g.add(p)
	}
	plan := &Plan{VHost: opts.VHost, Exchange: opts.Exchange}
	for _, u := range order {
		plan.Users = append(plan.Users, byUser[u].user(u, opts.Exchange))
	}
	return plan, nil
}

// grants accumulates what one user's principals need.
type grants struct {
	acts, served, callers, targets []string
}

func (g *grants) add(p Principal) {
	g.acts = appendNew(g.acts, p.Name)
	if p.Agent {
		g.served = appendNew(g.served, p.Name)
	}
	if p.Caller {
		g.callers = appendNew(g.callers, p.Name)
		for _, t := range p.Targets {
			g.targets = appendNew(g.targets, t)
		}
	}
}

func appendNew(s []string, v string) []string {
	if slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}

// user derives the regexes from the topology the bus declares (see
// bus/rabbitmq/topology.go and pkg/a2a/names.go):
//   - every connection declares the exchange, the dead-letter exchange and
//     the dead queue, and binds the dead queue to the dead-letter exchange
//     with "#" (configure on the three, write on the dead queue, read on the
//     dead-letter exchange, topic read "#" there);
//   - an agent declares, binds and consumes agent.task.<name> and its
//     instance queue a2a.instance.<name>.<id> (bound to agent.cancel.<name>
//     and discovery.query), announces on discovery.announce and answers on
//     agent.response.<any caller>;
//   - a caller declares, binds and consumes agent.response.<name> and its
//     instance queue (bound to agent.event.<name>), declares the task queue
//     of each target before its first call (configure and bind: topic read
//     on agent.task.<target>), publishes tasks and cancels to its targets and
//     events to its replicas;
//   - every process may run a directory: a2a.instance.directory.<id> bound
//     to discovery.announce, and it publishes discovery.query;
//   - requeues go to the default exchange (write on amq.default) and dead
//     letters to the dead-letter exchange with the message's own routing key.
func (g *grants) user(name, exchange string) User {
	x, dlx, dead := exchange, a2a.DeadLetterExchange(exchange), a2a.DeadLetterQueue(exchange)
	q := regexp.QuoteMeta
	base := []string{q(x), q(dlx), q(dead)}
	var own, ownQueues, readKeys, writeKeys []string // own queues: configure+write+read
	dirQueue := q(instancePrefix(directory.QueueOwner)) + ".+"
	ownQueues = append(ownQueues, dirQueue)
	readKeys = append(readKeys, q(a2a.RoutingKeyAnnounce))
	writeKeys = append(writeKeys, q(a2a.RoutingKeyDiscoveryQuery))
	for _, n := range g.acts {
		ownQueues = append(ownQueues, q(instancePrefix(n))+".+")
	}
	var taskTargets []string
	for _, n := range g.served {
		key := mustKey(a2a.TaskRoutingKey(n))
		cancel := mustKey(a2a.CancelRoutingKey(n))
		ownQueues = append(ownQueues, q(key))
		readKeys = append(readKeys, q(key), q(cancel), q(a2a.RoutingKeyDiscoveryQuery))
		writeKeys = append(writeKeys, q(a2a.RoutingKeyAnnounce), q(responsePrefix())+anyName)
	}
	for _, n := range g.callers {
		resp := mustKey(a2a.ResponseRoutingKey(n))
		event := mustKey(a2a.EventRoutingKey(n))
		ownQueues = append(ownQueues, q(resp))
		readKeys = append(readKeys, q(resp), q(event))
		writeKeys = append(writeKeys, q(event))
	}
	for _, t := range g.targets {
		key := mustKey(a2a.TaskRoutingKey(t))
		taskTargets = append(taskTargets, q(key))
		writeKeys = append(writeKeys, q(key), q(mustKey(a2a.CancelRoutingKey(t))))
	}
	own = append(own, ownQueues...)
	configure := alternation(append(append(slices.Clone(base), own...), taskTargets...))
	write := alternation(append(append([]string{q(x), q(dlx), q(dead), "amq\\.default"}, own...), taskTargets...))
	read := alternation(append([]string{q(x), q(dlx)}, own...))
	return User{
		Name: name, Acts: slices.Clone(g.acts),
		Configure: configure, Write: write, Read: read,
		Topics: []TopicPermission{
			{Exchange: x, Write: alternation(writeKeys), Read: alternation(append(readKeys, taskTargets...))},
			// Dead letters keep their routing key: those of the queues it consumes.
			{Exchange: dlx, Write: alternation(readKeys), Read: "^#$"},
		},
	}
}

// anyName matches one agent name (a2a.ValidateAgentName).
const anyName = "[A-Za-z][A-Za-z0-9_-]*"

// instancePrefix is owner's instance queue name up to its instance id,
// separator included: a2a.instance.<owner>.
func instancePrefix(owner string) string {
	name, _ := a2a.InstanceQueue(owner, "x")
	return strings.TrimSuffix(name, "x")
}

func responsePrefix() string {
	key, _ := a2a.ResponseRoutingKey("x")
	return strings.TrimSuffix(key, "x")
}

// mustKey drops the error of a key built from a name Build validated.
func mustKey(key string, _ error) string { return key }

// alternation is ^(a|b|...)$ over the distinct parts, in order.
func alternation(parts []string) string {
	var uniq []string
	for _, p := range parts {
		uniq = appendNew(uniq, p)
	}
	return "^(" + strings.Join(uniq, "|") + ")$"
}
