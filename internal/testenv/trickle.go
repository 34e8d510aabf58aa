// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package testenv

import (
	"io"
	"net"
	"testing"
	"time"
)

// trickleBound is how long Trickle lets a trickled request hold its
// connection: far beyond the read bounds the tests give their servers. A
// variable so that the package's own tests can shorten it.
var trickleBound = 30 * time.Second

// Trickle sends head, an HTTP request announcing a body of 1000 bytes or
// more, to the server at addr (host:port), then pad one byte every 50ms
// (50s for 1000 bytes), and returns once the server ends the connection.
// When it has not after 30s it fails tb naming what: the server's
// read bound did not cut a client that trickles its request off.
func Trickle(tb testing.TB, what, addr, head string, pad byte) {
	tb.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		tb.Fatalf("%s: %v", what, err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, head); err != nil {
		tb.Fatalf("%s: %v", what, err)
	}
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		_, _ = io.Copy(io.Discard, c) // the response, if any, then the end of the connection
	}()
	go func() {
		for range 1000 {
			select {
			case <-ended:
				return
			case <-time.After(50 * time.Millisecond):
			}
			if _, err := c.Write([]byte{pad}); err != nil {
				return
			}
		}
	}()
	deadline := time.NewTimer(trickleBound)
	defer deadline.Stop()
	select {
	case <-ended:
	case <-deadline.C:
		tb.Fatalf("%s: a trickled request held its connection for %s", what, trickleBound)
	}
}
