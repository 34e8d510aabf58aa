// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package web_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/agents/research"
	"github.com/a2abus/a2abus/internal/agents/research/web"
)

// articleHTML is a page whose article is about quorum queues, among a
// menu, a script and a footer that readability leaves out.
const articleHTML = `<!doctype html><html><head><title>Quorum queues explained</title>
<script>var tracking = "quorum tracking code";</script></head>
<body><nav><a href="/">Home</a> <a href="/shop">Shop the navigation menu</a></nav>
<article><h1>Quorum queues explained</h1>
<p>Quorum queues are replicated with the Raft consensus algorithm. A majority of the replicas must confirm every message before it is acknowledged to the publisher, so no confirmed message is lost when one node fails.</p>
<p>Unlike classic queues, quorum queues do not support message priority, and they keep their data on disk. Operators choose them when data safety matters more than latency.</p>
<p>Each quorum queue has a leader and followers; when the leader fails, the followers elect a new one within seconds and clients reconnect to it.</p>
</article><footer>Copyright footer text, cookie banner</footer></body></html>`

// site is a local web site with every kind of page the fetcher must
// handle; robots counts the robots.txt requests.
type site struct {
	*httptest.Server
	robots atomic.Int64
}

func newSite(t *testing.T) *site {
	t.Helper()
	s := &site{}
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, _ *http.Request) {
		s.robots.Add(1)
		fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
	})
	mux.HandleFunc("/article", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, articleHTML)
	})
	mux.HandleFunc("/notes.txt", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, "Quorum queues need three nodes.\n\nStreams are append-only logs.")
	})
	mux.HandleFunc("/private/secret", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body><p>quorum secret the robots rules keep out</p></body></html>")
	})
	mux.HandleFunc("/data.bin", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		fmt.Fprint(w, "quorum binary")
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body><p>"+strings.Repeat("quorum ", 20_000)+"</p></body></html>")
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select { // answers only after the client gave up (or the test ended)
		case <-r.Context().Done():
		case <-time.After(time.Minute):
		}
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/loop", http.StatusFound)
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// fetcher is a fetcher allowed on loopback (the test site), with a
// generous timeout: only the slow page should reach it.
func fetcher(o web.FetchOptions) *web.Fetcher {
	o.AllowPrivate = true
	if o.Timeout == 0 {
		o.Timeout = 30 * time.Second
	}
	if o.MaxBytes == 0 {
		o.MaxBytes = 64 << 10
	}
	return web.NewFetcher(o)
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c
}

// TestFetchReadableText: an HTML page gives its article's text — the
// menu, the script and the footer left out — and its title; a text page
// gives its text; robots.txt is read once for the site.
func TestFetchReadableText(t *testing.T) {
	s := newSite(t)
	f := fetcher(web.FetchOptions{})
	p, err := f.Fetch(ctx(t), s.URL+"/article")
	if err != nil {
		t.Fatal(err)
	}
	if p.Title != "Quorum queues explained" || !strings.Contains(p.Text, "Raft consensus algorithm") ||
		!strings.Contains(p.Text, "elect a new one") {
		t.Fatalf("page %q: %q", p.Title, p.Text)
	}
	for _, junk := range []string{"tracking", "navigation menu", "cookie banner", "<p>"} {
		if strings.Contains(p.Text, junk) {
			t.Errorf("the readable text keeps %q: %q", junk, p.Text)
		}
	}
	p, err = f.Fetch(ctx(t), s.URL+"/notes.txt")
	if err != nil || p.Text != "Quorum queues need three nodes.\n\nStreams are append-only logs." {
		t.Fatalf("text page: %q, %v", p.Text, err)
	}
	if n := s.robots.Load(); n != 1 {
		t.Errorf("robots.txt read %d times for two pages of one site, want once (cached)", n)
	}
}

// TestFetchRefuses: each bound refuses its page with its own error.
func TestFetchRefuses(t *testing.T) {
	s := newSite(t)
	f := fetcher(web.FetchOptions{MaxBytes: 4096, MaxRedirects: 3})
	for _, c := range []struct {
		path string
		want error
		says string
	}{
		{"/private/secret", web.ErrRobots, "/private/secret"},
		{"/data.bin", web.ErrContentType, "application/octet-stream"},
		{"/big", web.ErrTooLarge, "4096"},
		{"/loop", web.ErrTooManyRedirects, "(3)"},
		{"/missing", web.ErrStatus, "404"},
	} {
		_, err := f.Fetch(ctx(t), s.URL+c.path)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v, want %v saying %q", c.path, err, c.want, c.says)
		}
	}
	for _, raw := range []string{"ftp://example.org/x", "/relative", "http://"} {
		if _, err := f.Fetch(ctx(t), raw); !errors.Is(err, web.ErrBadURL) {
			t.Errorf("%q: %v, want ErrBadURL", raw, err)
		}
	}
}

// TestFetchTimesOut: a page that does not answer within the fetch
// timeout is given up.
func TestFetchTimesOut(t *testing.T) {
	s := newSite(t)
	f := fetcher(web.FetchOptions{Timeout: 500 * time.Millisecond})
	_, err := f.Fetch(ctx(t), s.URL+"/slow")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("slow page: %v, want the fetch timeout", err)
	}
}

// TestFetchRefusesInternalAddresses: without AllowPrivate, loopback is
// refused — by address, by a name that resolves to it, and when a public
// looking redirect is not involved at all — before any request is sent.
func TestFetchRefusesInternalAddresses(t *testing.T) {
	s := newSite(t)
	f := web.NewFetcher(web.FetchOptions{Timeout: 30 * time.Second})
	port := s.URL[strings.LastIndex(s.URL, ":"):]
	for _, raw := range []string{s.URL + "/article", "http://localhost" + port + "/article", "http://[::1]" + port + "/article"} {
		_, err := f.Fetch(ctx(t), raw)
		if !errors.Is(err, web.ErrForbiddenAddress) {
			t.Errorf("%s: %v, want ErrForbiddenAddress", raw, err)
		}
	}
	if n := s.robots.Load(); n != 0 {
		t.Errorf("the site got %d requests, want none", n)
	}
}

// searx is a fake SearXNG: it checks the query's form and answers results.
func searx(t *testing.T, results func(q string) []map[string]string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/search" || r.URL.Query().Get("format") != "json" || r.URL.Query().Get("q") == "" {
			http.Error(w, "want /search?q=…&format=json", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"query": r.URL.Query().Get("q"), "results": results(r.URL.Query().Get("q"))})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestSearXNGSearch(t *testing.T) {
	srv := searx(t, func(q string) []map[string]string {
		return []map[string]string{
			{"url": "https://a.example/1", "title": " First ", "content": "about " + q},
			{"url": "javascript:alert(1)", "title": "bad"},
			{"url": "https://b.example/2", "title": "Second", "content": "more"},
			{"url": "https://c.example/3", "title": "Third"},
		}
	})
	s := &web.SearXNG{BaseURL: srv.URL + "/"}
	got, err := s.Search(ctx(t), "quorum queues", 2)
	if err != nil {
		t.Fatal(err)
	}
	want := []research.SearchResult{{URL: "https://a.example/1", Title: "First", Snippet: "about quorum queues"}, {URL: "https://b.example/2", Title: "Second", Snippet: "more"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("results %+v, want %+v", got, want)
	}
	bad := &web.SearXNG{BaseURL: srv.URL + "/nowhere"}
	if _, err := bad.Search(ctx(t), "q", 2); !errors.Is(err, web.ErrStatus) || !strings.Contains(err.Error(), "format=json") {
		t.Fatalf("a wrong endpoint: %v, want ErrStatus with a hint", err)
	}
}

func TestNewRefusesABadSearchURL(t *testing.T) {
	for _, u := range []string{"", "searxng:8080", "ftp://x"} {
		if _, err := web.New(research.WebConfig{SearchURL: u}); !errors.Is(err, web.ErrBadURL) {
			t.Errorf("%q: %v, want ErrBadURL", u, err)
		}
	}
}
