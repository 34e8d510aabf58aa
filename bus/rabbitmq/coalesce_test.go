// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package rabbitmq

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/a2abus/a2abus/internal/testenv"
)

// slowConn is a net.Conn whose writes take a while and are counted, as a
// busy socket's would be.
type slowConn struct {
	net.Conn
	delay  time.Duration
	writes atomic.Int64
	fail   error // returned by every write when set
}

func (s *slowConn) Write(p []byte) (int, error) {
	s.writes.Add(1)
	if s.fail != nil {
		return 0, s.fail
	}
	time.Sleep(s.delay)
	return s.Conn.Write(p)
}

// tcpPair is a connected loopback TCP pair: the client side and the server side.
func tcpPair(t *testing.T) (net.Conn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			close(accepted)
			return
		}
		accepted <- c
	}()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server, ok := <-accepted
	if !ok {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { _ = client.Close(); _ = server.Close() })
	return client, server
}

func TestCoalescingConnKeepsEveryWritersBytesInOrderInFewerWrites(t *testing.T) {
	client, server := tcpPair(t)
	slow := &slowConn{Conn: client, delay: time.Millisecond}
	c := coalesce(slow)
	const writers, lines = 8, 200
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range lines {
				if _, err := fmt.Fprintf(c, "%d %d\n", w, i); err != nil {
					t.Errorf("write: %v", err)
					return
				}
			}
		})
	}
	read := make(chan map[int]int, 1)
	go func() {
		next := map[int]int{}
		sc := bufio.NewScanner(server)
		for n := 0; n < writers*lines && sc.Scan(); n++ {
			var w, i int
			if _, err := fmt.Sscanf(sc.Text(), "%d %d", &w, &i); err != nil || i != next[w] {
				t.Errorf("line %q: writer %d's next line is %d (%v)", sc.Text(), w, next[w], err)
			}
			next[w] = i + 1
		}
		read <- next
	}()
	wg.Wait()
	select {
	case next := <-read:
		for w := range writers {
			if next[w] != lines {
				t.Errorf("writer %d: %d lines arrived, want %d", w, next[w], lines)
			}
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the lines did not all arrive")
	}
	if got := slow.writes.Load(); got >= writers*lines/4 {
		t.Errorf("%d writes to the socket for %d Writes: not coalesced", got, writers*lines)
	}
	if err := c.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
}

func TestCoalescingConnCloseSendsWhatIsQueued(t *testing.T) {
	client, server := tcpPair(t)
	c := coalesce(&slowConn{Conn: client, delay: 20 * time.Millisecond})
	for i := range 5 {
		if _, err := fmt.Fprintf(c, "line %d\n", i); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	got, err := io.ReadAll(server)
	if err != nil {
		t.Fatal(err)
	}
	if want := "line 0\nline 1\nline 2\nline 3\nline 4\n"; string(got) != want {
		t.Errorf("received %q, want %q", got, want)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second close: %v", err)
	}
	if _, err := c.Write([]byte("late")); !errors.Is(err, net.ErrClosed) {
		t.Errorf("write after close: %v, want net.ErrClosed", err)
	}
}

func TestCoalescingConnWriteFailureFailsLaterWritesAndClosesTheConn(t *testing.T) {
	client, server := tcpPair(t)
	broken := errors.New("socket broken")
	c := coalesce(&slowConn{Conn: client, fail: broken})
	defer func() { _ = c.Close() }()
	// Nothing is on the wire: the first write goes out at once and fails.
	if _, err := c.Write([]byte("first")); !errors.Is(err, broken) {
		t.Fatalf("first write: %v, want %v", err, broken)
	}
	var err error
	testenv.Eventually(t, "a write fails after the failure", func() bool {
		_, err = c.Write([]byte("next"))
		return err != nil
	})
	if !errors.Is(err, broken) {
		t.Fatalf("write after the failure: %v, want %v", err, broken)
	}
	// The peer sees the connection closed, as amqp091-go's reader must.
	_ = server.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := server.Read(make([]byte, 16)); err != io.EOF {
		t.Errorf("peer read %d bytes, %v; want EOF", n, err)
	}
}

// The test runs in a synctest bubble (net.Pipe is in memory): once
// synctest.Wait returns, the writer is blocked for good, not just slow.
func TestCoalescingConnHoldsWritersBackWhenThePeerStopsReading(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client, server := net.Pipe() // a write blocks until the peer reads
		defer func() { _ = server.Close() }()
		c := coalesce(client)
		chunk := []byte(strings.Repeat("x", 64<<10))
		var queued atomic.Int64
		stopped := make(chan error, 1)
		go func() {
			// Past 4·maxUnwritten nothing holds it back: it stops, so that
			// synctest.Wait returns and the check below fails.
			for queued.Load() <= 4*maxUnwritten {
				if _, err := c.Write(chunk); err != nil {
					stopped <- err
					return
				}
				queued.Add(int64(len(chunk)))
			}
		}()
		synctest.Wait() // the writer goroutine and the held writer are both blocked
		if n := queued.Load(); n > 2*maxUnwritten {
			t.Fatalf("%d bytes accepted while the peer read nothing, want at most about %d", n, maxUnwritten)
		}
		select {
		case err := <-stopped:
			t.Fatalf("writer stopped: %v", err)
		default:
		}
		closed := make(chan error, 1)
		go func() { closed <- c.Close() }() // the pending write ends with its deadline or the close
		select {
		case err := <-stopped:
			if !errors.Is(err, net.ErrClosed) && !errors.Is(err, io.ErrClosedPipe) && !isTimeout(err) {
				t.Errorf("held writer ended with %v, want a closed or timed-out connection", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Close did not release the held writer")
		}
		select {
		case <-closed:
		case <-time.After(5 * time.Second):
			t.Fatal("Close did not return")
		}
	})
}

// isTimeout reports whether err is a deadline's timeout.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
