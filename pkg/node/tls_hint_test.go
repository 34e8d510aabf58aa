package node

import (
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"
)

// Every way a server's refusal of a TLS client surfaces reads as refused —
// its alert, a reset, an end of stream, or the client library having closed
// the connection on it (the TLS 1.3 case that once made a CI run fail) —
// and an unrelated failure does not.
func TestRefusedRecognisesTheServerEndingTLS(t *testing.T) {
	for _, err := range []error{
		&net.OpError{Op: "remote error", Err: errors.New("tls: certificate required")},
		fmt.Errorf("read: %w", syscall.ECONNRESET),
		fmt.Errorf("write: %w", syscall.EPIPE),
		fmt.Errorf("handshake: %w", io.EOF),
		fmt.Errorf("dial (publish): %w", net.ErrClosed),
		errors.New("Exception (501) Reason: \"read tcp 127.0.0.1:1->127.0.0.1:2: use of closed network connection\""),
		errors.New("Exception (504) Reason: \"channel/connection is not open\""), // amqp091-go's ErrClosed, seen in CI
	} {
		if !refused(err) {
			t.Errorf("refused(%v) = false", err)
		}
	}
	if refused(errors.New("dial tcp 127.0.0.1:1: connect: connection refused")) {
		t.Error("a closed port reads as a TLS refusal")
	}
}
