"""VARIANT columns written by Paimon's Java API (Parquet): read as DuckDB's VARIANT, with the same
JSON Java's ``Variant.toJson`` gives; shredded files refused by name, never read as bytes."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import duckdb
import pytest

import paimon_sql
from paimon_sql.errors import UnsupportedFeatureError

if TYPE_CHECKING:
    from pathlib import Path

    from tests.interop.paimon20.harness import JavaApiOracle

pytestmark = [pytest.mark.interop, pytest.mark.slow]

VALUES = [
    {"a": 1, "b": [1, 2, "x", None], "c": {"d": None, "e": True}},
    "text",
    1.5,
    12345678901234,
    -7,
    [],
    {},
    None,
    [{"k": "v"}, [1.25e-3]],
    "h\u00e9llo \u2603",
]
FIELDS = [("id", "INT NOT NULL"), ("x", "VARIANT")]


def _rows(offset: int = 0) -> list[list[object]]:
    # JSON null becomes a variant null; the SQL NULL row is id 100
    return [[i + offset, json.dumps(v)] for i, v in enumerate(VALUES)] + [[100 + offset, None]]


def _multiset(rows: dict[int, object] | list[tuple[int, object]]) -> list[str]:
    pairs = rows.items() if isinstance(rows, dict) else rows
    return sorted(json.dumps([i, v], sort_keys=True) for i, v in pairs)


def _ours(warehouse: Path, table: str) -> list[tuple[int, object]]:
    session = paimon_sql.connect(warehouse)
    try:
        query = f'SELECT id, typeof(x) AS t, CAST(x AS JSON) AS j FROM "db"."{table}"'  # noqa: S608
        rel = session.sql(query)
        rows = rel.fetchall()
    finally:
        session.close()
    assert {t for _, t, _ in rows} == {"VARIANT"}
    return [(i, None if j is None else json.loads(j)) for i, _, j in rows]


def _java(java_api: JavaApiOracle, warehouse: Path, table: str) -> list[tuple[int, object]]:
    _, rows = java_api.read(warehouse, table)
    out = []
    for r in rows:
        x = r["x"]
        assert x is None or x[0] == "variant", x
        out.append((r["id"], None if x is None else json.loads(x[1])))
    return out


@pytest.mark.parametrize("kind", ["append", "pk"])
def test_variant_reads_as_java_writes_it(java_api: JavaApiOracle, tmp_path: Path, kind: str):
    warehouse = tmp_path / "warehouse"
    pk = ("id",) if kind == "pk" else ()
    options = {"file.format": "parquet", "bucket": "1" if pk else "-1"}
    java_api.create(warehouse, "v", FIELDS, primary_keys=pk, options=options)
    java_api.write(warehouse, "v", _rows())
    java_api.write(warehouse, "v", [[0, json.dumps({"again": [1]})], [1, None]])
    java = _java(java_api, warehouse, "v")
    ours = _ours(warehouse, "v")
    assert _multiset(ours) == _multiset(java)
    # and the values are the ones written (not only the same as Java's read)
    written: list[tuple[int, object]] = [*enumerate(VALUES), (100, None)]
    second: list[tuple[int, object]] = [(0, {"again": [1]}), (1, None)]
    expected = (second + written[2:]) if pk else (written + second)
    assert _multiset(ours) == _multiset(expected)


def test_shredded_variant_is_refused_by_option(java_api: JavaApiOracle, tmp_path: Path):
    warehouse = tmp_path / "warehouse"
    options = {"file.format": "parquet", "variant.inferShreddingSchema": "true"}
    java_api.create(warehouse, "s", FIELDS, options=options)
    java_api.write(warehouse, "s", [[i, json.dumps({"a": i, "b": f"s{i}"})] for i in range(20)])
    session = paimon_sql.connect(warehouse)
    try:
        with pytest.raises(UnsupportedFeatureError, match=r"column 'x'.*inferShreddingSchema"):
            session.sql('SELECT * FROM "db"."s"').fetchall()
    finally:
        session.close()


def test_shredded_file_without_the_option_fails_naming_the_column(
    java_api: JavaApiOracle, tmp_path: Path
):
    """Shredded files stay when the option is turned off: the read fails, never returns the
    incomplete unshredded part."""
    warehouse = tmp_path / "warehouse"
    options = {"file.format": "parquet", "variant.inferShreddingSchema": "true"}
    java_api.create(warehouse, "s", FIELDS, options=options)
    java_api.write(warehouse, "s", [[i, json.dumps({"a": i, "b": f"s{i}"})] for i in range(20)])
    java_api.alter(warehouse, "s", [{"set": "variant.inferShreddingSchema", "value": "false"}])
    session = paimon_sql.connect(warehouse)
    try:
        with pytest.raises((duckdb.Error, paimon_sql.errors.PaimonSqlError)) as err:
            session.sql('SELECT * FROM "db"."s"').fetchall()
        assert "column 'x'" in str(err.value)
        assert "shredded VARIANT" in str(err.value)
    finally:
        session.close()


def test_variant_write_is_refused(tmp_path: Path):
    session = paimon_sql.connect(tmp_path / "w", create=True)
    try:
        session.sql("CREATE DATABASE db")
        session.sql('CREATE TABLE "db"."v" (id INT, x VARIANT)')
        with pytest.raises(UnsupportedFeatureError, match="VARIANT"):
            session.sql("""INSERT INTO "db"."v" VALUES (1, {'a': 1}::VARIANT)""")
    finally:
        session.close()
