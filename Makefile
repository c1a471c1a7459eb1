# Two commands matter: `make serve` (demo service) and `make test` (everything CI checks).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin
PYTEST_ARGS ?=

# Installs come from the lock files (hashes checked), then the project itself without
# dependencies: two installs a month apart get the same packages. `make lock` refreshes them.
DEV_LOCK := requirements/dev.txt
RUNTIME_LOCK := requirements/runtime.txt
STAMP := $(VENV)/.installed-stamp
RUNTIME_STAMP := $(VENV)/.runtime-stamp
UV_VERSION := 0.13.9
COMPILE := $(BIN)/uv pip compile pyproject.toml --universal --python-version 3.11 --generate-hashes --quiet

# `make serve PORT=8001 HOST=0.0.0.0 WORKERS=2`: only values given on the make command line
# (a HOST or PORT in the environment is not this server's), else the settings' (SCHOOLDATA_*).
given = $(filter command line,$(origin $(1)))
SERVE_ARGS := $(if $(call given,HOST),--host $(HOST)) $(if $(call given,PORT),--port $(PORT)) $(if $(call given,WORKERS),--workers $(WORKERS))

.PHONY: install serve test lint bdd fuzz soak bench bench-quick clean demo-data lock lock-upgrade

$(PY):
	$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Python >= 3.11 is required"'
	$(PYTHON) -m venv $(VENV)

# The modules setup.py compiles with mypyc (its COMPILED list): the project is built again,
# in place, when one of them changes, so a compiled module is never older than its source.
# Stale builds go first: one left by SCHOOLDATA_COMPILE=0 or a module no longer listed.
COMPILED_SOURCES := $(shell sed -n 's/^    "\(src\/.*\.py\)",$$/\1/p' setup.py)
BUILD_IN_PLACE := find src -name '*.so' -delete && $(PY) -m pip install --quiet --no-deps -e .

# Everything: the project, its extras (PostgreSQL, Redis, tracing) and the test tools.
$(STAMP): pyproject.toml setup.py $(COMPILED_SOURCES) $(DEV_LOCK) | $(PY)
	$(PY) -m pip install --quiet --require-hashes -r $(DEV_LOCK)
	$(BUILD_IN_PLACE)
	$(PY) -m pip check
	touch $(STAMP) $(RUNTIME_STAMP)

# What the embedded default (SQLite + the demo) needs, and nothing else: for `make serve`.
$(RUNTIME_STAMP): pyproject.toml setup.py $(COMPILED_SOURCES) $(RUNTIME_LOCK) | $(PY)
	$(PY) -m pip install --quiet --require-hashes -r $(RUNTIME_LOCK)
	$(BUILD_IN_PLACE)
	$(PY) -m pip check
	touch $(RUNTIME_STAMP)

install: $(STAMP)

## Set up (runtime packages only), build the demo database on first use, serve on http://127.0.0.1:8000
serve: $(RUNTIME_STAMP)
	$(BIN)/schooldata $(strip serve $(SERVE_ARGS))

## Refresh the lock files after editing pyproject.toml (current pins kept where they still fit)
lock: | $(PY)
	$(PY) -m pip install --quiet 'uv==$(UV_VERSION)'
	$(COMPILE) $(LOCK_ARGS) --extra dev -o $(DEV_LOCK)
	$(COMPILE) --constraint $(DEV_LOCK) -o $(RUNTIME_LOCK)

## The same, every package at its newest version that fits
lock-upgrade:
	$(MAKE) --no-print-directory lock LOCK_ARGS=--upgrade

## Set up and run every check: lint, types, import contracts, all tests (CI-sized slices)
test: install lint
	$(BIN)/pytest -m "not slow" -n 2 $(PYTEST_ARGS)

LINTED := $(wildcard src tests features bench tools setup.py conftest.py)

lint: install
	$(BIN)/ruff check $(LINTED)
	$(BIN)/ruff format --check $(LINTED)
	$(BIN)/mypy src
	$(BIN)/lint-imports

bdd: install
	mkdir -p test-artifacts
	$(BIN)/pytest features -v --gherkin-terminal-reporter -p no:xdist --cucumberjson=test-artifacts/cucumber.json $(PYTEST_ARGS)

## Long contract fuzzing: 500 cases per operation, in process and against a live server
fuzz: install
	SCHOOLDATA_FUZZ_EXAMPLES=500 $(BIN)/pytest tests/contract tests/reliability/test_fuzz_live.py -p no:xdist $(PYTEST_ARGS)

## The two-minute soak (SCHOOLDATA_SOAK_SECONDS=N to change it) and the other slow reliability runs
soak: install
	$(BIN)/pytest tests/reliability -m slow -p no:xdist $(PYTEST_ARGS)

## Regenerate the bundled synthetic demo dataset (needs ../shared/data: Code-Point Open, and the real school names it must avoid)
demo-data: install
	$(PY) -m tools.demo --codepoint ../shared/data/codepoint_open --real-names ../shared/data/performance_tables --out src/schooldata/adapters/sample/data

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache build *.egg-info src/*.egg-info

## Full-scale benchmarks (builds bench/.cache once, then ~10 min): table, bench/results/full.json, docs/performance.md
bench: install
	$(PY) -m bench $(BENCH_ARGS)

## The same scenarios on the bundled demo dataset, short runs (under a minute once set up)
bench-quick: install
	$(PY) -m bench --quick $(BENCH_ARGS)
