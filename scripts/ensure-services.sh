#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ensure-services.sh: make sure RabbitMQ (127.0.0.1:5672) and Redis
# (127.0.0.1:6379) answer, for the integration tests.
#
# A server that answers is left alone: this script never stops or restarts
# one. A server that is down is started; one that is not installed is
# installed with apt-get (as root, or through passwordless sudo) and started.
# It then waits, at most A2ABUS_ENSURE_TIMEOUT seconds (default 120), until
# Redis answers PING with PONG and RabbitMQ answers the AMQP 0-9-1 protocol
# header, and fails with a clear message otherwise. Idempotent; prints
# nothing when both already answer.
#
# A2ABUS_ENSURE_REDIS_PORT and A2ABUS_ENSURE_AMQP_PORT change the ports (to
# test this script against stub servers); the host is always 127.0.0.1.

# The probes below pass single-quoted scripts to "bash -c" on purpose.
# shellcheck disable=SC2016
set -euo pipefail

HOST=127.0.0.1
REDIS_PORT=${A2ABUS_ENSURE_REDIS_PORT:-6379}
AMQP_PORT=${A2ABUS_ENSURE_AMQP_PORT:-5672}
TIMEOUT=${A2ABUS_ENSURE_TIMEOUT:-120}
DEADLINE=$((SECONDS + TIMEOUT))

log() { printf 'ensure-services: %s\n' "$*" >&2; }
die() {
	log "ERROR: $*"
	exit 1
}

# SUDO prefixes commands that need root: empty as root, "sudo -n" when
# passwordless sudo works, unset otherwise.
if [[ $(id -u) -eq 0 ]]; then
	SUDO=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	SUDO="sudo -n"
else
	SUDO="-"
fi

# tcp_open PORT: something accepts connections on HOST:PORT.
tcp_open() {
	timeout 3 bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$HOST" "$1" 2>/dev/null
}

# redis_reply: the first line Redis answers to PING ("+PONG"), or "".
redis_reply() {
	{ timeout 3 bash -c '
		exec 3<>"/dev/tcp/$0/$1" || exit 1
		printf "PING\r\n" >&3
		IFS= read -r line <&3 || exit 1
		printf "%s" "$line"' "$HOST" "$REDIS_PORT" 2>/dev/null || true; } | tr -d '\r'
}

redis_up() { [[ $(redis_reply) == "+PONG" ]]; }

# amqp_up: the AMQP 0-9-1 protocol header is answered by a method frame
# (type 1: Connection.Start), which only a broker that is ready sends.
amqp_up() {
	local frame
	frame=$(timeout 3 bash -c '
		exec 3<>"/dev/tcp/$0/$1" || exit 1
		printf "AMQP\000\000\011\001" >&3
		head -c 1 <&3 | od -An -tx1' "$HOST" "$AMQP_PORT" 2>/dev/null) || return 1
	[[ ${frame//[[:space:]]/} == 01 ]]
}

# wait_for NAME CHECK HINT: poll CHECK every second until it succeeds or the
# deadline passes, then fail naming NAME and HINT.
wait_for() {
	local name=$1 check=$2 hint=$3
	until "$check"; do
		if ((SECONDS >= DEADLINE)); then
			die "$name does not answer on $HOST after ${TIMEOUT}s. $hint"
		fi
		sleep 1
	done
}

# apt_install PACKAGE: install a Debian package, updating the lists once if
# the first attempt fails.
apt_install() {
	local pkg=$1 out
	[[ $SUDO == "-" ]] && die "$pkg is not installed and installing it needs root or passwordless sudo: apt-get install -y $pkg"
	command -v apt-get >/dev/null 2>&1 || die "$pkg is not installed and apt-get is not available: install $pkg by hand"
	log "installing $pkg with apt-get"
	out=$(mktemp)
	if ! DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "$pkg" </dev/null >"$out" 2>&1; then
		log "apt-get install failed; running apt-get update and trying again"
		if ! { DEBIAN_FRONTEND=noninteractive $SUDO apt-get update -q &&
			DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "$pkg"; } </dev/null >"$out" 2>&1; then
			tail -n 20 "$out" >&2
			rm -f "$out"
			die "could not install $pkg (apt-get output above)"
		fi
	fi
	rm -f "$out"
}

# run_root CMD...: run CMD as root when this script can, else as the current user.
run_root() {
	if [[ $SUDO == "-" ]]; then
		"$@"
	else
		$SUDO "$@"
	fi
}

ensure_redis() {
	redis_up && return 0
	if tcp_open "$REDIS_PORT"; then
		# Something listens (a Redis loading its data, or paused by a test):
		# starting a second server would fail, so only wait.
		log "port $REDIS_PORT is open but PING got \"$(redis_reply)\"; waiting for PONG"
		wait_for "Redis" redis_up "Port $REDIS_PORT is taken by something that does not answer PING with PONG (a password-protected Redis?)."
		return 0
	fi
	command -v redis-server >/dev/null 2>&1 || apt_install redis-server
	log "starting redis-server on $HOST:$REDIS_PORT"
	run_root redis-server --daemonize yes --bind "$HOST" --port "$REDIS_PORT" \
		--save "" --appendonly no --dir /tmp >/dev/null ||
		log "redis-server exited with status $?"
	wait_for "Redis" redis_up "Start it by hand: redis-server --daemonize yes --bind $HOST --port $REDIS_PORT --save \"\" --appendonly no"
	log "Redis answers on $HOST:$REDIS_PORT"
}

ensure_rabbitmq() {
	amqp_up && return 0
	if ! command -v rabbitmq-server >/dev/null 2>&1; then
		apt_install rabbitmq-server
		amqp_up && return 0 # the package may have started it
	fi
	if command -v rabbitmq-diagnostics >/dev/null 2>&1 && timeout 20 rabbitmq-diagnostics -q ping >/dev/null 2>&1; then
		# The node runs but its AMQP listener is not up yet (booting, or its
		# app stopped by a fault test that will start it again): only wait.
		log "the RabbitMQ node is running but $HOST:$AMQP_PORT does not answer yet; waiting"
	else
		log "starting rabbitmq-server"
		run_root rabbitmq-server -detached || log "rabbitmq-server -detached exited with status $?"
	fi
	wait_for "RabbitMQ" amqp_up "Check 'rabbitmqctl status' and the logs in /var/log/rabbitmq/; if the app is stopped: rabbitmqctl start_app"
	log "RabbitMQ answers on $HOST:$AMQP_PORT"
}

ensure_redis
ensure_rabbitmq
