#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ensure-chromium.sh: make sure a headless-capable Chromium is installed, for
# the console's browser tests (pkg/console, driven with chromedp).
#
# A browser already on the PATH (chromium, chromium-browser, google-chrome,
# or the one A2ABUS_TEST_CHROME names) is left alone. Otherwise Debian's
# `chromium` package is installed with apt-get (as root, or through
# passwordless sudo), updating the package lists once if the first attempt
# fails. Idempotent; prints nothing when a browser is already there.
set -euo pipefail

log() { printf 'ensure-chromium: %s\n' "$*" >&2; }
die() {
	log "ERROR: $*"
	exit 1
}

found() {
	if [[ -n ${A2ABUS_TEST_CHROME:-} ]]; then
		[[ -x ${A2ABUS_TEST_CHROME} ]] || command -v "${A2ABUS_TEST_CHROME}" >/dev/null 2>&1
		return
	fi
	local b
	for b in chromium chromium-browser google-chrome google-chrome-stable headless-shell; do
		command -v "$b" >/dev/null 2>&1 && return 0
	done
	return 1
}

found && exit 0

if [[ $(id -u) -eq 0 ]]; then
	SUDO=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	SUDO="sudo -n"
else
	die "chromium is not installed and installing it needs root or passwordless sudo: apt-get install -y chromium"
fi
command -v apt-get >/dev/null 2>&1 || die "chromium is not installed and apt-get is not available: install Chromium by hand (or set A2ABUS_TEST_CHROME to a Chrome binary)"

log "installing chromium with apt-get"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
if ! DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends chromium </dev/null >"$out" 2>&1; then
	log "apt-get install failed; running apt-get update and trying again"
	if ! { DEBIAN_FRONTEND=noninteractive $SUDO apt-get update -q &&
		DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends chromium; } </dev/null >"$out" 2>&1; then
		tail -n 20 "$out" >&2
		die "could not install chromium (apt-get output above)"
	fi
fi
found || die "apt-get installed chromium but no chromium binary is on the PATH"
log "chromium installed: $(command -v chromium || true)"
