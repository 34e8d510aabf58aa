// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package httpserve_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/httpserve"
	"github.com/a2abus/a2abus/internal/testenv"
)

// short are the bounds of the tests: far below the time a trickle or a
// stalled client would hold on without them, so cut off means bounded.
var short = httpserve.Limits{
	ReadHeaderTimeout: 5 * time.Second,
	ReadTimeout:       500 * time.Millisecond,
	WriteTimeout:      500 * time.Millisecond,
	IdleTimeout:       5 * time.Second,
	MaxHeaderBytes:    4 << 10,
	MaxBodyBytes:      1 << 10,
	MaxConnections:    100,
}

// start serves h within l on a loopback port.
func start(t *testing.T, h http.Handler, l httpserve.Limits) *httpserve.Server {
	t.Helper()
	ln, err := httpserve.Listen("127.0.0.1:0", max(l.MaxConnections, 1))
	if err != nil {
		t.Fatal(err)
	}
	s, err := httpserve.Start(ln, h, l, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// readAll is a handler that reads the body and says how it went: 200 with
// its length, 413 past MaxBodyBytes, 400 on another error (a timeout).
func readAll(errs chan<- error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if errs != nil {
			errs <- err
		}
		var mbe *http.MaxBytesError
		switch {
		case errors.As(err, &mbe):
			http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
		case err != nil:
			http.Error(w, err.Error(), http.StatusBadRequest)
		default:
			_, _ = fmt.Fprintf(w, "read %d bytes", len(b))
		}
	}
}

// TestTrickledBodyIsCutOff: a client that sends its body a byte at a time
// loses its connection once ReadTimeout has passed, whether the handler
// reads the body (it gets an error) or not (net/http's drain of the body
// after the handler is bounded too).
func TestTrickledBodyIsCutOff(t *testing.T) {
	t.Parallel() // it mostly waits: overlapping saves the suite's time
	errs := make(chan error, 1)
	reading := start(t, readAll(errs), short)
	ignoring := start(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }), short)
	for name, s := range map[string]*httpserve.Server{"reading": reading, "ignoring": ignoring} {
		head := "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
		testenv.Trickle(t, fmt.Sprintf("%s handler (ReadTimeout %s)", name, short.ReadTimeout), s.Addr().String(), head, 'x')
	}
	if err := <-errs; !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("the handler read the trickled body with %v, want a timeout", err)
	}
}

// TestBodyWithinBoundsIsRead: a body under both bounds is read whole, and
// one over MaxBodyBytes is refused while it is read.
func TestBodyWithinBoundsIsRead(t *testing.T) {
	s := start(t, readAll(nil), short)
	url := "http://" + s.Addr().String() + "/"
	for _, tc := range []struct {
		size int
		want int
	}{{100, http.StatusOK}, {int(short.MaxBodyBytes), http.StatusOK}, {int(short.MaxBodyBytes) + 1, http.StatusRequestEntityTooLarge}} {
		resp, err := http.Post(url, "text/plain", strings.NewReader(strings.Repeat("x", tc.size)))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("a %d-byte body: %d %s, want %d", tc.size, resp.StatusCode, body, tc.want)
		}
	}
}

// TestStreamOutlivesTheTimeouts: a response that streams events with gaps
// longer than ReadTimeout and WriteTimeout, and lasts several times them,
// reaches its client whole — after a request with a body (a POST answered
// with a stream) and without (a GET event stream).
func TestStreamOutlivesTheTimeouts(t *testing.T) {
	t.Parallel() // it mostly waits: overlapping saves the suite's time
	gap := 3 * max(short.ReadTimeout, short.WriteTimeout)
	s := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		for i := range 3 {
			if i > 0 {
				select {
				case <-time.After(gap):
				case <-r.Context().Done():
					return // the stream was cut: the client sees fewer events
				}
			}
			_, _ = fmt.Fprintf(w, "data: %d\n\n", i)
			_ = rc.Flush()
		}
	}), short)
	url := "http://" + s.Addr().String() + "/"
	for _, method := range []string{http.MethodGet, http.MethodPost} {
		var body io.Reader
		if method == http.MethodPost {
			body = strings.NewReader(`{"jsonrpc":"2.0"}`)
		}
		req, err := http.NewRequest(method, url, body)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		events := 0
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "data: ") {
				events++
			}
		}
		_ = resp.Body.Close()
		if events != 3 || sc.Err() != nil {
			t.Errorf("%s: %d events of 3 over %s (%v), a stream cut by a timeout", method, events, 2*gap, sc.Err())
		}
	}
}

// TestStalledReaderIsCutOff: a client that stops reading the response
// makes the handler's write fail once WriteTimeout has passed, instead of
// blocking it for good.
func TestStalledReaderIsCutOff(t *testing.T) {
	failed := make(chan error, 1)
	s := start(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		chunk := []byte(strings.Repeat("x", 64<<10))
		for range 64 << 10 { // 4 GiB: more than any socket buffers
			if _, err := w.Write(chunk); err != nil {
				failed <- err
				return
			}
		}
		failed <- nil
	}), short)
	c, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if tcp, ok := c.(*net.TCPConn); ok {
		_ = tcp.SetReadBuffer(4 << 10)
	}
	if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-failed:
		if err == nil {
			t.Fatal("4 GiB written to a client that reads nothing")
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("a client that reads nothing blocked the handler's write for 60s (WriteTimeout %s)", short.WriteTimeout)
	}
}

// TestConnectionsAreCapped: with MaxConnections held open, a further
// client is not served until one of them closes.
func TestConnectionsAreCapped(t *testing.T) {
	t.Parallel() // it mostly waits: overlapping saves the suite's time
	l := short
	l.MaxConnections = 2
	l.ReadHeaderTimeout = time.Minute // the held connections stay until closed
	var served atomic.Int32
	s := start(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		served.Add(1)
		_, _ = io.WriteString(w, "ok")
	}), l)
	var held []net.Conn
	for range l.MaxConnections {
		c, err := net.Dial("tcp", s.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		held = append(held, c)
	}
	got := make(chan error, 1)
	go func() {
		resp, err := (&http.Client{Timeout: time.Minute}).Get("http://" + s.Addr().String() + "/")
		if err == nil {
			_ = resp.Body.Close()
		}
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("served a request (%v) with %d connections held open and MaxConnections %d", err, len(held), l.MaxConnections)
	case <-time.After(time.Second):
	}
	_ = held[0].Close()
	if err := <-got; err != nil || served.Load() != 1 {
		t.Fatalf("after a held connection closed: %v, %d served", err, served.Load())
	}
}

func TestBearerAuth(t *testing.T) {
	const token = "0123456789abcdef-secret"
	s := start(t, httpserve.BearerAuth(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "in") }), token, "test"), short)
	for _, tc := range []struct {
		headers []string
		want    int
		reason  string
	}{
		{nil, http.StatusUnauthorized, "no Authorization header"},
		{[]string{"Bearer wrong"}, http.StatusUnauthorized, "not the one configured"},
		{[]string{"Bearer " + token + "x"}, http.StatusUnauthorized, "not the one configured"},
		{[]string{"Bearer " + token[:len(token)-1]}, http.StatusUnauthorized, "not the one configured"},
		{[]string{"Basic " + token}, http.StatusUnauthorized, "not \"Bearer <token>\""},
		{[]string{"Bearer "}, http.StatusUnauthorized, "empty"},
		{[]string{"Bearer " + token, "Bearer " + token}, http.StatusUnauthorized, "more than one"},
		{[]string{"Bearer " + token}, http.StatusOK, ""},
		{[]string{"bearer  " + token + " "}, http.StatusOK, ""},
	} {
		req, err := http.NewRequest(http.MethodGet, "http://"+s.Addr().String()+"/", nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range tc.headers {
			req.Header.Add("Authorization", h)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != tc.want || !strings.Contains(string(body), tc.reason) {
			t.Errorf("%q: %d %q, want %d saying %q", tc.headers, resp.StatusCode, body, tc.want, tc.reason)
		}
		if strings.Contains(string(body), token) {
			t.Errorf("%q: the answer shows the token: %q", tc.headers, body)
		}
		if tc.want == http.StatusUnauthorized && resp.Header.Get("WWW-Authenticate") != `Bearer realm="test"` {
			t.Errorf("%q: WWW-Authenticate %q", tc.headers, resp.Header.Get("WWW-Authenticate"))
		}
	}
}

func TestIsLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:80": true, "127.1.2.3:80": true, "[::1]:80": true,
		"0.0.0.0:80": false, "[::]:80": false, "10.0.0.1:80": false, "192.168.1.2:0": false,
	} {
		a, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := httpserve.IsLoopback(a); got != want {
			t.Errorf("IsLoopback(%s) = %v, want %v", addr, got, want)
		}
	}
}

func TestWithDefaults(t *testing.T) {
	l, err := httpserve.Limits{ReadTimeout: time.Second}.WithDefaults()
	if err != nil || l.ReadTimeout != time.Second || l.WriteTimeout != httpserve.DefaultWriteTimeout ||
		l.MaxConnections != httpserve.DefaultMaxConnections || l.MaxBodyBytes != httpserve.DefaultMaxBodyBytes {
		t.Errorf("WithDefaults = %+v, %v", l, err)
	}
	if _, err := (httpserve.Limits{IdleTimeout: -time.Second}).WithDefaults(); !errors.Is(err, httpserve.ErrInvalidLimits) || !strings.Contains(err.Error(), "IdleTimeout") {
		t.Errorf("a negative IdleTimeout: %v", err)
	}
	if _, err := httpserve.Listen("127.0.0.1:0", 0); !errors.Is(err, httpserve.ErrInvalidLimits) {
		t.Errorf("Listen with no connection allowed: %v", err)
	}
}
