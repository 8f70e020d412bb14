#!/usr/bin/env bash
# The clients the usual generators make from the OpenAPI document a real mediagw serves: a Go
# client (oapi-codegen) and a Python one (openapi-python-client), generated into var/clients, the
# Go one built; through each, a page of items, one item and a 400 parsed as its problem model
# (scripts/clients/go/main.go, scripts/clients/check.py). Fails on any generator warning, which is
# how openapi-python-client reports a response it leaves out. Installs the Python generator into
# a venv under var/ when missing; go run fetches oapi-codegen.
set -euo pipefail
cd "$(dirname "$0")/.."

OAPI_CODEGEN_VERSION=v2.8.2
PYTHON_CLIENT_VERSION=0.29.1
OUT=var/clients
VENV=var/openapi-python-client-$PYTHON_CLIENT_VERSION
PYTHON=${PYTHON:-python3}
GO=${GO:-go}
NAME=clients
log() { printf '%s: %s\n' "$NAME" "$*" >&2; }
. scripts/serve.sh
venv_install "$VENV" openapi-python-client "openapi-python-client==$PYTHON_CLIENT_VERSION"
work_dir
bin/mediactl gen -n 200 -seed 1 -o "$work/catalogue.ndjson" 2>/dev/null
serve REDIS_URL=

rm -rf "$OUT" && mkdir -p "$OUT"
curl -fsS --max-time 10 -o "$OUT/openapi.json" "$base/openapi.json"

log "Go client (oapi-codegen $OAPI_CODEGEN_VERSION)"
cp -r scripts/clients/go "$OUT/go"
"$GO" run "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@$OAPI_CODEGEN_VERSION" \
  -config scripts/clients/oapi-codegen.yaml -o "$OUT/go/client.gen.go" "$OUT/openapi.json"
(cd "$OUT/go" && "$GO" vet . && "$GO" build -o clientcheck .)
"$OUT/go/clientcheck" "$base"

log "Python client (openapi-python-client $PYTHON_CLIENT_VERSION)"
# Its formatter, ruff, is one of its dependencies in the venv.
PATH=$PWD/$VENV/bin:$PATH "$VENV/bin/openapi-python-client" generate --path "$OUT/openapi.json" --meta none \
  --config scripts/clients/python.yaml --output-path "$OUT/python/mediagw_client" >"$work/generate.log" 2>&1 ||
  { cat "$work/generate.log" >&2; exit 1; }
if grep -qi 'warning' "$work/generate.log"; then
  cat "$work/generate.log" >&2
  log "openapi-python-client left something out of the client"
  exit 1
fi
PYTHONPATH=$OUT/python "$VENV/bin/python" scripts/clients/check.py "$base"
