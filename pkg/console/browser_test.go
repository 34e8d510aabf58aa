// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package console_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/console"
	"github.com/a2abus/a2abus/pkg/converse"
)

// screenshotDir is where the browser test writes a screenshot of each page
// (kept out of the repository by .gitignore).
const screenshotDir = "../../test-output/console"

// browserWait bounds every wait in the browser (a loaded machine is slow).
const browserWait = 60 * time.Second

// chromePath finds Chromium: A2ABUS_TEST_CHROME, else the usual names on
// the PATH (scripts/ensure-chromium.sh installs Debian's chromium). None
// is a skip, or a failure under CI=true.
func chromePath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("A2ABUS_TEST_CHROME"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "no Chromium on the PATH (run scripts/ensure-chromium.sh, or set A2ABUS_TEST_CHROME)"
	if testenv.InCI() {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// browser is one headless Chromium tab shared by the subtests, and what
// the pages wrote to its console.
type browser struct {
	ctx      context.Context
	mu       sync.Mutex
	messages []string // errors and warnings of the console, exceptions
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromePath(t)), chromedp.NoSandbox,
		chromedp.Flag("disable-gpu", true), chromedp.WindowSize(1280, 900))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	br := &browser{ctx: ctx}
	messages := chromedp.Console(ctx) // subscribes now: starts the browser
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleWarning || m.IsException() {
				br.mu.Lock()
				br.messages = append(br.messages, fmt.Sprintf("%s (%s:%d)", m, m.URL, m.Line))
				br.mu.Unlock()
			}
		}
	}()
	return br
}

// open navigates to url.
func (br *browser) open(t *testing.T, url string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(br.ctx, browserWait)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatalf("open %s: %v", url, err)
	}
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](t *testing.T, br *browser, expr string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(br.ctx, browserWait)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// waitFor waits until the JavaScript predicate expr holds in the page.
func (br *browser) waitFor(t *testing.T, what, expr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(br.ctx, browserWait+5*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(browserWait))); err != nil {
		body, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("main") ? document.querySelector("main").innerText : document.body.innerText`))
		t.Fatalf("waiting for %s: %v; the page shows:\n%s", what, err, body)
	}
}

// until opens url again and again until the JavaScript predicate expr
// holds in it (a page that is not live: the agents, the dead letters).
func (br *browser) until(t *testing.T, what, url, expr string) {
	t.Helper()
	deadline := time.Now().Add(browserWait)
	for {
		br.open(t, url)
		br.waitFor(t, "the page "+url, `document.querySelector("main") !== null`)
		if eval[bool](t, br, expr) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not shown within %s:\n%s", what, browserWait, eval[string](t, br, `document.querySelector("main").innerText`))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// screenshot writes the page to screenshotDir/name.png.
func (br *browser) screenshot(t *testing.T, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(br.ctx, browserWait)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.MkdirAll(screenshotDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(screenshotDir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// js quotes s as a JavaScript string.
func js(s string) string { return strconv.Quote(s) }

// TestBrowser drives the console in headless Chromium on the real servers:
// a running agent listed, a task appearing and turning completed live, a
// failed task's code, a dead letter with its reason, a hostile card shown
// as text, a conversation paused by its control (on a console with
// actions), and no error in the browser's console. It writes a screenshot
// of each page to test-output/console/.
func TestBrowser(t *testing.T) {
	br := newBrowser(t)
	m := newMesh(t, testworld.Real(t), nil)
	const session = "console-browser"

	t.Run("agents", func(t *testing.T) {
		row := `document.querySelector('tr[data-agent=` + js(m.sample) + `]')`
		br.until(t, "SampleAgent listed online with a consumer on its queue", m.url+"/agents",
			row+` !== null && `+row+`.querySelector(".status").textContent.startsWith("online") && `+row+`.cells[7].textContent.trim() !== "" && `+row+`.cells[7].textContent.trim() !== "0"`)
		br.screenshot(t, "agents")
	})

	t.Run("hostile card", func(t *testing.T) {
		br.open(t, m.url+"/agents/"+m.hostile)
		br.waitFor(t, "the hostile description", `!!document.getElementById("description")`)
		if got := eval[string](t, br, `document.getElementById("description").textContent`); got != hostileDescription {
			t.Errorf("the description shows %q, want the card's text %q", got, hostileDescription)
		}
		if n := eval[int](t, br, `document.querySelectorAll("main script, main img, main b, main i").length`); n != 0 {
			t.Errorf("%d elements made from the card's markup", n)
		}
		if got := eval[string](t, br, `String(window.__pwned)`); got != "undefined" {
			t.Errorf("the card's script ran: window.__pwned = %s", got)
		}
		br.screenshot(t, "agent")
	})

	t.Run("session live", func(t *testing.T) {
		br.open(t, m.url+"/sessions/"+session)
		br.waitFor(t, "the live view connected", `document.getElementById("live-state").textContent === "live"`)
		eval[bool](t, br, `window.__sameView = true`) // gone if the page reloads
		ctx, cancel := context.WithTimeout(context.Background(), browserWait)
		defer cancel()
		inv, err := m.caller.Invoke(ctx, caller.Request{Target: m.sample, Skill: "sleep", Text: "1500", SessionID: session})
		if err != nil {
			t.Fatal(err)
		}
		row := `document.querySelector('#tasks tr[data-task=` + js(inv.TaskID) + `]')`
		br.waitFor(t, "the invoked task listed", row+` !== null`)
		first := eval[string](t, br, row+`.querySelector(".state").textContent`)
		br.waitFor(t, "the task completed", row+`.querySelector(".state").textContent === "completed"`)
		if !eval[bool](t, br, `window.__sameView === true`) {
			t.Error("the page reloaded: the task's state did not change live")
		}
		t.Logf("the task showed %q, then completed", first)

		failed, err := m.caller.Invoke(ctx, caller.Request{Target: m.sample, Skill: "fail", Text: "bad order", SessionID: session})
		if err != nil {
			t.Fatal(err)
		}
		frow := `document.querySelector('#tasks tr[data-task=` + js(failed.TaskID) + `]')`
		br.waitFor(t, "the failed task's code", frow+` && `+frow+`.querySelector(".code").textContent === "EXECUTION_FAILED" && `+frow+`.querySelector(".state").textContent === "failed"`)
		br.waitFor(t, "the notification turns", `document.querySelectorAll("#turns li.notification").length >= 2`)
		br.screenshot(t, "session-live")

		br.open(t, m.url+"/sessions/"+session) // the page as rendered, with the waterfall and the tree
		br.waitFor(t, "the waterfall and the tree", `document.querySelectorAll("svg.waterfall rect").length >= 2 && document.querySelector("ul.tree") !== null`)
		br.screenshot(t, "session")
		br.open(t, m.url+"/sessions/"+session+"/tasks/"+failed.TaskID)
		br.waitFor(t, "the task's page", `document.querySelector("dd.code") && document.querySelector("dd.code").textContent === "EXECUTION_FAILED"`)
		br.screenshot(t, "task")
	})

	t.Run("dead letter", func(t *testing.T) {
		// A request the agent cannot decode: it dead-letters it (reason "rejected").
		ctx, cancel := context.WithTimeout(context.Background(), browserWait)
		defer cancel()
		key, err := a2a.TaskRoutingKey(m.sample)
		if err != nil {
			t.Fatal(err)
		}
		taskID := "dead-" + strconv.FormatInt(time.Now().UnixNano(), 36)
		if err := m.bus.Publish(ctx, bus.Message{RoutingKey: key, Envelope: a2a.Envelope{Kind: a2a.KindTaskRequest, MessageID: taskID + "-m",
			CorrelationID: taskID, ContentType: a2a.ContentTypeJSON, Body: []byte(`{"not":"a task"`)}}); err != nil {
			t.Fatal(err)
		}
		row := `document.querySelector('#deadletters tr[data-task=` + js(taskID) + `]')`
		br.until(t, "the dead letter of task "+taskID, m.url+"/deadletters", row+` !== null`)
		if got := eval[string](t, br, row+`.querySelector(".reason").textContent`); got != "rejected" {
			t.Errorf("the dead letter's reason is %q, want rejected", got)
		}
		if got := eval[string](t, br, row+`.cells[3].textContent`); got != m.sample {
			t.Errorf("the dead letter's agent is %q, want %s", got, m.sample)
		}
		br.screenshot(t, "deadletters")
		// Looking left it in the queue.
		if n, err := m.dead.Count(ctx); err != nil || n < 1 {
			t.Errorf("after the look the dead-letter queue holds %d (%v), want the letter still there", n, err)
		}
	})

	t.Run("sessions in flight", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), browserWait)
		defer cancel()
		inv, err := m.caller.Invoke(ctx, caller.Request{Target: m.sample, Skill: "sleep", Text: "3000", SessionID: "console-in-flight"})
		if err != nil {
			t.Fatal(err)
		}
		br.until(t, "the task in flight and its session", m.url+"/sessions",
			`[...document.querySelectorAll("main td")].some(td => td.textContent === `+js(inv.TaskID)+`) && document.querySelector('main a[href="/sessions/console-in-flight"]') !== null`)
		br.screenshot(t, "sessions")
	})

	t.Run("health and workflows", func(t *testing.T) {
		br.open(t, m.url+"/health")
		br.waitFor(t, "the checks", `document.querySelectorAll("#checks tr.ok").length >= 2`)
		br.screenshot(t, "health")
		br.open(t, m.url+"/workflows?run=no-such-run")
		br.waitFor(t, "the workflow page", `document.querySelector("p.error") !== null`)
		br.screenshot(t, "workflows")
	})

	t.Run("conversation control", func(t *testing.T) {
		// A console of its own with --actions and a token, in a world of its own.
		w := testworld.Real(t)
		am := newMesh(t, w, func(o *console.Options) { o.Actions, o.Token = true, actionToken })
		id, _ := drivenConversation(t, w)
		br.open(t, am.url+"/workflows?conversation="+id+"&token="+actionToken) // sets the cookie, then the page without the token
		br.waitFor(t, "the conversation's controls", `document.querySelector("#controls button.pause") !== null`)
		br.screenshot(t, "conversation-controls")
		ctx, cancel := context.WithTimeout(br.ctx, browserWait)
		defer cancel()
		if _, err := chromedp.Run(ctx, chromedp.Click(`#controls button.pause`)); err != nil {
			t.Fatalf("click pause: %v", err)
		}
		waitConversation(t, w, id, "the conversation paused", func(c *converse.Conversation) bool { return c.Status() == converse.Paused })
		// The form's answer navigates the tab: an evaluation during it fails, so poll past it.
		testenv.Eventually(t, "the page saying the pause was sent", func() bool {
			ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.readyState === "complete" && document.getElementById("done") !== null && document.getElementById("done").textContent.startsWith("pause sent to ")`))
			return err == nil && ok
		}, testenv.Within(browserWait))
		br.until(t, "the conversation shown paused", am.url+"/workflows?conversation="+id, `document.querySelector("dd.state").textContent === "paused"`)
	})

	br.mu.Lock()
	defer br.mu.Unlock()
	if len(br.messages) > 0 {
		t.Errorf("the browser's console reported:\n%s", strings.Join(br.messages, "\n"))
	}
}
