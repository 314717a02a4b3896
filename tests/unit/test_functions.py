"""Every function family in functions/ runs its documented example on a Java-written warehouse."""

from __future__ import annotations

import ast

import duckdb
import pytest

import paimon_sql
from paimon_sql.sql.install import functions_dir
from tests.fixtures import FIXTURES

FIXTURE = FIXTURES / "generated-paimon-java-0.9/warehouse"


def _examples() -> list[tuple[str, str, object]]:
    out = []
    for path in sorted(functions_dir().glob("*.sql")):
        header: dict[str, list[str]] = {}
        for line in path.read_text().splitlines():
            if line.startswith("-- ") and ":" in line:
                key, _, value = line[3:].partition(":")
                header.setdefault(key.strip(), []).append(value.strip())
        for name, example, expect in zip(header["name"], header["example"], header["expect"], strict=True):
            out.append((name, example, ast.literal_eval(expect)))
    return out


def test_every_family_has_a_documented_example():
    files = sorted(functions_dir().glob("*.sql"))
    assert files, "functions/ has no SQL families"
    for path in files:
        text = path.read_text()
        for key in ("-- name:", "-- signature:", "-- doc:", "-- example:", "-- expect:"):
            assert key in text, f"{path.name} lacks {key}"


@pytest.mark.parametrize(("name", "example", "expect"), _examples(), ids=lambda v: str(v)[:40])
def test_example_runs_on_plain_duckdb(name, example, expect):
    con = duckdb.connect()
    paimon_sql.install(con, FIXTURE)
    assert con.sql(example).fetchall() == expect
