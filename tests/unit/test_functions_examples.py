"""The runs-anywhere examples of functions/: each family file builds its own tiny warehouse.

A family file's ``-- setup:`` lines are Paimon SQL statements, run in order by `paimon_sql.connect`
on a new temporary warehouse. Each macro's header holds ``-- try:`` queries, each followed by the
``-- gives:`` rows (a Python literal) it returns on a plain DuckDB connection after
`paimon_sql.install`. (The ``-- example:`` / ``-- expect:`` pairs run on the Java-written fixture
warehouse instead: tests/unit/test_functions.py.)
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import duckdb
import pytest

import paimon_sql
from paimon_sql.sql.install import functions_dir

if TYPE_CHECKING:
    from pathlib import Path

_MACRO = re.compile(r"^CREATE OR REPLACE MACRO (\w+)\s*\(", re.IGNORECASE)
_KEY = re.compile(r"^-- (setup|try|gives):\s?(.*)$")


@dataclass
class Family:
    path: Path
    setup: list[str] = field(default_factory=list)
    # macro -> [(query, rows literal)], in file order
    tries: dict[str, list[tuple[str, str]]] = field(default_factory=dict)


def _family(path: Path) -> Family:
    family = Family(path)
    queries: list[str] = []
    results: list[str] = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        macro = _MACRO.match(line)
        if macro:
            assert len(queries) == len(results), f"{path.name}:{number}: every try needs one gives"
            family.tries[macro[1]] = list(zip(queries, results, strict=True))
            queries, results = [], []
            continue
        key = _KEY.match(line)
        if key is None:
            continue
        name, value = key.groups()
        if name == "setup":
            assert not family.tries, f"{path.name}:{number}: setup after a macro"
            assert not queries, f"{path.name}:{number}: setup after a try"
            family.setup.append(value.strip())
        elif name == "try":
            assert len(queries) == len(results), f"{path.name}:{number}: a try without its gives"
            queries.append(value.strip())
        else:
            assert len(queries) == len(results) + 1, f"{path.name}:{number}: a gives without a try"
            results.append(value.strip())
    assert not queries, f"{path.name}: a try after the last macro"
    return family


def _families() -> list[Family]:
    return [_family(path) for path in sorted(functions_dir().glob("*.sql"))]


def test_every_macro_has_an_example_that_runs_anywhere():
    families = _families()
    assert families, "functions/ has no SQL families"
    for family in families:
        assert family.setup, f"{family.path.name} has no -- setup: lines"
        for macro, tries in family.tries.items():
            assert tries, f"{family.path.name}: {macro} has no -- try: example"
            for query, _ in tries:
                assert macro + "(" in query, f"{macro}: its example does not call it: {query}"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory):
    """file name -> a plain DuckDB connection with its setup warehouse installed."""
    connections: dict[str, duckdb.DuckDBPyConnection] = {}

    def connect(family: Family) -> duckdb.DuckDBPyConnection:
        con = connections.get(family.path.name)
        if con is None:
            warehouse = tmp_path_factory.mktemp(family.path.stem)
            session = paimon_sql.connect(warehouse)
            try:
                for statement in family.setup:
                    session.sql(statement)
            finally:
                session.close()
            con = connections[family.path.name] = duckdb.connect()
            paimon_sql.install(con, warehouse)
        return con

    yield connect
    for con in connections.values():
        con.close()


def _cases() -> list[tuple[Family, str, str, str]]:
    return [
        pytest.param(family, macro, query, result, id=f"{macro}-{i}")
        for family in _families()
        for macro, tries in family.tries.items()
        for i, (query, result) in enumerate(tries)
    ]


@pytest.mark.parametrize(("family", "macro", "query", "result"), _cases())
def test_example_gives_what_its_header_shows(installed, family, macro, query, result):
    assert installed(family).sql(query).fetchall() == ast.literal_eval(result), macro
