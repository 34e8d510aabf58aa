// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package directory

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/internal/fileread"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// Trust says what a directory does with the ed25519 signatures of
// announcements (a2a.SignEd25519), beside the shared HMAC of
// Options.AnnounceSecret, which it checks first in every mode.
type Trust string

// The trust modes.
const (
	// TrustPinned (the default) pins the public keys of the well-known file
	// (WellKnownAgent.PublicKey): a card or a deregistration for a pinned
	// name is refused unless it is signed by that key. Other names are
	// accepted signed or not; a bad signature is refused whatever the name.
	TrustPinned Trust = "pinned"
	// TrustTOFU is TrustPinned that also trusts on first use: the first
	// validly signed card of a name not pinned yet pins its key, in
	// Options.PinsFile, and from then on that name is treated as pinned.
	TrustTOFU Trust = "tofu"
	// TrustAny ignores ed25519 signatures and keys: the behaviour before
	// signed cards, for migrations.
	TrustAny Trust = "any"
)

// ParseTrust reads a trust mode; "" is TrustPinned.
func ParseTrust(s string) (Trust, error) {
	switch t := Trust(strings.ToLower(strings.TrimSpace(s))); t {
	case "":
		return TrustPinned, nil
	case TrustPinned, TrustTOFU, TrustAny:
		return t, nil
	}
	return "", fmt.Errorf("%w: trust %q: want %s, %s or %s", ErrInvalidOptions, s, TrustPinned, TrustTOFU, TrustAny)
}

// ErrInvalidPins is wrapped by every error about the content of a pins file.
var ErrInvalidPins = errors.New("directory: invalid pins file")

// pinsFileVersion is the version of the pins file format.
const pinsFileVersion = 1

// pinsFile is the pins file: the keys pinned on first use.
//
//	{"version": 1, "pins": [{"agentName": "Billing", "publicKey": "<base64>", "pinnedAt": "2025-01-02T03:04:05Z"}]}
type pinsFile struct {
	Version int         `json:"version"`
	Pins    []storedPin `json:"pins"`
}

// storedPin is one pin of the pins file.
type storedPin struct {
	AgentName string    `json:"agentName"`
	PublicKey string    `json:"publicKey"`
	PinnedAt  time.Time `json:"pinnedAt"`
}

// pin is a name's trusted key.
type pin struct {
	name      string // the spelling it was pinned under
	key       ed25519.PublicKey
	wellKnown bool // from the well-known file, never the pins file
	at        time.Time
}

// keyring holds the pinned keys and decides which announcements pass.
// Safe for concurrent use.
type keyring struct {
	trust Trust
	file  string
	log   *zap.Logger

	mu   sync.Mutex
	pins map[string]pin // lower-case name → pin
}

// newKeyring loads the pins file (TOFU; a missing file is none pinned yet)
// and pins the well-known keys over it.
func newKeyring(trust Trust, file string, wellKnown []WellKnownAgent, log *zap.Logger) (*keyring, error) {
	k := &keyring{trust: trust, file: file, log: log, pins: map[string]pin{}}
	if trust == TrustAny {
		return k, nil
	}
	if trust == TrustTOFU && file != "" {
		stored, err := loadPins(file)
		if err != nil {
			return nil, err
		}
		for _, p := range stored {
			k.pins[strings.ToLower(p.name)] = p
		}
	}
	for _, w := range wellKnown {
		if w.PublicKey == "" {
			continue
		}
		key, err := a2a.ParsePublicKey(w.PublicKey)
		if err != nil {
			return nil, fmt.Errorf("%w: well-known agent %q: publicKey: %w", ErrInvalidOptions, w.AgentName, err)
		}
		lower := strings.ToLower(w.AgentName)
		if old, ok := k.pins[lower]; ok && !old.key.Equal(key) {
			log.Warn("the well-known file's key replaces the key pinned on first use", zap.String("agent", w.AgentName),
				zap.String("pinned", fingerprint(old.key)), zap.String("well_known", fingerprint(key)), zap.String("pins_file", file))
		}
		k.pins[lower] = pin{name: w.AgentName, key: key, wellKnown: true}
	}
	return k, nil
}

// verdict is what check decided about one announcement.
type verdict struct {
	refused string            // why it is refused; "" when it passes
	pinNow  ed25519.PublicKey // TOFU: the key to pin once the card is accepted
}

// check decides whether the announcement env of name passes: a pinned
// name needs a valid signature by its key, any signature must be valid,
// and under TOFU a valid signature of an unpinned name is to be pinned.
func (k *keyring) check(env a2a.Envelope, name string, now time.Time) verdict {
	if k.trust == TrustAny {
		return verdict{}
	}
	signer, err := a2a.VerifyEd25519(env, now)
	k.mu.Lock()
	p, pinned := k.pins[strings.ToLower(name)]
	k.mu.Unlock()
	switch {
	case errors.Is(err, a2a.ErrNotSigned) && pinned:
		return verdict{refused: fmt.Sprintf("%q has a pinned key (%s) but the announcement is not signed with ed25519", name, fingerprint(p.key))}
	case errors.Is(err, a2a.ErrNotSigned):
		return verdict{}
	case err != nil:
		return verdict{refused: err.Error()}
	case pinned && !signer.Equal(p.key):
		return verdict{refused: fmt.Sprintf("%q is pinned to key %s (%s) but the announcement is signed with key %s",
			name, fingerprint(p.key), p.origin(), fingerprint(signer))}
	case !pinned && k.trust == TrustTOFU:
		return verdict{pinNow: signer}
	}
	return verdict{}
}

// origin says where a pin comes from, for messages.
func (p pin) origin() string {
	if p.wellKnown {
		return "from the well-known file"
	}
	return "pinned on first use at " + p.at.UTC().Format(time.RFC3339)
}

// pinFirst pins key for name unless a key is pinned for it already, here or
// (written by another directory) in the pins file, and saves the file. It
// returns the refusal when another key was pinned first.
func (k *keyring) pinFirst(name string, key ed25519.PublicKey, now time.Time) (refused string, err error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	lower := strings.ToLower(name)
	if k.file != "" {
		stored, err := loadPins(k.file) // pins other directories sharing the file wrote
		if err != nil {
			return "", err
		}
		for _, p := range stored {
			if l := strings.ToLower(p.name); k.pins[l].key == nil {
				k.pins[l] = p
			}
		}
	}
	if p, ok := k.pins[lower]; ok {
		if p.key.Equal(key) {
			return "", nil
		}
		return fmt.Sprintf("%q is pinned to key %s (%s) but the announcement is signed with key %s",
			name, fingerprint(p.key), p.origin(), fingerprint(key)), nil
	}
	k.pins[lower] = pin{name: name, key: key, at: now}
	if k.file == "" {
		return "", nil
	}
	return "", k.save()
}

// save writes the pins learned on first use to the pins file; k.mu is held.
func (k *keyring) save() error {
	out := pinsFile{Version: pinsFileVersion, Pins: []storedPin{}}
	for _, p := range k.pins {
		if !p.wellKnown {
			out.Pins = append(out.Pins, storedPin{AgentName: p.name, PublicKey: a2a.EncodePublicKey(p.key), PinnedAt: p.at.UTC()})
		}
	}
	slices.SortFunc(out.Pins, func(a, b storedPin) int {
		return strings.Compare(strings.ToLower(a.AgentName), strings.ToLower(b.AgentName))
	})
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return fmt.Errorf("directory: save pins %q: encode: %w", k.file, err)
	}
	return writeAtomic(k.file, append(data, '\n'), 0o644)
}

// loadPins reads a pins file; a missing file has no pins. A file of more
// than MaxPinsFileBytes, or one that is not a regular file, is refused
// unread (fileread's errors).
func loadPins(path string) ([]pin, error) {
	data, err := fileread.Read(path, MaxPinsFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("directory: read pins file: %w", err)
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w %q: %s", ErrInvalidPins, path, fmt.Sprintf(format, args...))
	}
	var f pinsFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, bad("%s", strings.TrimPrefix(err.Error(), "json: "))
	}
	if f.Version != pinsFileVersion {
		return nil, bad("version %d, this directory reads version %d", f.Version, pinsFileVersion)
	}
	out := make([]pin, 0, len(f.Pins))
	seen := map[string]int{}
	for i, p := range f.Pins {
		if err := a2a.ValidateAgentName(p.AgentName); err != nil {
			return nil, bad("pins[%d]: agentName: %v", i, err)
		}
		if first, dup := seen[strings.ToLower(p.AgentName)]; dup {
			return nil, bad("pins[%d] %q: duplicate of pins[%d]", i, p.AgentName, first)
		}
		seen[strings.ToLower(p.AgentName)] = i
		key, err := a2a.ParsePublicKey(p.PublicKey)
		if err != nil {
			return nil, bad("pins[%d] %q: publicKey: %v", i, p.AgentName, err)
		}
		out = append(out, pin{name: p.AgentName, key: key, at: p.PinnedAt})
	}
	return out, nil
}

// fingerprint names a key in logs: the first 12 characters of its base64.
func fingerprint(key ed25519.PublicKey) string { return a2a.EncodePublicKey(key)[:12] + "…" }

// PinnedKey returns the public key pinned for name (ignoring case), from
// the well-known file or trusted on first use; ok is false when none is.
func (d *Directory) PinnedKey(name string) (key ed25519.PublicKey, ok bool) {
	d.keys.mu.Lock()
	defer d.keys.mu.Unlock()
	p, ok := d.keys.pins[strings.ToLower(name)]
	return p.key, ok
}

// trusted reports whether the announcement a (in env) passes the pinned
// keys, pinning its key first under TrustTOFU; a refusal is logged.
func (d *Directory) trusted(env a2a.Envelope, a *a2a.Announcement, messageID string, now time.Time) bool {
	v := d.keys.check(env, a.Card.Name, now)
	if v.refused == "" && v.pinNow != nil {
		var err error
		if v.refused, err = d.keys.pinFirst(a.Card.Name, v.pinNow, now); err != nil {
			d.log.Warn("announcement dropped: its key could not be pinned", zap.String("agent", a.Card.Name), zap.Error(err))
			return false
		}
		if v.refused == "" {
			d.log.Info("agent key pinned on first use", zap.String("agent", a.Card.Name), zap.String("key", fingerprint(v.pinNow)),
				zap.String("pins_file", d.opts.PinsFile))
		}
	}
	if v.refused != "" {
		d.drops.warn(&d.drops.key, now, "announcement refused: not signed by the agent's pinned key", zap.String("agent", a.Card.Name),
			zap.String("agent_instance", a.InstanceID), zap.Bool("deregistering", a.Deregistering), zap.String("message_id", messageID),
			zap.String("reason", v.refused))
		return false
	}
	return true
}
