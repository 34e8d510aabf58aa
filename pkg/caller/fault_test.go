//go:build faults

package caller

import (
	"context"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/agent"
)

// TestFaultRedisPausedWhileResultArrives pauses Redis writes while the
// agent's result reaches the caller: the response handler retries, the result
// is stored and notified once after Redis is back, and Call returns it.
func TestFaultRedisPausedWhileResultArrives(t *testing.T) {
	w := wrap(t, testworld.Real(t))
	opts, err := goredis.ParseURL(w.RedisURL)
	if err != nil {
		t.Fatal(err)
	}
	admin := goredis.NewClient(opts)
	defer admin.Close()

	const pause = 3 * time.Second
	paused := make(chan struct{})
	w.agent(w.N("Echo"), map[string]agent.Handler{"echo": func(ctx context.Context, task *agent.Task) (*agent.Result, error) {
		if err := admin.Do(ctx, "CLIENT", "PAUSE", pause.Milliseconds(), "WRITE").Err(); err != nil {
			return nil, err
		}
		close(paused)
		return agent.TextResult("survived: " + task.Text()), nil
	}})
	c := w.caller(w.N("Primary"), true)
	start := time.Now()
	out, err := c.Call(ctxT(t), Request{Target: w.N("Echo"), Skill: "echo", Text: "pause", SessionID: "fault1", Timeout: time.Minute}, nil)
	if err != nil {
		t.Fatal(err)
	}
	<-paused
	if out.Result.Text() != "survived: pause" {
		t.Fatalf("outcome = %+v", out.Result)
	}
	if time.Since(start) < pause/2 {
		t.Fatalf("the result was stored while Redis writes were paused (%s)", time.Since(start))
	}
	if turns := w.turns("fault1"); len(turns) != 1 {
		t.Fatalf("%d notification turns, want 1", len(turns))
	}
}
