# duepay: the two commands are `make run` and `make test`. Everything else is a step of those.
SHELL := /bin/bash
BUILD ?= build
JOBS ?= 2

.PHONY: run test build deps unit clean
build:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build $(BUILD) -j$(JOBS)

unit: build
	ctest --test-dir $(BUILD) -L unit --output-on-failure

test: build
	ctest --test-dir $(BUILD) --output-on-failure

clean:
	rm -rf $(BUILD)
