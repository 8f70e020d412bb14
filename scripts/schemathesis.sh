#!/usr/bin/env bash
# Property-based tests of the running server against the OpenAPI document it serves (openapi/openapi.json
# with its servers)
# with schemathesis: every operation, with generated valid and malformed parameters. Fails on any
# 5xx, any response (status, headers, body) the document does not describe, and any malformed
# request the server accepts. Settings: scripts/schemathesis.toml.
#
#   scripts/schemathesis.sh                   # what CI runs: a fixed seed, so a rerun repeats it
#   SEED=$RANDOM scripts/schemathesis.sh      # explore further; a failure prints its seed
#   MAX_EXAMPLES=5000 scripts/schemathesis.sh # deeper
#
# Extra arguments go to `schemathesis run` (e.g. --include-operation-id getResource).
set -euo pipefail
cd "$(dirname "$0")/.."

SCHEMATHESIS_VERSION=4.32.5
VENV=var/schemathesis-$SCHEMATHESIS_VERSION
ITEMS=${ITEMS:-2000}
SEED=${SEED:-1}
# Cases per operation. Bounded by count, not by schemathesis's --max-time, which shares its budget
# between phases and so tests less on a busy machine: about a minute on two cores.
MAX_EXAMPLES=${MAX_EXAMPLES:-1000}
# A hung run fails instead of holding CI up.
TIMEOUT=${TIMEOUT:-180}
PYTHON=${PYTHON:-python3}

if [ ! -x "$VENV/bin/schemathesis" ]; then
  echo "schemathesis: installing $SCHEMATHESIS_VERSION into $VENV"
  rm -rf "$VENV"
  "$PYTHON" -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi

make --no-print-directory build

work=$(mktemp -d "${TMPDIR:-/tmp}/mediagw-schemathesis.XXXXXX")
server=
cleanup() {
  if [ -n "$server" ]; then
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A generated catalogue plus the item the document's examples name, so those examples are real.
bin/mediactl gen -n "$ITEMS" -seed 1 -o "$work/catalogue.ndjson" 2>/dev/null
cat >>"$work/catalogue.ndjson" <<'EOF'
{"id":"ph-full","type":"photo","title":"Harbour at dawn","summary":"Fishing boats in the harbour.","description":"Fishing boats come back to the harbour at dawn.","tags":["harbour","boats"],"keywords":["fishing"],"author":"Jane Doe","category":"nature","language":"en","date":"2021-05-04","downloads":120,"permalink":"https://media.example.org/items/ph-full","sha256":"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08","media_url":"https://media.example.org/files/ph-full.jpg","thumbnail_url":"https://media.example.org/thumbs/ph-full.jpg","mime_type":"image/jpeg","size_bytes":482113,"license":"CC0-1.0"}
EOF
export MEDIA_INDEX_DIR=$work/index
bin/mediactl load "$work/catalogue.ndjson" >"$work/load.log" 2>&1 || { cat "$work/load.log"; exit 1; }

read -r port admin_port < <("$PYTHON" - <<'EOF'
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in socks))
EOF
)
base=http://127.0.0.1:$port
# A huge rate limit, so that 429s do not crowd out everything else; the limit has its own tests.
# No drain delay on SIGTERM: nothing balances load here.
MEDIA_ADDR=127.0.0.1:$port MEDIA_ADMIN_ADDR=127.0.0.1:$admin_port MEDIA_PUBLIC_URL=$base \
  MEDIA_RATE_LIMIT=1000000 MEDIA_SHUTDOWN_DELAY=0s MEDIA_LOG_LEVEL=warn bin/mediagw 2>"$work/mediagw.log" &
server=$!

for _ in $(seq 100); do
  if curl -fsS -o /dev/null --max-time 1 "$base/readyz" 2>/dev/null; then
    break
  fi
  if ! kill -0 "$server" 2>/dev/null; then
    echo "schemathesis: mediagw exited before it was ready:" >&2
    cat "$work/mediagw.log" >&2
    exit 1
  fi
  sleep 0.2
done
curl -fsS -o /dev/null --max-time 1 "$base/readyz" || { echo "schemathesis: mediagw not ready after 20s" >&2; exit 1; }

status=0
# The problem-type pages are fixed HTML that read nothing but their slug; openapi/contract_test.go
# holds them to the document. Fuzzing them took three minutes of this run's budget for nothing.
timeout "$TIMEOUT" "$VENV/bin/schemathesis" --config-file scripts/schemathesis.toml run "$base/openapi.json" \
  --url "$base" --checks all --mode all --max-examples "$MAX_EXAMPLES" --seed "$SEED" --workers 2 \
  --request-timeout 10 --exclude-path '/problems/{slug}' "$@" || status=$?
if [ "$status" -eq 124 ]; then
  echo "schemathesis: no result after ${TIMEOUT}s" >&2
fi

# A 5xx is also logged at error level; show the server's side of any failure.
if [ "$status" -ne 0 ] && [ -s "$work/mediagw.log" ]; then
  echo "--- mediagw log (warnings and errors) ---" >&2
  tail -n 50 "$work/mediagw.log" >&2
fi
exit "$status"
