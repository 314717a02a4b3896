"""Data files holding only some columns (``_WRITE_COLS``, written by Paimon's data-evolution
tables) are refused by name: read as whole rows they would give NULLs where Java merges."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

import paimon_sql
from paimon_sql.errors import UnsupportedFeatureError

if TYPE_CHECKING:
    from pathlib import Path

    from tests.interop.paimon20.harness import JavaApiOracle

pytestmark = [pytest.mark.interop, pytest.mark.slow]


def test_partial_column_file_is_refused_naming_it(java_api: JavaApiOracle, tmp_path: Path):
    warehouse = tmp_path / "warehouse"
    options = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
    fields = [("id", "INT"), ("a", "STRING"), ("b", "INT")]
    java_api.create(warehouse, "de", fields, options=options)
    java_api.write(warehouse, "de", [[1, "x", 10], [2, "y", 20]])
    session = paimon_sql.connect(warehouse)
    try:
        before = session.sql('SELECT * FROM "db"."de" ORDER BY id').fetchall()
        assert before == [(1, "x", 10), (2, "y", 20)]
        java_api.write(warehouse, "de", [[1, 99]], write_cols=["id", "b"])
        with pytest.raises(UnsupportedFeatureError, match=r"_WRITE_COLS.*missing: a"):
            session.sql('SELECT * FROM "db"."de"').fetchall()
        # the snapshot before the partial write still reads
        assert sorted(session.scan("db.de", snapshot=1).fetchall()) == before
    finally:
        session.close()
