# The project's own way to run anything. `make help` lists the targets.
VENV ?= .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin
PYTHON ?= python3

.PHONY: help setup demo serve test lint typecheck unit eval gate bench clean

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | column -t -s '	'

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $@

setup: $(VENV)/.installed  ## create .venv and install crashdoc with its dev tools

demo: setup  ## set up, build the index, diagnose the bundled example, then start the service
	$(BIN)/crashdoc kb build
	$(BIN)/crashdoc diagnose examples/fusedadam-h100.log
	$(BIN)/crashdoc serve

serve: setup  ## start the service on 127.0.0.1:8000
	$(BIN)/crashdoc serve

lint: setup  ## ruff
	$(BIN)/ruff check .

typecheck: setup  ## mypy
	$(BIN)/mypy

unit: setup  ## pytest
	$(PY) -m pytest -q

eval: setup  ## the full eval report
	$(BIN)/crashdoc eval

gate: setup  ## the eval gate (thresholds in evals/thresholds.yaml)
	$(BIN)/crashdoc eval --gate --format text

test: lint typecheck unit gate  ## everything CI runs: lint, types, tests, eval gate

bench: setup  ## benchmarks (figures go to benchmarks/results/)
	$(PY) benchmarks/bench_api.py
	$(PY) benchmarks/bench_load.py
	$(PY) benchmarks/bench_mask.py

clean:  ## remove the venv and caches
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
