# duepay: the two commands are `make run` and `make test`. Everything else is a step of those.
#   make run         deps + build + dev stack up + banner + `build/duepay dev --supervise` in the
#                    foreground (each role its own process, restarted if it dies); Ctrl-C stops
#                    the roles, then the stack
#   make test        deps + build + dev stack up + every ctest test (var/dev.env in the
#                    environment) + the log secrets grep + stack down; exits non-zero when
#                    ctest or the grep fails
#   make unit        build + unit tests only, no stack
#   make deps        scripts/install-deps.sh (apt packages, npm ci, Kafka jars; quick when present)
#   make stack-up / stack-down / stack-status   infra/dev/stack.sh (see infra/dev/README.md)
#   HA=1             (make run HA=1, make test HA=1, make stack-up HA=1) Postgres as a primary and a
#                    synchronous standby under pg_auto_failover (ADR 0209, docs/operations.md)
#   make format-check  clang-format (.clang-format) in dry-run over every tracked C++ file; fails
#                    on the first difference (FORMAT_FILES=... checks only those)
SHELL := /bin/bash
BUILD ?= build
JOBS ?= 2
CTEST_ARGS ?=
# make run: the supervisor's ops listener (/metrics /healthz /readyz); the roles' on 19101-19106.
OPS_PORT ?= 19100
MAKEFLAGS += --no-print-directory
# HA=1: infra/dev/stack.sh runs Postgres under pg_auto_failover (infra/dev/postgres-ha.sh).
HA ?= 0
export HA

# Steps must run in order even under `make -j`.
.NOTPARALLEL:
.PHONY: run test build deps unit clean stack-up stack-down stack-status format-check

deps:
	scripts/install-deps.sh

# ccache, when installed, makes rebuilds in several work trees cheap; the build never needs it.
# It is looked up when the recipe runs, not when make reads this file: `make run` on a fresh
# machine installs it (deps) before building, and a configure line that gained it on the second
# run would rebuild the whole tree once.
build:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release \
	  $$(c=$$(command -v ccache) && echo "-DCMAKE_CXX_COMPILER_LAUNCHER=$$c -DCMAKE_C_COMPILER_LAUNCHER=$$c") >/dev/null
	cmake --build $(BUILD) -j$(JOBS)

unit: build
	ctest --test-dir $(BUILD) -L unit --output-on-failure $(CTEST_ARGS)

# After ctest, scripts/check-log-secrets.sh greps the whole log of the run for the demo key, the
# signer key and the server secret (docs/operations.md "Logs"); either failing fails make test.
test: deps build
	@mkdir -p var && touch var/.test-started
	DUEPAY_BIN=$(CURDIR)/$(BUILD)/duepay scripts/with-stack.sh bash -c \
	  'ctest --test-dir $(BUILD) --output-on-failure $(CTEST_ARGS); rc=$$?; \
	   scripts/check-log-secrets.sh var/.test-started $(BUILD) || rc=1; exit $$rc'

run: deps build
	@test -x $(BUILD)/duepay || { echo "no $(BUILD)/duepay: the build made no binary" >&2; exit 1; }
	DUEPAY_BIN=$(CURDIR)/$(BUILD)/duepay DUEPAY_DEV_OPS_PORT=$(OPS_PORT) scripts/with-stack.sh --banner \
	  $(BUILD)/duepay dev --supervise --ops-listen 127.0.0.1:$(OPS_PORT) --ops-base-port $(OPS_PORT) \
	  --with-chainwatch --with-webhooks

stack-up:
	infra/dev/stack.sh up

stack-down:
	infra/dev/stack.sh down

stack-status:
	infra/dev/stack.sh status

clean:
	rm -rf $(BUILD)

FORMAT_FILES ?= $(shell git ls-files '*.cpp' '*.hpp' '*.h' '*.cc')

format-check:
	@command -v clang-format >/dev/null || \
	  { echo "clang-format is not installed (make deps)" >&2; exit 1; }
	clang-format --dry-run -Werror $(FORMAT_FILES)
