#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# release.sh: cross-build the release (`make release`) into dist/:
#
#   a2abus_<version>_<os>_<arch>.tar.gz   a2abus, sample-agent, research-agent,
#                                         LICENSE, README.md and CHANGELOG.md
#   <binary>_<version>_<os>_<arch>.cdx.json   the CycloneDX SBOM of each binary
#                                         (internal/sbom: the modules it links)
#   SHA256SUMS                            the checksums of all of the above
#
# for linux and darwin, amd64 and arm64, static (CGO_ENABLED=0), -trimpath,
# with main.version, main.commit and main.date stamped in. The version is
# `git describe --tags` (v0.0.0-dev+<commit> before the first tag), the date
# the commit's (SOURCE_DATE_EPOCH), so a release built twice from one commit
# gives the same bytes. Overrides (the release test uses them): VERSION,
# COMMIT, SOURCE_DATE_EPOCH, DIST (dist), PLATFORMS ("linux/amd64 …"),
# BINARIES ("a2abus sample-agent research-agent").
set -euo pipefail

cd "$(dirname "$0")/.."

die() {
	printf 'release: %s\n' "$*" >&2
	exit 1
}

COMMIT=${COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || true)}
[[ -n $COMMIT ]] || die "not a git checkout: set COMMIT (and VERSION, SOURCE_DATE_EPOCH)"
VERSION=${VERSION:-$(git describe --tags --dirty 2>/dev/null || echo "v0.0.0-dev+$COMMIT")}
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct HEAD)}
export SOURCE_DATE_EPOCH
DIST=${DIST:-dist}
PLATFORMS=${PLATFORMS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64}
BINARIES=${BINARIES:-a2abus sample-agent research-agent}

# Everything asked for is checked before anything is built.
[[ $VERSION =~ ^v[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.+-]+)?$ ]] ||
	die "version $VERSION is not a semantic version tag (vMAJOR.MINOR.PATCH)"
[[ $SOURCE_DATE_EPOCH =~ ^[0-9]+$ ]] || die "SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH is not seconds since 1970"
for b in $BINARIES; do
	[[ -d cmd/$b ]] || die "no command cmd/$b"
done
for p in $PLATFORMS; do
	[[ $p =~ ^[a-z0-9]+/[a-z0-9]+$ ]] || die "platform $p is not GOOS/GOARCH"
done
DATE=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)

LDFLAGS="-s -w -X main.version=$VERSION -X main.commit=$COMMIT -X main.date=$DATE"
# dist/ is the script's own and is emptied; another DIST must be empty.
if [[ $DIST == dist ]]; then
	rm -rf dist
elif [[ -e $DIST && -n $(ls -A "$DIST") ]]; then
	die "DIST=$DIST is not empty"
fi
mkdir -p "$DIST"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The SBOM writer is built for this machine, once.
go build -o "$work/sbom" ./internal/sbom/cmd/sbom

for p in $PLATFORMS; do
	goos=${p%/*} goarch=${p#*/}
	name="a2abus_${VERSION}_${goos}_${goarch}"
	dir="$work/$name"
	mkdir -p "$dir"
	for b in $BINARIES; do
		printf 'release: %s %s\n' "$p" "$b" >&2
		CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch go build -trimpath -buildvcs=false \
			-ldflags "$LDFLAGS" -o "$dir/$b" "./cmd/$b"
		"$work/sbom" -name "$b" -version "$VERSION" -o "$DIST/${b}_${VERSION}_${goos}_${goarch}.cdx.json" "$dir/$b"
	done
	cp LICENSE README.md CHANGELOG.md "$dir/"
	# Reproducible archive: sorted names, the commit's time, no owners, gzip
	# without a name or time of its own.
	tar --sort=name --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner \
		--mode='u+rwX,go+rX,go-w' -C "$work" -cf - "$name" | gzip -n >"$DIST/$name.tar.gz"
done

(cd "$DIST" && sha256sum -- *.tar.gz *.cdx.json >SHA256SUMS)
printf 'release: %s (commit %s, %s) in %s:\n' "$VERSION" "$COMMIT" "$DATE" "$DIST" >&2
cat "$DIST/SHA256SUMS" >&2
