// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package httpserve

import (
	"io"
	"net/http"
	"sync"
	"time"
)

// Bound wraps h so that each request's body is bounded in size
// (l.MaxBodyBytes) and in time (l.ReadTimeout from the start of the
// handler, that is the end of the headers), and each write of its response in time (l.WriteTimeout). l must
// have its defaults (WithDefaults).
//
// The read deadline is set only while a body is being read and lifted once
// it is read to its end: net/http's background read, which watches for the
// client going away during a long response, must not see it, or a stream
// (server-sent events) would end when the deadline passes. A request without
// a body gets none.
func Bound(h http.Handler, l Limits) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		if r.Body != nil && r.Body != http.NoBody {
			_ = rc.SetReadDeadline(time.Now().Add(l.ReadTimeout))
			r.Body = &deadlineBody{ReadCloser: http.MaxBytesReader(w, r.Body, l.MaxBodyBytes), rc: rc}
		}
		dw := &deadlineWriter{ResponseWriter: w, rc: rc, d: l.WriteTimeout}
		dw.extend()
		defer dw.extend() // what net/http writes once the handler returns (the end of a chunked body)
		h.ServeHTTP(dw, r)
	})
}

// deadlineBody lifts the connection's read deadline once the body has been
// read to its end.
type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	once sync.Once
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.once.Do(func() { _ = b.rc.SetReadDeadline(time.Time{}) })
	}
	return n, err
}

// deadlineWriter gives each write to the client its own deadline, d from
// its start.
type deadlineWriter struct {
	http.ResponseWriter
	rc *http.ResponseController
	d  time.Duration
}

func (w *deadlineWriter) extend() { _ = w.rc.SetWriteDeadline(time.Now().Add(w.d)) }

func (w *deadlineWriter) Write(p []byte) (int, error) {
	w.extend()
	return w.ResponseWriter.Write(p)
}

// FlushError flushes the response within the write deadline (http.ResponseController uses it).
func (w *deadlineWriter) FlushError() error {
	w.extend()
	return w.rc.Flush()
}

// Flush is FlushError for callers that want an http.Flusher.
func (w *deadlineWriter) Flush() { _ = w.FlushError() }

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *deadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
