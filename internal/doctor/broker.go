// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package doctor

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/bus/rabbitmq"
	"github.com/a2abus/a2abus/internal/redact"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// ManagementPort is the port of RabbitMQ's management API, read for the
// consumer timeout on the bus URL's host.
const ManagementPort = "15672"

// maxAnswerBytes bounds an answer of the management API or the model endpoint.
const maxAnswerBytes = 4 << 20

// readBounded reads r to its end, refusing more than maxAnswerBytes.
func readBounded(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxAnswerBytes+1))
	if err == nil && len(b) > maxAnswerBytes {
		err = fmt.Errorf("answer over %d bytes", maxAnswerBytes)
	}
	return b, err
}

// broker checks the bus: reachable, its version, consumer_timeout against
// the longest deadline, and that this user can declare, publish and consume.
func (r *run) broker(ctx context.Context) {
	cfg := r.l.Config
	octx, cancel := r.bounded(ctx)
	b, err := r.l.OpenBus(octx, "a2abus doctor")
	cancel()
	if err != nil {
		r.add("broker reachable", Fail, "%v", err)
		return
	}
	defer func() { _ = b.Close() }()
	if cfg.Bus.Embedded() {
		r.add("broker reachable", Pass, "the embedded in-process bus (nothing outside this process reaches it)")
	} else {
		r.add("broker reachable", Pass, "connected to %s", redact.URL(cfg.Bus.URL))
	}
	if rb, ok := b.(*rabbitmq.Bus); ok {
		r.brokerVersion(ctx, rb)
		r.consumerTimeout(ctx)
	}
	r.permissions(ctx, b)
}

func (r *run) brokerVersion(ctx context.Context, b *rabbitmq.Bus) {
	ctx, cancel := r.bounded(ctx)
	defer cancel()
	s, err := b.Server(ctx)
	switch {
	case err != nil:
		r.add("broker version", Warn, "could not be read: %v", err)
	case s.Version == "":
		r.add("broker version", Warn, "the broker (%q) did not say its version", s.Product)
	default:
		detail := s.Product + " " + s.Version
		if s.ClusterName != "" {
			detail += ", cluster " + s.ClusterName
		}
		r.add("broker version", Pass, "%s", detail)
	}
}

// consumerTimeout compares the broker's consumer timeout, as far as the
// management API tells it (a policy's consumer-timeout on the task
// queues), with the longest time a2abus keeps a delivery unacked.
func (r *run) consumerTimeout(ctx context.Context) {
	const name = "broker consumer_timeout"
	cfg := r.l.Config
	longest, which := cfg.Agent.MaxTaskDuration, "agent.max_task_duration"
	if cfg.Caller.MemoryRetryBound > longest {
		longest, which = cfg.Caller.MemoryRetryBound, "caller.memory_retry_bound"
	}
	ours := fmt.Sprintf("the longest unacked delivery here is %s (%s), below bus.consumer_timeout %s", longest, which, cfg.Bus.ConsumerTimeout)
	ctx, cancel := r.bounded(ctx)
	defer cancel()
	timeout, where, err := r.policyTimeout(ctx)
	switch {
	case err != nil:
		r.add(name, Warn, "could not be read (%v); %s: make sure RabbitMQ's consumer_timeout is at least that", err, ours)
	case timeout == 0:
		r.add(name, Warn, "no policy sets consumer-timeout on the task queues and the broker-wide value (rabbitmq.conf) is not "+
			"readable over the management API; %s: make sure RabbitMQ's consumer_timeout is at least that", ours)
	case timeout <= longest:
		r.add(name, Fail, "the policy %s sets consumer-timeout %s, not above %s (%s): the broker would close the channel of a "+
			"task still running; raise the policy's consumer-timeout or lower %s", where, timeout, longest, which, which)
	default:
		r.add(name, Pass, "the policy %s sets consumer-timeout %s; %s", where, timeout, ours)
	}
}

// policyTimeout returns the consumer-timeout a policy of the bus's virtual
// host sets on task queues (0 when none does) and the policy's name.
func (r *run) policyTimeout(ctx context.Context) (time.Duration, string, error) {
	u, err := url.Parse(r.l.Config.Bus.URL)
	if err != nil {
		return 0, "", fmt.Errorf("bus.url: %w", err)
	}
	vhost := strings.TrimPrefix(u.Path, "/")
	if vhost == "" {
		vhost = "/"
	}
	api := &url.URL{Scheme: "http", Host: net.JoinHostPort(u.Hostname(), ManagementPort)}
	if u.Scheme == "amqps" {
		api.Scheme = "https"
	}
	if r.opts.ManagementURL != "" {
		if api, err = url.Parse(r.opts.ManagementURL); err != nil {
			return 0, "", fmt.Errorf("management URL: %w", err)
		}
	}
	api, err = url.Parse(strings.TrimSuffix(api.String(), "/") + "/api/policies/" + url.PathEscape(vhost))
	if err != nil {
		return 0, "", fmt.Errorf("management URL: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, api.String(), nil)
	if err != nil {
		return 0, "", err
	}
	user, pass := "guest", "guest"
	if u.User != nil {
		user = u.User.Username()
		pass, _ = u.User.Password()
	}
	req.SetBasicAuth(user, pass)
	resp, err := r.opts.HTTP.Do(req)
	if err != nil {
		return 0, "", fmt.Errorf("management API at %s: %w", redact.URL(api.String()), cause(err))
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return 0, "", fmt.Errorf("management API at %s answered %s", api, resp.Status)
	}
	body, err := readBounded(resp.Body)
	if err != nil {
		return 0, "", fmt.Errorf("management API at %s: %w", api, err)
	}
	var policies []struct {
		Name       string         `json:"name"`
		Pattern    string         `json:"pattern"`
		ApplyTo    string         `json:"apply-to"`
		Definition map[string]any `json:"definition"`
	}
	if err := json.Unmarshal(body, &policies); err != nil {
		return 0, "", fmt.Errorf("management API at %s: %w", api, err)
	}
	probe, _ := a2a.TaskRoutingKey("SampleAgent") // a task queue's name
	for _, p := range policies {
		ms, ok := p.Definition["consumer-timeout"].(float64)
		re, err := regexp.Compile(p.Pattern)
		if !ok || err != nil || p.ApplyTo == "exchanges" || !re.MatchString(probe) {
			continue
		}
		return time.Duration(ms) * time.Millisecond, p.Name, nil
	}
	return 0, "", nil
}

// permissions declares an exclusive queue of its own, publishes a message
// to it through the exchange and consumes it: what every agent and caller
// does with this broker user.
func (r *run) permissions(ctx context.Context, b bus.Bus) {
	const name = "broker permissions"
	ctx, cancel := r.bounded(ctx)
	defer cancel()
	id := strings.ReplaceAll(uuid.NewString(), "-", "")[:12]
	key := "a2abus.doctor." + id
	spec, err := bus.InstanceQueue("Doctor", id, key)
	if err != nil {
		r.add(name, Fail, "%v", err)
		return
	}
	if err := b.Declare(ctx, spec); err != nil {
		r.add(name, Fail, "cannot declare the exclusive queue %s bound to exchange %q (configure permission): %v", spec.Name, r.l.Config.Bus.Exchange, err)
		return
	}
	got := make(chan struct{}, 1)
	cctx, stop := context.WithCancel(ctx)
	defer stop()
	consumed := make(chan error, 1)
	go func() {
		consumed <- b.Consume(cctx, spec.Name, bus.ConsumeOptions{}, func(context.Context, *bus.Delivery) error {
			select {
			case got <- struct{}{}:
			default:
			}
			return nil
		})
	}()
	msg := bus.Message{RoutingKey: key, Transient: true, Envelope: a2a.Envelope{Kind: a2a.KindDiscoveryQuery,
		MessageID: "doctor-" + id, ContentType: "application/json", Body: []byte(`{}`)}}
	if err := b.Publish(ctx, msg); err != nil {
		r.add(name, Fail, "cannot publish to exchange %q (write permission): %v", r.l.Config.Bus.Exchange, err)
		return
	}
	select {
	case <-got:
		r.add(name, Pass, "declared %s, published to exchange %q and consumed the message back", spec.Name, r.l.Config.Bus.Exchange)
	case err := <-consumed:
		r.add(name, Fail, "cannot consume from %s (read permission): %v", spec.Name, err)
	case <-ctx.Done():
		r.add(name, Fail, "the message published to %s did not come back within %s", spec.Name, r.opts.CheckTimeout)
	}
}
