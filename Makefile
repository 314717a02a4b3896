# Two entry points (see README): `make demo` runs the main job, `make test` runs every test.
# Each creates its own virtualenv and installs what it needs.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

# The one cache of the tests and benchmarks (README "Two commands"): Spark/Paimon jars and Maven's
# downloads, the second-opinion, Flink, lowest-versions and packaging virtualenvs with pip's
# downloads, benchmark tables. `make clean-cache` removes it.
CACHE ?= $(or $(PAIMON_SQL_CACHE),$(HOME)/.cache/paimon-sql)
export PAIMON_SQL_CACHE := $(CACHE)
export PIP_CACHE_DIR ?= $(CACHE)/pip
export MAVEN_OPTS += -Dmaven.repo.local=$(CACHE)/m2

.PHONY: demo lint test test-fast test-packaging bench venv clean clean-cache

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
# TEST_WORKERS processes (pytest-xdist), each running whole test files (--dist loadfile), so a file's
# module fixtures (a Spark session, a table built once) are made once. The shared caches (jars,
# virtualenvs, corpora) are built under file locks, so two processes may ask for them at once.
# TEST_WORKERS=0 runs everything in this one process.
TEST_WORKERS ?= 2
test: $(STAMP) lint
	$(PY) -m pytest -q -rs -p no:cacheprovider --durations=25 -n $(TEST_WORKERS) --dist loadfile

# The package as users install it (part of `make test`): sdist and wheel, the lowest and the newest
# declared dependency versions, the README's examples (tests/usage/test_packaging.py).
test-packaging: $(STAMP)
	$(PY) -m pytest -q -p no:cacheprovider tests/usage/test_packaging.py

# Unit, golden and fixture tests only: no JVM, no second-opinion virtualenvs.
test-fast: $(STAMP)
	$(PY) -m pytest -q -p no:cacheprovider -n $(TEST_WORKERS) --dist loadfile -m "not interop and not second_opinion and not slow"

bench: $(STAMP)
	$(PY) -m tests.benchmarks.run

clean:
	rm -rf $(VENV) .venv-* warehouse

clean-cache:
	rm -rf "$(CACHE)"
