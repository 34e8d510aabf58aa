#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# add-license-headers.sh [root]: give every source file of the repository
# (or of root) the project's license header where it has none; run it again
# at any time, it changes only the files still without one.
#
# Go files (generated ones aside) start with
#
#   // SPDX-License-Identifier: Apache-2.0
#   // Copyright <year> The a2abus Authors
#
# and a blank line, so the header is not the package comment. Shell, Python
# and JavaScript files, Makefiles and Dockerfiles get the SPDX line in their
# own comment syntax, after a #! line, a Python coding line and Dockerfile
# parser directives (which must stay first). YEAR (default: this year) is
# the year written into new Go headers. Dot directories, testdata,
# node_modules, bin and vendor are left alone. internal/licenses's test
# checks the same files.
set -euo pipefail
root="${1:-$(dirname "${BASH_SOURCE[0]}")/..}"
cd "$root"
YEAR="${YEAR:-$(date +%Y)}"
SPDX='SPDX-License-Identifier: Apache-2.0'

# sources prints the files under the root named by the find tests given.
sources() {
	find . \( -name '.?*' -o -name testdata -o -name node_modules -o -name bin -o -name vendor \) -prune \
		-o -type f \( "$@" \) -print | sort
}

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
changed=0

# A Go file gets the header and a blank line in front of everything else
# (a //go:build line may follow comments and blank lines).
while IFS= read -r f; do
	if head -n 1 "$f" | grep -q "^// $SPDX\$" || grep -qE '^// Code generated .* DO NOT EDIT\.$' "$f"; then
		continue
	fi
	{ printf '// %s\n// Copyright %s The a2abus Authors\n\n' "$SPDX" "$YEAR"; cat "$f"; } >"$tmp"
	cat "$tmp" >"$f"
	echo "header: $f"
	changed=$((changed + 1))
done < <(sources -name '*.go')

# Other files get the SPDX line in their comment syntax, after the lines
# that must come first.
while IFS= read -r f; do
	if head -n 5 "$f" | grep -q "$SPDX"; then
		continue
	fi
	comment='#' first='^#!'
	case "$f" in
	*.js | *.mjs) comment='//' ;;
	*.py) first='^#!|^#.*coding[:=]' ;;
	*Dockerfile) first='^#!|^# *(syntax|escape|check) *=' ;;
	esac
	awk -v line="$comment $SPDX" -v first="$first" '
		!done && $0 ~ first { print; next }
		!done { print line; done = 1 }
		{ print }
		END { if (!done) print line }
	' "$f" >"$tmp"
	cat "$tmp" >"$f"
	echo "header: $f"
	changed=$((changed + 1))
done < <(sources -name '*.sh' -o -name '*.py' -o -name '*.js' -o -name '*.mjs' -o -name Makefile -o -name Dockerfile)

echo "$changed files given a license header"
