// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package fileread_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/a2abus/a2abus/internal/fileread"
	"github.com/a2abus/a2abus/internal/testenv"
)

// readSoon runs Read under testenv.Returns: a Read that hangs fails the
// test instead of hanging it.
func readSoon(t *testing.T, path string, maxBytes int64) ([]byte, error) {
	t.Helper()
	type result struct {
		data []byte
		err  error
	}
	r := testenv.Returns(t, "Read("+path+")", func() result {
		data, err := fileread.Read(path, maxBytes)
		return result{data, err}
	})
	return r.data, r.err
}

func TestReadRegularFiles(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.yaml")
	if err := os.WriteFile(file, []byte("0123456789"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.yaml")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.yaml")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		max  int64
		want string
	}{{file, 10, "0123456789"}, {file, 1 << 20, "0123456789"}, {link, 10, "0123456789"}, {empty, 10, ""}, {empty, 0, ""}} {
		data, err := readSoon(t, tc.path, tc.max)
		if err != nil || string(data) != tc.want {
			t.Errorf("Read(%s, %d) = %q, %v; want %q", filepath.Base(tc.path), tc.max, data, err, tc.want)
		}
	}
}

func TestReadRefusesALargerFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(file, []byte("01234567890"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := readSoon(t, file, 10)
	var fe *fileread.Error
	if !errors.As(err, &fe) || fe.Limit != 10 || fe.Path != file {
		t.Fatalf("err = %v, want an *Error with limit 10", err)
	}
	testenv.WantError(t, "Read(big.json)", err, fileread.ErrTooLarge, file, "10 bytes")
}

// TestReadRefusesDevicesAndFolders: /dev/zero would fill memory without end
// and a folder cannot be read; both are refused without reading.
func TestReadRefusesDevicesAndFolders(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "zero.yaml")
	if err := os.Symlink(os.DevNull, link); err != nil {
		t.Fatal(err)
	}
	paths := map[string]string{dir: "a folder", link: "a character device"}
	if _, err := os.Stat("/dev/zero"); err == nil {
		paths["/dev/zero"] = "a character device"
	}
	for path, what := range paths {
		_, err := readSoon(t, path, 1<<20)
		testenv.WantError(t, "Read("+path+")", err, fileread.ErrNotRegular, path, what)
	}
}

func TestReadMissingFile(t *testing.T) {
	_, err := readSoon(t, filepath.Join(t.TempDir(), "none.yaml"), 10)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("err = %v, want fs.ErrNotExist", err)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{1 << 20: "1 MiB (1048576 bytes)", 64 << 10: "64 KiB (65536 bytes)", 1000: "1000 bytes", 0: "0 bytes"} {
		if got := fileread.Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
