// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package prom

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// TestProcessCollectorReadsProc: the process_* families are read from
// /proc/self/stat (a command with spaces and a parenthesis in its name
// included), limits, fd, net/netstat and /proc/stat's btime, as the
// Prometheus client's procfs reads them; a missing file leaves its
// families out.
func TestProcessCollectorReadsProc(t *testing.T) {
	root := t.TempDir()
	write := func(name, data string) {
		t.Helper()
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// Fields 14, 15 (utime, stime: 250 + 50 ticks), 22 (starttime: 1000 ticks), 23 (vsize), 24 (rss pages).
	write("self/stat", "42 (odd) name) S 1 42 42 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 7 0 1000 123456789 300 18446744073709551615\n")
	write("stat", "cpu  1 2 3\nbtime 1700000000\nprocesses 9\n")
	write("self/limits", "Limit                     Soft Limit           Hard Limit           Units\n"+
		"Max open files            1024                 4096                 files\n"+
		"Max address space         unlimited            unlimited            bytes\n")
	write("self/net/netstat", "TcpExt: SyncookiesSent SyncookiesRecv\nTcpExt: 0 0\n"+
		"IpExt: InNoRoutes InOctets OutOctets\nIpExt: 0 5000 7000\n")
	write("self/fd/0", "")
	write("self/fd/1", "")
	write("self/fd/2", "")
	prev := procRoot
	procRoot = root
	defer func() { procRoot = prev }()

	c := NewProcessCollector().(*processCollector)
	s := &Sink{families: map[*Desc]*family{}}
	c.Collect(s)
	want := map[*Desc]float64{
		c.cpu: 3, c.vsize: 123456789, c.rss: 300 * c.pageSize, c.start: 1700000010,
		c.openFDs: 3, c.maxFDs: 1024, c.maxVsize: math.MaxUint64, c.in: 5000, c.out: 7000,
	}
	for d, v := range want {
		f := s.families[d]
		if f == nil || len(f.samples) != 1 || f.samples[0].value != v {
			t.Errorf("%s = %+v, want %v", d.name, f, v)
		}
	}

	if err := os.Remove(filepath.Join(root, "self/limits")); err != nil {
		t.Fatal(err)
	}
	s = &Sink{families: map[*Desc]*family{}}
	c.Collect(s)
	if s.families[c.maxFDs] != nil || s.families[c.maxVsize] != nil || s.families[c.cpu] == nil {
		t.Errorf("without limits: %d families, want the limits' two left out and the rest kept", len(s.families))
	}
}
