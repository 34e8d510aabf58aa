// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package docs

import "embed"

// Pages are the Markdown pages of this folder, built into the programs that
// import it: `a2abus demo`'s ResearchAgent searches them from any working
// directory.
//
//go:embed *.md
var Pages embed.FS
