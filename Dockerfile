# The mediagw image: both binaries (mediagw serves, mediactl loads and manages the index), static,
# on distroless as the unprivileged user 65532. Build:
#
#   docker build --build-arg VERSION=$(git describe --tags --always) \
#     --build-arg REVISION=$(git rev-parse HEAD) -t mediagw .
#
# Without a registry, `make image` builds the same image FROM scratch (deploy/image/Containerfile).
# No `# syntax=` line: the frontend built into Docker 23+ (BuildKit) reads this file, so nothing
# but the two base images below is pulled. They are pinned by digest (the tag says what the image
# is, the digest which one): bump both on purpose, in a commit of their own.

# What -version, mediagw_build_info and the labels report.
ARG VERSION=devel
ARG REVISION=unknown

FROM docker.io/library/golang:1.26.8-bookworm@sha256:a688600ca24f8a4d3ca77f95b0dd40704a9fc787c826660eb7ba0b641b8b175d AS build
WORKDIR /src
# Dependencies first, so that a source change does not download them again.
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod \
    go mod download
COPY . .
# The context has no .git (.dockerignore), so the go command stamps no revision: -version and
# mediagw_build_info get it from these arguments, as with make build.
ARG VERSION
ARG REVISION
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 go build -trimpath -ldflags "-s -w \
      -X mediagw/cmd/internal/buildinfo.version=${VERSION} -X mediagw/cmd/internal/buildinfo.revision=${REVISION}" \
      -o /out/bin/ ./cmd/mediagw ./cmd/mediactl \
 && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot@sha256:d093aa3e30dbadd3efe1310db061a14da60299baff8450a17fe0ccc514a16639
COPY --from=build /out/bin/mediagw /out/bin/mediactl /usr/local/bin/
# /data is writable by the runtime user, so that a volume mounted there (a new named volume takes
# the image directory's owner) can hold an embedded index or a generated catalogue.
COPY --from=build --chown=65532:65532 /out/data /data
WORKDIR /data
# Numeric, so that Kubernetes' runAsNonRoot can verify it without a passwd lookup.
USER 65532:65532
# The admin listener has to leave loopback to be scraped from outside the container; the image
# exposes it, and the orchestrator decides who may reach it (deploy/k8s: a NetworkPolicy).
ENV MEDIA_ADDR=:8080 \
    MEDIA_ADMIN_ADDR=:9090 \
    MEDIA_INDEX_DIR=/data/index
EXPOSE 8080 9090
# Exec form: distroless has no shell or curl, so the binary asks its own /readyz. Docker and
# Compose run it; Kubernetes ignores it and probes /healthz and /readyz itself.
HEALTHCHECK --interval=10s --timeout=5s --start-period=10s --retries=3 \
    CMD ["/usr/local/bin/mediagw", "healthcheck"]
ARG SOURCE=unknown
ARG VERSION
ARG REVISION
ARG LICENSES=NOASSERTION
LABEL org.opencontainers.image.title=mediagw \
      org.opencontainers.image.description="Free, anonymous, read-only JSON API over a public media collection" \
      org.opencontainers.image.source=$SOURCE \
      org.opencontainers.image.version=$VERSION \
      org.opencontainers.image.revision=$REVISION \
      org.opencontainers.image.licenses=$LICENSES
ENTRYPOINT ["/usr/local/bin/mediagw"]
