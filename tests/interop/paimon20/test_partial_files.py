"""Data files holding only some columns (``_WRITE_COLS``, written by Paimon's data-evolution
tables) read as Java 1.4 reads them, at every snapshot.

Java's batch writer gives such files new row-id ranges (their missing columns read as NULL); files
sharing one range, stitched column-wise, are checked on paimon-cpp's Java-written tables in
``tests/acceptance/test_row_tracking.py``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

import paimon_sql
from tests.interop.flink.harness import arrow_rows, assert_same_rows

if TYPE_CHECKING:
    from pathlib import Path

    from tests.interop.paimon20.harness import JavaApiOracle

pytestmark = [pytest.mark.interop, pytest.mark.slow]


def test_partial_column_files_read_like_java(java_api: JavaApiOracle, tmp_path: Path):
    warehouse = tmp_path / "warehouse"
    options = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
    fields = [("id", "INT"), ("a", "STRING"), ("b", "INT")]
    java_api.create(warehouse, "de", fields, options=options)
    java_api.write(warehouse, "de", [[1, "x", 10], [2, "y", 20]])
    java_api.write(warehouse, "de", [[1, 99]], write_cols=["id", "b"])
    java_api.write(warehouse, "de", [["z"]], write_cols=["a"])
    session = paimon_sql.connect(warehouse)
    try:
        snapshots = [s["id"] for s in java_api.snapshots(warehouse, "de")]
        assert len(snapshots) == 3
        for snapshot in [*snapshots, None]:
            java_columns, java_rows = java_api.read(warehouse, "de", snapshot=snapshot)
            if snapshot is None:
                table = session.sql('SELECT * FROM "db"."de"').to_arrow_table()
            else:
                table = session.scan("db.de", snapshot=snapshot).to_arrow_table()
            columns, rows = arrow_rows(table)
            assert columns == java_columns
            assert_same_rows(rows, java_rows, context=f"de @ {snapshot or 'latest'}")
    finally:
        session.close()
