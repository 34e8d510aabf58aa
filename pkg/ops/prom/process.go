// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package prom

import (
	"bytes"
	"math"
	"os"
	"strconv"
	"strings"
)

// procRoot is where the process's own /proc entries are read (a test
// points it elsewhere).
var procRoot = "/proc"

// userHZ is the kernel's clock ticks per second in /proc/PID/stat (100 on
// every Linux platform Go supports, as procfs assumes).
const userHZ = 100

// processCollector serves the process_* families of the Prometheus
// client's process collector, read from /proc/self: where /proc is not
// there (not Linux), or one file cannot be read, its families are left out
// of the scrape rather than failing it.
type processCollector struct {
	cpu, openFDs, maxFDs, vsize, maxVsize, rss, start, in, out *Desc
	pageSize                                                   float64
}

// NewProcessCollector reports the process's CPU, memory, file
// descriptors, start time and network bytes (process_*).
func NewProcessCollector() Collector {
	return &processCollector{
		cpu:      NewDesc(CounterType, "process_cpu_seconds_total", "Total user and system CPU time spent in seconds."),
		openFDs:  NewDesc(GaugeType, "process_open_fds", "Number of open file descriptors."),
		maxFDs:   NewDesc(GaugeType, "process_max_fds", "Maximum number of open file descriptors."),
		vsize:    NewDesc(GaugeType, "process_virtual_memory_bytes", "Virtual memory size in bytes."),
		maxVsize: NewDesc(GaugeType, "process_virtual_memory_max_bytes", "Maximum amount of virtual memory available in bytes."),
		rss:      NewDesc(GaugeType, "process_resident_memory_bytes", "Resident memory size in bytes."),
		start:    NewDesc(GaugeType, "process_start_time_seconds", "Start time of the process since unix epoch in seconds."),
		in:       NewDesc(CounterType, "process_network_receive_bytes_total", "Number of bytes received by the process over the network."),
		out:      NewDesc(CounterType, "process_network_transmit_bytes_total", "Number of bytes sent by the process over the network."),
		pageSize: float64(os.Getpagesize()),
	}
}

func (c *processCollector) Describe() []*Desc {
	return []*Desc{c.cpu, c.openFDs, c.maxFDs, c.vsize, c.maxVsize, c.rss, c.start, c.in, c.out}
}

func (c *processCollector) Collect(s *Sink) {
	if st, err := os.ReadFile(procRoot + "/self/stat"); err == nil {
		// The fields after the command's closing parenthesis, from the state (field 3) on.
		if i := bytes.LastIndexByte(st, ')'); i >= 0 {
			f := strings.Fields(string(st[i+1:]))
			field := func(n int) float64 { // n: the field's number in proc(5)
				if n-3 >= len(f) {
					return 0
				}
				v, _ := strconv.ParseFloat(f[n-3], 64)
				return v
			}
			s.Add(c.cpu, (field(14)+field(15))/userHZ)
			s.Add(c.vsize, field(23))
			s.Add(c.rss, field(24)*c.pageSize)
			if boot, ok := bootTime(); ok {
				s.Add(c.start, boot+field(22)/userHZ)
			}
		}
	}
	if fds, err := os.ReadDir(procRoot + "/self/fd"); err == nil {
		s.Add(c.openFDs, float64(len(fds)))
	}
	if limits, err := os.ReadFile(procRoot + "/self/limits"); err == nil {
		if v, ok := softLimit(string(limits), "Max open files"); ok {
			s.Add(c.maxFDs, v)
		}
		if v, ok := softLimit(string(limits), "Max address space"); ok {
			s.Add(c.maxVsize, v)
		}
	}
	if netstat, err := os.ReadFile(procRoot + "/self/net/netstat"); err == nil {
		ip := netstatSection(string(netstat), "IpExt")
		s.Add(c.in, ip["InOctets"])
		s.Add(c.out, ip["OutOctets"])
	}
}

// bootTime is the btime of /proc/stat: the boot, in seconds since the epoch.
func bootTime() (float64, bool) {
	st, err := os.ReadFile(procRoot + "/stat")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(st), "\n") {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			b, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return b, err == nil
		}
	}
	return 0, false
}

// softLimit reads a soft limit of /proc/PID/limits; "unlimited" is the
// largest uint64, as procfs reports it.
func softLimit(limits, name string) (float64, bool) {
	for _, line := range strings.Split(limits, "\n") {
		rest, ok := strings.CutPrefix(line, name)
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			return 0, false
		}
		if f[0] == "unlimited" {
			return math.MaxUint64, true
		}
		v, err := strconv.ParseFloat(f[0], 64)
		return v, err == nil
	}
	return 0, false
}

// netstatSection reads one section of /proc/PID/net/netstat: a line of
// names and a line of values, both prefixed "Section:".
func netstatSection(netstat, section string) map[string]float64 {
	out := map[string]float64{}
	var names []string
	for _, line := range strings.Split(netstat, "\n") {
		rest, ok := strings.CutPrefix(line, section+":")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if names == nil {
			names = f
			continue
		}
		for i, v := range f {
			if i < len(names) {
				out[names[i]], _ = strconv.ParseFloat(v, 64)
			}
		}
		break
	}
	return out
}
