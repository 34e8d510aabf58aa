// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package directory

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/component"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// Defaults of Options.
const (
	DefaultStaleAfter      = 6 * time.Minute // 3 × the agents' default announce interval
	DefaultForgetAfter     = 24 * time.Hour
	DefaultPersistDebounce = time.Second
	DefaultDiscoveryRound  = time.Second // how long the agents get to answer the start-up discovery query
	maxSweepInterval       = 30 * time.Second
)

// QueueOwner is the owner part of a directory's instance queue name: a2a.instance.directory.<instance id>.
const QueueOwner = "directory"

// closeTimeout bounds how long Close waits for Run to return.
const closeTimeout = 10 * time.Second

// Options configures a Directory.
type Options struct {
	// Bus carries announcements and discovery queries. Required.
	Bus bus.Bus
	// Identities maps the broker users that publish announcements to agent
	// names: an announcement (or deregistration) whose verified sender may
	// not speak for its card's agent is dropped. Nil: bus.Identities' zero
	// behaviour (enforced when this process has a broker user of its own).
	Identities *bus.Identities
	// Exchange names the bus exchange, for logs only.
	Exchange string
	// WellKnown agents are listed at every start, whether or not they run.
	WellKnown []WellKnownAgent
	// WellKnownWait is how long a task for a well-known agent without a
	// waitTimeout of its own may wait in its queue to be taken (WaitBound);
	// default DefaultWellKnownWait (10m).
	WellKnownWait time.Duration
	// KnownAgentsFile persists the directory across restarts; "" disables persistence.
	KnownAgentsFile string
	// Shared, when set, is the working memory holding the listing every
	// directory of the deployment shares under SharedKey (one known-agents
	// document, memory.DirectoryListingKey): Run restores it before it
	// starts listening (agents this directory knows better are kept), and
	// every change is written to it as to KnownAgentsFile, expiring
	// ForgetAfter after the last write. Last writer wins: every directory
	// hears the same announcements, so their listings agree.
	Shared SharedStore
	// SharedKey is the key of the shared listing; required with Shared.
	SharedKey string
	// DiscoveryRound is how long the answers to the start-up discovery query
	// are waited for before the directory is warm (Warm); default 1s.
	DiscoveryRound time.Duration
	// StaleAfter drops an instance not heard of for this long (default 6m);
	// ForgetAfter removes an offline agent, never a well-known one (default 24h).
	StaleAfter, ForgetAfter time.Duration
	// PersistDebounce is the longest a change waits to be written; default 1s.
	PersistDebounce time.Duration
	// SweepInterval is how often stale instances and forgotten agents are
	// looked for; default min(StaleAfter/4, 30s).
	SweepInterval time.Duration
	// InstanceID names this process's queue; default a random UUID.
	InstanceID string
	// Logger receives start, stop, status changes and dropped messages; nil means no logging.
	Logger *zap.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Codec decodes announcements and encodes discovery queries.
	Codec a2a.Codec
	// AnnounceSecret, when set, makes the directory accept only announcements
	// signed with it (a2a.Sign) and recent: forged or replayed cards are dropped.
	AnnounceSecret []byte
	// Trust is what is done with the agents' ed25519 signatures (trust.go):
	// TrustPinned (default "") pins the keys of the well-known file,
	// TrustTOFU also pins the first key a name signs with, TrustAny ignores them.
	Trust Trust
	// PinsFile keeps the keys TrustTOFU pinned across restarts (and shares
	// them between directories on one host); "" keeps them for the
	// process's life only.
	PinsFile string
	// MaxAgents bounds the agents learned from announcements (default 1000):
	// past it a new agent's announcement is dropped with a warning, while
	// known agents keep updating. Well-known agents are not counted: they
	// are always listed.
	MaxAgents int
	// MaxCardBytes bounds an announcement's body (default 64 KiB); a bigger
	// card is dropped with a warning, as is one with more than MaxCardSkills
	// skills or a description longer than MaxDescriptionBytes.
	MaxCardBytes int
	// MaxClockSkew (default 1m) is how far an announcement's time may be
	// ahead of the directory's clock, or away from the time its envelope was
	// stamped with (signed along with the body); past it the announcement is
	// dropped with a warning, so a card dated ahead cannot pin itself.
	MaxClockSkew time.Duration
	// QueryOnMiss skips the discovery.query at start — every running agent
	// answers one, so a directory per CLI call or per agent instance would
	// make them all re-announce each time — and queries instead when a
	// PatientResolver look-up misses (at most once per MinQueryGap). For
	// directories that vet targets; a directory that lists agents queries at
	// start.
	QueryOnMiss bool
}

// MinQueryGap is the least time between two look-up-driven discovery queries
// of one directory.
const MinQueryGap = time.Second

func (o *Options) normalize() error {
	if o.Bus == nil {
		return fmt.Errorf("%w: Bus is required", ErrInvalidOptions)
	}
	for _, d := range []struct {
		name string
		val  time.Duration
	}{{"StaleAfter", o.StaleAfter}, {"ForgetAfter", o.ForgetAfter}, {"PersistDebounce", o.PersistDebounce}, {"SweepInterval", o.SweepInterval},
		{"MaxClockSkew", o.MaxClockSkew}, {"DiscoveryRound", o.DiscoveryRound}, {"WellKnownWait", o.WellKnownWait}} {
		if d.val < 0 {
			return fmt.Errorf("%w: %s must not be negative, got %s", ErrInvalidOptions, d.name, d.val)
		}
	}
	for _, n := range []struct {
		name string
		val  int
	}{{"MaxAgents", o.MaxAgents}, {"MaxCardBytes", o.MaxCardBytes}} {
		if n.val < 0 {
			return fmt.Errorf("%w: %s must not be negative, got %d", ErrInvalidOptions, n.name, n.val)
		}
	}
	o.MaxAgents = cmp.Or(o.MaxAgents, DefaultMaxAgents)
	o.MaxCardBytes = cmp.Or(o.MaxCardBytes, DefaultMaxCardBytes)
	o.MaxClockSkew = cmp.Or(o.MaxClockSkew, DefaultMaxClockSkew)
	o.WellKnownWait = cmp.Or(o.WellKnownWait, DefaultWellKnownWait)
	o.StaleAfter = cmp.Or(o.StaleAfter, DefaultStaleAfter)
	o.ForgetAfter = cmp.Or(o.ForgetAfter, DefaultForgetAfter)
	o.PersistDebounce = cmp.Or(o.PersistDebounce, DefaultPersistDebounce)
	o.DiscoveryRound = cmp.Or(o.DiscoveryRound, DefaultDiscoveryRound)
	if o.Shared != nil {
		if err := memory.ValidateKey(o.SharedKey); err != nil {
			return fmt.Errorf("%w: SharedKey: %w", ErrInvalidOptions, err)
		}
	}
	o.SweepInterval = cmp.Or(o.SweepInterval, max(min(o.StaleAfter/4, maxSweepInterval), time.Millisecond))
	if o.InstanceID == "" {
		o.InstanceID = uuid.NewString()
	}
	if err := a2a.ValidateInstanceID(o.InstanceID); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidOptions, err)
	}
	wellKnown, err := checkWellKnown(o.WellKnown)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidOptions, err)
	}
	o.WellKnown = wellKnown
	trust, err := ParseTrust(string(o.Trust))
	if err != nil {
		return err
	}
	o.Trust = trust
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return nil
}

// checkWellKnown validates agents built in code (LoadWellKnown already checks
// files) and returns a copy whose input schemas are compacted, as an
// announcement's and a file's are; agents itself is left as given.
func checkWellKnown(agents []WellKnownAgent) ([]WellKnownAgent, error) {
	if agents == nil {
		return nil, nil
	}
	out := slices.Clone(agents)
	byName := map[string]int{}
	for i, w := range agents {
		if err := a2a.ValidateAgentName(w.AgentName); err != nil {
			return nil, fmt.Errorf("well-known agent %d: %w", i, err)
		}
		if first, dup := byName[strings.ToLower(w.AgentName)]; dup {
			return nil, fmt.Errorf("well-known agent %d %q: duplicate of agent %d %q (names are case-insensitive)", i, w.AgentName, first, agents[first].AgentName)
		}
		byName[strings.ToLower(w.AgentName)] = i
		if reason := checkSkills(w.Card().Skills); reason != "" {
			return nil, fmt.Errorf("well-known agent %d %q: %s", i, w.AgentName, reason)
		}
		schemas, reason := checkInputSchemas(w.InputSchemas, w.Card().Skills)
		if reason != "" {
			return nil, fmt.Errorf("well-known agent %d %q: %s", i, w.AgentName, reason)
		}
		out[i].InputSchemas = schemas
		if w.PublicKey != "" {
			if _, err := a2a.ParsePublicKey(w.PublicKey); err != nil {
				return nil, fmt.Errorf("well-known agent %d %q: publicKey: %w", i, w.AgentName, err)
			}
		}
	}
	return out, nil
}

// Directory tracks the agents on the bus. Look-ups are safe for concurrent
// use and work before Run, after Close and without Run.
type Directory struct {
	opts    Options
	log     *zap.Logger
	drops   *dropWarner
	reg     *registry
	keys    *keyring // pinned public keys (trust.go)
	store   *persister
	shared  sharedState // the last write of the shared listing
	queue   bus.QueueSpec
	changes chan struct{}

	life     *component.Runner // Run once; Close stops it, bounded
	bound    chan struct{}     // closed once Run's queue is bound: announcements reach it
	warm     chan struct{}     // closed once the shared listing is restored and the first discovery round ended
	warmOnce sync.Once
	mu       sync.Mutex
	flushErr error     // the final flush's error, set before Run returns
	queried  time.Time // when the last look-up-driven query was sent
}

// New loads KnownAgentsFile (a missing file is a first boot; a bad one is a
// *KnownAgentsError naming the file, the entry and the reason; times after
// now are clamped to now, agents past MaxAgents dropped, least recently seen
// first), seeds the well-known agents and forgets what went stale while the
// directory was down.
func New(opts Options) (*Directory, error) {
	if err := opts.normalize(); err != nil {
		return nil, err
	}
	stored, err := loadKnownAgents(opts.KnownAgentsFile, opts.knownAgentsFileBytes())
	if err != nil {
		return nil, err
	}
	queue, err := bus.InstanceQueue(QueueOwner, opts.InstanceID, a2a.RoutingKeyAnnounce)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidOptions, err)
	}
	d := &Directory{
		opts:    opts,
		log:     opts.Logger.With(zap.String("exchange", opts.Exchange), zap.String("instance", opts.InstanceID)),
		reg:     newRegistry(opts.StaleAfter, opts.ForgetAfter, opts.MaxAgents),
		queue:   queue,
		changes: make(chan struct{}, 1),
		life:    component.New(ErrClosed, ErrRunning),
		bound:   make(chan struct{}),
		warm:    make(chan struct{}),
	}
	d.drops = &dropWarner{log: d.log}
	if d.keys, err = newKeyring(opts.Trust, opts.PinsFile, opts.WellKnown, d.log); err != nil {
		return nil, err
	}
	var sinks []sink
	if opts.KnownAgentsFile != "" {
		sinks = append(sinks, func(agents []storedAgent) error { return saveKnownAgents(opts.KnownAgentsFile, agents) })
	}
	if opts.Shared != nil {
		sinks = append(sinks, d.sharedSink)
	}
	d.store = newPersister(opts.PersistDebounce, d.reg.snapshot, d.log, sinks...)
	now := opts.Now()
	changed := false
	if clamped := d.reg.restore(stored, now); len(clamped) > 0 {
		d.log.Warn("known agents dated in the future clamped to now", zap.String("file", opts.KnownAgentsFile), zap.Strings("agents", clamped))
		changed = true
	}
	d.reg.seed(opts.WellKnown)
	if removed := d.reg.trim(); len(removed) > 0 {
		d.log.Warn("known agents past the limit dropped, least recently seen first", zap.String("file", opts.KnownAgentsFile),
			zap.Int("max_agents", opts.MaxAgents), zap.Strings("agents", removed))
		changed = true
	}
	if offline, forgotten := d.reg.sweep(now); len(offline)+len(forgotten) > 0 {
		changed = true
	}
	if changed {
		d.store.changed()
	}
	return d, nil
}

// Run restores the shared listing (Options.Shared), declares the
// directory's instance queue bound to discovery.announce, publishes
// discovery.query, then consumes announcements, sweeps stale instances and
// forgotten agents and persists changes until ctx is done or Close is
// called; it then flushes the file and the shared listing and returns. The
// directory is warm (Warm) DiscoveryRound after the query (at once after
// the restore with QueryOnMiss), or when Run returns. A bus failure or a
// failed final flush is returned.
func (d *Directory) Run(ctx context.Context) error {
	runCtx, stop, finish, err := d.life.Start(ctx, nil)
	if err != nil {
		return err
	}
	defer finish()
	defer d.warmUp()
	err = d.run(runCtx, stop)
	flushErr := d.store.flush()
	d.mu.Lock()
	d.flushErr = flushErr
	d.mu.Unlock()
	return errors.Join(err, flushErr)
}

func (d *Directory) run(ctx context.Context, stop context.CancelFunc) error {
	d.restoreShared(ctx)
	if err := d.opts.Bus.Declare(ctx, d.queue); err != nil {
		if ctx.Err() != nil {
			return nil // stopped while starting
		}
		return fmt.Errorf("directory: declare %q: %w", d.queue.Name, err)
	}
	close(d.bound)
	var wg sync.WaitGroup
	var consumeErr error
	wg.Add(2)
	go func() {
		defer wg.Done()
		consumeErr = d.opts.Bus.Consume(ctx, d.queue.Name, bus.ConsumeOptions{Concurrency: 1}, d.handle)
		stop() // without announcements the directory cannot do its job
	}()
	go func() {
		defer wg.Done()
		d.store.run(ctx)
	}()
	d.log.Info("directory started", zap.String("queue", d.queue.Name), zap.Int("agents", d.reg.len()))
	if d.opts.QueryOnMiss {
		d.warmUp()
	} else {
		if err := d.Query(ctx); err != nil && ctx.Err() == nil {
			d.log.Warn("discovery query not published", zap.Error(err))
		}
		round := time.AfterFunc(d.opts.DiscoveryRound, d.warmUp)
		defer round.Stop()
	}
	d.sweepLoop(ctx)
	wg.Wait()
	d.log.Info("directory stopped")
	if consumeErr != nil {
		return fmt.Errorf("directory: consume %q: %w", d.queue.Name, consumeErr)
	}
	return nil
}

// sweepLoop sweeps every SweepInterval until ctx ends.
func (d *Directory) sweepLoop(ctx context.Context) {
	component.Every(ctx.Done(), d.opts.SweepInterval, func() {
		offline, forgotten := d.reg.sweep(d.opts.Now())
		for _, n := range offline {
			d.log.Info("agent offline: stopped announcing", zap.String("agent", n))
		}
		for _, n := range forgotten {
			d.log.Info("agent forgotten", zap.String("agent", n))
		}
		if len(offline)+len(forgotten) > 0 {
			d.changed()
		}
	})
}

// handle applies one delivery of the instance queue. Nothing is requeued:
// the queue is exclusive, so a bad message is logged and dropped.
func (d *Directory) handle(_ context.Context, dl *bus.Delivery) error {
	env, now := dl.Envelope, d.opts.Now()
	if len(d.opts.AnnounceSecret) > 0 {
		if err := a2a.Verify(env, d.opts.AnnounceSecret, now); err != nil {
			d.log.Warn("unauthenticated announcement dropped", zap.String("message_id", dl.MessageID), zap.Error(err))
			return nil
		}
	}
	p, err := d.opts.Codec.Decode(env)
	if err != nil {
		d.log.Warn("undecodable announcement dropped", zap.String("type", string(dl.Kind)), zap.String("message_id", dl.MessageID), zap.Error(err))
		return nil
	}
	a, ok := p.(*a2a.Announcement)
	if !ok {
		d.log.Warn("unexpected message dropped", zap.String("type", string(dl.Kind)), zap.String("message_id", dl.MessageID))
		return nil
	}
	if s := d.opts.Identities.Sender(bus.UserOf(d.opts.Bus), &dl.Message); !s.Allows(a.Card.Name) {
		d.log.Warn("announcement of another agent's card dropped: its sender may not speak for it", zap.String("agent", a.Card.Name),
			zap.Stringer("sender", s), zap.Bool("deregistering", a.Deregistering), zap.String("message_id", dl.MessageID))
		return nil
	}
	if !d.trusted(env, a, dl.MessageID, now) {
		return nil
	}
	if reason := cardProblem(len(env.Body), d.opts.MaxCardBytes, a.Card); reason != "" {
		d.drops.warn(&d.drops.card, now, "oversized announcement dropped", zap.String("agent", a.Card.Name),
			zap.String("message_id", dl.MessageID), zap.String("reason", reason))
		return nil
	}
	if reason := timeProblem(a.Time, env.Timestamp, now, d.opts.MaxClockSkew); reason != "" {
		d.drops.warn(&d.drops.time, now, "announcement dated out of bounds dropped", zap.String("agent", a.Card.Name),
			zap.String("agent_instance", a.InstanceID), zap.String("message_id", dl.MessageID), zap.String("reason", reason))
		return nil
	}
	var bad map[string]string
	a.InputSchemas, bad = compileSchemas(a.InputSchemas, a.Card.Skills)
	for id, reason := range bad { // the card is still listed: the agent checks its input itself
		d.log.Warn("input schema of announced skill dropped", zap.String("agent", a.Card.Name), zap.String("skill", id), zap.String("reason", reason))
	}
	before, after, res := d.reg.apply(a, now)
	switch res {
	case outOfOrder:
		d.log.Debug("out-of-order announcement ignored", zap.String("agent", a.Card.Name), zap.String("agent_instance", a.InstanceID))
		return nil
	case full:
		d.drops.warn(&d.drops.full, now, "announcement of a new agent dropped: the directory is full", zap.String("agent", a.Card.Name),
			zap.Int("max_agents", d.opts.MaxAgents))
		return nil
	}
	if before != after {
		d.log.Info("agent "+string(after), zap.String("agent", a.Card.Name), zap.String("agent_instance", a.InstanceID), zap.Bool("deregistering", a.Deregistering))
	}
	d.changed()
	return nil
}

// changed schedules a write and signals Changes.
func (d *Directory) changed() {
	d.store.changed()
	select {
	case d.changes <- struct{}{}:
	default:
	}
}

// Changes signals after changes (coalesced: one pending signal at most),
// for tests and CLI waits. Meant for one listener.
func (d *Directory) Changes() <-chan struct{} { return d.changes }

// Query publishes discovery.query now: every running agent answers with an
// announcement at once. No agent listening is not an error.
func (d *Directory) Query(ctx context.Context) error {
	if d.life.Closed() {
		return ErrClosed
	}
	env, err := d.opts.Codec.Encode(&a2a.DiscoveryQuery{Time: d.opts.Now()}, a2a.Trace{})
	if err != nil {
		return fmt.Errorf("directory: encode discovery query: %w", err)
	}
	msg := bus.Message{Envelope: env, RoutingKey: a2a.RoutingKeyDiscoveryQuery}
	msg.Transient = true // a query is only useful now
	if err := d.opts.Bus.Publish(ctx, msg); err != nil && !errors.Is(err, bus.ErrUnroutable) {
		return fmt.Errorf("directory: publish discovery query: %w", err)
	}
	return nil
}

// queryOnMiss publishes a discovery query for a look-up that missed, unless
// one was sent less than MinQueryGap ago. It waits for Run to bind the
// directory's queue first, so that the answers are not lost.
func (d *Directory) queryOnMiss(ctx context.Context) {
	select {
	case <-d.bound:
	case <-d.life.Done():
		return
	case <-ctx.Done():
		return
	}
	d.mu.Lock()
	now := d.opts.Now()
	if !d.queried.IsZero() && now.Sub(d.queried) < MinQueryGap {
		d.mu.Unlock()
		return
	}
	d.queried = now
	d.mu.Unlock()
	if err := d.Query(ctx); err != nil && ctx.Err() == nil {
		d.log.Warn("discovery query not published", zap.Error(err))
	}
}

// Close stops Run and waits for it (at most 10s), then flushes the file;
// without Run it only flushes. It returns the flush's error. Idempotent.
func (d *Directory) Close() error {
	if err := d.life.Close("directory", closeTimeout); err != nil {
		return err
	}
	if !d.life.Started() { // never ran: Run did not flush
		return d.store.flush()
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.flushErr
}
