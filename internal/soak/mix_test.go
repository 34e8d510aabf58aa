// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package soak

import (
	"reflect"
	"testing"
)

func TestMixIsDeterministicAndCoversEverySkill(t *testing.T) {
	agents := []string{"A", "B", "C"}
	skills := map[string]int{}
	modes := map[string]int{}
	for n := int64(1); n <= 2000; n++ {
		s := Mix(9, n, agents)
		if !reflect.DeepEqual(s, Mix(9, n, agents)) {
			t.Fatalf("task %d drawn twice differently", n)
		}
		skills[s.Skill]++
		modes[s.Mode]++
		switch {
		case s.Expect == ExpectTimeout && (s.Skill != SkillSlow || s.Timeout <= 0):
			t.Errorf("task %d: a timed-out task must be slow with a timeout: %+v", n, s)
		case s.Expect == ExpectCancel && (s.CancelAfter <= 0 || s.Mode != ModeInvoke):
			t.Errorf("task %d: a cancelled task must be invoked and cancelled: %+v", n, s)
		case s.Expect == ExpectFail && s.Skill != SkillFail:
			t.Errorf("task %d: only fail fails: %+v", n, s)
		}
	}
	for _, k := range []string{SkillFast, SkillSlow, SkillFail, SkillNested, SkillRandom} {
		if skills[k] == 0 {
			t.Errorf("no %s task in 2000", k)
		}
	}
	for _, m := range []string{ModeInvoke, ModeCall, ModeCallStream} {
		if modes[m] == 0 {
			t.Errorf("no %s task in 2000", m)
		}
	}
}
