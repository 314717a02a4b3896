"""Filters and LIMIT reach planning: proven by deleting the files a correct plan never opens.

No mocks: a copy of a Java-written table loses the data files of every other partition (or split); a read that
opened them would fail with DataFileNotFoundError.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import paimon_sql
from paimon_sql.errors import DataFileNotFoundError
from tests.fixtures import FIXTURES

PARQUET = FIXTURES / "paimon-cpp/test/test_data/parquet"


def _copy(tmp_path: Path, name: str) -> Path:
    warehouse = tmp_path / "wh"
    shutil.copytree(PARQUET / f"{name}.db", warehouse / f"{name}.db")
    return warehouse


def test_partition_filter_opens_only_that_partition(tmp_path):
    warehouse = _copy(tmp_path, "pk_table_with_mor")
    table_dir = warehouse / "pk_table_with_mor.db/pk_table_with_mor"
    for data in (table_dir / "p0=1").rglob("*.parquet"):
        data.unlink()
    session = paimon_sql.connect(warehouse)
    # Columns by the latest schema (schema-7 swapped the names k0/k1 and s0/s1 and narrowed v0 to INT).
    query = 'SELECT k1, k0, s1 FROM "pk_table_with_mor"."pk_table_with_mor"'
    rows = session.sql(query + " WHERE p0 = 0 AND p1 = 1").fetchall()
    assert rows == [(0, 1, "zoo")]
    with pytest.raises(DataFileNotFoundError, match="p0=1"):
        session.sql(query).fetchall()


def test_plan_records_partition_pruning(tmp_path):
    session = paimon_sql.connect(PARQUET)
    rel = session.sql('SELECT * FROM "pk_table_with_mor"."pk_table_with_mor" WHERE p0 = 1')
    assert len(rel.fetchall()) == 1
    source = session._views[paimon_sql.Identifier("pk_table_with_mor", "pk_table_with_mor")][0]
    stats = source.last_plan.stats
    assert stats.files_pruned_partition > 0
    assert {s.partition for s in source.last_plan.splits} == {(1, 0)}


def test_bucket_filter_prunes_buckets():
    warehouse = FIXTURES / "generated-paimon-java-0.9/warehouse"
    session = paimon_sql.connect(warehouse)
    assert session.sql("SELECT id, name FROM db.pk_orc_2b WHERE id = 3").fetchall() == [(3, "c")]
    source = session._views[paimon_sql.Identifier("db", "pk_orc_2b")][0]
    assert source.last_plan.stats.files_pruned_bucket > 0
    assert len({s.bucket for s in source.last_plan.splits}) == 1


def test_limit_reads_only_the_first_split(tmp_path):
    warehouse = _copy(tmp_path, "pk_table_with_mor")
    session = paimon_sql.connect(warehouse)
    table = session.table("pk_table_with_mor.pk_table_with_mor")
    from paimon_sql.plan.scan import plan_scan
    from paimon_sql.sql._reader import data_file_path

    plan = plan_scan(table, table.latest_snapshot())
    assert len(plan.splits) >= 3
    for split in plan.splits[2:]:
        for f in split.files:
            Path(data_file_path(plan, split, f)).unlink()
    rows = session.sql('SELECT * FROM "pk_table_with_mor"."pk_table_with_mor" LIMIT 1').fetchall()
    assert len(rows) == 1
    with pytest.raises(DataFileNotFoundError):
        session.sql('SELECT count(*) FROM "pk_table_with_mor"."pk_table_with_mor"').fetchall()


def test_non_key_filter_is_applied_after_the_merge():
    # pk_table_with_mor: key (0,0,0,0) was 'apple' v0=10.0 and became v0=110.0; a filter on the old value must not
    # resurrect the old version. (Latest schema: v0 is INT, the apple column is s1.)
    session = paimon_sql.connect(PARQUET)
    t = '"pk_table_with_mor"."pk_table_with_mor"'
    assert session.sql(f"SELECT * FROM {t} WHERE v0 = 10").fetchall() == []
    assert session.sql(f"SELECT s1 FROM {t} WHERE v0 = 110").fetchall() == [("apple",)]
