// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package prom

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// runtime/metrics names the Go families read.
const (
	rmTinyAllocs    = "/gc/heap/tiny/allocs:objects"
	rmAllocsObjects = "/gc/heap/allocs:objects"
	rmFreesObjects  = "/gc/heap/frees:objects"
	rmAllocsBytes   = "/gc/heap/allocs:bytes"
	rmTotal         = "/memory/classes/total:bytes"
	rmHeapObjects   = "/memory/classes/heap/objects:bytes"
	rmHeapUnused    = "/memory/classes/heap/unused:bytes"
	rmHeapReleased  = "/memory/classes/heap/released:bytes"
	rmHeapFree      = "/memory/classes/heap/free:bytes"
	rmObjects       = "/gc/heap/objects:objects"
	rmStacks        = "/memory/classes/heap/stacks:bytes"
	rmOSStacks      = "/memory/classes/os-stacks:bytes"
	rmMSpanInuse    = "/memory/classes/metadata/mspan/inuse:bytes"
	rmMSpanFree     = "/memory/classes/metadata/mspan/free:bytes"
	rmMCacheInuse   = "/memory/classes/metadata/mcache/inuse:bytes"
	rmMCacheFree    = "/memory/classes/metadata/mcache/free:bytes"
	rmBuckets       = "/memory/classes/profiling/buckets:bytes"
	rmMetadataOther = "/memory/classes/metadata/other:bytes"
	rmOther         = "/memory/classes/other:bytes"
	rmGoal          = "/gc/heap/goal:bytes"
	rmGOGC          = "/gc/gogc:percent"
	rmGOMEMLIMIT    = "/gc/gomemlimit:bytes"
	rmGOMAXPROCS    = "/sched/gomaxprocs:threads"
)

// goFamily is one go_* family computed from runtime/metrics.
type goFamily struct {
	desc  *Desc
	value func(rm func(string) float64) float64
}

// sum adds runtime/metrics values.
func sum(names ...string) func(rm func(string) float64) float64 {
	return func(rm func(string) float64) float64 {
		var s float64
		for _, n := range names {
			s += rm(n)
		}
		return s
	}
}

// goFamilies are the go_memstats_* and go_gc_*/go_sched_* families the
// Prometheus client's default Go collector serves, with its names, help
// and the runtime/metrics sums its help names.
var goFamilies = []goFamily{
	{NewDesc(GaugeType, "go_gc_gogc_percent", "Heap size target percentage configured by the user, otherwise 100. This value is set by the GOGC environment variable, and the runtime/debug.SetGCPercent function. Sourced from /gc/gogc:percent."), sum(rmGOGC)},
	{NewDesc(GaugeType, "go_gc_gomemlimit_bytes", "Go runtime memory limit configured by the user, otherwise math.MaxInt64. This value is set by the GOMEMLIMIT environment variable, and the runtime/debug.SetMemoryLimit function. Sourced from /gc/gomemlimit:bytes."), sum(rmGOMEMLIMIT)},
	{NewDesc(GaugeType, "go_memstats_alloc_bytes", "Number of bytes allocated in heap and currently in use. Equals to /memory/classes/heap/objects:bytes."), sum(rmHeapObjects)},
	{NewDesc(CounterType, "go_memstats_alloc_bytes_total", "Total number of bytes allocated in heap until now, even if released already. Equals to /gc/heap/allocs:bytes."), sum(rmAllocsBytes)},
	{NewDesc(GaugeType, "go_memstats_buck_hash_sys_bytes", "Number of bytes used by the profiling bucket hash table. Equals to /memory/classes/profiling/buckets:bytes."), sum(rmBuckets)},
	{NewDesc(CounterType, "go_memstats_frees_total", "Total number of heap objects frees. Equals to /gc/heap/frees:objects + /gc/heap/tiny/allocs:objects."), sum(rmFreesObjects, rmTinyAllocs)},
	{NewDesc(GaugeType, "go_memstats_gc_sys_bytes", "Number of bytes used for garbage collection system metadata. Equals to /memory/classes/metadata/other:bytes."), sum(rmMetadataOther)},
	{NewDesc(GaugeType, "go_memstats_heap_alloc_bytes", "Number of heap bytes allocated and currently in use, same as go_memstats_alloc_bytes. Equals to /memory/classes/heap/objects:bytes."), sum(rmHeapObjects)},
	{NewDesc(GaugeType, "go_memstats_heap_idle_bytes", "Number of heap bytes waiting to be used. Equals to /memory/classes/heap/released:bytes + /memory/classes/heap/free:bytes."), sum(rmHeapReleased, rmHeapFree)},
	{NewDesc(GaugeType, "go_memstats_heap_inuse_bytes", "Number of heap bytes that are in use. Equals to /memory/classes/heap/objects:bytes + /memory/classes/heap/unused:bytes"), sum(rmHeapObjects, rmHeapUnused)},
	{NewDesc(GaugeType, "go_memstats_heap_objects", "Number of currently allocated objects. Equals to /gc/heap/objects:objects."), sum(rmObjects)},
	{NewDesc(GaugeType, "go_memstats_heap_released_bytes", "Number of heap bytes released to OS. Equals to /memory/classes/heap/released:bytes."), sum(rmHeapReleased)},
	{NewDesc(GaugeType, "go_memstats_heap_sys_bytes", "Number of heap bytes obtained from system. Equals to /memory/classes/heap/objects:bytes + /memory/classes/heap/unused:bytes + /memory/classes/heap/released:bytes + /memory/classes/heap/free:bytes."), sum(rmHeapObjects, rmHeapUnused, rmHeapReleased, rmHeapFree)},
	{NewDesc(CounterType, "go_memstats_mallocs_total", "Total number of heap objects allocated, both live and gc-ed. Semantically a counter version for go_memstats_heap_objects gauge. Equals to /gc/heap/allocs:objects + /gc/heap/tiny/allocs:objects."), sum(rmAllocsObjects, rmTinyAllocs)},
	{NewDesc(GaugeType, "go_memstats_mcache_inuse_bytes", "Number of bytes in use by mcache structures. Equals to /memory/classes/metadata/mcache/inuse:bytes."), sum(rmMCacheInuse)},
	{NewDesc(GaugeType, "go_memstats_mcache_sys_bytes", "Number of bytes used for mcache structures obtained from system. Equals to /memory/classes/metadata/mcache/inuse:bytes + /memory/classes/metadata/mcache/free:bytes."), sum(rmMCacheInuse, rmMCacheFree)},
	{NewDesc(GaugeType, "go_memstats_mspan_inuse_bytes", "Number of bytes in use by mspan structures. Equals to /memory/classes/metadata/mspan/inuse:bytes."), sum(rmMSpanInuse)},
	{NewDesc(GaugeType, "go_memstats_mspan_sys_bytes", "Number of bytes used for mspan structures obtained from system. Equals to /memory/classes/metadata/mspan/inuse:bytes + /memory/classes/metadata/mspan/free:bytes."), sum(rmMSpanInuse, rmMSpanFree)},
	{NewDesc(GaugeType, "go_memstats_next_gc_bytes", "Number of heap bytes when next garbage collection will take place. Equals to /gc/heap/goal:bytes."), sum(rmGoal)},
	{NewDesc(GaugeType, "go_memstats_other_sys_bytes", "Number of bytes used for other system allocations. Equals to /memory/classes/other:bytes."), sum(rmOther)},
	{NewDesc(GaugeType, "go_memstats_stack_inuse_bytes", "Number of bytes obtained from system for stack allocator in non-CGO environments. Equals to /memory/classes/heap/stacks:bytes."), sum(rmStacks)},
	{NewDesc(GaugeType, "go_memstats_stack_sys_bytes", "Number of bytes obtained from system for stack allocator. Equals to /memory/classes/heap/stacks:bytes + /memory/classes/os-stacks:bytes."), sum(rmStacks, rmOSStacks)},
	{NewDesc(GaugeType, "go_memstats_sys_bytes", "Number of bytes obtained from system. Equals to /memory/classes/total:byte."), sum(rmTotal)},
	{NewDesc(GaugeType, "go_sched_gomaxprocs_threads", "The current runtime.GOMAXPROCS setting, or the number of operating system threads that can execute user-level Go code simultaneously. Sourced from /sched/gomaxprocs:threads."), sum(rmGOMAXPROCS)},
}

// goCollector serves the go_* families of the Prometheus client's default
// Go collector (collectors.NewGoCollector), under the same names and help.
type goCollector struct {
	goroutines, threads, gcDuration, lastGC, info *Desc
	names                                         []string
}

// NewGoCollector reports the Go runtime's go_* families.
func NewGoCollector() Collector {
	c := &goCollector{
		goroutines: NewDesc(GaugeType, "go_goroutines", "Number of goroutines that currently exist."),
		threads:    NewDesc(GaugeType, "go_threads", "Number of OS threads created."),
		gcDuration: NewDesc(SummaryType, "go_gc_duration_seconds", "A summary of the wall-time pause (stop-the-world) duration in garbage collection cycles."),
		lastGC:     NewDesc(GaugeType, "go_memstats_last_gc_time_seconds", "Number of seconds since 1970 of last garbage collection."),
		info:       NewDesc(GaugeType, "go_info", "Information about the Go environment.", "version"),
	}
	c.names = []string{rmTinyAllocs, rmAllocsObjects, rmFreesObjects, rmAllocsBytes, rmTotal, rmHeapObjects, rmHeapUnused,
		rmHeapReleased, rmHeapFree, rmObjects, rmStacks, rmOSStacks, rmMSpanInuse, rmMSpanFree, rmMCacheInuse, rmMCacheFree,
		rmBuckets, rmMetadataOther, rmOther, rmGoal, rmGOGC, rmGOMEMLIMIT, rmGOMAXPROCS}
	return c
}

func (c *goCollector) Describe() []*Desc {
	out := []*Desc{c.goroutines, c.threads, c.gcDuration, c.lastGC, c.info}
	for _, f := range goFamilies {
		out = append(out, f.desc)
	}
	return out
}

func (c *goCollector) Collect(s *Sink) {
	s.Add(c.goroutines, float64(runtime.NumGoroutine()))
	threads, _ := runtime.ThreadCreateProfile(nil)
	s.Add(c.threads, float64(threads))

	var stats debug.GCStats
	stats.PauseQuantiles = make([]time.Duration, 5)
	debug.ReadGCStats(&stats)
	quantiles := map[float64]float64{}
	for i, q := range stats.PauseQuantiles {
		quantiles[float64(i)/float64(len(stats.PauseQuantiles)-1)] = q.Seconds()
	}
	s.AddSummary(c.gcDuration, uint64(stats.NumGC), stats.PauseTotal.Seconds(), quantiles)
	s.Add(c.lastGC, float64(stats.LastGC.UnixNano())/1e9)
	s.Add(c.info, 1, runtime.Version())

	samples := make([]metrics.Sample, len(c.names))
	for i, n := range c.names {
		samples[i].Name = n
	}
	metrics.Read(samples)
	values := make(map[string]float64, len(samples))
	for _, smp := range samples {
		switch smp.Value.Kind() {
		case metrics.KindUint64:
			values[smp.Name] = float64(smp.Value.Uint64())
		case metrics.KindFloat64:
			values[smp.Name] = smp.Value.Float64()
		}
	}
	rm := func(name string) float64 { return values[name] }
	for _, f := range goFamilies {
		s.Add(f.desc, f.value(rm))
	}
}
