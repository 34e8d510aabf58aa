// Package directory is the agent directory: it consumes the cards agents
// announce on discovery.announce, tracks each agent's live instances, always
// lists the agents of well-known-agents.json, marks agents that stop
// announcing offline and later forgets them, persists what it knows to
// known-agents.json and answers look-ups (case-insensitive, by skill, nearest
// names) for list_known_agents and for vetting invoke targets.
//
// State: every agent has a canonical name (the well-known file's spelling,
// else the most recently announced one), its newest card and its live
// instances. An agent with live instances is online; without, offline. A
// well-known agent that has not announced since the directory started is
// StatusWellKnown; well-known agents are never removed. Other agents are
// forgotten ForgetAfter after they were last seen, once offline.
//
// Persistence: changes are written at most once per PersistDebounce to a
// temporary file in the target's folder, fsynced and renamed over the
// target, and flushed when the directory stops. A missing file is a first
// boot; a bad one stops New with the file, the entry and the reason.
package directory
