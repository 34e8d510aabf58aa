#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# cluster.sh: a three-node RabbitMQ cluster, a Redis primary with two
# replicas under three Sentinels, and a Redis Cluster of three primaries and
# three replicas, all on 127.0.0.1, for the cluster soak (make soak-cluster).
#
# Everything runs from the installed Debian packages (rabbitmq-server,
# redis-server), as the current user, under one folder: distinct node names
# (a2abus-c<N>-<id>@localhost), free ports, their own data and log folders,
# their own Erlang cookie. The shared servers (5672, 25672, 6379) are never
# touched; the nodes only register with the machine's EPMD.
#
#   cluster.sh up DIR            start everything; DIR/cluster.env describes it
#   cluster.sh down DIR          stop everything started in DIR (idempotent)
#   cluster.sh run DIR CMD...    up, CMD with DIR/cluster.env exported, down
#                                (also when CMD fails or is interrupted);
#                                exits with CMD's status
#   cluster.sh start-rabbit DIR N        start RabbitMQ node N (1-3) again
#   cluster.sh start-redis DIR NAME [P]  start Redis NAME (s0..s2, c0..c5)
#                                again, a replica of 127.0.0.1:P when given
#
# `down` kills every process group it started (by the pids in DIR/pids), then
# checks that none of the ports of DIR/ports is listening and fails otherwise.
set -euo pipefail

RABBIT_BIN=${RABBIT_BIN:-/usr/lib/rabbitmq/bin}
[[ -x $RABBIT_BIN/rabbitmq-server ]] || RABBIT_BIN=$(dirname "$(command -v rabbitmq-server)")
HOST=127.0.0.1
MASTER=a2abus-soak

log() { printf 'cluster: %s\n' "$*" >&2; }
die() {
	log "ERROR: $*"
	exit 1
}

# listening PORT: something accepts connections on HOST:PORT.
listening() { timeout 2 bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$HOST" "$1" 2>/dev/null; }

# free_port: a port below the ephemeral range that nothing listens on and that
# this cluster has not taken yet (recorded in DIR/ports).
free_port() {
	local p
	for _ in $(seq 200); do
		p=$((20000 + RANDOM % 12000))
		[[ $p == 25672 ]] && continue
		grep -qx "$p" "$DIR/ports" 2>/dev/null && continue
		listening "$p" && continue
		echo "$p" >>"$DIR/ports"
		echo "$p"
		return 0
	done
	die "no free port found"
}

# wait_until LIMIT WHAT CMD...: run CMD every half second until it succeeds.
wait_until() {
	local limit=$1 what=$2 end=$((SECONDS + $1))
	shift 2
	until "$@" >/dev/null 2>&1; do
		((SECONDS < end)) || die "$what not ready within ${limit}s"
		sleep 0.5
	done
}

# spawn NAME CMD...: start CMD in its own process group (setsid), its output
# in DIR/NAME.out, and record its pid.
spawn() {
	local name=$1
	shift
	setsid "$@" >"$DIR/$name.out" 2>&1 </dev/null &
	echo "$! $name" >>"$DIR/pids"
}

# rabbit N: the variables of RabbitMQ node N.
rabbit_env() {
	local n=$1 d="$DIR/rabbit$1"
	echo HOME="$d/home" RABBITMQ_NODENAME="$(cat "$d/node")" RABBITMQ_PID_FILE="$d/pid" \
		RABBITMQ_CONF_ENV_FILE="$d/rabbitmq-env.conf" RABBITMQ_CONFIG_FILE="$d/rabbitmq.conf" \
		RABBITMQ_DIST_PORT="$(cat "$d/dist_port")" RABBITMQ_MNESIA_BASE="$d/mnesia" RABBITMQ_LOG_BASE="$d/log" \
		RABBITMQ_ENABLED_PLUGINS_FILE="$d/enabled_plugins" ERL_EPMD_ADDRESS=$HOST
	: "$n"
}

ctl() { # ctl N ARGS...: rabbitmqctl on node N
	local n=$1
	shift
	env $(rabbit_env "$n") "$RABBIT_BIN/rabbitmqctl" -n "$(cat "$DIR/rabbit$n/node")" "$@"
}

setup_rabbit() {
	local n=$1 d="$DIR/rabbit$1" amqp dist
	mkdir -p "$d/home" "$d/mnesia" "$d/log"
	amqp=$(free_port)
	dist=$(free_port)
	echo "a2abus-c$n-$ID@localhost" >"$d/node"
	echo "$dist" >"$d/dist_port"
	echo "$amqp" >"$d/amqp_port"
	cp "$DIR/cookie" "$d/home/.erlang.cookie"
	chmod 400 "$d/home/.erlang.cookie"
	: >"$d/rabbitmq-env.conf"
	echo "[]." >"$d/enabled_plugins"
	cat >"$d/rabbitmq.conf" <<EOF
listeners.tcp.local = $HOST:$amqp
loopback_users = none
consumer_timeout = 3600000
cluster_partition_handling = pause_minority
EOF
}

start_rabbit() {
	local n=$1
	spawn "rabbit$n" env $(rabbit_env "$n") "$RABBIT_BIN/rabbitmq-server"
	ctl "$n" wait "$DIR/rabbit$n/pid" --timeout 150 >/dev/null || die "RabbitMQ node $n did not start (see $DIR/rabbit$n.out)"
}

# redis_conf NAME PORT ARGS...: record Redis NAME's port and arguments.
setup_redis() {
	local name=$1 port=$2
	shift 2
	mkdir -p "$DIR/$name"
	echo "$port" >"$DIR/$name/port"
	: >"$DIR/$name/args"
	(($# == 0)) || printf '%s\n' "$@" >"$DIR/$name/args"
}

start_redis() {
	local name=$1 replica_of=${2:-} port args
	port=$(cat "$DIR/$name/port")
	mapfile -t args <"$DIR/$name/args"
	if [[ -n $replica_of ]]; then
		args+=(--replicaof "$HOST" "$replica_of")
	fi
	spawn "$name" redis-server --port "$port" --bind "$HOST" --save "" --appendonly no \
		--daemonize no --dir "$DIR/$name" "${args[@]}"
	wait_until 20 "Redis $name" redis-cli -p "$port" ping
}

up() {
	mkdir -p "$DIR"
	[[ -e $DIR/pids ]] && die "$DIR holds a cluster already (cluster.sh down $DIR first)"
	: >"$DIR/pids"
	: >"$DIR/ports"
	ID=$$
	head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' | tr a-f A-F >"$DIR/cookie"

	# RabbitMQ: node 1, then 2 and 3 join it.
	for n in 1 2 3; do setup_rabbit "$n"; done
	for n in 1 2 3; do start_rabbit "$n"; done
	for n in 2 3; do
		ctl "$n" stop_app >/dev/null 2>&1
		ctl "$n" join_cluster "$(cat "$DIR/rabbit1/node")" >"$DIR/join$n.out" 2>&1 ||
			die "node $n did not join the cluster (see $DIR/join$n.out)"
		ctl "$n" start_app >/dev/null 2>&1
	done
	log "RabbitMQ cluster up: $(ctl 1 cluster_status --formatter json | tr -d '\n' | grep -o '"running_nodes":\[[^]]*\]')"

	# Redis under Sentinel: s0 the primary, s1 and s2 its replicas, three Sentinels.
	local p0 sentinels=() cports=() bus
	p0=$(free_port)
	setup_redis s0 "$p0"
	for r in 1 2; do setup_redis "s$r" "$(free_port)"; done
	start_redis s0
	for r in 1 2; do start_redis "s$r" "$p0"; done
	for i in 0 1 2; do
		local sp
		sp=$(free_port)
		mkdir -p "$DIR/sentinel$i"
		cat >"$DIR/sentinel$i/sentinel.conf" <<EOF
port $sp
bind $HOST
dir $DIR/sentinel$i
sentinel monitor $MASTER $HOST $p0 2
sentinel down-after-milliseconds $MASTER 2000
sentinel failover-timeout $MASTER 10000
sentinel parallel-syncs $MASTER 1
EOF
		spawn "sentinel$i" redis-server "$DIR/sentinel$i/sentinel.conf" --sentinel
		wait_until 20 "Sentinel $i" redis-cli -p "$sp" ping
		sentinels+=("$HOST:$sp")
	done

	# Redis Cluster: c0..c5, three primaries and a replica each.
	for i in 0 1 2 3 4 5; do
		local cp
		cp=$(free_port)
		bus=$(free_port)
		setup_redis "c$i" "$cp" --cluster-enabled yes --cluster-config-file "$DIR/c$i/nodes.conf" \
			--cluster-port "$bus" --cluster-node-timeout 3000
		start_redis "c$i"
		cports+=("$HOST:$cp")
	done
	redis-cli --cluster create "${cports[@]}" --cluster-replicas 1 --cluster-yes >"$DIR/cluster-create.out" 2>&1 ||
		die "redis-cli --cluster create failed (see $DIR/cluster-create.out)"
	wait_until 60 "Redis Cluster" bash -c "redis-cli -p ${cports[0]##*:} cluster info | grep -q cluster_state:ok"

	local urls=() nodes=() dirs=()
	for n in 1 2 3; do
		urls+=("amqp://guest:guest@$HOST:$(cat "$DIR/rabbit$n/amqp_port")/")
		nodes+=("$(cat "$DIR/rabbit$n/node")")
		dirs+=("$DIR/rabbit$n")
	done
	cat >"$DIR/cluster.env" <<EOF
SOAK_CLUSTER_DIR=$DIR
SOAK_CLUSTER_SCRIPT=$(realpath "$0")
SOAK_CLUSTER_AMQP_URLS=$(
		IFS=,
		echo "${urls[*]}"
	)
SOAK_CLUSTER_RABBIT_NODES=$(
		IFS=,
		echo "${nodes[*]}"
	)
SOAK_CLUSTER_SENTINELS=$(
		IFS=,
		echo "${sentinels[*]}"
	)
SOAK_CLUSTER_MASTER=$MASTER
SOAK_CLUSTER_REDIS_CLUSTER=$(
		IFS=,
		echo "${cports[*]}"
	)
EOF
	log "up: $DIR/cluster.env"
}

down() {
	[[ -e $DIR/pids ]] || return 0
	local pid name left=()
	# A paused (SIGSTOP) process cannot handle SIGTERM: continue it first.
	while read -r pid name; do
		kill -CONT -- "-$pid" 2>/dev/null || true
		kill -TERM -- "-$pid" 2>/dev/null || true
	done <"$DIR/pids"
	local end=$((SECONDS + 30))
	while read -r pid name; do
		while kill -0 -- "-$pid" 2>/dev/null && ((SECONDS < end)); do sleep 0.2; done
		kill -KILL -- "-$pid" 2>/dev/null || true
	done <"$DIR/pids"
	sleep 0.5
	while read -r p; do
		listening "$p" && left+=("$p")
	done <"$DIR/ports"
	rm -f "$DIR/pids"
	((${#left[@]} == 0)) || die "ports still listening after down: ${left[*]}"
	log "down: nothing of $DIR runs or listens"
}

cmd=${1:-}
DIR=${2:-}
[[ -n $cmd && -n $DIR ]] || die "usage: cluster.sh up|down|run|start-rabbit|start-redis DIR ..."
DIR=$(realpath -m "$DIR")
shift 2
case $cmd in
up) up ;;
down) down ;;
start-rabbit) start_rabbit "$1" ;;
start-redis) start_redis "$1" "${2:-}" ;;
run)
	(($# > 0)) || die "run: no command"
	trap 'down' EXIT
	trap 'exit 130' INT TERM
	up
	set +e
	(
		set -a
		# shellcheck disable=SC1091
		. "$DIR/cluster.env"
		exec "$@"
	)
	status=$?
	set -e
	exit "$status"
	;;
*) die "unknown command $cmd" ;;
esac
