// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package licenses

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"slices"
	"strings"
	"testing"
)

const (
	mitText = `MIT License

Copyright (c) 2024 Someone

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT.`

	bsd2Text = `Copyright (c) 2015, Someone
All rights reserved.

Redistribution and use in source and binary forms, with or without modification,
are permitted provided that the following conditions are met:

    * Redistributions of source code must retain the above copyright notice,
      this list of conditions and the following disclaimer.

    * Redistributions in binary form must reproduce the above copyright notice,
      this list of conditions and the following disclaimer in the documentation
      and/or other materials provided with the distribution.

THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS"`

	bsd3Clause = `
    * Neither the name of Someone nor the names of its contributors may be
      used to endorse or promote products derived from this software without
      specific prior written permission.`

	bsd4Clause = `
3. All advertising materials mentioning features or use of this software
   must display the following acknowledgement: This product includes
   software developed by Someone.`

	iscText = `Copyright (c) 2025 Someone

Permission to use, copy, modify, and/or distribute this software for any
purpose with or without fee is hereby granted, provided that the above
copyright notice and this permission notice appear in all copies.

THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES`

	apacheNotice = `Copyright 2011-2016 Canonical Ltd.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0`

	mplNotice = `This Source Code Form is subject to the terms of the Mozilla Public
License, v. 2.0. If a copy of the MPL was not distributed with this
file, You can obtain one at http://mozilla.org/MPL/2.0/.`

	// mplSecondary is from the MPL-2.0's own text, which names the GPL family.
	mplSecondary = `Mozilla Public License Version 2.0
==================================
1.12. "Secondary License"
    means either the GNU General Public License, Version 2.0, the GNU
    Lesser General Public License, Version 2.1, the GNU Affero General
    Public License, Version 3.0, or any later versions of those
    licenses.`

	gplText = `                    GNU GENERAL PUBLIC LICENSE
                       Version 3, 29 June 2007`

	lgplText = `                   GNU LESSER GENERAL PUBLIC LICENSE
                       Version 3, 29 June 2007
  This version of the GNU Lesser General Public License incorporates
the terms and conditions of version 3 of the GNU General Public
License`

	agplText = `                    GNU AFFERO GENERAL PUBLIC LICENSE
                       Version 3, 19 November 2007`

	commonsClause = `
"Commons Clause" License Condition v1.0
The Software is provided to you by the Licensor under the License, as defined
below, subject to the following condition.`
)

func TestClassify(t *testing.T) {
	apache, err := os.ReadFile("../../LICENSE")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"MIT", mitText, []string{"MIT"}},
		{"MIT in a Go comment", "// " + strings.ReplaceAll(mitText, "\n", "\n// "), []string{"MIT"}},
		{"BSD-2-Clause", bsd2Text, []string{"BSD-2-Clause"}},
		{"BSD-3-Clause", bsd2Text + bsd3Clause, []string{"BSD-3-Clause"}},
		{"BSD-4-Clause", bsd2Text + bsd4Clause + bsd3Clause, []string{"BSD-4-Clause"}},
		{"ISC", iscText, []string{"ISC"}},
		{"ISC without and/or", strings.Replace(iscText, "and/or", "and", 1), []string{"ISC"}},
		{"Apache-2.0 text", string(apache), []string{"Apache-2.0"}},
		{"Apache-2.0 notice", apacheNotice, []string{"Apache-2.0"}},
		{"Apache-2.0 text and a BSD-3-Clause part", string(apache) + "\n----\n" + bsd2Text + bsd3Clause, []string{"Apache-2.0", "BSD-3-Clause"}},
		{"MIT files of an Apache-2.0 module", "#### MIT ####\n" + mitText + "\n### Apache ###\n" + apacheNotice, []string{"Apache-2.0", "MIT"}},
		{"MPL-2.0 notice", mplNotice, []string{"MPL-2.0"}},
		{"MPL-2.0 text naming the GPL family", mplSecondary, []string{"MPL-2.0"}},
		{"GPL", gplText, []string{"GPL"}},
		{"LGPL naming the GPL", lgplText, []string{"LGPL"}},
		{"AGPL", agplText, []string{"AGPL"}},
		{"MIT with the Commons Clause", commonsClause + "\n" + mitText, []string{"Commons-Clause", "MIT"}},
		{"MIT without its conditions", "Permission is hereby granted, free of charge, to any person obtaining a copy of this software.", nil},
		{"prose", "All rights reserved. Ask us before you use this.", nil},
		{"empty", "", nil},
	} {
		if got := Classify(tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("%s: Classify = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestOwnLicense: the repository's LICENSE is the Apache License 2.0 as
// published (https://www.apache.org/licenses/LICENSE-2.0.txt), unchanged.
func TestOwnLicense(t *testing.T) {
	text, err := os.ReadFile("../../LICENSE")
	if err != nil {
		t.Fatal(err)
	}
	const canonical = "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30"
	if sum := sha256.Sum256(text); hex.EncodeToString(sum[:]) != canonical {
		t.Errorf("LICENSE is not the canonical Apache-2.0 text (sha256 %x, want %s)", sum, canonical)
	}
	if got := Classify(string(text)); !slices.Equal(got, []string{"Apache-2.0"}) {
		t.Errorf("Classify(LICENSE) = %v, want [Apache-2.0]", got)
	}
}
