// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package rabbitmq

import (
	"context"
	"fmt"
)

// Server is what the broker said of itself when the bus connected (the
// AMQP connection's server properties).
type Server struct {
	// Product is the broker's name ("RabbitMQ").
	Product string
	// Version is its version ("3.13.7").
	Version string
	// ClusterName is the name of its cluster, "" when it gives none.
	ClusterName string
}

// Server returns what the broker of the current connection said of itself,
// waiting for a connection while the bus re-dials (bounded by ctx).
func (b *Bus) Server(ctx context.Context) (Server, error) {
	c, err := b.consume.get(ctx, nil)
	if err != nil {
		return Server{}, fmt.Errorf("server properties: %w", err)
	}
	str := func(key string) string {
		s, _ := c.Properties[key].(string)
		return s
	}
	return Server{Product: str("product"), Version: str("version"), ClusterName: str("cluster_name")}, nil
}
