// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package docs

import (
	"bufio"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

var (
	// releaseHeading is "## [1.2.3] - 2026-11-26" (or "## [Unreleased]").
	releaseHeading = regexp.MustCompile(`^## \[(Unreleased|(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*))\](?: - ([0-9]{4}-[0-9]{2}-[0-9]{2}))?$`)
	// linkRef is "[1.2.3]: https://…".
	linkRef = regexp.MustCompile(`^\[([^\]]+)\]: (https://\S+)$`)
	// changeKinds are Keep a Changelog's kinds of change, in its order.
	changeKinds = []string{"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}
)

// release is one "## [...]" section of the changelog.
type release struct {
	name, date string
	line       int
	version    [3]int
	kinds      []string
	entries    int
}

// TestChangelogIsKeepAChangelog holds CHANGELOG.md to the Keep a Changelog
// form: "# Changelog", then [Unreleased] first and releases newest first
// (semantic versions going down, ISO dates not going up), each with only
// Added, Changed, Deprecated, Removed, Fixed and Security sections, in that
// order, each with entries; and a link reference for every heading (the
// compare of the previous version with this one, Unreleased with HEAD).
func TestChangelogIsKeepAChangelog(t *testing.T) {
	f, err := os.Open("../CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	var rels []*release
	links := map[string]string{}
	var cur *release
	kindEntries := 0
	endKind := func() {
		if cur != nil && len(cur.kinds) > 0 && kindEntries == 0 {
			t.Errorf("line %d: [%s] ### %s has no entries", cur.line, cur.name, cur.kinds[len(cur.kinds)-1])
		}
		kindEntries = 0
	}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case n == 1:
			if line != "# Changelog" {
				t.Errorf("line 1 is %q, want # Changelog", line)
			}
		case strings.HasPrefix(line, "## "):
			endKind()
			m := releaseHeading.FindStringSubmatch(line)
			if m == nil {
				t.Errorf("line %d: %q is not ## [Unreleased] or ## [X.Y.Z] - YYYY-MM-DD", n, line)
				continue
			}
			cur = &release{name: m[1], date: m[5], line: n}
			if (m[1] == "Unreleased") != (m[5] == "") {
				t.Errorf("line %d: %q: a release has a date, [Unreleased] none", n, line)
			}
			if m[5] != "" {
				if _, err := time.Parse(time.DateOnly, m[5]); err != nil {
					t.Errorf("line %d: %q: %v", n, line, err)
				}
				for i := range 3 {
					cur.version[i], _ = strconv.Atoi(m[2+i])
				}
			}
			rels = append(rels, cur)
		case strings.HasPrefix(line, "### "):
			endKind()
			kind := strings.TrimPrefix(line, "### ")
			switch i := slices.Index(changeKinds, kind); {
			case cur == nil:
				t.Errorf("line %d: %q before any release", n, line)
			case i < 0:
				t.Errorf("line %d: ### %s is not one of %v", n, kind, changeKinds)
			case len(cur.kinds) > 0 && slices.Index(changeKinds, cur.kinds[len(cur.kinds)-1]) >= i:
				t.Errorf("line %d: [%s] ### %s out of order or repeated (order: %v)", n, cur.name, kind, changeKinds)
			default:
				cur.kinds = append(cur.kinds, kind)
			}
		case strings.HasPrefix(line, "- "):
			if cur == nil || len(cur.kinds) == 0 {
				t.Errorf("line %d: an entry outside a release's ### section", n)
				continue
			}
			kindEntries++
			cur.entries++
		case linkRef.MatchString(line):
			m := linkRef.FindStringSubmatch(line)
			if _, dup := links[m[1]]; dup {
				t.Errorf("line %d: [%s] linked twice", n, m[1])
			}
			links[m[1]] = m[2]
		case strings.HasPrefix(line, "#"):
			t.Errorf("line %d: %q: only # Changelog, ## releases and ### kinds of change", n, line)
		}
	}
	endKind()
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rels) < 2 || rels[0].name != "Unreleased" {
		t.Fatalf("want [Unreleased] first, then the releases; got %d sections", len(rels))
	}
	for i, r := range rels {
		if i > 0 && r.entries == 0 {
			t.Errorf("line %d: [%s] lists no change", r.line, r.name)
		}
		if i > 1 {
			prev := rels[i-1]
			if !versionLess(r.version, prev.version) {
				t.Errorf("line %d: [%s] after [%s]: want newest first", r.line, r.name, prev.name)
			}
			if r.date > prev.date {
				t.Errorf("line %d: [%s] dated %s, after [%s]'s %s", r.line, r.name, r.date, prev.name, prev.date)
			}
		}
		url, ok := links[r.name]
		if !ok {
			t.Errorf("[%s] has no link reference", r.name)
			continue
		}
		delete(links, r.name)
		var want string
		switch {
		case i == 0:
			want = "/compare/v" + rels[1].name + "...HEAD"
		case i == len(rels)-1:
			want = "/releases/tag/v" + r.name
		default:
			want = "/compare/v" + rels[i+1].name + "...v" + r.name
		}
		if !strings.HasPrefix(url, "https://github.com/a2abus/a2abus/") || !strings.HasSuffix(url, want) {
			t.Errorf("[%s]: %s, want https://github.com/a2abus/a2abus/…%s", r.name, url, want)
		}
	}
	for name := range links {
		t.Errorf("[%s] is linked but is no release", name)
	}
}

func versionLess(a, b [3]int) bool {
	return slices.Compare(a[:], b[:]) < 0
}
