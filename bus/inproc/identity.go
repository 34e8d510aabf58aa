// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package inproc

import "github.com/a2abus/a2abus/bus"

var _ bus.Identified = (*conn)(nil)

// ConnectAs opens a connection as the broker user user: every message it
// publishes is delivered with Message.UserID = user, as RabbitMQ's
// validated user_id, so identity checks mean the same on both buses.
// Connect is ConnectAs with no user (messages carry none).
func (b *Broker) ConnectAs(user string) bus.Bus { return b.connect(user) }

// User is the user the connection was opened as ("" for Connect and New).
func (c *conn) User() string { return c.user }
