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

NAME=schemathesis
. scripts/serve.sh
venv_install "$VENV" schemathesis "schemathesis==$SCHEMATHESIS_VERSION"
work_dir

# A generated catalogue plus the item the document's examples name, so those examples are real.
bin/mediactl gen -n "$ITEMS" -seed 1 -o "$work/catalogue.ndjson" 2>/dev/null
cat >>"$work/catalogue.ndjson" <<'EOF'
{"id":"ph-full","type":"photo","title":"Harbour at dawn","summary":"Fishing boats in the harbour.","description":"Fishing boats come back to the harbour at dawn.","tags":["harbour","boats"],"keywords":["fishing"],"author":"Jane Doe","category":"nature","language":"en","date":"2021-05-04","downloads":120,"permalink":"https://media.example.org/items/ph-full","sha256":"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08","media_url":"https://media.example.org/files/ph-full.jpg","thumbnail_url":"https://media.example.org/thumbs/ph-full.jpg","mime_type":"image/jpeg","size_bytes":482113,"license":"CC0-1.0"}
EOF
# A huge rate limit, so that 429s do not crowd out everything else; the limit has its own tests.
serve MEDIA_RATE_LIMIT=1000000

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
