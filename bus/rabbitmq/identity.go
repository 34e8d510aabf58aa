// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package rabbitmq

import (
	"strings"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/a2abus/a2abus/bus"
)

var _ bus.Identified = (*Bus)(nil)

// User is the broker user the bus connects as (the URL's, guest when it
// names none). Every message it publishes carries it as AMQP user_id, which
// RabbitMQ refuses unless it is the connection's user, so a receiver can
// believe Delivery.UserID.
func (b *Bus) User() string { return b.user }

// urlUser is the user amqp091 logs in as for raw: the URL's, or its default
// (guest). With another mechanism than PLAIN/AMQPLAIN (EXTERNAL: the user
// comes from the client certificate) it is not known here: "", and
// publishes carry no user_id. The URL was validated by Options.withDefaults.
func urlUser(raw string) string {
	u, err := amqp.ParseURI(raw)
	if err != nil {
		return ""
	}
	for _, m := range u.AuthMechanism {
		if !strings.EqualFold(m, "PLAIN") && !strings.EqualFold(m, "AMQPLAIN") {
			return ""
		}
	}
	return u.Username
}
