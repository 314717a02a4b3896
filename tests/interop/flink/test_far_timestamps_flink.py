"""TIMESTAMP values outside 1677-2262 in ORC tables, against Apache Paimon 1.3.1 (Flink).

``9999-12-31 23:59:59.999999`` marks the open end of a row's validity in slowly changing
dimensions, and ``0001-01-01`` its unknown start. pyarrow's ORC reader fails on a whole file
holding one (it returns nanoseconds); paimon-sql decodes those files' TIMESTAMP columns itself
(`paimon_sql.io.orc_timestamps.read_wide_timestamps`). Flink writes such values, paimon-sql reads
what Flink reads; paimon-sql writes them and Flink reads what paimon-sql reads. A TIMESTAMP(9)
column in range keeps its nanoseconds beside a far TIMESTAMP(6) column of the same file.

Apache Paimon's own ORC round trip moves a TIMESTAMP before 1582-10-15 by the Julian/Gregorian
difference: its writer counts seconds in Java's hybrid calendar (``java.sql.Timestamp``), its reader
in the proleptic Gregorian one, so a ``0001-01-01`` Flink inserts is read back by Flink as
``0000-12-30``. paimon-sql reads what Java reads from Java's files; its own files hold the proleptic
instant, which Java reads back unchanged.
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

_DDL = (
    "CREATE TABLE {db}t (id INT, valid_from TIMESTAMP(3), valid_to TIMESTAMP(6), "
    "changed TIMESTAMP(9), seen TIMESTAMP_LTZ(6)) WITH ('file.format' = 'orc')"
)
_ROWS = [
    "(1, TIMESTAMP '0001-01-01 00:00:00.000', TIMESTAMP '9999-12-31 23:59:59.999999',"
    " TIMESTAMP '2024-05-06 07:08:09.123456789', {ltz_far})",
    "(2, TIMESTAMP '1969-12-31 23:59:59.999', TIMESTAMP '2262-04-12 00:00:00.000001',"
    " TIMESTAMP '1970-01-01 00:00:00.000000001', {ltz_near})",
    "(3, {nulls})",
    "(4, TIMESTAMP '1677-09-21 00:12:43.145', TIMESTAMP '1500-02-28 12:00:00.5',"
    " TIMESTAMP '1969-12-31 23:59:59.999', {ltz_near})",
]


def _values(flink: bool) -> str:
    if flink:
        far = "CAST(TIMESTAMP '9999-12-31 23:59:59.999999' AS TIMESTAMP_LTZ(6))"
        near = "CAST(TIMESTAMP '1969-12-31 23:59:59.5' AS TIMESTAMP_LTZ(6))"
    else:
        far = "TIMESTAMPTZ '9999-12-31 23:59:59.999999+00'"
        near = "TIMESTAMPTZ '1969-12-31 23:59:59.5+00'"
    nulls = (
        "CAST(NULL AS TIMESTAMP(3)), CAST(NULL AS TIMESTAMP(6)), CAST(NULL AS TIMESTAMP(9)),"
        " CAST(NULL AS TIMESTAMP_LTZ(6))"
        if flink
        else "NULL, NULL, NULL, NULL"
    )
    return ", ".join(r.format(ltz_far=far, ltz_near=near, nulls=nulls) for r in _ROWS)


def test_we_read_the_far_timestamps_flink_wrote(flink: FlinkOracle, tmp_path: Path):
    warehouse = tmp_path / "warehouse"
    flink.run(warehouse, _DDL.format(db=""), f"INSERT INTO t VALUES {_values(flink=True)}")  # noqa: S608
    theirs = flink.read(warehouse, "t")[1]
    assert len(theirs) == 4
    assert_same_rows(our_rows(warehouse), theirs, context="Flink wrote, both read")


def test_flink_reads_the_far_timestamps_we_wrote(flink: FlinkOracle, tmp_path: Path):
    warehouse = tmp_path / "warehouse"
    session = paimon_sql.connect(warehouse, create=True)
    try:
        session.sql("CREATE DATABASE db")
        session.sql(_DDL.format(db="db."))
        session.sql(f"INSERT INTO db.t VALUES {_values(flink=False)}")  # noqa: S608
    finally:
        session.close()
    ours = our_rows(warehouse)
    far = next(r for r in ours if r["id"] == 1)
    assert far["valid_to"] == ["timestamp", "9999-12-31T23:59:59.999999000"]
    assert_same_rows(flink.read(warehouse, "t")[1], ours, context="we wrote, both read")
