// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package remote

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	spec "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	a2alog "github.com/a2aproject/a2a-go/v2/log"
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/internal/backoff"
	"github.com/a2abus/a2abus/internal/component"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/ops"
)

// Bridge serves one remote A2A agent as a bus agent.
type Bridge struct {
	opts    Options
	name    string
	log     *zap.Logger
	cardURL string
	cred    credential
	http    *http.Client
	factory *a2aclient.Factory
	turns   *remoteTurns
	slog    *slog.Logger // the a2a-go library's log lines, into log

	mu        sync.Mutex
	remote    *spec.AgentCard   // the newest card fetched; nil before the first
	client    *a2aclient.Client // made from remote's interfaces
	card      *a2a.AgentCard    // the bus card, fixed at Start
	agent     *agent.Agent      // for its announcements (Register)
	reachable bool              // the last card fetch succeeded

	life *component.Runner
}

// New checks opts; nothing is fetched yet.
func New(opts Options) (*Bridge, error) {
	opts = opts.withDefaults()
	s := opts.Spec
	if err := a2a.ValidateAgentName(s.Name); err != nil {
		return nil, fmt.Errorf("%w: name: %w", ErrInvalidOptions, err)
	}
	if err := directory.ValidateCardURL(s.CardURL); err != nil {
		return nil, fmt.Errorf("%w: remote agent %q: card URL: %v", ErrInvalidOptions, s.Name, err)
	}
	if opts.RetryMax < opts.RetryMin {
		return nil, fmt.Errorf("%w: RetryMax below RetryMin", ErrInvalidOptions)
	}
	base := opts.Transport
	if base == nil {
		base = http.DefaultTransport.(*http.Transport).Clone()
	}
	b := &Bridge{
		opts: opts, name: s.Name, log: opts.Logger.With(zap.String("remote", s.Name)), cardURL: cardURL(s.CardURL),
		turns: newRemoteTurns(), life: component.New(ErrClosed, fmt.Errorf("%w: Run called twice", ErrInvalidOptions)),
	}
	b.slog = newSlog(b.log)
	b.http = &http.Client{Transport: &roundTripper{base: base, cred: &b.cred, maxBytes: opts.MaxResponseBytes, now: time.Now}}
	var prefer []spec.TransportProtocol
	switch strings.ToUpper(s.Auth.Transport) {
	case config.RemoteTransportJSONRPC:
		prefer = []spec.TransportProtocol{spec.TransportProtocolJSONRPC, spec.TransportProtocolHTTPJSON}
	case config.RemoteTransportHTTPJSON:
		prefer = []spec.TransportProtocol{spec.TransportProtocolHTTPJSON, spec.TransportProtocolJSONRPC}
	}
	b.factory = a2aclient.NewFactory(a2aclient.WithDefaultsDisabled(), a2aclient.WithConfig(a2aclient.Config{PreferredTransports: prefer}),
		a2aclient.WithJSONRPCTransport(b.http), a2aclient.WithRESTTransport(b.http),
		a2av0.WithJSONRPCTransport(a2av0.JSONRPCTransportConfig{Client: b.http}), a2av0.WithRESTTransport(a2av0.RESTTransportConfig{Client: b.http}))
	return b, nil
}

// Name is the agent's bus name.
func (b *Bridge) Name() string { return b.name }

// refreshCredential reads the remote's credential again (its file may have
// been rotated).
func (b *Bridge) refreshCredential() error {
	h, v, err := b.opts.Spec.Auth.Credential(b.opts.Spec.Source)
	if err != nil {
		return fmt.Errorf("remote agent %q: %w", b.name, err)
	}
	b.cred.set(h, v)
	return nil
}

// Start reads the credential and fetches the remote's card, retrying its
// transient failures for up to CardTimeout. Without a card it serves
// Spec.Fallback, unannounced until a card check succeeds; without either
// it fails with ErrNoCard naming the remote and the URL. A card that
// offers no transport the bridge speaks (JSON-RPC or HTTP+JSON, A2A 1.0 or
// 0.3) fails too.
func (b *Bridge) Start(ctx context.Context) error {
	b.mu.Lock()
	started := b.card != nil
	b.mu.Unlock()
	if started {
		return fmt.Errorf("%w: Start called twice", ErrInvalidOptions)
	}
	if err := b.refreshCredential(); err != nil {
		return err
	}
	remote, err := b.firstCard(ctx)
	if err == nil {
		var client *a2aclient.Client
		if client, err = b.newClient(ctx, remote); err != nil {
			return fmt.Errorf("%w: remote agent %q (%s): %v", ErrNoCard, b.name, b.cardURL, err)
		}
		card := busCard(b.name, remote)
		b.mu.Lock()
		b.remote, b.client, b.card, b.reachable = remote, client, &card, true
		b.mu.Unlock()
		b.log.Info("remote agent card fetched", zap.String("card_url", b.cardURL), zap.String("remote_name", remote.Name),
			zap.Int("skills", len(card.Skills)), zap.Bool("streaming", remote.Capabilities.Streaming))
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	fb := b.opts.Spec.Fallback
	if fb == nil {
		return fmt.Errorf("%w: remote agent %q (%s): %v", ErrNoCard, b.name, b.cardURL, err)
	}
	card := *fb
	card.Name = b.name
	b.mu.Lock()
	b.card = &card
	b.mu.Unlock()
	b.log.Warn("remote agent card not fetched: serving the well-known skills, unannounced until a card check succeeds",
		zap.String("card_url", b.cardURL), zap.Error(err))
	return nil
}

// firstCard fetches the card, retrying transient failures within CardTimeout.
func (b *Bridge) firstCard(ctx context.Context) (*spec.AgentCard, error) {
	ctx, cancel := context.WithTimeout(ctx, b.opts.CardTimeout)
	defer cancel()
	var last error // what the remote last answered: the bound may cut the attempt after it
	gaveUp := func(err error, attempts int) error {
		if last == nil || ctx.Err() == nil {
			return err
		}
		return fmt.Errorf("no card within %s (%d attempts); last answer: %w", b.opts.CardTimeout, attempts, last)
	}
	for attempt := 0; ; attempt++ {
		card, err := b.fetchCard(ctx)
		if err == nil {
			return card, nil
		}
		if ctx.Err() != nil {
			return nil, gaveUp(err, attempt+1)
		}
		last = err
		wait, transient := retryable(err)
		if !transient {
			return nil, err
		}
		if !backoff.Sleep(ctx, max(wait, b.delay(attempt))) {
			return nil, gaveUp(err, attempt+1)
		}
	}
}

// newClient makes the A2A client of card: the newest protocol version the
// card offers, then Spec.Auth.Transport, then the card's order.
func (b *Bridge) newClient(ctx context.Context, card *spec.AgentCard) (*a2aclient.Client, error) {
	c, err := b.factory.CreateFromCard(b.logged(ctx), card)
	if err != nil {
		return nil, fmt.Errorf("no transport the bridge speaks (JSON-RPC or HTTP+JSON, A2A 1.0 or 0.3): %w", err)
	}
	return c, nil
}

// Card is the bus card: the remote's skills (or the fallback's).
func (b *Bridge) Card() (a2a.AgentCard, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.card == nil {
		return a2a.AgentCard{}, ErrNotStarted
	}
	return *b.card, nil
}

// Register registers the bridge's handler for every skill of the card on
// a, and holds a's announcements while the remote's card is not known.
func (b *Bridge) Register(a *agent.Agent) error {
	card, err := b.Card()
	if err != nil {
		return err
	}
	for _, s := range card.Skills {
		if err := a.Handle(s.ID, b.Handle); err != nil {
			return fmt.Errorf("remote: register skill %q: %w", s.ID, err)
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.agent = a
	a.HoldAnnouncements(!b.reachable)
	return nil
}

// Run checks the remote's card every CardCheckInterval until ctx ends or
// Close is called: a good fetch announces the agent (so the directory's
// lastSeen is the last good check), a failed one holds its announcements.
func (b *Bridge) Run(ctx context.Context) error {
	ctx, _, finish, err := b.life.Start(ctx, nil)
	if errors.Is(err, ErrClosed) {
		return nil
	}
	if err != nil {
		return err
	}
	defer finish()
	component.Every(ctx.Done(), b.opts.CardCheckInterval, func() { b.check(ctx) })
	return nil
}

// check fetches the card once and announces, or holds, the agent.
func (b *Bridge) check(ctx context.Context) {
	if err := b.refreshCredential(); err != nil {
		b.log.Warn("remote agent credential not read again: the last one is kept", zap.Error(err))
	}
	card, err := b.fetchCard(ctx)
	if ctx.Err() != nil {
		return
	}
	now := time.Now()
	if b.opts.Observer != nil {
		b.opts.Observer.RemoteCardCheck(b.name, err == nil, now)
	}
	b.mu.Lock()
	was, a := b.reachable, b.agent
	b.reachable = err == nil
	b.mu.Unlock()
	if err != nil {
		if was {
			b.log.Warn("remote agent card check failed: its announcements are held until one succeeds", zap.String("card_url", b.cardURL), zap.Error(err))
		} else {
			b.log.Debug("remote agent card check failed", zap.Error(err))
		}
		if a != nil {
			a.HoldAnnouncements(true)
		}
		return
	}
	b.useCard(ctx, card)
	if !was {
		b.log.Info("remote agent card check succeeded: announcing it", zap.String("card_url", b.cardURL))
	}
	if a != nil {
		a.HoldAnnouncements(false)
		a.Announce(ctx)
	}
}

// useCard makes card the remote's current one: a client for interfaces
// that changed (the old one is kept when none can be made), and a warning
// when its skills differ from those the agent serves.
func (b *Bridge) useCard(ctx context.Context, card *spec.AgentCard) {
	b.mu.Lock()
	client, served := b.client, b.card
	b.mu.Unlock()
	if client == nil || client.UpdateCard(card) != nil {
		next, err := b.newClient(ctx, card)
		if err != nil {
			b.log.Warn("remote agent card changed to one the bridge cannot use: the last one is kept", zap.Error(err))
			return
		}
		if client != nil {
			_ = client.Destroy()
		}
		client = next
	}
	if served != nil && !sameSkills(*served, busCard(b.name, card)) {
		b.log.Warn("remote agent card lists other skills: the bridge serves the ones it started with until it restarts")
	}
	b.mu.Lock()
	b.remote, b.client = card, client
	b.mu.Unlock()
}

// current returns the client and card to call the remote with; when none
// is known yet (the bridge started without), it fetches the card first.
func (b *Bridge) current(ctx context.Context) (*a2aclient.Client, *spec.AgentCard, error) {
	b.mu.Lock()
	client, card := b.client, b.remote
	b.mu.Unlock()
	if client != nil {
		return client, card, nil
	}
	card, err := b.fetchCard(ctx)
	if err != nil {
		return nil, nil, err
	}
	b.useCard(ctx, card)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.client == nil {
		return nil, nil, fmt.Errorf("%w: its card offers no transport the bridge speaks", errBadCard)
	}
	return b.client, b.remote, nil
}

// Close stops Run, bounded. Idempotent. Close the agent first: its tasks
// call the remote.
func (b *Bridge) Close() error {
	err := b.life.Close(fmt.Sprintf("remote bridge %q", b.name), b.opts.CardTimeout+5*time.Second)
	b.mu.Lock()
	client := b.client
	b.mu.Unlock()
	if client != nil && b.life.Closed() {
		_ = client.Destroy()
	}
	return err
}

// delay is the backoff before retry n (from 0).
func (b *Bridge) delay(n int) time.Duration {
	return backoff.Policy{Min: b.opts.RetryMin, Max: b.opts.RetryMax}.Delay(n)
}

// startCall begins one call (op) under the task's trace: its span and
// metrics (Observer), the trace its HTTP requests carry, the a2a-go
// library's log lines in the bridge's log. done is told how it ended.
func (b *Bridge) startCall(ctx context.Context, op string, parent a2a.Trace) (context.Context, func(error)) {
	wire := parent
	end := func(string, error) {}
	if b.opts.Observer != nil {
		wire, end = b.opts.Observer.RemoteCall(b.name, op, parent)
	}
	ctx = withTrace(b.logged(ctx), wire)
	return ctx, func(err error) {
		outcome := ops.RemoteOK
		switch _, transient := retryable(err); {
		case err == nil:
		case ctx.Err() != nil:
			outcome = ops.RemoteCanceled
		case transient:
			outcome = ops.RemoteTransient
		default:
			outcome = ops.RemoteFailed
		}
		end(outcome, err)
	}
}

// logged is ctx with the bridge's logger for the a2a-go library's lines.
func (b *Bridge) logged(ctx context.Context) context.Context {
	return a2alog.AttachLogger(ctx, b.slog)
}
