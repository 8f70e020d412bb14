#!/usr/bin/env bash
# image.sh: the mediagw image without a registry.
#
#   scripts/image.sh context stages the build context in var/image: the static binaries built by
#                            `go build` here, Debian's CA certificates and a passwd/group for the
#                            user 65532 (what `docker compose up --build` builds the image from).
#   scripts/image.sh build   (make image) the context, then podman assembles
#                            deploy/image/Containerfile (FROM scratch, the one image definition)
#                            around it; tagged $IMAGE:$VERSION and $IMAGE:local.
#   scripts/image.sh run     (make image-test) runs $IMAGE:local: mediactl gen and load into a
#                            volume, then mediagw on it; checks /healthz, an API request, the
#                            container's health check and -version, and stops it.
#
# Installs Debian's podman and buildah (and CA certificates) when missing (as root).
# Variables (the Makefile passes its own): VERSION, REVISION, MODIFIED (stamped into the binaries,
# as make build does, and into the OCI labels), IMAGE (localhost/mediagw), IMAGE_SOURCE (the
# org.opencontainers.image.source URL; default: git's origin), IMAGE_LICENSES (SPDX; NOASSERTION
# until the project has a licence).
set -euo pipefail
cd "$(dirname "$0")/.."
log() { printf 'image: %s\n' "$*" >&2; }

GO=${GO:-go}
IMAGE=${IMAGE:-localhost/mediagw}
VERSION=${VERSION:-$(git describe --tags --always 2>/dev/null || echo devel)}
REVISION=${REVISION:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}
MODIFIED=${MODIFIED:-$([[ -z $(git status --porcelain 2>/dev/null) ]] && echo false || echo true)}
IMAGE_SOURCE=${IMAGE_SOURCE:-$(git remote get-url origin 2>/dev/null || echo unknown)}
IMAGE_LICENSES=${IMAGE_LICENSES:-NOASSERTION}
CA=/etc/ssl/certs/ca-certificates.crt

# tools NAME...: installs what is missing of Debian's podman, buildah and ca-certificates.
tools() {
	local missing=()
	for t in "$@"; do
		case $t in
		ca-certificates) [[ -f $CA ]] || missing+=("$t") ;;
		*) command -v "$t" >/dev/null || missing+=("$t") ;;
		esac
	done
	((${#missing[@]} == 0)) && return
	[[ $EUID -eq 0 ]] || { log "install Debian's ${missing[*]} (apt-get install ${missing[*]})"; exit 1; }
	log "installing ${missing[*]}"
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

ctx=var/image
context() {
tools ca-certificates
rm -rf "$ctx" && mkdir -p "$ctx/data"
pkg=mediagw/cmd/internal/buildinfo
log "building static binaries ($VERSION, $REVISION, modified $MODIFIED)"
CGO_ENABLED=0 "$GO" build -trimpath \
	-ldflags "-s -w -X $pkg.version=$VERSION -X $pkg.revision=$REVISION -X $pkg.modified=$MODIFIED" \
	-o "$ctx/" ./cmd/mediagw ./cmd/mediactl
cp deploy/image/passwd deploy/image/group "$CA" "$ctx/"
}

build() {
context
tools podman buildah

# --format docker keeps HEALTHCHECK, which the OCI image format has no field for.
log "assembling $IMAGE:$VERSION"
podman build --quiet --format docker -f deploy/image/Containerfile \
	--build-arg "SOURCE=$IMAGE_SOURCE" --build-arg "VERSION=$VERSION" \
	--build-arg "REVISION=$REVISION" --build-arg "LICENSES=$IMAGE_LICENSES" \
	-t "$IMAGE:$VERSION" -t "$IMAGE:local" "$ctx" >/dev/null
podman image ls --format '{{.Repository}}:{{.Tag}} {{.ID}} {{.Size}}' "$IMAGE:local" >&2
}

# On these machines the defaults of `podman run` fail twice over (docs/image.md has the errors):
# podman asks for more open files and processes than the host allows (the machine withholds
# CAP_SYS_RESOURCE, so crun cannot raise a limit), and crun refuses the cgroup layout (v1 with a
# cgroup2 mount holding a controller: "hybrid mode"). So the limits are the host's own, and where
# the hybrid mount is, this script runs in a mount namespace of its own without it (the host keeps
# its mounts) and the container without cgroups, hence without memory or CPU limits. podman
# schedules health checks with systemd timers, and there is no systemd here: the test runs the
# check itself (podman healthcheck run).
run_args=(--ulimit "nofile=$(ulimit -Hn):$(ulimit -Hn)" --ulimit "nproc=4096:4096" --health-interval disable)
hybrid() { [[ $(stat -f -c %T /sys/fs/cgroup) == tmpfs ]] && mountpoint -q /sys/fs/cgroup/unified; }

run() {
	tools podman buildah
	if hybrid; then
		if [[ -z ${IMAGE_MOUNT_NS:-} ]]; then
			IMAGE_MOUNT_NS=1 exec unshare --mount --propagation private "$0" run
		fi
		umount /sys/fs/cgroup/unified
		run_args+=(--cgroups=disabled)
	fi
	name=mediagw-image-test-$$
	data=$(mktemp -d)
	# Every podman call stays in this mount namespace: the container's network namespace is
	# mounted here only.
	trap 'podman rm -f -t 0 "$name" >/dev/null 2>&1 || true; rm -rf "$data"' EXIT
	chown 65532:65532 "$data"
	ctl() { podman run --rm "${run_args[@]}" -v "$data:/data" --entrypoint /usr/local/bin/mediactl "$IMAGE:local" "$@"; }

	log "mediactl gen and load in the container"
	ctl gen -n 2000 -seed 1 -o /data/catalogue.ndjson.gz
	ctl load /data/catalogue.ndjson.gz 2>&1 | tail -1 >&2

	log "mediagw in the container"
	# The image keeps the admin listener on the container's loopback; a deployment that scrapes it
	# names an address others reach, as this one does to read /metrics through the published port.
	podman run -d --name "$name" "${run_args[@]}" -v "$data:/data" -e MEDIA_SHUTDOWN_DELAY=0s \
		-e MEDIA_ADMIN_ADDR=:9090 -p 127.0.0.1::8080 -p 127.0.0.1::9090 "$IMAGE:local" >/dev/null
	local api admin
	api=http://$(podman port "$name" 8080/tcp)
	admin=http://$(podman port "$name" 9090/tcp)
	for _ in $(seq 100); do
		curl -fsS -o /dev/null "$api/healthz" 2>/dev/null && break
		sleep 0.1
	done
	curl -fsS "$api/healthz" >/dev/null || { podman logs "$name" >&2; log "FAIL: /healthz did not answer"; exit 1; }
	local page total id word
	page=$(curl -fsS "$api/?resource=items&per_page=1")
	total=$(jq -r .pagination.total <<<"$page")
	[[ $total == 2000 ]] || { log "FAIL: resource=items total is $total, want 2000"; exit 1; }
	id=$(jq -r '.data[0].id' <<<"$page")
	word=$(jq -r '.data[0].title | split(" ")[0]' <<<"$page")
	log "GET /?resource=items: total $total; the first item $id"
	curl -fsS -G "$api/" --data-urlencode resource=item --data-urlencode "id=$id" | jq -e --arg id "$id" '.data.id == $id' >/dev/null ||
		{ log "FAIL: resource=item&id=$id"; exit 1; }
	curl -fsS -G "$api/" --data-urlencode resource=items --data-urlencode "q=$word" | jq -e '.pagination.total > 0' >/dev/null ||
		{ log "FAIL: a search for $word found nothing"; exit 1; }
	log "GET /?resource=item&id=$id and /?resource=items&q=$word: found"
	podman healthcheck run "$name" >&2 || { log "FAIL: the container's health check"; exit 1; }
	log "health check: healthy"
	curl -fsS "$admin/metrics" | grep -F "mediagw_build_info{" >&2 || { log "FAIL: no mediagw_build_info"; exit 1; }
	podman run --rm "${run_args[@]}" "$IMAGE:local" -version >&2
	podman stop -t 30 "$name" >/dev/null
	podman logs "$name" 2>&1 | grep -q '"msg":"stopped"' || { podman logs "$name" >&2; log "FAIL: no clean stop"; exit 1; }
	log "OK: the image runs"
}

case ${1:-build} in
context) context ;;
build) build ;;
run) run ;;
*) log "usage: $0 [context|build|run]"; exit 2 ;;
esac
