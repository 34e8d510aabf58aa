// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package console

import (
	"context"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a2abus/a2abus/internal/redact"
)

// healthCheckTimeout bounds each check of the health page.
const healthCheckTimeout = 3 * time.Second

// check is one line of the health page.
type check struct {
	Name, Result string
	OK           bool
	Took         time.Duration
}

type healthData struct {
	Checks   []check
	Circuits [][2]string
	InFlight [][2]string
	Refused  [][2]string
	Settings [][2]string
	Guard    bool
}

// healthPage shows this process's view of Redis, the broker (its
// readiness), the call guard's circuits and the limits in force.
func (c *Console) healthPage(w http.ResponseWriter, r *http.Request) {
	d := healthData{Settings: c.opts.Settings, Guard: c.opts.Guard != nil}
	d.Checks = append(d.Checks, c.check(r.Context(), "working memory (ping)", c.opts.Memory.Ping))
	if c.opts.Ready != nil {
		d.Checks = append(d.Checks, c.check(r.Context(), "readiness (bus and memory)", c.opts.Ready))
	}
	if c.opts.DeadLetters != nil {
		d.Checks = append(d.Checks, c.check(r.Context(), "dead-letter queue", func(ctx context.Context) error {
			_, err := c.opts.DeadLetters.Count(ctx)
			return err
		}))
	}
	if c.opts.Guard != nil {
		st := c.opts.Guard.Stats()
		for _, k := range slices.Sorted(maps.Keys(st.Circuits)) {
			d.Circuits = append(d.Circuits, [2]string{k, st.Circuits[k]})
		}
		for _, k := range slices.Sorted(maps.Keys(st.InFlight)) {
			d.InFlight = append(d.InFlight, [2]string{k, strconv.Itoa(st.InFlight[k])})
		}
		for k, n := range st.Refused {
			d.Refused = append(d.Refused, [2]string{string(k), strconv.Itoa(int(n))})
		}
		slices.SortFunc(d.Refused, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	}
	c.render(w, "health", "Health", d)
}

// check runs f, bounded, and says how it went.
func (c *Console) check(ctx context.Context, name string, f func(context.Context) error) check {
	ctx, cancel := context.WithTimeout(ctx, healthCheckTimeout)
	defer cancel()
	start := time.Now()
	err := f(ctx)
	ch := check{Name: name, OK: err == nil, Result: "ok", Took: time.Since(start)}
	if err != nil {
		ch.Result = redact.String(err.Error())
	}
	return ch
}
