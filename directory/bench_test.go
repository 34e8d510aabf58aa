// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package directory

import (
	"fmt"
	"testing"
	"time"
)

// benchSizes are the directory sizes measured; each raises Options.MaxAgents to fit.
var benchSizes = []int{1_000, 10_000, 100_000}

// benchDirectory returns a directory bounded to n learned agents and knowing
// n online agents, each with a skill shared by all, one shared by 1% of
// them, and a description.
func benchDirectory(b *testing.B, n int) (*Directory, []string) {
	b.Helper()
	d := newDirectory(b, Options{Bus: embeddedBus(b), MaxAgents: n})
	now := time.Now()
	names := make([]string, n)
	for i := range n {
		names[i] = fmt.Sprintf("Agent%05d", i)
		if _, _, res := d.reg.apply(announcement(names[i], "i1", now, false, "common", fmt.Sprintf("skill%d", i%100)), now); res != accepted {
			b.Fatalf("announcement %d of %d not applied: outcome %d", i, n, res)
		}
	}
	return d, names
}

func BenchmarkLookup(b *testing.B) {
	for _, n := range benchSizes {
		d, names := benchDirectory(b, n)
		b.Run(fmt.Sprintf("agents=%d/canonical", n), func(b *testing.B) {
			i := 0
			for b.Loop() {
				if _, ok := d.Lookup(names[i%n]); !ok {
					b.Fatal("not found")
				}
				i++
			}
		})
		b.Run(fmt.Sprintf("agents=%d/lower-case", n), func(b *testing.B) {
			lower := make([]string, n)
			for i, name := range names {
				lower[i] = "a" + name[1:]
			}
			i := 0
			for b.Loop() {
				if _, ok := d.Lookup(lower[i%n]); !ok {
					b.Fatal("not found")
				}
				i++
			}
		})
		b.Run(fmt.Sprintf("agents=%d/resolve", n), func(b *testing.B) {
			i := 0
			for b.Loop() {
				if _, err := d.Resolve(b.Context(), names[i%n], "common"); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

func BenchmarkList(b *testing.B) {
	for _, n := range benchSizes {
		d, names := benchDirectory(b, n)
		for _, c := range []struct {
			name string
			f    Filter
			want int
		}{
			{"all", Filter{}, n},
			{"skill-all", Filter{Skill: "common"}, n},
			{"skill-1%", Filter{Skill: "skill7"}, n / 100},
			{"query-10", Filter{Query: "agent0004"}, 10},
		} {
			b.Run(fmt.Sprintf("agents=%d/%s", n, c.name), func(b *testing.B) {
				for b.Loop() {
					if got := len(d.List(c.f)); got != c.want {
						b.Fatalf("listed %d, want %d", got, c.want)
					}
				}
			})
		}
		// One agent re-announces between two listings, as in a live
		// directory: what the listing costs when something changed.
		b.Run(fmt.Sprintf("agents=%d/all-after-announce", n), func(b *testing.B) {
			now := time.Now()
			i := 0
			for b.Loop() {
				now = now.Add(time.Millisecond)
				if _, _, res := d.reg.apply(announcement(names[i%n], "i1", now, false, "common", fmt.Sprintf("skill%d", i%n%100)), now); res != accepted {
					b.Fatalf("announcement not applied: outcome %d", res)
				}
				if got := len(d.List(Filter{})); got != n {
					b.Fatalf("listed %d, want %d", got, n)
				}
				i++
			}
		})
	}
}
