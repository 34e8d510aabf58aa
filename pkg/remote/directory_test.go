// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package remote_test

import (
	"testing"
	"time"

	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
)

// The directory lists a remote agent with its card's skills, and its
// lastSeen follows the card checks: it advances while they succeed, stops
// (and the agent goes offline) while the card is down, and comes back.
func TestDirectoryListsRemoteWithLastSeenFromCardChecks(t *testing.T) {
	w := testworld.Embedded(t)
	srv := newRemoteServer(t, true)
	cfg := testConfig(w)
	cfg.Remote.CardCheckInterval = 100 * time.Millisecond
	cfg.Agent.AnnounceInterval = time.Hour // the card checks announce, nothing else
	r := newRig(t, w, srv, cfg, nil)
	d, err := directory.New(directory.Options{Bus: w.Connect(t), StaleAfter: time.Second, SweepInterval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	testworld.Start(t, d)
	entry := func() directory.Entry {
		e, _ := d.Lookup(r.name)
		return e
	}
	testenv.Eventually(t, "the remote listed online with its skills", func() bool {
		e := entry()
		return e.Status == directory.StatusOnline && e.HasSkill("forecast") && e.HasSkill("weather-alerts") && !e.LastSeen.IsZero()
	})
	if e := entry(); e.Card.Description != "Tells the weather." || len(e.Card.SupportedInterfaces) != 2 || e.Card.SupportedInterfaces[0].URL != srv.URL+"/rpc" {
		t.Errorf("listed card = %+v: want the remote's description and interfaces", e.Card)
	}
	first := entry().LastSeen
	testenv.Eventually(t, "lastSeen advancing with the card checks", func() bool { return entry().LastSeen.After(first) })

	srv.setCardDown(true)
	testenv.Eventually(t, "the remote offline while its card is down", func() bool { return entry().Status == directory.StatusOffline })
	held := entry().LastSeen
	time.Sleep(500 * time.Millisecond) // five failed checks
	if e := entry(); !e.LastSeen.Equal(held) || e.Status != directory.StatusOffline {
		t.Fatalf("while the card is down: lastSeen %s → %s, status %s: want it held", held, e.LastSeen, e.Status)
	}
	srv.setCardDown(false)
	testenv.Eventually(t, "the remote online again once its card is back", func() bool {
		e := entry()
		return e.Status == directory.StatusOnline && e.LastSeen.After(held)
	})
}
