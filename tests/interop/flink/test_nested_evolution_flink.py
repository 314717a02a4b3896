"""Schema evolution inside ROW, ARRAY<ROW> and MAP<…, ROW>, run by Apache Paimon 1.3.1 (Flink).

Nested fields have ids like columns: Java reads an older file's ROW by those ids, so a nested
field dropped and added again under the same name (a new id) is NULL in the older files, a new
field is NULL there, and a changed field type follows Paimon's cast rules (BIGINT to INT wraps).
DuckDB's ``CAST`` between structs matches by name, which read the dropped field's old values. For
each file format Flink writes, evolves and writes again; paimon-sql's read must equal Flink's, and
after paimon-sql compacts the table (rewriting the old files in the new schema) Flink's read too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

import paimon_sql
from tests.interop.flink.harness import assert_same_rows, our_rows

if TYPE_CHECKING:
    from pathlib import Path

    from tests.interop.flink.harness import FlinkOracle

pytestmark = [pytest.mark.interop, pytest.mark.slow]

_B = "CAST({} AS BIGINT)"
_STEPS = (
    "CREATE TABLE t (k INT, r ROW<a INT, b STRING, w BIGINT>, arr ARRAY<ROW<x INT, y STRING>>, "
    "m MAP<STRING, ROW<p INT>>, PRIMARY KEY (k) NOT ENFORCED) "
    "WITH ('bucket' = '1', 'file.format' = '{fmt}')",
    f"INSERT INTO t VALUES (1, ROW(1, 'one', {_B.format(3000000000)}), ARRAY[ROW(10, 'ten')], "  # noqa: S608
    "MAP['k', ROW(5)]), (2, CAST(NULL AS ROW<a INT, b STRING, w BIGINT>), "
    "CAST(NULL AS ARRAY<ROW<x INT, y STRING>>), CAST(NULL AS MAP<STRING, ROW<p INT>>))",
    # widen a, narrow w (wraps), add c; drop b then add a new b (another id)
    "ALTER TABLE t MODIFY r ROW<a BIGINT, w INT, c DOUBLE>",
    "ALTER TABLE t MODIFY r ROW<a BIGINT, w INT, c DOUBLE, b STRING>",
    "ALTER TABLE t MODIFY arr ARRAY<ROW<x BIGINT, y STRING, z INT>>",
    "ALTER TABLE t MODIFY m MAP<STRING, ROW<p BIGINT, q STRING>>",
    f"INSERT INTO t VALUES (3, ROW({_B.format(3)}, 7, 3.5, 'three'), "  # noqa: S608
    f"ARRAY[ROW({_B.format(30)}, 'th', 1)], MAP['k', ROW({_B.format(7)}, 'q')])",
)


@pytest.mark.parametrize("fmt", ["parquet", "orc", "avro"])
def test_nested_fields_evolve_by_id_like_flink(flink: FlinkOracle, tmp_path: Path, fmt: str):
    warehouse = tmp_path / "warehouse"
    flink.run(warehouse, *(step.format(fmt=fmt) for step in _STEPS))
    _, truth = flink.read(warehouse, "t")
    assert_same_rows(our_rows(warehouse, "t"), truth, context=f"{fmt}: paimon-sql's read")
    session = paimon_sql.connect(warehouse)
    try:
        session.sql("CALL sys.compact(table => 'db.t')")
        evolved = session.sql("SELECT k, r.b, r.w FROM db.t WHERE k = 1").fetchall()
    finally:
        session.close()
    assert evolved == [(1, None, -1294967296)]  # the new b; 3000000000 wrapped to INT
    assert_same_rows(flink.read(warehouse, "t")[1], truth, context=f"{fmt}: Flink after compact")
    assert_same_rows(our_rows(warehouse, "t"), truth, context=f"{fmt}: ours after compact")


_TWIN_CREATE = (
    "CREATE TABLE t (k INT, r ROW<a INT, b STRING>, arr ARRAY<ROW<x INT>>, "
    "m MAP<STRING, ROW<p INT>>, PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '1')",
    "INSERT INTO t VALUES (1, ROW(1, 'one'), ARRAY[ROW(10)], MAP['k', ROW(5)])",
)
_TWIN_ALTERS = (
    "ALTER TABLE t MODIFY r ROW<aa BIGINT, a BIGINT>",  # b dropped, aa added first
    "ALTER TABLE t MODIFY r ROW<aa BIGINT, a BIGINT, b STRING>",  # a new b
    "ALTER TABLE t MODIFY arr ARRAY<ROW<x BIGINT, y STRING>>",
    "ALTER TABLE t MODIFY m MAP<STRING, ROW<q STRING, p BIGINT>>",
)
_TWIN_AFTER = (
    "INSERT INTO t VALUES (2, ROW(CAST(2 AS BIGINT), CAST(22 AS BIGINT), 'two'), "
    "ARRAY[ROW(CAST(20 AS BIGINT), 'y')], MAP['k', ROW('q', CAST(6 AS BIGINT))])",
)


def _schema_json(warehouse: Path) -> list[object]:
    import json

    folder = warehouse / "db.db" / "t" / "schema"
    latest = max(folder.iterdir(), key=lambda p: int(p.name.split("-")[1]))
    schema = json.loads(latest.read_text())
    return [schema["fields"], schema["highestFieldId"]]


def test_our_nested_modify_gives_javas_field_ids(flink: FlinkOracle, tmp_path: Path):
    """The same ``ALTER TABLE … MODIFY`` of ROW, ARRAY<ROW> and MAP<…, ROW> columns by Flink and
    by paimon-sql on twins: the same nested field ids and types in the new schema, and each
    engine reads both tables alike after a Flink INSERT in the new schema."""
    java, ours = tmp_path / "java", tmp_path / "ours"
    flink.run(java, *_TWIN_CREATE, *_TWIN_ALTERS)
    flink.run(ours, *_TWIN_CREATE)
    session = paimon_sql.connect(ours)
    try:
        for statement in _TWIN_ALTERS:
            session.sql(statement.replace("ALTER TABLE t", "ALTER TABLE db.t"))
    finally:
        session.close()
    assert _schema_json(ours) == _schema_json(java)
    for warehouse in (java, ours):
        flink.run(warehouse, *_TWIN_AFTER)
    _, truth = flink.read(java, "t")
    assert_same_rows(flink.read(ours, "t")[1], truth, context="Flink on ours")
    for warehouse in (java, ours):
        assert_same_rows(our_rows(warehouse, "t"), truth, context=f"paimon-sql on {warehouse.name}")
