# syntax=docker/dockerfile:1
# The mediagw image: both binaries (mediagw serves, mediactl loads and manages the index), static,
# on distroless as the unprivileged user 65532. Build: docker build -t mediagw .

FROM golang:1.26 AS build
WORKDIR /src
# Dependencies first, so that a source change does not download them again.
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod \
    go mod download
COPY . .
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /out/bin/ ./cmd/mediagw ./cmd/mediactl \
 && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/bin/mediagw /out/bin/mediactl /usr/local/bin/
# /data is writable by the runtime user, so that a volume mounted there (a new named volume takes
# the image directory's owner) can hold an embedded index or a generated catalogue.
COPY --from=build --chown=65532:65532 /out/data /data
WORKDIR /data
# Numeric, so that Kubernetes' runAsNonRoot can verify it without a passwd lookup.
USER 65532:65532
# The admin listener has to leave loopback to be scraped from outside the container; the image
# exposes it, and the orchestrator decides who may reach it.
ENV MEDIA_ADDR=:8080 \
    MEDIA_ADMIN_ADDR=:9090 \
    MEDIA_INDEX_DIR=/data/index
EXPOSE 8080 9090
# No HEALTHCHECK: distroless has no shell or curl; orchestrators probe /healthz and /readyz.
ENTRYPOINT ["/usr/local/bin/mediagw"]
