// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package console

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/internal/redact"
	"github.com/a2abus/a2abus/internal/text"
)

// maxShownRunes bounds a text an agent wrote (a description, a turn, a
// result) on a page; the rest is cut.
const maxShownRunes = 4000

var funcs = template.FuncMap{
	"when": func(t time.Time) string {
		if t.IsZero() {
			return "-"
		}
		return t.UTC().Format("2006-01-02 15:04:05.000")
	},
	"dur": func(d time.Duration) string {
		switch {
		case d >= time.Second:
			return d.Round(10 * time.Millisecond).String()
		default:
			return d.Round(time.Millisecond).String()
		}
	},
	"cut":    func(s string) string { return text.Cut(s, maxShownRunes) },
	"redact": func(s string) string { return text.Cut(redact.String(s), maxShownRunes) },
	"pct":    func(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) + "%" },
	"join":   strings.Join,
	"add":    func(a, b int) int { return a + b },
	"pretty": func(raw json.RawMessage) string {
		var b bytes.Buffer
		if json.Indent(&b, raw, "", "  ") != nil {
			return string(raw)
		}
		return b.String()
	},
}

// parsePages parses every page with the layout.
func parsePages() (map[string]*template.Template, error) {
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("console: templates: %w", err)
	}
	base, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html")
	if err != nil {
		return nil, fmt.Errorf("console: templates: %w", err)
	}
	pages := map[string]*template.Template{}
	for _, n := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if name == "layout" {
			continue
		}
		t, err := template.Must(base.Clone()).ParseFS(templateFS, n)
		if err != nil {
			return nil, fmt.Errorf("console: template %s: %w", name, err)
		}
		pages[name] = t
	}
	return pages, nil
}

// view is what every page gets: its title, which tab is open, and its data.
type view struct {
	Title   string
	Tab     string
	Data    any
	Actions bool
}

// render writes page with data, or a 500 naming what failed.
func (c *Console) render(w http.ResponseWriter, page, title string, data any) {
	var b bytes.Buffer
	if err := c.pages[page].ExecuteTemplate(&b, "layout.html", view{Title: title, Tab: page, Data: data, Actions: c.opts.Actions}); err != nil {
		c.fail(w, "render "+page, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = b.WriteTo(w)
}

// fail answers 500 naming what failed (redacted), and logs it once.
func (c *Console) fail(w http.ResponseWriter, what string, err error) {
	c.log.Warn("console: "+what, zap.Error(err))
	http.Error(w, "console: "+what+": "+redact.String(err.Error()), http.StatusInternalServerError)
}

// pager is one page of a list of total rows.
type pager struct {
	Page, Pages, Total, From, To int
	Prev, Next                   string // the links, empty at an end
}

// paginate cuts [0,total) into pages of size and returns the one asked
// for by ?page= (1 first; out of range clamps), with links that keep the
// other query parameters.
func paginate(r *http.Request, total, size int) pager {
	p := pager{Total: total, Pages: max((total+size-1)/size, 1)}
	p.Page, _ = strconv.Atoi(r.URL.Query().Get("page"))
	p.Page = min(max(p.Page, 1), p.Pages)
	p.From, p.To = (p.Page-1)*size, min(p.Page*size, total)
	link := func(n int) string {
		q := r.URL.Query()
		q.Set("page", strconv.Itoa(n))
		return r.URL.Path + "?" + q.Encode()
	}
	if p.Page > 1 {
		p.Prev = link(p.Page - 1)
	}
	if p.Page < p.Pages {
		p.Next = link(p.Page + 1)
	}
	return p
}
