# Two entry points (see README): `make demo` runs the main job, `make test` runs every test.
# Each creates its own virtualenv and installs what it needs.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: demo lint test test-fast bench venv clean clean-cache

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev,spark,s3]'
	touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	$(PY) examples/demo.py
	$(PY) examples/history.py

# The gates (STYLE.md "Tooling"): formatting, lint, types, import contracts. Every step runs even
# when an earlier one fails, so one run shows all findings; any failure fails the target.
# .ci on PYTHONPATH: lint-imports loads the external_submodule contract type from .ci/import_contracts.py.
lint: $(STAMP)
	@status=0; \
	echo "== ruff format --check"; $(VENV)/bin/ruff format --check . || status=1; \
	echo "== ruff check"; $(VENV)/bin/ruff check --output-format concise . || status=1; \
	echo "== mypy (.ci/mypy_gate.py)"; $(PY) .ci/mypy_gate.py || status=1; \
	echo "== lint-imports"; PYTHONPATH=.ci $(VENV)/bin/lint-imports || status=1; \
	echo "== import drawing (ARCHITECTURE.md)"; $(PY) .ci/import_graph.py --check ARCHITECTURE.md || status=1; \
	exit $$status

# The whole suite, interop (Apache Paimon through PySpark) included, after the gates: CI runs exactly this.
test: $(STAMP) lint
	$(PY) -m pytest -q -rs -p no:cacheprovider

# Unit, golden and fixture tests only: no JVM, no second-opinion virtualenvs.
test-fast: $(STAMP)
	$(PY) -m pytest -q -p no:cacheprovider -m "not interop and not second_opinion and not slow"

bench: $(STAMP)
	$(PY) -m tests.benchmarks.run

clean:
	rm -rf $(VENV) .venv-* warehouse

# The tests' and benchmarks' one cache (Spark/Paimon jars, second-opinion virtualenvs, benchmark tables).
CACHE ?= $(or $(PAIMON_SQL_CACHE),$(HOME)/.cache/paimon-sql)
clean-cache:
	rm -rf "$(CACHE)"
