"""Row tracking and data evolution: Java-written tables read as Apache Paimon 1.3.1 reads them.

The tables are paimon-cpp's Java-written fixtures (``tests/data/fixtures/paimon-cpp``): a
row-tracking table compacted by Java (``_ROW_ID`` / ``_SEQUENCE_NUMBER`` stored as columns), and
data-evolution tables whose row-id ranges are spread over files holding different columns (written
column by column, one with schema evolution and Java's casts). The truth is Paimon 1.3.1's own read
through Flink of each table and of its ``$row_tracking`` system table, latest and at every snapshot,
recorded once in ``flink-1.3.1-reads.json`` (no JVM is needed here). A BLOB table (Paimon 1.4+)
reads its ``.blob`` file's bytes.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlglot import exp

import paimon_sql
from paimon_sql import errors
from tests.fixtures import FIXTURES
from tests.interop.flink.harness import arrow_rows, assert_same_rows

WAREHOUSE = FIXTURES / "paimon-cpp/test/test_data/parquet"
TRUTH = json.loads((WAREHOUSE / "flink-1.3.1-reads.json").read_text())


def _schema_id(table: str, snapshot: int | None) -> int:
    folder = WAREHOUSE / f"{table}.db" / table / "snapshot"
    if snapshot is None:
        snapshot = int((folder / "LATEST").read_text())
    return int(json.loads((folder / f"snapshot-{snapshot}").read_text())["schemaId"])


def _cases() -> list[Any]:
    out = []
    for key, read in sorted(TRUTH["reads"].items()):
        if _schema_id(read["table"], read["snapshot"]) != _schema_id(read["table"], None):
            # Flink's scan.snapshot-id reads an old snapshot in the latest schema; paimon-sql
            # reads it in its own (the interop suite's LATEST_SCHEMA_READS, issue 14)
            continue
        out.append(pytest.param(read, id=key))
    return out


def _read(session: paimon_sql.Session, read: dict[str, Any]) -> tuple[list[str], list[Any]]:
    name = read["table"] + ("$row_tracking" if read["system"] else "")
    node = exp.table_(name, db=read["table"], quoted=True)
    query = exp.select("*").from_(node).sql("duckdb")
    if read["snapshot"] is not None:
        # the time-travel hint of Spark/Flink on a data or system table
        query += f" /*+ OPTIONS('scan.snapshot-id' = '{int(read['snapshot'])}') */"
    return arrow_rows(session.sql(query).to_arrow_table())


@pytest.fixture(scope="module")
def session():
    s = paimon_sql.connect(str(WAREHOUSE))
    yield s
    s.close()


@pytest.mark.parametrize("read", _cases())
def test_reads_like_java(session, read):
    columns, rows = _read(session, read)
    assert columns == read["columns"]
    assert_same_rows(rows, read["rows"], context=f"{read['table']} vs Paimon 1.3.1")


def test_truth_covers_every_version():
    """Every table: latest and every snapshot, plain and $row_tracking (a thin truth fails)."""
    tables = {r["table"] for r in TRUTH["reads"].values()}
    assert len(tables) == 4
    for table in tables:
        folder = WAREHOUSE / f"{table}.db" / table / "snapshot"
        snapshots = len(list(folder.glob("snapshot-*")))
        reads = [r for r in TRUTH["reads"].values() if r["table"] == table]
        failed = [k for k in TRUTH["java_failed"] if k.startswith(table + "$")]
        assert len(reads) + len(failed) == 2 * (snapshots + 1), table
    stitched = TRUTH["reads"]["data_evolution_with_index$row_tracking@None"]["rows"]
    assert [r["_ROW_ID"] for r in stitched] == list(range(6))


def test_row_tracking_needs_the_option(session):
    with pytest.raises(errors.UnsupportedFeatureError, match=r"row-tracking\.enabled"):
        session.sql('SELECT * FROM "pk_09"."pk_09$row_tracking"').fetchall()


def test_blob_table_reads_the_bytes_written(session):
    """The BLOB column f0 (a ``.blob`` file) as the bytes its README lists, with the row ids of
    its range; the full rows at every snapshot are Java 1.4.2's read in ``expected/``."""
    table = "blob_data_evolution_with_dense_stats"
    node = exp.table_(f"{table}$row_tracking", db=table, quoted=True)
    query = exp.select("f0", "f1", "_ROW_ID").from_(node).order_by("_ROW_ID").sql("duckdb")
    assert session.sql(query).fetchall() == [(b"Lily", 2, 0), (b"Alice", 4, 1)]


def test_filters_and_counts_see_stitched_rows(session):
    """A filter on a column of the newer file, a projection of one column, count(*): the rows are
    the stitched ones of Java's read (a file's stats never drop a row-id range)."""
    table = "data_evolution_with_dense_stats"
    java = TRUTH["reads"][f"{table}@None"]["rows"]
    node = exp.table_(table, db=table, quoted=True)
    query = exp.select("f0", "f3").from_(node).where("f3 > 3").sql("duckdb")
    want = sorted((r["f0"], float(r["f3"][1])) for r in java if float(r["f3"][1]) > 3)
    assert sorted(session.sql(query).fetchall()) == want
    counted = session.sql(exp.select("count(*)").from_(node).sql("duckdb")).fetchall()
    assert counted == [(len(java),)]


def test_delta_reads_of_data_evolution_are_refused(session):
    """A delta file may hold only some columns of its rows: a delta read would be wrong."""
    table = "data_evolution_with_dense_stats"
    node = exp.table_(table, db=table, quoted=True)
    query = exp.select("*").from_(node).sql("duckdb")
    hint = " /*+ OPTIONS('incremental-between' = '1,2') */"
    with pytest.raises(errors.UnsupportedFeatureError, match=r"data-evolution\.enabled"):
        session.sql(query + hint).fetchall()
