// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package soak

import "testing"

func TestClusterReplicaOfReadsClusterNodes(t *testing.T) {
	nodes := `8e03 127.0.0.1:24326@22424 slave 8fa7 0 1795732076000 2 connected
5b25 127.0.0.1:25652@22057 myself,master - 0 1795732076000 1 connected 0-5460
6deb 127.0.0.1:21588@26074 slave 5b25 0 1795732076000 1 connected
8fa7 127.0.0.1:23482@21964 master - 0 1795732075981 2 connected 5461-10922
`
	for _, c := range []struct{ addr, id, replica string }{
		{"127.0.0.1:25652", "5b25", "6deb"},
		{"127.0.0.1:23482", "8fa7", "8e03"},
		{"127.0.0.1:2348", "", ""}, // a prefix of a port is another node
		{"127.0.0.1:24326", "8e03", ""},
	} {
		id, replica := clusterReplicaOf(nodes, c.addr)
		if id != c.id || replica != c.replica {
			t.Errorf("clusterReplicaOf(%s) = %q, %q; want %q, %q", c.addr, id, replica, c.id, c.replica)
		}
	}
}
