// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package testenv

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

func (f *fakeTB) Fatalf(format string, args ...any) { f.failure = fmt.Sprintf(format, args...) }

const trickleHead = "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n"

func TestTrickleReturnsOnceTheServerCutsOff(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{ReadTimeout: 200 * time.Millisecond, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	f := &fakeTB{}
	Trickle(f, "POST /", ln.Addr().String(), trickleHead, 'x')
	if f.failure != "" {
		t.Fatalf("failure %q, want none: the server's read bound cut the trickle off", f.failure)
	}
}

func TestTrickleFailsWhenTheServerWaits(t *testing.T) {
	defer func(b time.Duration) { trickleBound = b }(trickleBound)
	trickleBound = 300 * time.Millisecond
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() { // reads whatever comes, for ever
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { _ = c.Close() })
			go func() { _, _ = io.Copy(io.Discard, c) }()
		}
	}()
	f := &fakeTB{}
	Trickle(f, "POST /", ln.Addr().String(), trickleHead, 'x')
	if !strings.HasPrefix(f.failure, "POST /: a trickled request held its connection for 300ms") {
		t.Fatalf("failure %q, want one naming the request and the bound", f.failure)
	}
}
