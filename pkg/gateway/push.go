// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	spec "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/internal/backoff"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/caller"
)

// PushOptions configure push notifications: when a task's turn ends (its
// final state, or a question), the gateway POSTs the task to each webhook
// its client configured, as a2a-go's sender does ({"task": …}, the
// A2A-Notification-Token header, the configured Authorization), retrying
// failures with backoff, and only to the addresses Allow lets it reach.
type PushOptions struct {
	// Allow lists the host names ("hooks.example.com", "*.example.com")
	// and networks ("203.0.113.0/24", "127.0.0.1") webhooks may be at.
	// Empty: push notifications are off (the card says so).
	Allow []string
	// Timeout bounds one POST; default DefaultPushTimeout.
	Timeout time.Duration
	// MaxAttempts bounds the POSTs of one notification; default DefaultPushAttempts.
	MaxAttempts int
	// RetryMin and RetryMax bound the backoff between attempts (a 429 or
	// 503's Retry-After is waited too, up to RetryMax); default 1s and 30s.
	RetryMin, RetryMax time.Duration
	// MaxPending bounds the tasks this gateway waits on to push (a send
	// with a push config beyond is refused); default DefaultPushMaxPending.
	MaxPending int
}

// Defaults of PushOptions.
const (
	DefaultPushTimeout    = 10 * time.Second
	DefaultPushAttempts   = 5
	DefaultPushRetryMin   = time.Second
	DefaultPushRetryMax   = 30 * time.Second
	DefaultPushMaxPending = 1000
	// pushConfigTTL is how long a task's push configs outlive its deadline.
	pushConfigTTL = time.Hour
	// maxPushConfigs bounds the configs of one task.
	maxPushConfigs = 10
	// tokenHeader carries a config's token, as a2a-go's sender sends it.
	tokenHeader = "A2A-Notification-Token"
)

// pusher keeps push configs in working memory and delivers them.
type pusher struct {
	g      *Gateway
	o      PushOptions
	allow  *allowList
	client *http.Client

	mu       sync.Mutex
	watching map[string]bool // "<caller>/<task>" this process waits on
	wg       sync.WaitGroup
}

func newPusher(g *Gateway, o PushOptions) (*pusher, error) {
	allow, err := newAllowList(o.Allow)
	if err != nil {
		return nil, err
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultPushTimeout
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = DefaultPushAttempts
	}
	if o.RetryMin <= 0 {
		o.RetryMin = DefaultPushRetryMin
	}
	if o.RetryMax <= 0 {
		o.RetryMax = DefaultPushRetryMax
	}
	if o.MaxPending <= 0 {
		o.MaxPending = DefaultPushMaxPending
	}
	p := &pusher{g: g, o: o, allow: allow, watching: map[string]bool{}}
	p.client = &http.Client{
		Timeout:       o.Timeout,
		Transport:     &http.Transport{DialContext: allow.dial, Proxy: nil, TLSHandshakeTimeout: o.Timeout, MaxIdleConnsPerHost: 4},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return p, nil
}

func (p *pusher) enabled() bool { return !p.allow.empty() }

// check refuses a config push notifications cannot honour: off, too many
// pending, or a URL the allow-list refuses.
func (p *pusher) check(cfg *spec.PushConfig) error {
	if !p.enabled() {
		return spec.NewError(spec.ErrPushNotificationNotSupported, "push notifications are off on this gateway (gateway.push.allow is empty)")
	}
	p.mu.Lock()
	n := len(p.watching)
	p.mu.Unlock()
	if n >= p.o.MaxPending {
		return spec.NewError(spec.ErrServerError, fmt.Sprintf("%d tasks already wait to be pushed on this gateway (gateway.push.max_pending)", n))
	}
	if cfg.Auth != nil && cfg.Auth.Credentials != "" && !strings.EqualFold(cfg.Auth.Scheme, "bearer") && !strings.EqualFold(cfg.Auth.Scheme, "basic") {
		return invalidParams(fmt.Sprintf("push authentication scheme %q is not supported (Bearer or Basic)", cfg.Auth.Scheme))
	}
	ctx, cancel := context.WithTimeout(context.Background(), p.o.Timeout)
	defer cancel()
	if err := p.allow.checkURL(ctx, cfg.URL); err != nil {
		p.g.metrics.push("refused")
		return invalidParams(err.Error())
	}
	return nil
}

// register keeps cfg for the task (a new id when it has none) and waits
// for its turn to end to push it. With no cfg (an answer to a question),
// the configs kept for the task are pushed at the end of the new turn.
func (p *pusher) register(ctx context.Context, rq *request, inv caller.Invocation, cfg *spec.PushConfig) {
	if !p.enabled() {
		return
	}
	if cfg != nil {
		if _, err := p.put(ctx, rq.principal, inv, cfg); err != nil {
			p.g.log.Warn("gateway: push config not kept (it is pushed all the same)", zap.String("task", inv.TaskID), zap.Error(err))
		}
	} else if cfgs, err := p.load(ctx, rq.principal, inv.TaskID); err != nil || len(cfgs) == 0 {
		return
	}
	p.watch(rq.caller, inv, cfg)
}

// put stores cfg among the task's configs (replacing one of the same id).
func (p *pusher) put(ctx context.Context, principal string, inv caller.Invocation, cfg *spec.PushConfig) (*spec.PushConfig, error) {
	c := *cfg
	c.TaskID = spec.TaskID(inv.TaskID)
	if c.ID == "" {
		c.ID = uuid.NewString()
	}
	cfgs, err := p.load(ctx, principal, inv.TaskID)
	if err != nil {
		return nil, err
	}
	cfgs = slices.DeleteFunc(cfgs, func(o *spec.PushConfig) bool { return o.ID == c.ID })
	if len(cfgs) >= maxPushConfigs {
		return nil, invalidParams(fmt.Sprintf("task %s has %d push configs, the most it may have", inv.TaskID, maxPushConfigs))
	}
	cfgs = append(cfgs, &c)
	return &c, p.store(ctx, principal, inv, cfgs)
}

func (p *pusher) load(ctx context.Context, principal, taskID string) ([]*spec.PushConfig, error) {
	key, err := memory.GatewayPushKey(principal, taskID)
	if err != nil {
		return nil, err
	}
	b, err := p.g.opts.Memory.Get(ctx, key)
	if errors.Is(err, memory.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the push configs of task %s: %w", taskID, err)
	}
	var cfgs []*spec.PushConfig
	if err := json.Unmarshal(b, &cfgs); err != nil {
		return nil, fmt.Errorf("decode the push configs of task %s: %w", taskID, err)
	}
	return cfgs, nil
}

func (p *pusher) store(ctx context.Context, principal string, inv caller.Invocation, cfgs []*spec.PushConfig) error {
	key, err := memory.GatewayPushKey(principal, inv.TaskID)
	if err != nil {
		return err
	}
	if len(cfgs) == 0 {
		return p.g.opts.Memory.Delete(ctx, key)
	}
	b, err := json.Marshal(cfgs)
	if err != nil {
		return err
	}
	ttl := max(time.Until(inv.Deadline), 0) + pushConfigTTL
	return p.g.opts.Memory.Set(ctx, key, b, ttl)
}

// watch waits (once per task in this process) for the end of the task's
// turn, then pushes it to the task's configs (those kept then, else cfg).
func (p *pusher) watch(c *caller.Caller, inv caller.Invocation, cfg *spec.PushConfig) {
	key := c.Name() + "/" + inv.TaskID
	p.mu.Lock()
	if p.watching[key] || p.g.ctx.Err() != nil {
		p.mu.Unlock()
		return
	}
	p.watching[key] = true
	p.wg.Add(1)
	p.mu.Unlock()
	go func() {
		defer p.wg.Done()
		defer func() {
			p.mu.Lock()
			delete(p.watching, key)
			p.mu.Unlock()
		}()
		out, err := c.Wait(p.g.ctx, inv.TaskID, nil)
		if err != nil {
			if p.g.ctx.Err() == nil {
				p.g.log.Warn("gateway: no push: the task's outcome could not be read", zap.String("task", inv.TaskID), zap.Error(err))
			}
			return
		}
		cfgs, err := p.load(p.g.ctx, c.Name(), inv.TaskID)
		if err != nil && cfg != nil {
			cfgs = []*spec.PushConfig{cfg} // memory failed: the config this process was given still goes
		}
		if len(cfgs) == 0 {
			return // deleted, or unreadable
		}
		body, err := json.Marshal(spec.StreamResponse{Event: resultTask(out.Invocation, out.Result)})
		if err != nil {
			p.g.log.Warn("gateway: no push: the task does not encode", zap.String("task", inv.TaskID), zap.Error(err))
			return
		}
		var wg sync.WaitGroup
		for _, cfg := range cfgs {
			wg.Go(func() { p.deliver(inv.TaskID, cfg, body) })
		}
		wg.Wait()
	}()
}

// deliver POSTs body to cfg's URL until it is accepted (2xx) or
// MaxAttempts failed; a 4xx other than 408 and 429 is not retried.
func (p *pusher) deliver(taskID string, cfg *spec.PushConfig, body []byte) {
	retry := backoff.Policy{Min: p.o.RetryMin, Max: p.o.RetryMax}
	var last error
	for attempt := range p.o.MaxAttempts {
		if attempt > 0 && !backoff.Sleep(p.g.ctx, retry.Delay(attempt-1)) {
			return
		}
		wait, err := p.post(cfg, body)
		if err == nil {
			p.g.metrics.push("delivered")
			return
		}
		last = err
		var perm *permanentError
		if errors.As(err, &perm) || errors.Is(err, ErrPushRefused) {
			break
		}
		if wait > 0 && !backoff.Sleep(p.g.ctx, min(wait, p.o.RetryMax)) {
			return
		}
	}
	p.g.metrics.push("failed")
	p.g.log.Warn("gateway: push failed", zap.String("task", taskID), zap.String("config", cfg.ID), zap.Error(last))
}

// permanentError is a webhook answer that another attempt would not change.
type permanentError struct{ status string }

func (e *permanentError) Error() string { return "the webhook answered " + e.status }

// post makes one attempt; wait is the Retry-After the webhook asked for.
func (p *pusher) post(cfg *spec.PushConfig, body []byte) (wait time.Duration, err error) {
	ctx, cancel := context.WithTimeout(p.g.ctx, p.o.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, cfg.URL, bytes.NewReader(body))
	if err != nil {
		return 0, &permanentError{status: err.Error()}
	}
	req.Header.Set("Content-Type", "application/json")
	if cfg.Token != "" {
		req.Header.Set(tokenHeader, cfg.Token)
	}
	if cfg.Auth != nil && cfg.Auth.Credentials != "" {
		scheme := "Bearer"
		if strings.EqualFold(cfg.Auth.Scheme, "basic") {
			scheme = "Basic"
		}
		req.Header.Set("Authorization", scheme+" "+cfg.Auth.Credentials)
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	switch s := resp.StatusCode; {
	case s >= 200 && s < 300:
		return 0, nil
	case s == http.StatusTooManyRequests || s == http.StatusServiceUnavailable:
		secs, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
		return time.Duration(max(secs, 0)) * time.Second, errors.New("the webhook answered " + resp.Status)
	case s == http.StatusRequestTimeout || s >= 500:
		return 0, errors.New("the webhook answered " + resp.Status)
	}
	return 0, &permanentError{status: resp.Status}
}

// wait waits for the pushes under way to stop (Close cancelled them).
func (p *pusher) wait() { p.wg.Wait() }

// GetTaskPushConfig implements a2asrv.RequestHandler.
func (h *handler) GetTaskPushConfig(ctx context.Context, req *spec.GetTaskPushConfigRequest) (*spec.PushConfig, error) {
	_, cfgs, err := h.pushConfigs(ctx, string(req.TaskID))
	if err != nil {
		return nil, err
	}
	for _, c := range cfgs {
		if c.ID == req.ID || req.ID == "" {
			return c, nil
		}
	}
	return nil, invalidParams(fmt.Sprintf("task %s has no push config %q", req.TaskID, req.ID))
}

// ListTaskPushConfigs implements a2asrv.RequestHandler.
func (h *handler) ListTaskPushConfigs(ctx context.Context, req *spec.ListTaskPushConfigRequest) (*spec.ListTaskPushConfigResponse, error) {
	_, cfgs, err := h.pushConfigs(ctx, string(req.TaskID))
	if err != nil {
		return nil, err
	}
	return &spec.ListTaskPushConfigResponse{Configs: append([]*spec.PushConfig{}, cfgs...)}, nil
}

// CreateTaskPushConfig implements a2asrv.RequestHandler: kept, and pushed
// when the task's turn ends (at once when it has ended).
func (h *handler) CreateTaskPushConfig(ctx context.Context, req *spec.PushConfig) (*spec.PushConfig, error) {
	rq, err := h.call(ctx)
	if err != nil {
		return nil, err
	}
	info, err := h.task(ctx, rq, string(req.TaskID))
	if err != nil {
		return nil, err
	}
	if err := h.g.push.check(req); err != nil {
		return nil, err
	}
	inv := invocationOf(info)
	c, err := h.g.push.put(ctx, rq.principal, inv, req)
	if err != nil {
		return nil, h.g.refusal(rq, "keep the push config", err)
	}
	h.g.push.watch(rq.caller, inv, c)
	return c, nil
}

// DeleteTaskPushConfig implements a2asrv.RequestHandler.
func (h *handler) DeleteTaskPushConfig(ctx context.Context, req *spec.DeleteTaskPushConfigRequest) error {
	rq, err := h.call(ctx)
	if err != nil {
		return err
	}
	info, err := h.task(ctx, rq, string(req.TaskID))
	if err != nil {
		return err
	}
	cfgs, err := h.g.push.load(ctx, rq.principal, info.TaskID)
	if err != nil {
		return h.g.refusal(rq, "read the push configs", err)
	}
	kept := slices.DeleteFunc(cfgs, func(c *spec.PushConfig) bool { return c.ID == req.ID })
	if err := h.g.push.store(ctx, rq.principal, invocationOf(info), kept); err != nil {
		return h.g.refusal(rq, "delete the push config", err)
	}
	return nil
}

// pushConfigs are the configs of the principal's task id.
func (h *handler) pushConfigs(ctx context.Context, id string) (*request, []*spec.PushConfig, error) {
	rq, err := h.call(ctx)
	if err != nil {
		return nil, nil, err
	}
	if !h.g.push.enabled() {
		return rq, nil, spec.ErrPushNotificationNotSupported
	}
	info, err := h.task(ctx, rq, id)
	if err != nil {
		return rq, nil, err
	}
	cfgs, err := h.g.push.load(ctx, rq.principal, info.TaskID)
	if err != nil {
		return rq, nil, h.g.refusal(rq, "read the push configs", err)
	}
	return rq, cfgs, nil
}
