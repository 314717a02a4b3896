"""Every function in functions/ is documented, its signature is the macro's, and its examples run.

The examples run on a plain DuckDB connection after ``paimon_sql.install(con, warehouse)``, over
the Java-written fixture warehouse.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import duckdb
import pytest
from sqlglot import exp

import paimon_sql
from paimon_sql.sql.install import functions_dir
from tests.fixtures import FIXTURES

if TYPE_CHECKING:
    from pathlib import Path

FIXTURE = FIXTURES / "generated-paimon-java-0.9/warehouse"
KEYS = ("name", "signature", "doc", "example", "expect")
_HEADER = re.compile(r"^-- (" + "|".join(KEYS) + r"):\s?(.*)$")
_MACRO = re.compile(r"^CREATE OR REPLACE MACRO (\w+)\s*\(", re.IGNORECASE)


@dataclass
class Function:
    path: Path
    name: str = ""
    signature: str = ""
    doc: list[str] = field(default_factory=list)
    examples: list[str] = field(default_factory=list)
    expects: list[str] = field(default_factory=list)
    macro: str | None = None  # the name the CREATE MACRO after the header defines


def _functions(path: Path) -> list[Function]:
    """The header blocks of one family file, each with the macro it documents."""
    out: list[Function] = []
    for line in path.read_text().splitlines():
        header = _HEADER.match(line)
        if header:
            key, value = header.groups()
            if key == "name":
                out.append(Function(path, name=value.strip()))
            elif not out or out[-1].macro is not None:
                pytest.fail(f"{path.name}: '-- {key}:' outside a block that starts with '-- name:'")
            elif key in ("signature",):
                out[-1].signature = value.strip()
            else:
                getattr(
                    out[-1], {"doc": "doc", "example": "examples", "expect": "expects"}[key]
                ).append(value.strip())
            continue
        macro = _MACRO.match(line)
        if macro:
            if not out or out[-1].macro is not None:
                pytest.fail(f"{path.name}: macro {macro[1]} has no header")
            out[-1].macro = macro[1]
    return out


def _all() -> list[Function]:
    return [f for path in sorted(functions_dir().glob("*.sql")) for f in _functions(path)]


def _parameters(signature: str) -> list[str]:
    """Parameter names of ``f(a TYPE, b := TYPE) -> ...``."""
    inside = signature[signature.index("(") + 1 : signature.index(")")]
    return [p.split(":=")[0].split()[0].strip('"') for p in inside.split(",") if p.strip()]


@pytest.fixture(scope="module")
def con():
    connection = duckdb.connect()
    paimon_sql.install(connection, FIXTURE)
    yield connection
    connection.close()


def test_every_family_file_documents_every_macro():
    files = sorted(functions_dir().glob("*.sql"))
    assert files, "functions/ has no SQL families"
    for path in files:
        functions = _functions(path)
        assert functions, f"{path.name} defines no documented function"
        for f in functions:
            assert f.macro == f.name, (
                f"{path.name}: header {f.name!r} is followed by macro {f.macro!r}"
            )
            assert f.signature.startswith(f.name + "("), f"{f.name}: signature {f.signature!r}"
            assert " -> TABLE" in f.signature, f"{f.name}: the signature names what it returns"
            assert f.doc, f"{f.name} has no doc"
            assert f.examples, f"{f.name} has no example"
            assert len(f.examples) == len(f.expects), f"{f.name}: every example needs one expect"
            for example in f.examples:
                assert f.name + "(" in example, f"{f.name}: example does not call it: {example}"


def test_signatures_name_the_macro_parameters(con):
    functions = _all()
    installed = dict(
        con.sql(
            "SELECT function_name, parameters FROM duckdb_functions() "
            "WHERE function_type = 'table_macro' AND function_name LIKE 'paimon\\_%' ESCAPE '\\'"
        ).fetchall()
    )
    documented = {f.name for f in functions}
    assert set(installed) == documented, "every paimon_* table macro is documented, and only those"
    for f in functions:
        assert _parameters(f.signature) == [p.strip('"') for p in installed[f.name]], f.name


def test_system_function_columns_match_the_signature(con):
    for f in _all():
        if "<" in f.signature:  # the table's own columns (paimon_scan, paimon_ro, paimon_audit_log)
            continue
        columns = f.signature[f.signature.index("TABLE(") + len("TABLE(") : -1]
        names = [c.strip().split()[0] for c in re.split(r",\s*(?![^()]*\))", columns)]
        call = re.search(re.escape(f.name) + r"\((?:[^()]|\([^()]*\))*\)", f.examples[0])
        assert call is not None
        query = exp.select("*").from_(call[0], dialect="duckdb").sql("duckdb")
        described = con.sql(query).columns
        assert described == names, f.name


def _examples() -> list[tuple[str, str, object]]:
    return [
        (f.name, example, ast.literal_eval(expect))
        for f in _all()
        for example, expect in zip(f.examples, f.expects, strict=True)
    ]


@pytest.mark.parametrize(("name", "example", "expect"), _examples(), ids=lambda v: str(v)[:40])
def test_example_runs_on_plain_duckdb(con, name, example, expect):
    assert con.sql(example).fetchall() == expect
