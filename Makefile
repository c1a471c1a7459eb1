# Two commands matter: `make serve` (demo service) and `make test` (everything CI checks).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
PYTEST_ARGS ?=

.PHONY: install serve test lint typecheck contracts unit bdd fuzz soak bench bench-quick clean demo-data

$(STAMP): pyproject.toml
	$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Python >= 3.11 is required"'
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

## Set up, build the demo database on first use, and serve on http://127.0.0.1:8000
serve: install
	$(BIN)/schooldata serve

## Set up and run every check: lint, types, import contracts, all tests (CI-sized slices)
test: install lint
	$(BIN)/pytest -m "not slow" -n 2 $(PYTEST_ARGS)

LINTED := $(wildcard src tests features bench tools)

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

## Regenerate the bundled synthetic demo dataset (needs ../shared/data/codepoint_open)
demo-data: install
	$(PY) tools/generate_demo.py --codepoint ../shared/data/codepoint_open --out src/schooldata/adapters/sample/data

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache build *.egg-info src/*.egg-info

## Full-scale benchmarks (builds bench/.cache once, then ~10 min): table, bench/results/full.json, docs/performance.md
bench: install
	$(PY) -m bench $(BENCH_ARGS)

## The same scenarios on the bundled demo dataset, short runs (under a minute once set up)
bench-quick: install
	$(PY) -m bench --quick $(BENCH_ARGS)
