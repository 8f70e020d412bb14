#!/usr/bin/env bash
# bench.sh: the short performance run behind `make bench`. With OpenSearch (or, BENCH_ENGINE,
# Elasticsearch) running (make services),
# it generates a catalogue, times `mediactl load` against a plain _bulk of the same documents (and
# `mediactl reindex` of the loaded index against the load),
# builds the embedded index, starts mediagw on loopback (OpenSearch with caching off, with caching
# on, and embedded), and replays the same request mix against each gateway and straight against
# OpenSearch (and, caching off, through the floor: proxies that forward it unchanged), printing
# the ratios and what each gateway's metrics say of its own time; searches of words the catalogue
# also holds in another form, gateway against OpenSearch; then the search-box extras (all
# facets and highlighting, and phrases, against plain searches; completions) on both backends. It keeps each
# section's results in var/bench/results and draws them as SVG charts. It stops every process it
# started. docs/performance.md explains the method and records the figures.
#
# Settings (environment): BENCH_ITEMS (100000), BENCH_SEED (1), BENCH_DURATION measured per target
# (10s), BENCH_REQUESTS the same requests each target of a closed-loop comparison answers instead,
# caching on aside (4800; 0 times them by BENCH_DURATION), BENCH_ROUNDS the alternating rounds they and the cached
# gateway's comparison are measured in (6), BENCH_WARMUP (3s), BENCH_CACHE_WARMUP of the cached gateway (30s),
# BENCH_CACHE_DURATION measured per target of its comparison (30s), BENCH_C connections (8), BENCH_QPS open-loop rate (40; 0 skips the
# open-loop run), BENCH_SUSTAIN sustained run of the cached gateway for its RSS (30s; 0 skips it), BENCH_EMBEDDED (1; 0 skips the embedded index), BENCH_PROFILE (1; 0 skips the CPU
# profile), BENCH_LOAD (1; 0 skips timing the loads, and loads the catalogue only when the alias
# holds another count), BENCH_ENGINE (opensearch, or elasticsearch at ELASTICSEARCH_URL,
# default http://127.0.0.1:9202), BENCH_ALIAS (bench-items), OPENSEARCH_URL (http://127.0.0.1:9200), REDIS_URL (redis on
# 127.0.0.1:6379 when it answers, else the in-process limit), BENCH_PORT first of the loopback
# ports (18080 to 18086, admin 19081 to 19084), BENCH_CHARTS where the charts go (docs/charts; empty skips them),
# BENCH_GOMEMLIMIT the gateways' Go memory limit, as a container's (512MiB), BENCH_GOMAXPROCS the
# CPUs the Go scheduler of a gateway in front of the engine runs on, as in deploy/k8s's container
# (limits.cpu: 1, which Go reads as GOMAXPROCS=1; 0 leaves Go's default, every CPU of the machine),
# BENCH_ONLY (empty; lists stops after the lists' section, the gateways just started).
# BENCH_KILL_NODE the pid file of an engine node (a cluster's: OPENSEARCH_URL naming several nodes,
# make cluster) to kill with SIGKILL during the caching-off section, which then measures the gateway
# alone in three timed phases of BENCH_DURATION, before, during (the kill BENCH_KILL_AFTER seconds,
# 5, after its first engine call) and after, with the engine calls in flight at the kill; the node
# stays down for the rest.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"
GO=${GO:-go}
ITEMS=${BENCH_ITEMS:-100000}
SEED=${BENCH_SEED:-1}
DURATION=${BENCH_DURATION:-10s}
WARMUP=${BENCH_WARMUP:-3s}
CACHE_WARMUP=${BENCH_CACHE_WARMUP:-30s}
CACHE_DURATION=${BENCH_CACHE_DURATION:-30s}
REQUESTS=${BENCH_REQUESTS:-4800}
ROUNDS=${BENCH_ROUNDS:-6}
CONC=${BENCH_C:-8}
QPS=${BENCH_QPS:-40}
SUSTAIN=${BENCH_SUSTAIN:-30s}
EMBEDDED=${BENCH_EMBEDDED:-1}
PROFILE=${BENCH_PROFILE:-1}
GW_MEMLIMIT=${BENCH_GOMEMLIMIT:-512MiB}
GW_PROCS=${BENCH_GOMAXPROCS:-1}
ALIAS=${BENCH_ALIAS:-bench-items}
PORT=${BENCH_PORT:-18080}
CHARTS=${BENCH_CHARTS-$REPO/docs/charts}
LOAD=${BENCH_LOAD:-1}
ONLY=${BENCH_ONLY:-}
KILL_NODE=${BENCH_KILL_NODE:-}
KILL_AFTER=${BENCH_KILL_AFTER:-5}
ENGINE=${BENCH_ENGINE:-opensearch}
case $ENGINE in
opensearch) ENGINE_URL=${OPENSEARCH_URL:-http://127.0.0.1:9200} ;;
elasticsearch) ENGINE_URL=${ELASTICSEARCH_URL:-http://127.0.0.1:9202} ;;
*)
	echo "bench: BENCH_ENGINE=$ENGINE: want opensearch or elasticsearch" >&2
	exit 2
	;;
esac
# Every part (gateways, mediactl, mediabench, the direct baseline) reads the engine MEDIA_BACKEND names;
# the script's own requests go to its first node.
NODE=${ENGINE_URL%%,*}
export MEDIA_BACKEND=$ENGINE OPENSEARCH_URL=$ENGINE_URL OPENSEARCH_INDEX=$ALIAS ELASTICSEARCH_URL=$ENGINE_URL ELASTICSEARCH_INDEX=$ALIAS
DIR=$REPO/var/bench
CATALOGUE=$DIR/catalogue-$ITEMS-$SEED.ndjson.gz
INDEX_DIR=$DIR/index-$ITEMS-$SEED
RESULTS=$DIR/results

log() { printf 'bench: %s\n' "$*" >&2; }
die() {
	log "error: $*"
	exit 1
}

# The machine may be shared: each run says how busy it was as it started.
loadavg() { echo "(load average before the run: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cpus)"; }

PIDS=()
cleanup() {
	local pid
	for pid in "${PIDS[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in "${PIDS[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
}
trap cleanup EXIT

if [[ -z ${REDIS_URL+x} ]]; then
	if command -v redis-cli >/dev/null && redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG; then
		REDIS_URL=redis://127.0.0.1:6379/0
	else
		REDIS_URL=
	fi
fi
export REDIS_URL

# Elasticsearch's integration-test build answers GET / with 405: ask the node itself.
engine_version() { curl -fsS -m 5 "$NODE/_nodes/_local/version" | grep -o '"version":"[^"]*"' | head -n 1 | cut -d'"' -f4; }
[[ -n $(engine_version 2>/dev/null) ]] || die "$ENGINE does not answer at $ENGINE_URL: start it with \`make services\` (MEDIA_ENGINE=elasticsearch:9.2.0 for Elasticsearch)"
mkdir -p "$DIR" "$RESULTS"
rm -f "$RESULTS"/*.json
log "building"
$GO build -o bin/ ./cmd/...
MEDIACTL=$REPO/bin/mediactl
MEDIABENCH=$REPO/bin/mediabench

echo "== machine"
echo "cpus: $(nproc); memory: $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo); $($GO version | cut -d' ' -f3-4)"
echo "$ENGINE: $(engine_version); rate-limit store: ${REDIS_URL:-in process}"
echo "run: $ITEMS items, seed $SEED, $CONC connections; closed loops on the same $REQUESTS requests a target (0: timed) in $ROUNDS rounds, the cached one $CACHE_DURATION a target, the others $DURATION a target after $WARMUP warm-up; gateways at GOMEMLIMIT=$GW_MEMLIMIT, those in front of $ENGINE at GOMAXPROCS=$GW_PROCS (0: every CPU)"

if [[ ! -f $CATALOGUE ]]; then
	log "generating $ITEMS items"
	"$MEDIACTL" gen -n "$ITEMS" -seed "$SEED" -o "$CATALOGUE" 2>/dev/null
fi

# listener_pid PORT prints the pid of the local process listening on PORT, if ss can tell.
listener_pid() { command -v ss >/dev/null && ss -Hltnp "sport = :$1" 2>/dev/null | sed -n 's/.*pid=\([0-9]*\).*/\1/p' | head -n 1; }

# engine_pid prints the pid of the local engine that answers at ENGINE_URL (other nodes may run
# on the machine), or nothing when it is not a local process.
engine_pid() {
	local port=${NODE##*:} f=$REPO/var/services/opensearch/opensearch.pid
	port=${port%%/*}
	if command -v ss >/dev/null; then
		listener_pid "$port"
	elif [[ $ENGINE == opensearch && -s $f ]] && kill -0 "$(cat "$f")" 2>/dev/null; then
		cat "$f"
	fi
}
OS_PID=$(engine_pid)
# REDIS_PID: the local Redis that REDIS_URL names, whose CPU time the rate limit costs.
REDIS_PID=
if [[ $REDIS_URL =~ ^redis://([^@/]*@)?(127\.0\.0\.1|localhost):([0-9]+) ]]; then
	REDIS_PID=$(listener_pid "${BASH_REMATCH[3]}")
fi
# cpu LIST: LIST plus the engine and Redis, the processes whose CPU time a run charges to each
# target.
cpu() {
	local list=$1
	[[ -n $OS_PID ]] && list="$list,$ENGINE=$OS_PID"
	[[ -n $REDIS_PID ]] && list="$list,redis=$REDIS_PID"
	echo "$list"
}

# outdated: the live index was built by an older mediagw, which lacks what this one reads.
outdated() { "$MEDIACTL" status 2>/dev/null | grep 'live' | grep -q 'older mediagw'; }

if [[ $LOAD == 1 ]]; then
	echo
	echo "== load into $ENGINE: mediactl load vs plain _bulk of the same documents, then mediactl reindex vs load"
	loadavg
	"$MEDIABENCH" run -mode load -catalogue "$CATALOGUE" -log-level warn ${OS_PID:+-cpu $ENGINE=$OS_PID}
elif [[ $(curl -fsS "$NODE/$ALIAS/_count" 2>/dev/null | grep -o '"count":[0-9]*' | cut -d: -f2) != "$ITEMS" ]] || outdated; then
	log "loading $ITEMS items into $ENGINE (BENCH_LOAD=0: not timed)"
	"$MEDIACTL" load -log-level warn "$CATALOGUE" >/dev/null
fi

if [[ $EMBEDDED == 1 ]] && { [[ ! -e $INDEX_DIR/current ]] || MEDIA_BACKEND=embedded MEDIA_INDEX_DIR=$INDEX_DIR outdated; }; then
	log "building the embedded index in $INDEX_DIR (kept for the next run)"
	MEDIA_BACKEND=embedded MEDIA_INDEX_DIR=$INDEX_DIR "$MEDIACTL" load -log-level warn "$CATALOGUE" >/dev/null
fi

# start NAME PORT ENV...: starts mediagw on loopback with the given settings, waits until /readyz
# answers, and sets $pid and $startup (seconds until ready). The closed loop keeps more searches in
# flight than a replica admits at once (MEDIA_MAX_INFLIGHT): a long MEDIA_ADMIT_WAIT queues them,
# as the engine would, instead of refusing them with 503s that would count as fast answers.
# Each runs as in a container with a memory limit (this machine's processes have none): GOMEMLIMIT,
# under which mediagw sets its collector and its cache's bound (an eighth: 64 MiB at 512 MiB, the
# bound without a limit); GOGC is left for mediagw to set. A gateway gets the container's CPU as
# Go reads it (GOMAXPROCS=$GW_PROCS; Go takes 0 for its default, every CPU); the settings given
# after NAME PORT come later and win.
start() {
	local name=$1 port=$2
	shift 2
	local t0
	t0=$(date +%s%N)
	env -u GOGC GOMEMLIMIT="$GW_MEMLIMIT" GOMAXPROCS="$GW_PROCS" MEDIA_ADDR=127.0.0.1:$port MEDIA_ADMIN_ADDR=127.0.0.1:$((port + 1000)) MEDIA_PUBLIC_URL=http://127.0.0.1:$port \
		MEDIA_TRUSTED_PROXIES=127.0.0.1 MEDIA_PPROF=on MEDIA_SHUTDOWN_DELAY=0s MEDIA_SHUTDOWN_GRACE=5s MEDIA_ADMIT_WAIT=${BENCH_ADMIT_WAIT:-10s} "$@" \
		"$REPO/bin/mediagw" 2>"$DIR/$name.log" &
	pid=$!
	PIDS+=("$pid")
	for _ in $(seq 1 600); do
		if curl -fsS -m 1 -o /dev/null "http://127.0.0.1:$port/readyz" 2>/dev/null; then
			startup=$(awk -v ns=$(($(date +%s%N) - t0)) 'BEGIN {printf "%.2f", ns / 1e9}')
			return
		fi
		kill -0 "$pid" 2>/dev/null || die "mediagw $name exited; see $DIR/$name.log"
		sleep 0.05
	done
	die "mediagw $name not ready after 30s; see $DIR/$name.log"
}

rss_mib() { awk '/VmRSS/ {printf "%.1f", $2/1024}' "/proc/$1/status"; }

start off $((PORT + 1)) MEDIA_CACHE=off
OFF=$pid
start on $((PORT + 2)) MEDIA_CACHE=on
ON=$pid
# The same as "off" but counting visitors in process instead of in Redis: how much of the
# gateway's own time is the shared limiter's round trip (open loop only).
start local $((PORT + 4)) MEDIA_CACHE=off REDIS_URL=
LOCAL=$pid
echo "gateways' memory settings (their serving line): $(grep -o '"\(memory_limit_bytes\|gc_percent\|cache_max_bytes\)":[0-9]*' "$DIR/on.log" | tr '\n' ' ')"
GW_OFF=http://127.0.0.1:$((PORT + 1))/
GW_ON=http://127.0.0.1:$((PORT + 2))/
GATEWAYS="gateway=$GW_OFF,cached=$GW_ON"
# The gateways' metrics (their admin listeners): own time per request, limiter, GC, cache.
M_OFF=http://127.0.0.1:$((PORT + 1001))/metrics
M_ON=http://127.0.0.1:$((PORT + 1002))/metrics
M_EMB=http://127.0.0.1:$((PORT + 1003))/metrics
M_LOCAL=http://127.0.0.1:$((PORT + 1004))/metrics
if [[ $EMBEDDED == 1 ]]; then
	# The embedded index is its own engine: every CPU, as the engine has.
	start embedded $((PORT + 3)) MEDIA_BACKEND=embedded MEDIA_INDEX_DIR="$INDEX_DIR" MEDIA_CACHE=off GOMAXPROCS=0
	EMB=$pid
	echo
	echo "== embedded index: start-up ${startup}s to ready, RSS $(rss_mib "$EMB") MiB when ready ($(du -sh "$INDEX_DIR" | cut -f1) on disk)"
	GATEWAYS="$GATEWAYS,embedded=http://127.0.0.1:$((PORT + 3))/"
fi

echo
echo "== categories and authors, whole and as a picker asks them (pages of 50 by name and by count, name searches): first request (engine caches cleared, gateways just started), then cached"
loadavg
"$MEDIABENCH" run -mode probe -gateway "$GATEWAYS" -n 50 -log-level warn
[[ $ONLY == lists ]] && exit 0

# The floor: what any gateway costs on this machine. mediabench passthrough forwards the direct
# requests to the engine unchanged (one more HTTP hop, nothing parsed), on a gateway's CPU
# (GOMAXPROCS), once as it is and once asking the rate limit in Redis first, as the contract makes
# every gateway do. The closed loop measures them beside the gateway.
passthrough() {
	local name=$1 port=$2
	shift 2
	env GOMAXPROCS="$GW_PROCS" "$MEDIABENCH" passthrough -listen "127.0.0.1:$port" -log-level warn "$@" 2>"$DIR/$name.log" &
	pid=$!
	PIDS+=("$pid")
	for _ in $(seq 1 200); do
		curl -sS -m 1 -o /dev/null "http://127.0.0.1:$port/" 2>/dev/null && return
		kill -0 "$pid" 2>/dev/null || die "mediabench passthrough $name exited; see $DIR/$name.log"
		sleep 0.05
	done
	die "mediabench passthrough $name not listening after 10s; see $DIR/$name.log"
}
passthrough proxy $((PORT + 5))
VIA="proxy=http://127.0.0.1:$((PORT + 5))/"
VIA_CPU="proxy=$pid"
if [[ -n $REDIS_URL ]]; then
	passthrough proxy-limit $((PORT + 6)) -limit
	VIA="$VIA,proxy+limit=http://127.0.0.1:$((PORT + 6))/"
	VIA_CPU="$VIA_CPU,proxy+limit=$pid"
fi

mix() { loadavg; "$MEDIABENCH" run -catalogue "$CATALOGUE" -seed "$SEED" -duration "$DURATION" -warmup "$WARMUP" -c "$CONC" -log-level warn "$@"; }
# same: a closed-loop comparison measures the same $REQUESTS requests on every target. In a time
# the faster target gets further into the mix, and at 1,000,000 items 10 s hold a few hundred
# requests whose costs vary a hundredfold (1% are authors lists of 3 s): which ones each target
# drew moved the ratio more than the gateway did. In $ROUNDS rounds: the engine's CPU for the same
# requests moves by a tenth from one round to the next, and two copies of one gateway build
# measured side by side came out at 0.88x and 1.00x of the engine in 2 rounds of 800 requests,
# 0.92x and 0.91x in 6.
same=(-requests "$REQUESTS" -rounds "$ROUNDS")

# in_flight prints the gateway's engine calls in flight (caching off) as its metrics give them.
in_flight() { curl -fsS -m 2 "$M_OFF" | awk '$1 == "mediagw_admission_in_flight" {n = $2} END {print n + 0}'; }

echo
if [[ -n $KILL_NODE ]]; then
	victim=$(cat "$KILL_NODE") || die "BENCH_KILL_NODE=$KILL_NODE: no pid file"
	kill -0 "$victim" || die "BENCH_KILL_NODE=$KILL_NODE: pid $victim is not running"
	echo "== gateway (caching off) on $ENGINE, closed loop, a node killed: $DURATION before, $DURATION during (pid $victim killed after ${KILL_AFTER}s), $DURATION after"
	for phase in before during after; do
		echo "-- $phase"
		killer=
		if [[ $phase == during ]]; then
			{
				# The phase's mix takes a while to build: the clock starts at its first engine call.
				until (($(in_flight) > 0)); do sleep 0.2; done
				sleep "$KILL_AFTER"
				calls=$(in_flight)
				kill -KILL "$victim"
				echo "killed node pid $victim ($KILL_NODE) with $calls engine calls of the gateway in flight"
			} &
			killer=$!
		fi
		mix -direct=false -gateway "gateway=$GW_OFF" -metrics "gateway=$M_OFF" -rounds 1 -requests 0 \
			-warmup "$([[ $phase == before ]] && echo "$WARMUP" || echo 0s)" -save "$RESULTS/1-kill-$phase.json" -label "caching off, a node killed: $phase"
		[[ -z $killer ]] || wait "$killer"
	done
else
	echo "== gateway (caching off) vs $ENGINE direct, closed loop, beside the floor: a pass-through proxy (proxy), and one that asks the rate limit first (proxy+limit)"
	mix "${same[@]}" -gateway "gateway=$GW_OFF" -via "$VIA" -metrics "gateway=$M_OFF" -rss "gateway=$OFF" -cpu "$(cpu "gateway=$OFF,$VIA_CPU")" \
		-save "$RESULTS/1-closed-off.json" -label "closed loop, caching off"
fi

echo
echo "== searches of words the catalogue also holds in another form: gateway (caching off) vs $ENGINE direct, closed loop"
mix "${same[@]}" -mode forms -gateway "gateway=$GW_OFF" -metrics "gateway=$M_OFF" -cpu "$(cpu "gateway=$OFF")" \
	-save "$RESULTS/1-forms.json" -label "searches of words with other forms"

if [[ $QPS != 0 ]]; then
	echo
	echo "== gateway (caching off; rate limit in Redis, then in process) vs $ENGINE direct, open loop at $QPS req/s"
	# 100 visitors come back every 2.5 s, as search-box users do: what the gateway knows of a
	# visitor it has seen (speculative admission) applies, as it does in production; with the
	# default 10,000, none would come back within the run.
	mix -gateway "gateway=$GW_OFF,local-limit=http://127.0.0.1:$((PORT + 4))/" -metrics "gateway=$M_OFF,local-limit=$M_LOCAL" \
		-qps "$QPS" -visitors 100 -cpu "$(cpu "gateway=$OFF,local-limit=$LOCAL")" \
		-save "$RESULTS/2-open-off.json" -label "open loop at $QPS req/s, caching off"
fi

echo
# A replica serves for hours: the cache is measured once the mix's popular requests are in it,
# after a warm-up of its own (the direct target's warm-up is the same length), so by time.
echo "== gateway (caching on) vs $ENGINE direct, closed loop, after $CACHE_WARMUP of warm-up"
mix -gateway "cached=$GW_ON" -metrics "cached=$M_ON" -rss "cached=$ON" -cpu "$(cpu "cached=$ON")" \
	-warmup "$CACHE_WARMUP" -duration "$CACHE_DURATION" -rounds "$ROUNDS" -save "$RESULTS/3-closed-on.json" -label "closed loop, caching on"

if [[ $EMBEDDED == 1 ]]; then
	echo
	echo "== gateway on $ENGINE vs gateway on the embedded index (both caching off), closed loop"
	mix "${same[@]}" -direct=false -gateway "$ENGINE=$GW_OFF,embedded=http://127.0.0.1:$((PORT + 3))/" -rss "embedded=$EMB" \
		-metrics "$ENGINE=$M_OFF,embedded=$M_EMB" -cpu "$(cpu "gateway-$ENGINE=$OFF,gateway-embedded=$EMB")" \
		-save "$RESULTS/4-embedded.json" -label "both backends, closed loop"
fi

# The search-box extras on each backend through its gateway (caching off): the mix's
# searches with all four facets and highlight=true, as phrases (q in quotes), and with the reuse
# filters and their facets, against the same searches without, closed loop in alternating rounds;
# then completions as typed, open loop.
EXTRAS=("$ENGINE=$GW_OFF" "$M_OFF" "$(cpu "gateway=$OFF")")
if [[ $EMBEDDED == 1 ]]; then
	EXTRAS+=("embedded=http://127.0.0.1:$((PORT + 3))/" "$M_EMB" "gateway=$EMB")
fi
SUGGEST_QPS=$QPS
[[ $QPS != 0 ]] || SUGGEST_QPS=10
for ((i = 0; i < ${#EXTRAS[@]}; i += 3)); do
	gw=${EXTRAS[i]} name=${EXTRAS[i]%%=*}
	echo
	echo "== search-box extras on $name: all four facets and highlight=true, phrases, and the reuse filters with their facets, vs plain searches, closed loop"
	mix "${same[@]}" -mode extras -gateway "$gw" -metrics "$name=${EXTRAS[i + 1]}" -cpu "${EXTRAS[i + 2]}" \
		-save "$RESULTS/5-extras-$name.json" -label "facets+highlight"
	echo
	echo "== completions (resource=suggest) on $name, open loop at $SUGGEST_QPS req/s"
	mix -mode suggest -gateway "$gw" -metrics "$name=${EXTRAS[i + 1]}" -qps "$SUGGEST_QPS" -cpu "${EXTRAS[i + 2]}" \
		-save "$RESULTS/6-suggest-$name.json" -label "$SUGGEST_QPS req/s"
done

echo
echo "== the real rate limit: one visitor"
mix -direct=false -limit -gateway "gateway=$GW_OFF" -duration 3s -rounds 1 -warmup 0s

if [[ $SUSTAIN != 0 && $SUSTAIN != 0s ]]; then
	echo
	echo "== sustained load on the cached gateway for $SUSTAIN: RSS"
	mix -direct=false -gateway "cached=$GW_ON" -duration "$SUSTAIN" -rounds 1 -warmup 0s -rss "cached=$ON" \
		-save "$RESULTS/7-sustained.json" -label "sustained, caching on"
fi

if [[ $PROFILE == 1 ]]; then
	echo
	echo "== CPU profile of the gateway (caching off) under the closed-loop mix, 10s"
	curl -fsS -o "$DIR/cpu.pprof" "http://127.0.0.1:$((PORT + 1001))/debug/pprof/profile?seconds=10" &
	prof=$!
	mix -direct=false -gateway "gateway=$GW_OFF" -duration 12s -rounds 1 -warmup 0s >/dev/null
	wait "$prof"
	$GO tool pprof -top -nodecount=25 "$REPO/bin/mediagw" "$DIR/cpu.pprof" 2>/dev/null | sed -n '1,35p'
	echo "(profile kept in $DIR/cpu.pprof: go tool pprof -http=: bin/mediagw $DIR/cpu.pprof)"
fi

if [[ -n $CHARTS ]]; then
	echo
	echo "== charts of this run"
	"$MEDIABENCH" run -mode charts -results "$RESULTS" -charts "$CHARTS"
fi
