# mediagw: `make run` serves the API on the embedded index; `make test` runs every test.
SHELL := /bin/bash
GO ?= go
BIN := bin
CATALOGUE ?=
ITEMS ?= 20000
SEED ?= 1
VAR := var
export MEDIA_INDEX_DIR ?= $(CURDIR)/$(VAR)/index
# What -version and mediagw_build_info report (cmd/internal/buildinfo). Stamped from git here rather
# than by the go command, which stamps nothing in a git worktree or with -buildvcs=false.
VERSION ?= $(shell git describe --tags --always 2>/dev/null || echo devel)
REVISION ?= $(shell git rev-parse HEAD 2>/dev/null)
MODIFIED ?= $(shell [ -z "$$(git status --porcelain 2>/dev/null)" ] && echo false || echo true)
LDFLAGS = -X mediagw/cmd/internal/buildinfo.version=$(VERSION) -X mediagw/cmd/internal/buildinfo.revision=$(REVISION) \
	-X mediagw/cmd/internal/buildinfo.modified=$(MODIFIED)

.PHONY: build run test check attack-test image image-test services services-stop cluster cluster-stop cluster-test engines-test bench api-fuzz clients-test browser-test clean

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/ ./cmd/...

# Serves the embedded index. With CATALOGUE=file it loads that file first (bad lines set aside in
# $(VAR)/rejects.ndjson); otherwise it reuses the index already built (rebuilt from its own items
# first if an older mediagw built it), or builds one from a generated catalogue of $(ITEMS) items.
run: build
	@mkdir -p $(VAR)
	@if [ -n "$(CATALOGUE)" ]; then \
	  $(BIN)/mediactl load -rejects $(VAR)/rejects.ndjson "$(CATALOGUE)"; \
	elif [ ! -e "$(MEDIA_INDEX_DIR)/current" ]; then \
	  src=$(VAR)/sample-$(ITEMS)-$(SEED).ndjson.gz; \
	  [ -f "$$src" ] || $(BIN)/mediactl gen -n $(ITEMS) -seed $(SEED) -o "$$src"; \
	  $(BIN)/mediactl load "$$src"; \
	elif MEDIA_BACKEND=embedded $(BIN)/mediactl status 2>/dev/null | grep 'live' | grep -q 'older mediagw'; then \
	  MEDIA_BACKEND=embedded $(BIN)/mediactl reindex; \
	fi
	$(BIN)/mediagw

# The packages whose tests run on the engine under test (internal/servicetest.TestEngine).
ENGINE_PKGS := ./search/elastic/ ./search/cache/ ./cmd/mediactl/ ./cmd/mediabench/ ./cmd/internal/backends/ ./bench/

# The gateway's HTTP tests run a second time on OpenSearch when it is there (CI always has it), and
# the engine packages and the HTTP tests once more on Elasticsearch when ELASTICSEARCH_URL is set
# (CI always has it too), without the race detector: the Go code is the same on both engines and
# its races are looked for in the runs on OpenSearch; what differs is the engine's answers, and the
# detector made that run ten minutes longer.
# go test's own 10-minute limit per package is too tight for search/elastic under -race on a
# busy 2-core machine (it loads the real catalogue into both backends); CI's 30 minutes bound the rest.
# The tests of answers over a whole catalogue (searchtest.AnswersOnly) skip under the detector, which
# made them several times slower, and run after it without (on OpenSearch when it is there).
ANSWER_TESTS := ^(TestRealData|TestWalks|TestCostlyQueryCost|TestRankingAgreesWithBleve)$$
test:
	$(GO) test -race -count=1 -timeout 25m ./...
	$(GO) test -count=1 -run '$(ANSWER_TESTS)' ./search/bleve/ ./search/elastic/
	@if [ -n "$$OPENSEARCH_URL" ]; then \
	  echo "gateway tests on OpenSearch:"; MEDIA_BACKEND=opensearch $(GO) test -race -count=1 ./gateway/; \
	elif [ -n "$$CI" ]; then echo "CI needs OPENSEARCH_URL for the gateway tests on OpenSearch"; exit 1; \
	else echo "gateway tests on OpenSearch skipped: start it with 'make services' and export OPENSEARCH_URL"; fi
	@if [ -n "$$ELASTICSEARCH_URL" ]; then \
	  echo "engine and gateway tests on Elasticsearch:"; \
	  MEDIA_TEST_ENGINE=elasticsearch $(GO) test -count=1 -timeout 25m $(ENGINE_PKGS) && \
	  MEDIA_TEST_ENGINE=elasticsearch MEDIA_BACKEND=elasticsearch $(GO) test -count=1 ./gateway/; \
	elif [ -n "$$CI" ]; then echo "CI needs ELASTICSEARCH_URL for the tests on Elasticsearch"; exit 1; \
	else echo "tests on Elasticsearch skipped: start it with 'MEDIA_ENGINE=elasticsearch:9.2.0 make services' and export ELASTICSEARCH_URL"; fi
	cd deploy && $(GO) test -race -count=1 ./...

# The attack suite (internal/attacktest, build tag attack, so make test leaves it out): the real
# binaries on the real catalogue (CATALOGUE, else ../shared/data/catalogue.ndjson), embedded and,
# with OPENSEARCH_URL, on OpenSearch; ATTACK_REPORT=file appends the figures' tables to file.
# It holds 3,000 connections at once: it raises its open-files limit to the hard one.
attack-test:
	$(GO) test -tags attack -count=1 -timeout 20m -v ./internal/attacktest/

check:
	$(GO) vet ./...
	cd deploy && $(GO) vet ./...
	gofmt -l . | (! grep .)
	$(MAKE) test

# The image without a registry: static binaries from go build, assembled FROM scratch by podman
# (deploy/image/Containerfile; installs Debian's podman and buildah when missing). Tagged
# localhost/mediagw:$(VERSION) and localhost/mediagw:local.
image:
	VERSION=$(VERSION) REVISION=$(REVISION) MODIFIED=$(MODIFIED) GO=$(GO) scripts/image.sh build

# Runs the image built by make image: gen and load in the container, then mediagw, /healthz, API
# requests, the health check, -version, a clean stop (~10 s).
image-test:
	scripts/image.sh run

# Starts Redis and OpenSearch on loopback (installing them when missing) and prints the variables
# that tests and the server read. MEDIA_ENGINE=elasticsearch:9.2.0 (or elasticsearch:8.19.5,
# opensearch:2.19.4) starts that engine line instead, on its own port (scripts/services.sh).
services:
	scripts/services.sh start

services-stop:
	scripts/services.sh stop

# A 3-node OpenSearch cluster on loopback, beside the single node: HTTP 9211-9213, transport
# 9311-9313, 320m heap each (about 2 minutes to start on 2 cores).
cluster:
	OPENSEARCH_NODES=3 scripts/services.sh start

cluster-stop:
	OPENSEARCH_NODES=3 scripts/services.sh stop

# The tests against the cluster, which they start when it is not running (about 3 minutes; not part
# of make test): exact counts on 3 shards of 1 replica, and a node killed under load
# (docs/resilience.md).
cluster-test:
	eval "$$(OPENSEARCH_NODES=3 scripts/services.sh start)" && \
	  $(GO) test -tags cluster -count=1 -v -run '^TestCluster' ./search/elastic/ ./internal/clustertest/

# Every engine line served (starting each that is not running, ~20 s each the first time, 1g heap
# each; they keep running: MEDIA_ENGINE=<line> make services-stop): detection, the conformance suite
# and the ranking agreement with the embedded index, one line after the other.
ENGINE_LINES ?= opensearch:3.8.0 opensearch:2.19.4 elasticsearch:9.2.0 elasticsearch:8.19.5
ENGINE_TESTS ?= ^(TestDetect|TestConformance|TestExtrasConformance|TestRealData|TestRankingAgreesWithBleve)$$
engines-test:
	@set -eo pipefail; for line in $(ENGINE_LINES); do \
	  echo "== $$line"; \
	  env=$$(MEDIA_ENGINE=$$line scripts/services.sh start); \
	  (eval "$$env" && MEDIA_TEST_ENGINE=$${line%%:*} $(GO) test -count=1 -timeout 30m -v -run '$(ENGINE_TESTS)' ./search/elastic/ | \
	    grep -E '^(--- |ok|FAIL|PASS)|is (OpenSearch|Elasticsearch)|known-item|success@10'); \
	done

# Redis behind Sentinel (a primary 6390, its replica 6391, sentinels 6392-6394) and a Redis Cluster
# of three primaries (7000-7002), on loopback, for the rate limit's failover tests (README, "Redis
# behind Sentinel or in a Cluster"); prints REDIS_SENTINEL_URL and REDIS_CLUSTER_URL to export.
.PHONY: redis-ha redis-ha-stop redis-ha-test
redis-ha:
	scripts/redis-ha.sh start

redis-ha-stop:
	scripts/redis-ha.sh stop

# Those tests alone, starting the setups when they are not running (part of make test when the
# variables are set; the Sentinel test kills the primary and takes about 10 s).
redis-ha-test:
	eval "$$(scripts/redis-ha.sh start)" && \
	  $(GO) test -count=1 -v -run '^Test(SentinelFailover|ClusterReplicasShareOneLimit)$$' ./ratelimit/

# The short performance run behind docs/performance.md (about 11 minutes on 2 CPUs; needs `make services`).
bench:
	scripts/bench.sh

# Property-based tests of the running server against openapi/openapi.json (schemathesis, ~1.5 min).
api-fuzz:
	scripts/schemathesis.sh

# Go and Python clients generated from the served OpenAPI document (oapi-codegen, openapi-python-client)
# into $(VAR)/clients, each sending a page, an item and a 400 to a real mediagw (~10 s once installed).
clients-test:
	scripts/clients.sh

# The search page in real Chromium against a real mediagw on the real catalogue (~1 min; installs
# Debian's chromium, Node.js and the npm packages when missing); screenshots go to docs/screenshots.
browser-test:
	scripts/browser-test.sh

# Keeps var/services, where running services keep their data and pid files (make services-stop first).
clean:
	rm -rf $(BIN)
	[ ! -d $(VAR) ] || find $(VAR) -mindepth 1 -maxdepth 1 ! -name services -exec rm -rf {} +
