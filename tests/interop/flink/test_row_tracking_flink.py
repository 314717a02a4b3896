"""Row tracking and data evolution against Apache Paimon 1.3.1 (Flink), both ways.

* Flink writes row-tracking and data-evolution tables (INSERTs, a multi-partition INSERT, INSERT
  OVERWRITE, Java's compaction, which stores ``_ROW_ID`` / ``_SEQUENCE_NUMBER`` as columns);
  paimon-sql reads the table and its ``$row_tracking`` system table at every snapshot exactly as
  Flink does.
* paimon-sql writes a row-tracking table (INSERT, INSERT OVERWRITE); Flink reads its
  ``$row_tracking`` at every snapshot exactly as paimon-sql does (first row ids per file, sequence
  numbers, the snapshot's ``nextRowId``), commits an INSERT and a compaction on top, then paimon-sql
  commits once more, and both read the same row ids.

Java 1.3 exposes the row-tracking columns only through ``t$row_tracking`` (Flink cannot select
``_ROW_ID`` from the table); paimon-sql does the same. Nothing here states an expected value:
Flink's read and ours must agree, and row ids must be unique and dense.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest
from sqlglot import exp

import paimon_sql
from paimon_sql import errors
from tests.interop.flink.harness import arrow_rows, assert_same_rows

if TYPE_CHECKING:
    from pathlib import Path

    from tests.interop.flink.harness import FlinkOracle

pytestmark = [pytest.mark.interop, pytest.mark.slow]


def _snapshots(warehouse: Path, name: str) -> list[int]:
    folder = warehouse / "db.db" / name / "snapshot"
    return sorted(int(p.name.split("-")[1]) for p in folder.glob("snapshot-*"))


def _snapshot(warehouse: Path, name: str, snapshot: int) -> dict[str, Any]:
    return json.loads(  # type: ignore[no-any-return]
        (warehouse / "db.db" / name / "snapshot" / f"snapshot-{snapshot}").read_text()
    )


def _ours(warehouse: Path, name: str, snapshot: int | None, system: bool):
    node = exp.table_(name + ("$row_tracking" if system else ""), db="db", quoted=True)
    query = exp.select("*").from_(node).sql("duckdb")
    if snapshot is not None:
        query += f" /*+ OPTIONS('scan.snapshot-id' = '{int(snapshot)}') */"
    session = paimon_sql.connect(warehouse)
    try:
        return arrow_rows(session.sql(query).to_arrow_table())
    finally:
        session.close()


def _flink(flink: FlinkOracle, warehouse: Path, name: str, snapshot: int | None, system: bool):
    hint = f" /*+ OPTIONS('scan.snapshot-id' = '{int(snapshot)}') */" if snapshot else ""
    table = name + ("$row_tracking" if system else "")
    return flink.query(warehouse, f"SELECT * FROM `{table}`{hint}")  # noqa: S608 - test names


def _same_everywhere(flink: FlinkOracle, warehouse: Path, name: str) -> list[Any]:
    """Flink and paimon-sql read the table and its $row_tracking alike at every snapshot.

    Returns the latest $row_tracking rows, whose row ids are checked unique.
    """
    for snapshot in [*_snapshots(warehouse, name), None]:
        for system in (False, True):
            label = f"{name}{'$row_tracking' if system else ''} at {snapshot or 'latest'}"
            columns, rows = _ours(warehouse, name, snapshot, system)
            flink_columns, flink_rows = _flink(flink, warehouse, name, snapshot, system)
            assert columns == flink_columns, label
            assert_same_rows(rows, flink_rows, context=f"{label} (paimon-sql vs Flink)")
    _, latest = _ours(warehouse, name, None, True)
    ids = [r["_ROW_ID"] for r in latest]
    assert None not in ids, ids
    assert len(set(ids)) == len(ids), ids
    return list(latest)


JAVA_TABLES = {
    "rt_plain": (
        "CREATE TABLE rt_plain (id INT, v STRING) WITH ('row-tracking.enabled' = 'true')",
        "INSERT INTO rt_plain VALUES (1, 'a'), (2, 'b')",
        "INSERT INTO rt_plain VALUES (3, 'c')",
        "CALL sys.compact(`table` => 'db.rt_plain')",
        "INSERT INTO rt_plain VALUES (4, 'd'), (5, 'e')",
    ),
    "rt_parts": (
        "CREATE TABLE rt_parts (id INT, v STRING, p STRING) PARTITIONED BY (p) WITH ("
        "'row-tracking.enabled' = 'true', 'file.format' = 'orc')",
        "INSERT INTO rt_parts VALUES (1, 'a', 'x'), (2, 'b', 'y'), (3, 'c', 'x')",
        "INSERT OVERWRITE rt_parts PARTITION (p = 'y') VALUES (4, 'd')",
        "INSERT INTO rt_parts VALUES (5, 'e', 'z')",
        "CALL sys.compact(`table` => 'db.rt_parts')",
    ),
    "de_plain": (
        "CREATE TABLE de_plain (id INT, v STRING, w DOUBLE) WITH ("
        "'row-tracking.enabled' = 'true', 'data-evolution.enabled' = 'true')",
        "INSERT INTO de_plain VALUES (1, 'a', 1.5), (2, 'b', 2.5)",
        "INSERT INTO de_plain VALUES (3, 'c', 3.5)",
    ),
}


@pytest.mark.parametrize("name", sorted(JAVA_TABLES))
def test_java_written_row_tracking_reads_like_java(flink: FlinkOracle, tmp_path: Path, name: str):
    warehouse = tmp_path / "warehouse"
    for statement in JAVA_TABLES[name]:
        flink.run(warehouse, statement)
    _same_everywhere(flink, warehouse, name)


def test_we_write_row_ids_as_java(flink: FlinkOracle, tmp_path: Path):
    warehouse = tmp_path / "warehouse"
    name = "rt_ours"
    session = paimon_sql.connect(warehouse, create=True)
    t = '"db"."rt_ours"'
    try:
        session.sql("CREATE DATABASE IF NOT EXISTS db")
        for statement in (
            "CREATE TABLE {t} (id INT, v STRING, p STRING) PARTITIONED BY (p) "
            "WITH ('row-tracking.enabled' = 'true')",
            "INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'b', 'y'), (3, 'c', 'x')",
            "INSERT INTO {t} VALUES (4, 'd', 'z')",
            "INSERT OVERWRITE {t} PARTITION (p = 'y') SELECT 5, 'e'",
        ):
            session.sql(statement.replace("{t}", t))
        # rewriting rows would give them new ids: refused by name, nothing written
        before = _snapshots(warehouse, name)
        for statement in (
            "DELETE FROM {t} WHERE id = 1",
            "UPDATE {t} SET v = 'z' WHERE id = 1",
            "CALL sys.compact(table => 'db.rt_ours')",
        ):
            with pytest.raises(errors.UnsupportedFeatureError, match=r"row-tracking\.enabled"):
                session.sql(statement.replace("{t}", t))
        assert _snapshots(warehouse, name) == before
    finally:
        session.close()
    # what Java's commit gives: dense ids over every APPEND file, nextRowId after the last
    assert [_snapshot(warehouse, name, s)["nextRowId"] for s in before] == [3, 4, 5]

    _same_everywhere(flink, warehouse, name)
    flink.run(warehouse, "INSERT INTO rt_ours VALUES (6, 'f', 'x')")
    assert _snapshot(warehouse, name, _snapshots(warehouse, name)[-1])["nextRowId"] == 6
    flink.run(warehouse, "CALL sys.compact(`table` => 'db.rt_ours')")
    session = paimon_sql.connect(warehouse)
    try:
        session.sql("INSERT INTO {t} VALUES (7, 'g', 'y')".replace("{t}", t))
    finally:
        session.close()
    latest = _same_everywhere(flink, warehouse, name)
    by_id = {r["id"]: r["_ROW_ID"] for r in latest}
    # the first INSERT's two files share ids 0-2 (in the order its files were committed); every
    # later commit, ours or Java's, continues from the previous snapshot's nextRowId
    assert {by_id[1], by_id[3]} < {0, 1, 2}
    assert [by_id[k] for k in (4, 5, 6, 7)] == [3, 4, 5, 6]


def test_we_write_data_evolution_tables_java_reads(flink: FlinkOracle, tmp_path: Path):
    """INSERTs into a data-evolution table (full rows, one row-id range per file): Java's
    data-evolution read of every snapshot equals ours, and its INSERT continues our row ids."""
    warehouse = tmp_path / "warehouse"
    t = '"db"."de_ours"'
    session = paimon_sql.connect(warehouse, create=True)
    try:
        session.sql("CREATE DATABASE IF NOT EXISTS db")
        for statement in (
            "CREATE TABLE {t} (id INT, v STRING, w DOUBLE) WITH ("
            "'row-tracking.enabled' = 'true', 'data-evolution.enabled' = 'true')",
            "INSERT INTO {t} VALUES (1, 'a', 1.5), (2, 'b', NULL)",
            "INSERT INTO {t} VALUES (3, NULL, 3.5)",
        ):
            session.sql(statement.replace("{t}", t))
    finally:
        session.close()
    _same_everywhere(flink, warehouse, "de_ours")
    flink.run(warehouse, "INSERT INTO de_ours VALUES (4, 'd', 4.5)")
    latest = _same_everywhere(flink, warehouse, "de_ours")
    assert sorted((r["id"], r["_ROW_ID"]) for r in latest) == [(1, 0), (2, 1), (3, 2), (4, 3)]
