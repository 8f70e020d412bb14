#!/usr/bin/env bash
# services.sh start|stop|status: the real Redis and OpenSearch that tests and `make run` use, on
# loopback. `start` installs what is missing, starts only what is not already answering, waits until
# both answer, and prints `export ...` lines on stdout (progress goes to stderr), so
#   eval "$(scripts/services.sh start)"
# sets the environment. `stop` stops only what this script started (it keeps their pid files).
#
# MEDIA_ENGINE=PRODUCT:VERSION picks the engine line (default opensearch:3.8.0): opensearch:3.8.0,
# opensearch:2.19.4, elasticsearch:9.2.0, elasticsearch:8.19.5, each the integ-test zip from Maven
# Central, each on its own HTTP port so several run side by side (OpenSearch 3.x 9200, 2.x 9201,
# Elasticsearch 9.x 9202, 8.x 9203; transport port + 100; OPENSEARCH_PORT or ELASTICSEARCH_PORT
# moves one), heap 1g (OPENSEARCH_HEAP). Elasticsearch's security is off, and `start` exports
# ELASTICSEARCH_URL for it.
# MEDIA_ENGINE_SECURITY=on (Elasticsearch only) starts a second node of that line on port + 40 with
# security on: HTTPS with the CA and node certificate in MEDIA_ENGINE_CERTS (ca.crt, node.crt,
# node.key; the search/elastic tests make them with Go's crypto), the least-privilege roles of the
# README (roles.yml) and two file-realm users, mediagw-gateway and mediagw-admin, whose passwords
# it makes once and exports with the URL and CA file.
#
# With OPENSEARCH_NODES=3 (or more) it manages an OpenSearch cluster instead, and only that: nodes
# mediagw-cluster-1.. on HTTP ports 9211.. and transport ports 9311.. (OPENSEARCH_PORT,
# OPENSEARCH_TRANSPORT_PORT), heap 320m each, beside the single node and out of its way. `start`
# starts the nodes that do not answer (so it also brings back one that died) and prints
# OPENSEARCH_URL with every node and OPENSEARCH_CLUSTER_DIR, where node I keeps its pid file
# (node-I/opensearch.pid), data and logs.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
STATE=${MEDIA_SERVICES_DIR:-$REPO/var/services}
if [[ $EUID -eq 0 && -z ${MEDIA_SERVICES_DIR:-} ]] && ! runuser -u nobody -- test -x "$REPO" 2>/dev/null; then
	# OpenSearch runs as an unprivileged user, who cannot reach a clone under a closed directory
	# such as /root: its configuration, data and logs go where that user can reach them.
	STATE=/var/lib/mediagw/services-$(printf '%s' "$REPO" | sha256sum | cut -c1-12)
fi

# The newest integ-test zip that resolved from Maven Central (3.9.0 did not exist yet). From 3.5 on it
# carries every module, analysis-common (asciifolding) included; it never carries the security plugin.
OPENSEARCH_VERSION=${OPENSEARCH_VERSION:-3.8.0}
OPENSEARCH_NODES=${OPENSEARCH_NODES:-1}
MEDIA_ENGINE=${MEDIA_ENGINE:-opensearch:$OPENSEARCH_VERSION}
ENGINE=${MEDIA_ENGINE%%:*}
ENGINE_VERSION=${MEDIA_ENGINE#*:}
SECURE=${MEDIA_ENGINE_SECURITY:-off}
if ((OPENSEARCH_NODES > 1)); then
	ENGINE=opensearch ENGINE_VERSION=$OPENSEARCH_VERSION
fi
# The supported lines (search/elastic refuses others) and the port each gets by default.
case $ENGINE:${ENGINE_VERSION%%.*} in
opensearch:3) ENGINE_PORT=${OPENSEARCH_PORT:-9200} ;;
opensearch:2) ENGINE_PORT=${OPENSEARCH_PORT:-9201} ;;
elasticsearch:9) ENGINE_PORT=${ELASTICSEARCH_PORT:-9202} ;;
elasticsearch:8) ENGINE_PORT=${ELASTICSEARCH_PORT:-9203} ;;
*)
	echo "services: MEDIA_ENGINE=$MEDIA_ENGINE is not a supported line (opensearch:2.x or 3.x, elasticsearch:8.x or 9.x)" >&2
	exit 2
	;;
esac
case $SECURE in
off) ;;
on)
	[[ $ENGINE == elasticsearch ]] || {
		echo "services: MEDIA_ENGINE_SECURITY=on needs an Elasticsearch line (the OpenSearch zips carry no security plugin)" >&2
		exit 2
	}
	ENGINE_PORT=$((ENGINE_PORT + 40))
	;;
*)
	echo "services: MEDIA_ENGINE_SECURITY is on or off, not $SECURE" >&2
	exit 2
	;;
esac
if ((OPENSEARCH_NODES > 1)); then
	OPENSEARCH_PORT=${OPENSEARCH_PORT:-9211}
	OPENSEARCH_TRANSPORT_PORT=${OPENSEARCH_TRANSPORT_PORT:-9311}
	OPENSEARCH_HEAP=${OPENSEARCH_HEAP:-320m}
fi
OPENSEARCH_PORT=${OPENSEARCH_PORT:-$ENGINE_PORT}
# A single node's heap is OpenSearch's own default: the attack suite's bursts after its hostile
# loads need more than 512m below the engine's real-memory circuit breaker.
OPENSEARCH_HEAP=${OPENSEARCH_HEAP:-1g}
if [[ $ENGINE == elasticsearch ]]; then
	OPENSEARCH_USER=${ELASTICSEARCH_USER:-elasticsearch}
else
	OPENSEARCH_USER=${OPENSEARCH_USER:-opensearch}
fi
OPENSEARCH_WAIT=${OPENSEARCH_WAIT:-180}
REDIS_PORT=${REDIS_PORT:-6379}
M2_REPO=${M2_REPO:-$HOME/.m2/repository}

if [[ $EUID -eq 0 ]]; then
	# Root's home is closed to the unprivileged user OpenSearch runs as, so the unpacked
	# distribution lives where that user can read it.
	CACHE=${MEDIA_SERVICES_CACHE:-/var/cache/mediagw}
else
	CACHE=${MEDIA_SERVICES_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mediagw}
fi

OS_URL="http://127.0.0.1:$OPENSEARCH_PORT"
# The default line keeps the directory it always had; the others get one each.
OS_DIR="$STATE/opensearch"
if [[ $MEDIA_ENGINE != opensearch:$OPENSEARCH_VERSION || $SECURE == on ]]; then
	OS_DIR="$STATE/$ENGINE-$ENGINE_VERSION"
	[[ $SECURE == off ]] || OS_DIR+=-secure
fi
# curl's options for the node: the secure one answers HTTPS to the admin user only.
CURL_AUTH=()
if [[ $SECURE == on ]]; then
	OS_URL="https://127.0.0.1:$OPENSEARCH_PORT"
	CURL_AUTH=(--cacert "$OS_DIR/config/certs/ca.crt" --netrc-file "$OS_DIR/admin.netrc")
fi
OS_PID="$OS_DIR/opensearch.pid"
OS_LOG="$OS_DIR/logs/mediagw-dev.log"
OS_STARTUP_LOG="$OS_DIR/startup.log"
REDIS_DIR="$STATE/redis"
REDIS_PID="$REDIS_DIR/redis.pid"
REDIS_LOG="$REDIS_DIR/redis.log"

log() { printf 'services: %s\n' "$*" >&2; }
die() {
	log "error: $*"
	exit 1
}

# pid_alive FILE: the pid in FILE names a live process.
pid_alive() {
	[[ -s $1 ]] && kill -0 "$(cat "$1")" 2>/dev/null
}

redis_up() {
	redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null | grep -q PONG
}

# Elasticsearch's integ-test zip answers GET / with 405; the health of the cluster answers on all.
opensearch_up() {
	curl -fsS -m 3 "${CURL_AUTH[@]}" "$OS_URL/_cluster/health" >/dev/null 2>&1
}

as_root_install() {
	[[ $EUID -eq 0 ]] || die "$1 is missing; install it (Debian: apt-get install $2)"
	log "installing $2"
	apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$2" >&2
}

start_redis() {
	if redis_up; then
		if pid_alive "$REDIS_PID"; then log "redis already running (pid $(cat "$REDIS_PID"))"; else log "redis already answering on 127.0.0.1:$REDIS_PORT (not started by this script)"; fi
		return
	fi
	command -v redis-server >/dev/null || as_root_install redis-server redis-server
	mkdir -p "$REDIS_DIR"
	log "starting redis on 127.0.0.1:$REDIS_PORT"
	# Counters are disposable: no RDB snapshots, no AOF.
	redis-server --daemonize yes --bind 127.0.0.1 --port "$REDIS_PORT" --protected-mode yes \
		--save '' --appendonly no --dir "$REDIS_DIR" --pidfile "$REDIS_PID" --logfile "$REDIS_LOG" 9>&-
	for _ in $(seq 1 50); do
		redis_up && { log "redis ready"; return; }
		sleep 0.2
	done
	tail -n 30 "$REDIS_LOG" >&2 || true
	die "redis did not answer on 127.0.0.1:$REDIS_PORT"
}

# java_home prints the JDK the engine runs on: OPENSEARCH_JAVA_HOME, else the newest under
# /usr/lib/jvm that the line supports (Temurin 25 here). OpenSearch 2.x needs 21 or older: it installs
# a security manager, which JDK 24 removed; the others need 21 or newer.
java_home() {
	local cand major best='' best_major=0 min=21 max=99
	if [[ -n ${OPENSEARCH_JAVA_HOME:-} ]]; then
		echo "$OPENSEARCH_JAVA_HOME"
		return
	fi
	[[ $ENGINE:${ENGINE_VERSION%%.*} != opensearch:2 ]] || min=11 max=21
	for cand in /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/*; do
		[[ -x $cand/bin/java && -f $cand/release ]] || continue
		major=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$cand/release")
		if [[ -n $major && $major -ge $min && $major -le $max && $major -gt $best_major ]]; then
			best=$cand best_major=$major
		fi
	done
	if [[ -z $best && $max == 21 && ${1:-} != again ]]; then
		as_root_install "a JDK 11 to 21 (for $MEDIA_ENGINE)" openjdk-17-jdk-headless
		java_home again
		return
	fi
	[[ -n $best ]] || die "no JDK $min to $max under /usr/lib/jvm for $MEDIA_ENGINE; set OPENSEARCH_JAVA_HOME"
	echo "$best"
}

# opensearch_home prints the unpacked distribution of the engine line, fetching and unpacking it the
# first time.
opensearch_home() {
	local home="$CACHE/$ENGINE-$ENGINE_VERSION" group=org.opensearch
	[[ $ENGINE == opensearch ]] || group=org.elasticsearch
	local zip="$M2_REPO/${group//.//}/distribution/integ-test-zip/$ENGINE/$ENGINE_VERSION/$ENGINE-$ENGINE_VERSION.zip"
	if [[ -x $home/bin/$ENGINE ]]; then
		echo "$home"
		return
	fi
	if [[ ! -f $zip ]]; then
		command -v mvn >/dev/null || as_root_install mvn maven
		log "fetching $MEDIA_ENGINE from Maven Central"
		mvn -q dependency:get -Dtransitive=false \
			-Dartifact="$group.distribution.integ-test-zip:$ENGINE:$ENGINE_VERSION:zip" >&2 ||
			die "could not resolve $group.distribution.integ-test-zip:$ENGINE:$ENGINE_VERSION:zip"
	fi
	command -v unzip >/dev/null || as_root_install unzip unzip
	log "unpacking $zip into $CACHE"
	mkdir -p "$CACHE"
	local tmp
	tmp=$(mktemp -d "$CACHE/.unpack.XXXXXX")
	unzip -q "$zip" -d "$tmp"
	chmod -R a+rX "$tmp"
	mv "$tmp/$ENGINE-$ENGINE_VERSION" "$home"
	rmdir "$tmp"
	echo "$home"
}

# write_opensearch_config HOME DIR: the configuration of the node in DIR, whose own settings
# (name, ports, discovery) come on stdin.
write_opensearch_config() {
	local home=$1 dir=$2 conf="$2/config"
	mkdir -p "$conf" "$dir/data" "$dir/logs" "$dir/tmp"
	if [[ ! -f $conf/jvm.options ]]; then
		cp -r "$home/config/." "$conf/"
		# The stock options write GC logs and heap dumps relative to the (read-only) distribution.
		sed -i -e "s#=logs/#=$dir/logs/#g; s#file=logs/#file=$dir/logs/#g; s#HeapDumpPath=data#HeapDumpPath=$dir/data#" "$conf/jvm.options"
	fi
	local yml=opensearch.yml
	[[ $ENGINE == opensearch ]] || yml=elasticsearch.yml
	# The node's settings are rewritten on every start so the script is their one source.
	{
		cat
		cat <<EOF
network.host: 127.0.0.1
path.data: $dir/data
path.logs: $dir/logs
# Development disks run nearly full; the default watermarks would make every index read-only.
cluster.routing.allocation.disk.watermark.low: 97%
cluster.routing.allocation.disk.watermark.high: 98%
cluster.routing.allocation.disk.watermark.flood_stage: 99%
action.destructive_requires_name: true
EOF
	} >"$conf/$yml"
}

# launch_opensearch HOME DIR HEAP: starts the node configured in DIR as a daemon, as the
# unprivileged user when run as root (OpenSearch refuses to run as root).
launch_opensearch() {
	local home=$1 dir=$2 heap=$3 jdk runner=()
	jdk=$(java_home)
	rm -f "$dir/opensearch.pid"
	if [[ $EUID -eq 0 ]]; then
		id -u "$OPENSEARCH_USER" >/dev/null 2>&1 ||
			useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$OPENSEARCH_USER"
		chown -R "$OPENSEARCH_USER:" "$dir"
		runner=(runuser -u "$OPENSEARCH_USER" --)
	fi
	if [[ $ENGINE == elasticsearch ]]; then
		"${runner[@]}" env ES_JAVA_HOME="$jdk" ES_PATH_CONF="$dir/config" ES_TMPDIR="$dir/tmp" \
			ES_JAVA_OPTS="-Xms$heap -Xmx$heap" \
			"$home/bin/elasticsearch" -d -p "$dir/opensearch.pid" >"$dir/startup.log" 2>&1 9>&-
		return
	fi
	"${runner[@]}" env OPENSEARCH_JAVA_HOME="$jdk" OPENSEARCH_PATH_CONF="$dir/config" \
		OPENSEARCH_TMPDIR="$dir/tmp" OPENSEARCH_JAVA_OPTS="-Xms$heap -Xmx$heap" \
		"$home/bin/opensearch" -d -p "$dir/opensearch.pid" >"$dir/startup.log" 2>&1 9>&-
}

start_opensearch() {
	if opensearch_up; then
		if pid_alive "$OS_PID"; then log "$MEDIA_ENGINE already running (pid $(cat "$OS_PID"))"; else log "$MEDIA_ENGINE already answering on $OS_URL (not started by this script)"; fi
		# A running node may hold someone's index that asks for a replica (yellow): that is
		# no reason to refuse it.
		wait_opensearch yellow
		return
	fi
	local home
	home=$(opensearch_home)
	write_opensearch_config "$home" "$OS_DIR" < <(node_settings)
	[[ $SECURE == off ]] || secure_setup "$home"
	log "starting $MEDIA_ENGINE on $OS_URL (heap $OPENSEARCH_HEAP, java $(java_home))"
	local started=$SECONDS
	launch_opensearch "$home" "$OS_DIR" "$OPENSEARCH_HEAP" || opensearch_failed "OpenSearch exited during start-up"
	wait_opensearch green
	log "$MEDIA_ENGINE ready in $((SECONDS - started))s"
}

# node_settings prints the single node's own settings.
node_settings() {
	cat <<EOF
cluster.name: mediagw-dev
node.name: mediagw-dev-1
discovery.type: single-node
http.port: $OPENSEARCH_PORT
transport.port: $((OPENSEARCH_PORT + 100))
EOF
	if [[ $ENGINE == opensearch ]]; then
		cat <<EOF
# One node can never hold a replica; indices without one are green.
cluster.default_number_of_replicas: 0
EOF
		return
	fi
	# Elasticsearch has no default replica setting: an index asking for one is yellow on one node.
	if [[ $SECURE == off ]]; then
		echo 'xpack.security.enabled: false'
		return
	fi
	# Single-node discovery needs no transport TLS; HTTP is TLS with the node's certificate.
	cat <<EOF
xpack.security.enabled: true
xpack.security.http.ssl.enabled: true
xpack.security.http.ssl.certificate: certs/node.crt
xpack.security.http.ssl.key: certs/node.key
xpack.security.http.ssl.certificate_authorities: [certs/ca.crt]
EOF
}

# secure_setup HOME: the secure node's certificates (from MEDIA_ENGINE_CERTS, the first time), roles
# and users. The passwords are made once and kept in the node's directory, readable by root only.
secure_setup() {
	local home=$1 conf="$OS_DIR/config" user pass
	if [[ ! -f $conf/certs/ca.crt ]]; then
		[[ -n ${MEDIA_ENGINE_CERTS:-} && -f $MEDIA_ENGINE_CERTS/ca.crt && -f $MEDIA_ENGINE_CERTS/node.crt && -f $MEDIA_ENGINE_CERTS/node.key ]] ||
			die "MEDIA_ENGINE_SECURITY=on needs MEDIA_ENGINE_CERTS=DIR holding ca.crt, node.crt and node.key (the search/elastic security test makes them)"
		mkdir -p "$conf/certs"
		cp "$MEDIA_ENGINE_CERTS"/{ca.crt,node.crt,node.key} "$conf/certs/"
	fi
	# The least privileges of the README: the gateway reads the alias and the operators' rules;
	# mediactl makes, fills and swaps the alias's versioned indices and stores the rules. Both read
	# the engine's product and version (monitor).
	cat >"$conf/roles.yml" <<EOF
mediagw_gateway:
  cluster: [monitor]
  indices:
    - names: ['media', 'media-*', 'media_rules', 'mediagw-test-*']
      privileges: [read, view_index_metadata]
mediagw_admin:
  cluster: [monitor]
  indices:
    - names: ['media', 'media-*', 'media_rules', 'mediagw-test-*']
      privileges: [create_index, write, read, manage, view_index_metadata]
EOF
	for user in gateway admin; do
		if [[ ! -s $OS_DIR/$user.password ]]; then
			pass=$(head -c 64 /dev/urandom | base64 | LC_ALL=C tr -dc 'A-Za-z0-9')
			(umask 077 && printf '%s' "${pass:0:24}" >"$OS_DIR/$user.password")
		fi
		pass=$(cat "$OS_DIR/$user.password")
		env ES_JAVA_HOME="$(java_home)" ES_PATH_CONF="$conf" "$home/bin/elasticsearch-users" userdel "mediagw-$user" >/dev/null 2>&1 || true
		env ES_JAVA_HOME="$(java_home)" ES_PATH_CONF="$conf" "$home/bin/elasticsearch-users" useradd "mediagw-$user" \
			-p "$pass" -r "mediagw_$user" >&2 || die "elasticsearch-users useradd mediagw-$user failed"
	done
	(umask 077 && printf 'machine 127.0.0.1 login mediagw-admin password %s\n' "$(cat "$OS_DIR/admin.password")" >"$OS_DIR/admin.netrc")
}

# The cluster (OPENSEARCH_NODES > 1): node I answers HTTP on OPENSEARCH_PORT+I-1.
CLUSTER_DIR="$STATE/cluster"

node_url() { echo "http://127.0.0.1:$((OPENSEARCH_PORT + $1 - 1))"; }

# use_node I: the start-up checks below look at node I.
use_node() {
	OS_URL=$(node_url "$1") OS_PID="$CLUSTER_DIR/node-$1/opensearch.pid"
	OS_STARTUP_LOG="$CLUSTER_DIR/node-$1/startup.log" OS_LOG="$CLUSTER_DIR/node-$1/logs/mediagw-cluster.log"
}

cluster_urls() {
	local i urls=()
	for ((i = 1; i <= OPENSEARCH_NODES; i++)); do urls+=("$(node_url "$i")"); done
	(
		IFS=,
		echo "${urls[*]}"
	)
}

start_cluster() {
	local home i seeds='' managers='' started=$SECONDS
	home=$(opensearch_home)
	for ((i = 1; i <= OPENSEARCH_NODES; i++)); do
		seeds+="${seeds:+, }\"127.0.0.1:$((OPENSEARCH_TRANSPORT_PORT + i - 1))\""
		managers+="${managers:+, }\"mediagw-cluster-$i\""
	done
	for ((i = 1; i <= OPENSEARCH_NODES; i++)); do
		use_node "$i"
		if opensearch_up; then
			log "cluster node $i already answering on $OS_URL"
			continue
		fi
		# A busy machine can keep a live node from answering in time: a second one on its data
		# directory would only fail on the node lock, and take its pid file.
		if pid_alive "$OS_PID"; then
			log "cluster node $i running (pid $(cat "$OS_PID")) but not answering yet"
			continue
		fi
		write_opensearch_config "$home" "$CLUSTER_DIR/node-$i" <<EOF
cluster.name: mediagw-cluster
node.name: mediagw-cluster-$i
http.port: $((OPENSEARCH_PORT + i - 1))
transport.port: $((OPENSEARCH_TRANSPORT_PORT + i - 1))
discovery.seed_hosts: [$seeds]
# Read only when the cluster forms for the first time.
cluster.initial_cluster_manager_nodes: [$managers]
EOF
		log "starting cluster node $i on $OS_URL (heap $OPENSEARCH_HEAP)"
		launch_opensearch "$home" "$CLUSTER_DIR/node-$i" "$OPENSEARCH_HEAP" || opensearch_failed "cluster node $i exited during start-up"
	done
	for ((i = 1; i <= OPENSEARCH_NODES; i++)); do
		use_node "$i"
		wait_opensearch green "&wait_for_nodes=$OPENSEARCH_NODES"
	done
	log "cluster of $OPENSEARCH_NODES nodes ready in $((SECONDS - started))s"
}

stop_cluster() {
	local i
	for ((i = 1; i <= OPENSEARCH_NODES; i++)); do
		stop_one "cluster node $i" "$CLUSTER_DIR/node-$i/opensearch.pid"
	done
}

opensearch_failed() {
	log "$1; last lines of its logs:"
	tail -n 40 "$OS_STARTUP_LOG" >&2 2>/dev/null || true
	tail -n 60 "$OS_LOG" >&2 2>/dev/null || true
	exit 1
}

# wait_opensearch STATUS [QUERY] waits, bounded, for a cluster at least STATUS (green or yellow),
# and what QUERY adds to the health request, that folds accents when the line carries
# analysis-common (OpenSearch 3.5 and newer; Elasticsearch's and OpenSearch 2.x's zips do not).
wait_opensearch() {
	local want=$1 more=${2:-} deadline=$((SECONDS + OPENSEARCH_WAIT)) status=''
	while ((SECONDS < deadline)); do
		status=$(curl -sS -m 5 "${CURL_AUTH[@]}" "$OS_URL/_cluster/health?wait_for_status=$want&timeout=2s$more" 2>/dev/null |
			sed -n 's/.*"status":"\([a-z]*\)".*/\1/p') || true
		[[ $status == green || ($want == yellow && $status == yellow) ]] && break
		# The daemon writes its pid file some seconds into start-up; until then only its stderr
		# (kept in the start-up log) says whether it gave up.
		if [[ -s $OS_PID ]] && ! pid_alive "$OS_PID"; then opensearch_failed "OpenSearch died"; fi
		if [[ ! -s $OS_PID ]] && grep -qE '^(ERROR|Exception)|fatal error' "$OS_STARTUP_LOG" 2>/dev/null; then
			opensearch_failed "OpenSearch did not start"
		fi
		sleep 1
	done
	[[ $status == green || ($want == yellow && $status == yellow) ]] ||
		opensearch_failed "OpenSearch not $want after ${OPENSEARCH_WAIT}s (status: ${status:-no answer})"
	[[ -d $CACHE/$ENGINE-$ENGINE_VERSION/modules/analysis-common ]] || return 0
	curl -fsS -m 10 -H 'Content-Type: application/json' "$OS_URL/_analyze" \
		-d '{"tokenizer":"standard","filter":["lowercase","asciifolding"],"text":"Élan"}' 2>/dev/null |
		grep -q '"token":"elan"' || die "OpenSearch at $OS_URL cannot fold accents (analysis-common missing?)"
}

stop_one() { # name pidfile
	if ! pid_alive "$2"; then
		log "$1 not running (not started by this script)"
		rm -f "$2"
		return
	fi
	local pid
	pid=$(cat "$2")
	log "stopping $1 (pid $pid)"
	kill "$pid"
	for _ in $(seq 1 60); do
		kill -0 "$pid" 2>/dev/null || { rm -f "$2"; return; }
		sleep 0.5
	done
	log "$1 still running after 30s; killing it"
	kill -9 "$pid" 2>/dev/null || true
	rm -f "$2"
}

status() {
	local rc=0
	if redis_up; then
		log "redis: up on 127.0.0.1:$REDIS_PORT$(pid_alive "$REDIS_PID" && echo " (pid $(cat "$REDIS_PID"))")"
	else
		log "redis: down"
		rc=1
	fi
	if opensearch_up; then
		log "$ENGINE: up on $OS_URL$(pid_alive "$OS_PID" && echo " (pid $(cat "$OS_PID"))"), version $(curl -fsS -m 3 "${CURL_AUTH[@]}" "$OS_URL/_nodes/_local?filter_path=nodes.*.version" | sed -n 's/.*"version" *: *"\([^"]*\)".*/\1/p'), health $(curl -fsS -m 3 "${CURL_AUTH[@]}" "$OS_URL/_cluster/health" | sed -n 's/.*"status":"\([a-z]*\)".*/\1/p')"
	else
		log "$ENGINE: down on $OS_URL"
		rc=1
	fi
	return $rc
}

print_env() {
	if [[ $ENGINE == opensearch ]]; then
		echo "export OPENSEARCH_URL=$OS_URL"
	else
		echo "export ELASTICSEARCH_URL=$OS_URL"
	fi
	if [[ $SECURE == on ]]; then
		echo "export ELASTICSEARCH_CA_FILE=$OS_DIR/config/certs/ca.crt"
		echo "export ELASTICSEARCH_USERNAME=mediagw-gateway"
		echo "export ELASTICSEARCH_PASSWORD=$(cat "$OS_DIR/gateway.password")"
		echo "export MEDIA_ENGINE_ADMIN_USERNAME=mediagw-admin"
		echo "export MEDIA_ENGINE_ADMIN_PASSWORD=$(cat "$OS_DIR/admin.password")"
	fi
	echo "export REDIS_URL=redis://127.0.0.1:$REDIS_PORT/0"
}

cluster_main() {
	case ${1:-} in
	start)
		start_cluster
		echo "export OPENSEARCH_URL=$(cluster_urls)"
		echo "export OPENSEARCH_CLUSTER_DIR=$CLUSTER_DIR"
		;;
	stop) stop_cluster ;;
	status)
		curl -fsS -m 5 "$(node_url 1)/_cat/nodes?v&h=name,http,node.role,cluster_manager,heap.max" >&2 || {
			log "cluster: node 1 down"
			exit 1
		}
		echo "export OPENSEARCH_URL=$(cluster_urls)"
		;;
	*)
		echo "usage: OPENSEARCH_NODES=$OPENSEARCH_NODES $0 start|stop|status" >&2
		exit 2
		;;
	esac
}

main() {
	mkdir -p "$STATE"
	# Several make invocations may run at once; one of them starts things, the others wait for it.
	# The daemons must not inherit fd 9, or they would hold the lock for their lifetime.
	exec 9>"$STATE/.lock"
	flock 9
	if ((OPENSEARCH_NODES > 1)); then
		cluster_main "$@"
		return
	fi
	case ${1:-} in
	start)
		start_redis
		start_opensearch
		print_env
		;;
	stop)
		stop_one "$MEDIA_ENGINE" "$OS_PID"
		# Redis goes with the default line only: another line's stop leaves it to the others.
		[[ $MEDIA_ENGINE != opensearch:$OPENSEARCH_VERSION || $SECURE == on ]] || stop_one redis "$REDIS_PID"
		;;
	status)
		status && print_env
		;;
	*)
		echo "usage: $0 start|stop|status" >&2
		exit 2
		;;
	esac
}

main "$@"
