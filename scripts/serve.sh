# Sourced by the scripts that test a real mediagw (schemathesis.sh, clients.sh): their tool in a
# venv of its own, and mediagw on free loopback ports over a catalogue they write. Each sets
# PYTHON and NAME (its messages' prefix) first.

# venv_install VENV EXE REQUIREMENT: pip installs REQUIREMENT into VENV unless VENV/bin/EXE exists.
venv_install() {
  if [ ! -x "$1/bin/$2" ]; then
    echo "$NAME: installing $3 into $1" >&2
    rm -rf "$1"
    "$PYTHON" -m venv "$1"
    "$1/bin/pip" install --quiet --disable-pip-version-check "$3"
  fi
}

# work_dir: builds the binaries and makes $work, which the exit removes with the server in it.
work_dir() {
  make --no-print-directory build
  work=$(mktemp -d "${TMPDIR:-/tmp}/mediagw-$NAME.XXXXXX")
  server=
  trap stop_server EXIT
  trap 'exit 130' INT TERM
}

stop_server() {
  if [ -n "$server" ]; then
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
  fi
  rm -rf "$work"
}

# serve [VAR=VALUE...]: loads $work/catalogue.ndjson into a fresh embedded index and starts mediagw
# on it with those settings, warnings and errors in $work/mediagw.log; sets base and server. No
# drain delay on SIGTERM: nothing balances load here.
serve() {
  export MEDIA_INDEX_DIR=$work/index
  bin/mediactl load "$work/catalogue.ndjson" >"$work/load.log" 2>&1 || { cat "$work/load.log" >&2; return 1; }
  local port admin_port
  read -r port admin_port < <("$PYTHON" -c '
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in socks))')
  base=http://127.0.0.1:$port
  env MEDIA_ADDR="127.0.0.1:$port" MEDIA_ADMIN_ADDR="127.0.0.1:$admin_port" MEDIA_PUBLIC_URL="$base" \
    MEDIA_SHUTDOWN_DELAY=0s MEDIA_LOG_LEVEL=warn "$@" bin/mediagw 2>"$work/mediagw.log" &
  server=$!
  for _ in $(seq 100); do
    if curl -fsS -o /dev/null --max-time 1 "$base/readyz" 2>/dev/null; then
      return 0
    fi
    if ! kill -0 "$server" 2>/dev/null; then
      echo "$NAME: mediagw exited before it was ready:" >&2
      cat "$work/mediagw.log" >&2
      return 1
    fi
    sleep 0.2
  done
  echo "$NAME: mediagw not ready after 20s" >&2
  return 1
}
