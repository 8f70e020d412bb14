# mediagw: `make run` serves the API on the embedded index; `make test` runs every test.
SHELL := /bin/bash
GO ?= go
BIN := bin
CATALOGUE ?=
ITEMS ?= 20000
SEED ?= 1
VAR := var
export MEDIA_INDEX_DIR ?= $(CURDIR)/$(VAR)/index

.PHONY: build run test check services services-stop bench clean

build:
	$(GO) build -o $(BIN)/ ./cmd/...

# Serves the embedded index; builds it first from $(CATALOGUE), or from a generated catalogue of
# $(ITEMS) items, unless an index is already there.
run: build
	@if [ ! -e "$(MEDIA_INDEX_DIR)/current" ]; then \
	  src="$(CATALOGUE)"; \
	  if [ -z "$$src" ]; then src=$(VAR)/sample-$(ITEMS).ndjson.gz; \
	    [ -f "$$src" ] || $(BIN)/mediactl gen -n $(ITEMS) -seed $(SEED) -o "$$src"; fi; \
	  $(BIN)/mediactl load "$$src"; \
	fi
	$(BIN)/mediagw

test:
	$(GO) test -race -count=1 ./...

check:
	$(GO) vet ./...
	gofmt -l . | (! grep .)
	$(GO) test -race -count=1 ./...

# Starts Redis and OpenSearch on loopback (installing them when missing) and prints the variables
# that tests and the server read.
services:
	scripts/services.sh start

services-stop:
	scripts/services.sh stop

clean:
	rm -rf $(BIN) $(VAR)
