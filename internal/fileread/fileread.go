// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package fileread reads the files a2abus takes from outside — the
// configuration, workflow and agent YAML, card, directory, key and
// certificate files — with a size bound applied while reading, and only
// when they are regular files: a FIFO, a device (/dev/zero), a socket or a
// folder is refused at once, before anything blocks or fills memory.
package fileread

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// Sentinel errors of Read; both come as an *Error naming the file.
var (
	// ErrNotRegular: the path names a FIFO, a device, a socket or a folder.
	ErrNotRegular = errors.New("fileread: not a regular file")
	// ErrTooLarge: the file holds more bytes than the bound.
	ErrTooLarge = errors.New("fileread: file too large")
)

// Error is a file Read refused. It wraps ErrNotRegular or ErrTooLarge.
type Error struct {
	// Path is the file as it was named.
	Path string
	// Err is ErrNotRegular or ErrTooLarge.
	Err error
	// Limit is the bound in bytes (ErrTooLarge).
	Limit int64
	// Mode is the file's type (ErrNotRegular).
	Mode fs.FileMode
}

// Error names the file and, for ErrTooLarge, the bound; for ErrNotRegular what the path is.
func (e *Error) Error() string {
	if errors.Is(e.Err, ErrTooLarge) {
		return fmt.Sprintf("%q is larger than %s, the bound of this file", e.Path, Size(e.Limit))
	}
	return fmt.Sprintf("%q is %s, not a regular file", e.Path, kind(e.Mode))
}

// Unwrap returns ErrNotRegular or ErrTooLarge.
func (e *Error) Unwrap() error { return e.Err }

// Read returns the content of the regular file at path, reading at most
// maxBytes+1 bytes of it: a longer file is an *Error wrapping ErrTooLarge,
// and a path that names anything but a regular file (after symbolic links)
// an *Error wrapping ErrNotRegular, returned without reading. A file that
// cannot be opened gives the *fs.PathError os.Open would (errors.Is(err,
// fs.ErrNotExist) for a missing one).
func Read(path string, maxBytes int64) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
			pe.Op = "open" // what the reader tried to do, as os.ReadFile says it
		}
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &Error{Path: path, Err: ErrNotRegular, Mode: st.Mode()}
	}
	// O_NONBLOCK: were the file replaced by a FIFO since the Stat, the open
	// would not wait for a writer; the opened file's mode is checked again.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &Error{Path: path, Err: ErrNotRegular, Mode: st.Mode()}
	}
	if st.Size() > maxBytes {
		return nil, &Error{Path: path, Err: ErrTooLarge, Limit: maxBytes}
	}
	// The size is a hint only (the file may grow while it is read): the
	// limit reader is the bound. One byte more holds the read that finds EOF.
	buf := make([]byte, 0, st.Size()+1)
	data, err := readAll(io.LimitReader(f, maxBytes+1), buf)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > maxBytes {
		return nil, &Error{Path: path, Err: ErrTooLarge, Limit: maxBytes}
	}
	return data, nil
}

// readAll is io.ReadAll appending to buf (whose capacity is the expected size).
func readAll(r io.Reader, buf []byte) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// kind names a file type in words.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	default:
		return "an irregular file"
	}
}

// Size writes a byte count for people: "1 MiB (1048576 bytes)" when it is
// a whole number of KiB or MiB, else "1000 bytes".
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB (%d bytes)", n>>20, n)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB (%d bytes)", n>>10, n)
	default:
		return fmt.Sprintf("%d bytes", n)
	}
}
