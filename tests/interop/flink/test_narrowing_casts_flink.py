"""``ALTER TABLE MODIFY`` to a narrower type, run by Apache Paimon 1.3.1 (Flink): read like Java.

Java's read casts an old file's values to the column's new type with Paimon's cast rules
(``org.apache.paimon.casting``): BIGINT to INT wraps (3000000000 reads -1294967296), TIMESTAMP(6)
to TIMESTAMP(3) truncates, a string to CHAR(n)/VARCHAR(n) is cut to n characters and a CHAR
padded. paimon-sql's read must give the same rows, its filters on the changed column must see the
cast values (a file's statistics of the old values must not prune it), and a compaction or DELETE
by paimon-sql must leave the rows Flink then reads as the same cast values. Flink's reads are the
expected values; nothing here writes one down (tests/unit/read/test_evolve_casts.py checks the
cast expressions against values from such a run).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

import paimon_sql
from tests.interop.flink.harness import arrow_rows, assert_same_rows

if TYPE_CHECKING:
    from pathlib import Path

    from tests.interop.flink.harness import FlinkOracle

pytestmark = [pytest.mark.interop, pytest.mark.slow]

# one column per change: BIGINT->INT, TIMESTAMP(6)->TIMESTAMP(3), VARCHAR(10)->CHAR(3),
# VARCHAR(10)->VARCHAR(3), CHAR(5)->CHAR(3)
_CREATE = (
    "CREATE TABLE t (id INT, a BIGINT, b TIMESTAMP(6), c VARCHAR(10), d VARCHAR(10), e CHAR(5)) "
    "WITH ('file.format' = '{fmt}')"
)
# one INSERT (one data file) a row: the statistics of row 1's file exclude ``a < 0``,
# ``b = .123`` and ``c``/``d = 'abc'`` (3000000000, .123456, 'abcdef'), which its cast values match,
# so a read that pruned old files by their statistics would lose it
_OLD_ROWS = (
    "INSERT INTO t VALUES (1, CAST(3000000000 AS BIGINT), TIMESTAMP '2024-01-01 00:00:00.123456', "
    "'abcdef', 'abcdef', CAST('abcde' AS CHAR(5)))",
    "INSERT INTO t VALUES (2, CAST(5 AS BIGINT), TIMESTAMP '1969-12-31 23:59:59.9995', 'ab', 'ab', "
    "CAST('ab' AS CHAR(5)))",
    "INSERT INTO t VALUES (3, CAST(-3000000000 AS BIGINT), TIMESTAMP '2024-01-01 00:00:00.1239', "
    "'abc', 'xyz', CAST('abc' AS CHAR(5)))",
)
_ALTERS = (
    "ALTER TABLE t MODIFY a INT",
    "ALTER TABLE t MODIFY b TIMESTAMP(3)",
    "ALTER TABLE t MODIFY c CHAR(3)",
    "ALTER TABLE t MODIFY d VARCHAR(3)",
    "ALTER TABLE t MODIFY e CHAR(3)",
)
_NEW_ROWS = (
    "INSERT INTO t VALUES (4, -7, TIMESTAMP '2024-01-01 00:00:00.123', 'abc', 'abc', "
    "CAST('abc' AS CHAR(3)))"
)
# filters on the changed columns (Flink's spelling is also DuckDB's)
_WHERE = (
    "a < 0",
    "a > 0",
    "b = TIMESTAMP '2024-01-01 00:00:00.123'",
    "b < TIMESTAMP '1970-01-01 00:00:00'",
    "c = 'abc'",
    "d = 'abc'",
    "e = 'abc'",
)


def _ours(warehouse: Path, query: str) -> list[dict[str, object]]:
    session = paimon_sql.connect(warehouse)
    try:
        return arrow_rows(session.sql(query.replace(" FROM t", " FROM db.t")).to_arrow_table())[1]
    finally:
        session.close()


def _narrowed_table(flink: FlinkOracle, warehouse: Path, fmt: str) -> None:
    flink.run(warehouse, _CREATE.format(fmt=fmt), *_OLD_ROWS, *_ALTERS, _NEW_ROWS)


def _assert_reads_like_flink(flink: FlinkOracle, warehouse: Path, label: str) -> None:
    queries = [f"SELECT id FROM t WHERE {w}" for w in _WHERE]  # noqa: S608 - constants
    for query in ["SELECT * FROM t", *queries]:
        theirs = flink.query(warehouse, query)[1]
        assert_same_rows(_ours(warehouse, query), theirs, context=f"{label}: {query}")


@pytest.mark.parametrize("fmt", ["parquet", "orc", "avro"])
def test_narrowed_columns_read_like_flink(flink: FlinkOracle, tmp_path: Path, fmt: str):
    warehouse = tmp_path / "warehouse"
    _narrowed_table(flink, warehouse, fmt)
    assert len(flink.query(warehouse, "SELECT * FROM t WHERE a < 0")[1]) == 2  # a wrapped value
    _assert_reads_like_flink(flink, warehouse, fmt)


def test_compaction_and_delete_write_the_cast_values(flink: FlinkOracle, tmp_path: Path):
    """Our compaction rewrites the old file in the new schema: Flink reads the same cast values
    from it; our DELETE on a changed column deletes by the cast value."""
    warehouse = tmp_path / "warehouse"
    _narrowed_table(flink, warehouse, "parquet")
    before = flink.query(warehouse, "SELECT * FROM t")[1]
    session = paimon_sql.connect(warehouse)
    try:
        session.sql("CALL sys.compact(table => 'db.t')")
        session.sql("DELETE FROM db.t WHERE d = 'abc'")  # the old 'abcdef' reads 'abc'
    finally:
        session.close()
    after = flink.query(warehouse, "SELECT * FROM t")[1]
    assert len(after) == len(before) - 2
    assert_same_rows(after, [r for r in before if r["d"] != "abc"], context="Flink after ours")
    _assert_reads_like_flink(flink, warehouse, "after compaction and DELETE")


def test_update_rewrites_the_old_rows_cast(flink: FlinkOracle, tmp_path: Path):
    """Our UPDATE, matching by the cast value, rewrites the old files' rows with their cast values
    (no compaction first): Flink reads the rows it read before, the matched ones updated.

    Avro, not ORC: Java reads a CHAR of an ORC file right-trimmed (``_orc_chars``), so there a
    rewritten row's padded CHAR(3) ``'ab '`` reads ``'ab'``, in Flink as in paimon-sql.
    """
    warehouse = tmp_path / "warehouse"
    _narrowed_table(flink, warehouse, "avro")
    before = flink.query(warehouse, "SELECT * FROM t")[1]
    session = paimon_sql.connect(warehouse)
    try:
        session.sql("UPDATE db.t SET id = id + 10 WHERE a < 0")  # the old 3000000000 reads < 0
    finally:
        session.close()
    expected = [{**r, "id": r["id"] + 10} if r["a"] < 0 else r for r in before]
    assert expected != before
    assert_same_rows(flink.query(warehouse, "SELECT * FROM t")[1], expected, context="Flink")
    _assert_reads_like_flink(flink, warehouse, "after UPDATE")
