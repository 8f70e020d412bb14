#!/usr/bin/env bash
# redis-ha.sh start|stop|status [sentinel] [cluster]: the highly available Redis setups the rate
# limit's failover tests run against, on loopback, beside the plain Redis of services.sh (neither
# named: both).
#
#   sentinel  a primary (6390) and its replica (6391), watched by three sentinels (6392-6394,
#             quorum 2) that call the primary down after 1 s and promote the replica.
#   cluster   a Redis Cluster of three primaries (7000-7002), no replicas.
#
# `start` installs what is missing (Debian's redis-server and redis-sentinel), starts only what is
# not already answering (so it also brings back a process a test killed), waits until the setup
# works, and prints `export ...` lines on stdout (progress goes to stderr), so
#   eval "$(scripts/redis-ha.sh start)"
# sets REDIS_SENTINEL_URL and REDIS_CLUSTER_URL. When none of a setup's processes answers it is made
# afresh (the counters are disposable: no RDB, no AOF). `stop` stops what this script started.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
STATE=${MEDIA_SERVICES_DIR:-$REPO/var/services}/redis-ha
MASTER_NAME=mediagw
DATA_PORTS=(6390 6391)
SENTINEL_PORTS=(6392 6393 6394)
CLUSTER_PORTS=(7000 7001 7002)
WAIT=${REDIS_HA_WAIT:-60}

log() { printf 'redis-ha: %s\n' "$*" >&2; }
die() {
	log "error: $*"
	exit 1
}

up() { # port
	redis-cli -h 127.0.0.1 -p "$1" ping 2>/dev/null | grep -q PONG
}

pid_alive() {
	[[ -s $1 ]] && kill -0 "$(cat "$1")" 2>/dev/null
}

as_root_install() { # command package
	command -v "$1" >/dev/null && return
	[[ $EUID -eq 0 ]] || die "$1 is missing; install it (Debian: apt-get install $2)"
	log "installing $2"
	apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$2" >&2
}

# wait_for WHAT CHECK...: runs CHECK until it succeeds, for at most WAIT seconds.
wait_for() {
	local what=$1 deadline=$((SECONDS + WAIT))
	shift
	until "$@"; do
		((SECONDS < deadline)) || die "$what not ready after ${WAIT}s (logs in $STATE)"
		sleep 0.2
	done
}

# launch PORT DIR KIND: starts the redis-server or redis-sentinel whose configuration is DIR/KIND.conf
# (written before), daemonized, unless something answers on PORT already.
launch() {
	local port=$1 dir=$2 kind=$3
	if up "$port"; then
		log "$kind on $port already answering$(pid_alive "$dir/$kind.pid" && echo " (pid $(cat "$dir/$kind.pid"))")"
		return
	fi
	log "starting $kind on 127.0.0.1:$port"
	# The daemons must not inherit the lock on fd 9.
	"redis-$kind" "$dir/$kind.conf" 9>&- || die "$kind on $port did not start (log $dir/$kind.log)"
}

# common_conf PORT DIR KIND: what every process here shares. Counters are disposable: no RDB
# snapshots, no AOF.
common_conf() {
	cat <<EOF
bind 127.0.0.1
port $1
protected-mode yes
daemonize yes
dir $2
pidfile $2/$3.pid
logfile $2/$3.log
EOF
}

sentinel_conf() {
	local port=$1 dir=$2 primary=$3
	common_conf "$port" "$dir" sentinel
	cat <<EOF
sentinel monitor $MASTER_NAME 127.0.0.1 $primary 2
# Short, for tests: the primary is down after 1 s without an answer; a failover that stalls is
# retried after 2 x 3 s.
sentinel down-after-milliseconds $MASTER_NAME 1000
sentinel failover-timeout $MASTER_NAME 3000
sentinel parallel-syncs $MASTER_NAME 1
EOF
}

data_conf() {
	local port=$1 dir=$2
	common_conf "$port" "$dir" server
	echo 'save ""'
	echo "appendonly no"
}

sentinel_alive() {
	local p
	for p in "${DATA_PORTS[@]}" "${SENTINEL_PORTS[@]}"; do up "$p" && return 0; done
	return 1
}

# sentinel_ready: every sentinel sees a primary that answers, with one replica linked, and the
# sentinels can authorise a failover (quorum and majority reachable).
sentinel_ready() {
	local s addr info
	for s in "${SENTINEL_PORTS[@]}"; do
		redis-cli -h 127.0.0.1 -p "$s" sentinel ckquorum "$MASTER_NAME" 2>/dev/null | grep -q '^OK' || return 1
	done
	addr=$(redis-cli -h 127.0.0.1 -p "${SENTINEL_PORTS[0]}" sentinel get-master-addr-by-name "$MASTER_NAME" 2>/dev/null | tail -n 1)
	info=$(redis-cli -h 127.0.0.1 -p "$addr" info replication 2>/dev/null) || return 1
	grep -q '^role:master' <<<"$info" && grep -q '^slave0:.*state=online' <<<"$info"
}

start_sentinel() {
	local dir=$STATE/sentinel i
	as_root_install redis-server redis-server
	as_root_install redis-sentinel redis-sentinel
	if ! sentinel_alive; then
		# Nothing left of an earlier setup: its files would name a primary that may be a replica now.
		rm -rf "$dir"
		mkdir -p "$dir"
		for i in 0 1; do
			mkdir -p "$dir/data-$i"
			data_conf "${DATA_PORTS[$i]}" "$dir/data-$i" >"$dir/data-$i/server.conf"
		done
		echo "replicaof 127.0.0.1 ${DATA_PORTS[0]}" >>"$dir/data-1/server.conf"
		for i in 0 1 2; do
			mkdir -p "$dir/sentinel-$i"
			sentinel_conf "${SENTINEL_PORTS[$i]}" "$dir/sentinel-$i" "${DATA_PORTS[0]}" >"$dir/sentinel-$i/sentinel.conf"
		done
	fi
	# Otherwise each process comes back on its own file, which Sentinel rewrites on every change
	# of roles: a primary killed and started again rejoins as what it is now.
	for i in 0 1; do launch "${DATA_PORTS[$i]}" "$dir/data-$i" server; done
	for i in 0 1 2; do launch "${SENTINEL_PORTS[$i]}" "$dir/sentinel-$i" sentinel; done
	wait_for "sentinel setup" sentinel_ready
	log "sentinel setup ready: primary $(redis-cli -h 127.0.0.1 -p "${SENTINEL_PORTS[0]}" sentinel get-master-addr-by-name "$MASTER_NAME" | paste -sd: -)"
}

cluster_alive() {
	local p
	for p in "${CLUSTER_PORTS[@]}"; do up "$p" && return 0; done
	return 1
}

cluster_ready() {
	local p
	for p in "${CLUSTER_PORTS[@]}"; do
		redis-cli -h 127.0.0.1 -p "$p" cluster info 2>/dev/null | grep -q '^cluster_state:ok' || return 1
	done
}

start_cluster() {
	local dir=$STATE/cluster i p fresh=false addrs=()
	as_root_install redis-server redis-server
	if ! cluster_alive; then
		rm -rf "$dir"
		fresh=true
	fi
	for i in "${!CLUSTER_PORTS[@]}"; do
		p=${CLUSTER_PORTS[$i]}
		addrs+=("127.0.0.1:$p")
		mkdir -p "$dir/node-$i"
		if [[ ! -f $dir/node-$i/server.conf ]]; then
			{
				data_conf "$p" "$dir/node-$i"
				echo "cluster-enabled yes"
				echo "cluster-config-file $dir/node-$i/nodes.conf"
				echo "cluster-node-timeout 2000"
			} >"$dir/node-$i/server.conf"
		fi
		launch "$p" "$dir/node-$i" server
	done
	wait_for "cluster nodes" cluster_alive_all
	if $fresh; then
		log "creating the cluster"
		redis-cli --cluster create "${addrs[@]}" --cluster-replicas 0 --cluster-yes >&2
	fi
	wait_for "cluster" cluster_ready
	log "cluster ready on ${addrs[*]}"
}

cluster_alive_all() {
	local p
	for p in "${CLUSTER_PORTS[@]}"; do up "$p" || return 1; done
}

stop_dir() { # pidfile...
	local f pid
	for f in "$@"; do
		[[ -e $f ]] || continue
		if ! pid_alive "$f"; then
			rm -f "$f"
			continue
		fi
		pid=$(cat "$f")
		log "stopping pid $pid ($f)"
		kill "$pid"
		for _ in $(seq 1 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.2
		done
		kill -9 "$pid" 2>/dev/null || true
		rm -f "$f"
	done
}

sentinel_url() {
	echo "redis://127.0.0.1:${SENTINEL_PORTS[0]}/0?master_name=$MASTER_NAME&addr=127.0.0.1:${SENTINEL_PORTS[1]}&addr=127.0.0.1:${SENTINEL_PORTS[2]}"
}

cluster_url() {
	echo "redis+cluster://127.0.0.1:${CLUSTER_PORTS[0]}?addr=127.0.0.1:${CLUSTER_PORTS[1]}&addr=127.0.0.1:${CLUSTER_PORTS[2]}"
}

main() {
	local cmd=${1:-} setups=("${@:2}") s
	((${#setups[@]})) || setups=(sentinel cluster)
	for s in "${setups[@]}"; do
		[[ $s == sentinel || $s == cluster ]] || cmd=usage
	done
	mkdir -p "$STATE"
	exec 9>"$STATE/.lock"
	flock 9
	case $cmd in
	start)
		for s in "${setups[@]}"; do
			"start_$s"
			echo "export REDIS_${s^^}_URL='$("${s}_url")'"
		done
		;;
	stop)
		for s in "${setups[@]}"; do
			# Sentinels first, or they would fail over from a primary being stopped.
			stop_dir "$STATE/$s"/sentinel-*/sentinel.pid "$STATE/$s"/*/server.pid
		done
		;;
	status)
		local rc=0
		for s in "${setups[@]}"; do
			if "${s}_ready"; then
				log "$s: ready"
				echo "export REDIS_${s^^}_URL='$("${s}_url")'"
			else
				log "$s: not ready"
				rc=1
			fi
		done
		return $rc
		;;
	*)
		echo "usage: $0 start|stop|status [sentinel] [cluster]" >&2
		exit 2
		;;
	esac
}

main "$@"
