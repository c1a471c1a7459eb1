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

.PHONY: install install-matrix serve compiled pure test lint bdd fuzz soak bench bench-quick clean demo-data lock lock-upgrade

$(PY):
	$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Python >= 3.11 is required"'
	$(PYTHON) -m venv $(VENV)

# The project is installed editable and pure Python: a first `make serve` answers in well under a
# minute. `make compiled` builds the served hot path with mypyc in place (a few minutes; what
# production and `make bench` run, docs/deploy.md); `make pure` goes back. Nothing here needs the
# lock to build: `pip install .` alone works too (README).
INSTALL_PROJECT := $(PY) -m pip install --quiet --no-deps -e .
PURE := find src -name '*.so' -delete && SCHOOLDATA_COMPILE=0 $(INSTALL_PROJECT)

# Everything: the project, its extras (PostgreSQL, Redis, tracing) and the test tools.
$(STAMP): pyproject.toml setup.py $(DEV_LOCK) | $(PY)
	@echo "Installing the locked development packages (about a minute) ..."
	$(PY) -m pip install --quiet --require-hashes -r $(DEV_LOCK)
	@echo "Installing schooldata (pure Python; \`make compiled\` compiles the hot path) ..."
	$(PURE)
	$(PY) -m pip check
	touch $(STAMP) $(RUNTIME_STAMP)

# What the embedded default (SQLite + the demo) needs, and nothing else: for `make serve`.
$(RUNTIME_STAMP): pyproject.toml setup.py $(RUNTIME_LOCK) | $(PY)
	@echo "Installing the locked runtime packages (about 30 s) ..."
	$(PY) -m pip install --quiet --require-hashes -r $(RUNTIME_LOCK)
	@echo "Installing schooldata (pure Python; \`make compiled\` compiles the hot path) ..."
	$(PURE)
	$(PY) -m pip check
	touch $(RUNTIME_STAMP)

install: $(STAMP)

## Set up (runtime packages only), build the demo database on first use, serve on http://127.0.0.1:8000
serve: $(RUNTIME_STAMP)
	$(BIN)/schooldata $(strip serve $(SERVE_ARGS))

## Compile the served hot path with mypyc, in place (a few minutes on 2 cores): production speed
compiled: $(RUNTIME_STAMP)
	@echo "Compiling the hot path with mypyc (a few minutes on 2 cores) ..."
	find src -name '*.so' -delete && SCHOOLDATA_COMPILE=1 $(INSTALL_PROJECT)
	@$(BIN)/schooldata --version | grep '^build:'

## Back to the pure-Python build (what `make install` and `make serve` install)
pure: $(RUNTIME_STAMP)
	$(PURE)

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
	$(BIN)/pytest -m "not slow" -n 2 --dist loadgroup $(PYTEST_ARGS)

LINTED := $(wildcard src tests features bench tools build_support setup.py conftest.py)

lint: install
	$(BIN)/ruff check $(LINTED)
	$(BIN)/ruff format --check $(LINTED)
	$(BIN)/mypy src
	$(BIN)/lint-imports

bdd: install
	mkdir -p test-artifacts
	$(BIN)/pytest features -v --gherkin-terminal-reporter -p no:xdist --cucumberjson=test-artifacts/cucumber.json $(PYTEST_ARGS)

## Every standard install of a clean checkout in fresh venvs: pip (dir, editable, extras), uv (slow: compiles)
install-matrix: install
	$(BIN)/pytest tests/packaging -m slow -p no:xdist $(PYTEST_ARGS)

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
	@[ ! -x $(BIN)/schooldata ] || echo "Kept: the data home every checkout shares (demo database, key secret): $$($(BIN)/schooldata where --home). Reset it with: rm -rf \"$$($(BIN)/schooldata where --home)\""
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache build dist *.egg-info src/*.egg-info
	find src -name '*.so' -delete

## Full-scale benchmarks, on the compiled build (builds bench/.cache once, then ~10 min): table, bench/results/full.json, docs/performance.md
bench: install compiled
	$(PY) -m bench $(BENCH_ARGS)

## The same scenarios on the bundled demo dataset, short runs (under a minute once set up)
bench-quick: install compiled
	$(PY) -m bench --quick $(BENCH_ARGS)
