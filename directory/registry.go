// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package directory

import (
	"encoding/json"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// registry is the directory's state: the agents keyed by lower-case name,
// an index from skill id to agents, and the records in key order. Every
// record keeps a ready Entry, rebuilt on change, so look-ups only copy it;
// the listing of every entry is built once after a change and shared by the
// listings until the next one. It does no I/O and takes the time from its
// callers. Safe for concurrent use.
type registry struct {
	staleAfter  time.Duration
	forgetAfter time.Duration
	maxAgents   int // the most agents learned from the bus (not well-known); 0 is no bound

	mu      sync.RWMutex
	agents  map[string]*record
	learned int                            // how many agents are not well-known
	skills  map[string]map[string]struct{} // skill id → keys of the agents listing it
	sorted  []*record                      // every record, in key order

	// all is every entry in key order, built by the first listing after a
	// change (nil until then) and shared, read-only, by every listing. It
	// changes only under mu held for writing; listings holding mu for
	// reading may build it concurrently (they build the same).
	all atomic.Pointer[[]Entry]
}

// record is one agent. Its card is replaced, never modified, so entries may share it.
type record struct {
	key       string
	wellKnown bool
	seen      bool                       // announced since the directory started
	card      a2a.AgentCard              // the newest card; Name is the canonical spelling
	schemas   map[string]json.RawMessage // input schemas declared with card, by skill id (replaced, never modified)
	cardTime  time.Time                  // announcement time of card; zero when seeded or restored
	lastSeen  time.Time                  // when the directory last received an announcement of it
	instances map[string]instance
	gone      map[string]tombstone // deregistered instances, to ignore late announcements
	view      Entry
	search    string // lower-case name, description and skills, for Filter.Query
}

// instance is a live instance: when it was last heard of (local clock) and
// the time of its newest announcement (its clock), for ordering.
type instance struct {
	lastSeen  time.Time
	announced time.Time
}

// tombstone remembers a deregistration for StaleAfter.
type tombstone struct {
	announced time.Time
	at        time.Time
}

// applied says what apply did with an announcement.
type applied int

// The outcomes of apply.
const (
	accepted   applied = iota // recorded
	outOfOrder                // older than what the instance announced last: ignored
	full                      // a new agent while maxAgents are known: refused
)

func newRegistry(staleAfter, forgetAfter time.Duration, maxAgents int) *registry {
	return &registry{
		staleAfter:  staleAfter,
		forgetAfter: forgetAfter,
		maxAgents:   maxAgents,
		agents:      map[string]*record{},
		skills:      map[string]map[string]struct{}{},
	}
}

// restore adds the agents of a known-agents file (already validated). A
// time after now (a clock that went back, or an edited file) is clamped to
// now, so that no entry stays online or unforgotten for ever; restore
// returns the names of the agents it clamped.
func (r *registry) restore(stored []storedAgent, now time.Time) (clamped []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range stored {
		if r.restoreOne(s, now) {
			clamped = append(clamped, s.Name)
		}
	}
	return clamped
}

// merge adds the agents of a shared listing (already validated) to a
// registry that may know some of them: a well-known agent keeps its seed
// (the file's card, not yet seen this session), an agent known as recently
// or more keeps what is known; any other replaces or adds its record, as
// restore does. It returns how many it took.
func (r *registry) merge(stored []storedAgent, now time.Time) (took int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range stored {
		key := strings.ToLower(s.Name)
		if rec := r.agents[key]; rec != nil {
			if rec.wellKnown || !s.LastSeen.After(rec.lastSeen) {
				continue
			}
			r.remove(key)
		}
		r.restoreOne(s, now)
		took++
	}
	return took
}

// restoreOne adds the record of s, its times clamped to now, and reports
// whether one was after now; r.mu is held and s.Name is not known.
func (r *registry) restoreOne(s storedAgent, now time.Time) (clamped bool) {
	rec := r.add(strings.ToLower(s.Name))
	card := s.Card
	card.Name = s.Name
	r.setCard(rec, card)
	rec.schemas = s.InputSchemas
	clamp := func(t time.Time) time.Time {
		if t.After(now) {
			clamped = true
			return now
		}
		return t
	}
	rec.lastSeen = clamp(s.LastSeen)
	for _, in := range s.Instances {
		rec.instances[in.ID] = instance{lastSeen: clamp(in.LastSeen)}
	}
	r.refresh(rec)
	return clamped
}

// trim removes the least recently seen agents (never well-known ones) past
// maxAgents, e.g. restored from a file written with a higher bound, and
// returns their names.
func (r *registry) trim() (removed []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.maxAgents <= 0 || r.learned <= r.maxAgents {
		return nil
	}
	var learned []*record
	for _, rec := range r.agents {
		if !rec.wellKnown {
			learned = append(learned, rec)
		}
	}
	slices.SortFunc(learned, func(a, b *record) int {
		if c := a.lastSeen.Compare(b.lastSeen); c != 0 {
			return c
		}
		return strings.Compare(a.key, b.key)
	})
	for _, rec := range learned[:len(learned)-r.maxAgents] {
		removed = append(removed, rec.card.Name)
		r.remove(rec.key)
	}
	return removed
}

// seed lists the well-known agents with the file's card and spelling, as
// not yet seen this session (whatever was restored for them is replaced).
func (r *registry) seed(agents []WellKnownAgent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, w := range agents {
		key := strings.ToLower(w.AgentName)
		rec := r.agents[key]
		if rec == nil {
			rec = r.add(key)
		}
		if !rec.wellKnown {
			r.learned--
		}
		rec.wellKnown, rec.seen = true, false
		rec.cardTime, rec.lastSeen = time.Time{}, time.Time{}
		clear(rec.instances)
		clear(rec.gone)
		r.setCard(rec, *w.Card())
		rec.schemas = w.InputSchemas
		r.refresh(rec)
	}
}

// apply records an announcement received at now (its input schemas already
// checked) and returns the agent's status before ("" for a new agent) and
// after, and whether it was accepted, ignored as out of order, or refused
// because it names a new agent while maxAgents are known (known agents
// always update).
func (r *registry) apply(a *a2a.Announcement, now time.Time) (before, after Status, res applied) {
	key := strings.ToLower(a.Card.Name)
	r.mu.Lock()
	defer r.mu.Unlock()
	rec := r.agents[key]
	fresh := rec == nil
	if fresh {
		if r.maxAgents > 0 && r.learned >= r.maxAgents {
			return "", "", full
		}
		rec = r.add(key)
	} else {
		before = rec.view.Status
	}
	if in, live := rec.instances[a.InstanceID]; live && a.Time.Before(in.announced) {
		return before, before, outOfOrder
	}
	if t, dead := rec.gone[a.InstanceID]; dead && !a.Time.After(t.announced) {
		return before, before, outOfOrder
	}
	// A new agent takes the card whatever its time: one dated before the
	// zero time (year 0) would otherwise leave it nameless, and the file
	// persisted then would not load.
	if fresh || !a.Time.Before(rec.cardTime) {
		card := *a.Card
		if rec.wellKnown {
			card.Name = rec.card.Name // the well-known file's spelling wins
		}
		r.setCard(rec, card)
		rec.schemas = a.InputSchemas
		rec.cardTime = a.Time
	}
	rec.seen = true
	if now.After(rec.lastSeen) {
		rec.lastSeen = now
	}
	if a.Deregistering {
		delete(rec.instances, a.InstanceID)
		rec.gone[a.InstanceID] = tombstone{announced: a.Time, at: now}
	} else {
		rec.instances[a.InstanceID] = instance{lastSeen: now, announced: a.Time}
		delete(rec.gone, a.InstanceID)
	}
	r.refresh(rec)
	return before, rec.view.Status, accepted
}

// sweep drops the instances not heard of for StaleAfter and removes the
// agents (never well-known ones) offline and unseen for ForgetAfter. It
// returns the canonical names of the agents that went offline and of those forgotten.
func (r *registry) sweep(now time.Time) (offline, forgotten []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for key, rec := range r.agents {
		dropped := false
		for id, in := range rec.instances {
			if now.Sub(in.lastSeen) >= r.staleAfter {
				delete(rec.instances, id)
				dropped = true
			}
		}
		for id, t := range rec.gone {
			if now.Sub(t.at) >= r.staleAfter {
				delete(rec.gone, id)
			}
		}
		switch {
		case !rec.wellKnown && len(rec.instances) == 0 && now.Sub(rec.lastSeen) >= r.forgetAfter:
			forgotten = append(forgotten, rec.card.Name)
			r.remove(key)
		case dropped:
			r.refresh(rec)
			if len(rec.instances) == 0 {
				offline = append(offline, rec.card.Name)
			}
		}
	}
	slices.Sort(offline)
	slices.Sort(forgotten)
	return offline, forgotten
}

// get returns the entry of name, ignoring case.
func (r *registry) get(name string) (Entry, bool) {
	var buf [64]byte // agent names are at most 64 ASCII bytes: the key is lowered here, not allocated
	key := lowerKey(buf[:0], name)
	r.mu.RLock()
	defer r.mu.RUnlock()
	rec, ok := r.agents[string(key)]
	if !ok {
		return Entry{}, false
	}
	return rec.view, true
}

// lowerKey appends name in lower case to dst, as strings.ToLower does.
func lowerKey(dst []byte, name string) []byte {
	for i := range len(name) {
		if name[i] >= 0x80 { // not ASCII: Unicode's rules (rare; no agent name has such a key)
			return append(dst, strings.ToLower(name)...)
		}
	}
	for i := range len(name) {
		c := name[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// list returns the entries f selects, in key order. The zero Filter's
// listing is shared: its slice and entries are read-only.
func (r *registry) list(f Filter) []Entry {
	q := strings.ToLower(f.Query)
	r.mu.RLock()
	defer r.mu.RUnlock()
	if f.Skill == "" && q == "" {
		return r.listAll()
	}
	recs := r.sorted
	if f.Skill != "" {
		recs = r.withSkill(f.Skill)
	}
	out := make([]Entry, 0) // never nil: an empty list encodes as []
	if q == "" {
		out = make([]Entry, 0, len(recs))
	}
	for _, rec := range recs {
		if q == "" || strings.Contains(rec.search, q) {
			out = append(out, rec.view)
		}
	}
	return out
}

// listAll returns every entry in key order, building the shared listing if
// a change dropped it; r.mu is held.
func (r *registry) listAll() []Entry {
	if all := r.all.Load(); all != nil {
		return *all
	}
	all := make([]Entry, len(r.sorted)) // never nil: an empty list encodes as []
	for i, rec := range r.sorted {
		all[i] = rec.view
	}
	r.all.Store(&all)
	return all
}

// withSkill returns the records whose card lists skill, in key order: the
// index's few sorted when they are few, else the records scanned; r.mu is held.
func (r *registry) withSkill(skill string) []*record {
	set := r.skills[skill]
	if len(set) == 0 {
		return nil
	}
	out := make([]*record, 0, len(set))
	if len(set)*bits.Len(uint(len(set))) < len(r.sorted) {
		for key := range set {
			out = append(out, r.agents[key])
		}
		slices.SortFunc(out, func(a, b *record) int { return strings.Compare(a.key, b.key) })
		return out
	}
	for _, rec := range r.sorted {
		if _, ok := set[rec.key]; ok {
			out = append(out, rec)
		}
	}
	return out
}

// len returns how many agents are known.
func (r *registry) len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.agents)
}

// names returns every canonical name, in key order.
func (r *registry) names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, len(r.sorted))
	for i, rec := range r.sorted {
		out[i] = rec.card.Name
	}
	return out
}

// snapshot returns the state to persist, in key order.
func (r *registry) snapshot() []storedAgent {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]storedAgent, len(r.sorted))
	for i, rec := range r.sorted {
		v := rec.view
		out[i] = storedAgent{Name: v.Name, Card: v.Card, LastSeen: v.LastSeen, Instances: v.Instances, InputSchemas: v.InputSchemas}
	}
	return out
}

// add creates the record of key, not well-known; r.mu is held.
func (r *registry) add(key string) *record {
	rec := &record{key: key, instances: map[string]instance{}, gone: map[string]tombstone{}}
	r.agents[key] = rec
	r.learned++
	i, _ := slices.BinarySearchFunc(r.sorted, key, compareKey)
	r.sorted = slices.Insert(r.sorted, i, rec)
	r.all.Store(nil)
	return rec
}

// remove deletes the record of key and its index entries; r.mu is held.
func (r *registry) remove(key string) {
	rec := r.agents[key]
	r.unindex(rec)
	delete(r.agents, key)
	if !rec.wellKnown {
		r.learned--
	}
	if i, found := slices.BinarySearchFunc(r.sorted, key, compareKey); found {
		r.sorted = slices.Delete(r.sorted, i, i+1)
	}
	r.all.Store(nil)
}

// compareKey orders a record by its key, for the searches of sorted.
func compareKey(rec *record, key string) int { return strings.Compare(rec.key, key) }

// setCard replaces the record's card and re-indexes its skills; r.mu is held.
func (r *registry) setCard(rec *record, card a2a.AgentCard) {
	r.unindex(rec)
	rec.card = card
	var b strings.Builder
	b.WriteString(card.Name + "\n" + card.Description)
	for _, s := range card.Skills {
		set := r.skills[s.ID]
		if set == nil {
			set = map[string]struct{}{}
			r.skills[s.ID] = set
		}
		set[rec.key] = struct{}{}
		b.WriteString("\n" + s.ID + "\n" + s.Name + "\n" + s.Description)
	}
	rec.search = strings.ToLower(b.String())
}

func (r *registry) unindex(rec *record) {
	for _, s := range rec.card.Skills {
		if set := r.skills[s.ID]; set != nil {
			delete(set, rec.key)
			if len(set) == 0 {
				delete(r.skills, s.ID)
			}
		}
	}
}

// refresh rebuilds the record's entry; r.mu is held.
func (r *registry) refresh(rec *record) {
	v := Entry{Name: rec.card.Name, Card: rec.card, WellKnown: rec.wellKnown, LastSeen: rec.lastSeen, Instances: make([]Instance, 0, len(rec.instances)),
		InputSchemas: rec.schemas}
	for id, in := range rec.instances {
		v.Instances = append(v.Instances, Instance{ID: id, LastSeen: in.lastSeen})
	}
	slices.SortFunc(v.Instances, func(a, b Instance) int { return strings.Compare(a.ID, b.ID) })
	switch {
	case rec.wellKnown && !rec.seen:
		v.Status = StatusWellKnown
	case len(rec.instances) > 0:
		v.Status = StatusOnline
	default:
		v.Status = StatusOffline
	}
	rec.view = v
	r.all.Store(nil)
}
