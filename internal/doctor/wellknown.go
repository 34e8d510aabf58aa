// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package doctor

import (
	"errors"
	"io/fs"
	"strings"

	"github.com/a2abus/a2abus/directory"
)

// wellKnown checks the well-known file: it parses and every entry is
// valid. The default file missing is no finding: nobody asked for it.
func (r *run) wellKnown() {
	const name = "well-known file"
	path := r.l.Config.Directory.WellKnownFile
	if path == "" {
		r.add(name, Pass, "none configured (directory.well_known_file is empty): only announced agents are known")
		return
	}
	agents, err := directory.LoadWellKnown(path)
	asked := r.l.Sources.IsSet("directory.well_known_file")
	switch {
	case errors.Is(err, fs.ErrNotExist) && !asked:
		r.add(name, Pass, "none: the default %s is absent from the working directory, so only announced agents are known", path)
	case errors.Is(err, fs.ErrNotExist):
		r.add(name, Fail, "%s (directory.well_known_file) does not exist: create it, or unset the key", path)
	case err != nil:
		r.add(name, Fail, "%v", err)
	default:
		names := make([]string, 0, len(agents))
		for _, a := range agents {
			names = append(names, a.AgentName)
		}
		r.add(name, Pass, "%s: %d valid agent(s): %s", path, len(agents), strings.Join(names, ", "))
	}
}
