#!/usr/bin/env bash
# browser-test.sh: the search page's tests in real Chromium (playwright-core), against a real
# mediagw on the real catalogue (../shared/data; a generated one when it is absent, except in CI).
# It also checks that the committed client and page are what the OpenAPI document and src/ make.
# Installs what is missing (Debian's chromium, the npm packages); screenshots go to docs/screenshots.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
WORK=$(mktemp -d)
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$WORK"
}
trap cleanup EXIT
log() { printf 'browser-test: %s\n' "$*" >&2; }

# apt_install PACKAGE...: Debian's packages, as root (CI); elsewhere it says what to install.
apt_install() {
	[[ $EUID -eq 0 ]] || { log "install Debian's $* (apt-get install $*)"; exit 1; }
	log "installing $*"
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[[ -x $CHROMIUM ]] || apt_install chromium
command -v npm >/dev/null || apt_install nodejs npm
(cd demo && { [[ -d node_modules ]] || npm ci --no-audit --no-fund --loglevel=error; })

log "checking the typed client and the compiled page are up to date"
(cd demo && npx --no-install openapi-typescript ../openapi/openapi.json --enum-values -o "$WORK/api.ts" >/dev/null 2>&1)
diff -u demo/src/api.ts "$WORK/api.ts" || { log "demo/src/api.ts is stale: run 'cd demo && npm run client && npm run build'"; exit 1; }
(cd demo && npx --no-install tsc -p . --outDir "$WORK/static")
for f in "$WORK"/static/*.js; do
	diff -u "demo/static/$(basename "$f")" "$f" || { log "demo/static is stale: run 'cd demo && npm run build'"; exit 1; }
done

go build -o "$WORK/bin/" ./cmd/...
CATALOGUE=$REPO/../shared/data/catalogue.ndjson
if [[ ! -f $CATALOGUE ]]; then
	[[ -z ${CI:-} ]] || { log "CI needs the real catalogue at $CATALOGUE"; exit 1; }
	log "no real catalogue: using a generated one"
	CATALOGUE=$WORK/generated.ndjson
	"$WORK/bin/mediactl" gen -n 5000 -o "$CATALOGUE"
fi
export MEDIA_INDEX_DIR=$WORK/index MEDIA_BACKEND=embedded
"$WORK/bin/mediactl" load "$CATALOGUE" >&2

# One server with a limit no test reaches, one whose limit a test runs into; the first's search
# page may call the second (?api=), and no other origin.
serve() { # serve PORT ADMIN_PORT LIMIT [DEMO_APIS]
	MEDIA_ADDR=127.0.0.1:$1 MEDIA_ADMIN_ADDR=127.0.0.1:$2 MEDIA_RATE_LIMIT=$3 MEDIA_PUBLIC_URL=http://127.0.0.1:$1 MEDIA_DEMO_APIS=${4:-} \
		REDIS_URL= MEDIA_LOG_LEVEL=warn "$WORK/bin/mediagw" >"$WORK/mediagw-$1.log" 2>&1 &
	PIDS+=($!)
}
serve 18180 19180 100000 http://127.0.0.1:18181
serve 18181 19181 12
for port in 18180 18181; do
	for _ in $(seq 100); do curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
done

export MEDIAGW_URL=http://127.0.0.1:18180/ MEDIAGW_LIMITED_URL=http://127.0.0.1:18181/ CHROMIUM SCREENSHOTS=$REPO/docs/screenshots
mkdir -p "$SCREENSHOTS"
cd demo && node --test test/guard.test.mjs test/browser.test.mjs
