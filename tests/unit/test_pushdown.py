"""Filters and LIMIT reach planning: proven by deleting the files a correct plan never opens.

No mocks: a copy of a Java-written table loses the data files of every other partition (or split); a
read that opened them would fail with DataFileNotFoundError.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

import paimon_sql
from paimon_sql.errors import DataFileNotFoundError
from tests.fixtures import FIXTURES

PARQUET = FIXTURES / "paimon-cpp/test/test_data/parquet"


class Installed:
    """The plain-DuckDB path: paimon_sql.install() and the streaming source protocol."""

    def __init__(self, warehouse: Path) -> None:
        self.con = duckdb.connect()
        self.session = paimon_sql.install(self.con, warehouse)

    def sql(self, text: str):
        return self.session.relation(lambda con: con.sql(text))

    def plan(self, name: str):
        ident = paimon_sql.Identifier(*name.split("."))
        return self.session.engine.view_source(ident).last_plan


class Inlined:
    """session.sql(): the planned merge SQL inlined into the statement."""

    def __init__(self, warehouse: Path) -> None:
        self.session = paimon_sql.connect(warehouse)

    def sql(self, text: str):
        return self.session.sql(text)

    def plan(self, name: str):
        return self.session.last_plan(name)


PATHS = pytest.mark.parametrize("path", [Inlined, Installed], ids=["inlined", "installed"])


def _copy(tmp_path: Path, name: str) -> Path:
    warehouse = tmp_path / "wh"
    shutil.copytree(PARQUET / f"{name}.db", warehouse / f"{name}.db")
    return warehouse


@PATHS
def test_partition_filter_opens_only_that_partition(tmp_path, path):
    warehouse = _copy(tmp_path, "pk_table_with_mor")
    table_dir = warehouse / "pk_table_with_mor.db/pk_table_with_mor"
    for data in (table_dir / "p0=1").rglob("*.parquet"):
        data.unlink()
    session = path(warehouse)
    # Columns by the latest schema (schema-7 swapped the names k0/k1 and s0/s1 and narrowed v0 to
    # INT).
    query = 'SELECT k1, k0, s1 FROM "pk_table_with_mor"."pk_table_with_mor"'
    rows = session.sql(query + " WHERE p0 = 0 AND p1 = 1").fetchall()
    assert rows == [(0, 1, "zoo")]
    with pytest.raises(DataFileNotFoundError, match="p0=1"):
        session.sql(query).fetchall()


@PATHS
def test_plan_records_partition_pruning(path):
    session = path(PARQUET)
    rel = session.sql('SELECT * FROM "pk_table_with_mor"."pk_table_with_mor" WHERE p0 = 1')
    assert len(rel.fetchall()) == 1
    plan = session.plan("pk_table_with_mor.pk_table_with_mor")
    assert plan.stats.files_pruned_partition > 0
    assert {s.partition for s in plan.splits} == {(1, 0)}


@PATHS
def test_bucket_filter_prunes_buckets(path):
    session = path(FIXTURES / "generated-paimon-java-0.9/warehouse")
    assert session.sql("SELECT id, name FROM db.pk_orc_2b WHERE id = 3").fetchall() == [(3, "c")]
    plan = session.plan("db.pk_orc_2b")
    assert plan.stats.files_pruned_bucket > 0
    assert len({s.bucket for s in plan.splits}) == 1


def test_limit_reads_only_the_first_split(tmp_path):
    # The streaming source: splits are read one after another, so LIMIT stops in the first one.
    warehouse = _copy(tmp_path, "pk_table_with_mor")
    installed = Installed(warehouse)
    session = installed.session
    table = session.table("pk_table_with_mor.pk_table_with_mor")
    from paimon_sql.plan.scan import data_file_path, plan_scan

    plan = plan_scan(table, table.latest_snapshot())
    assert len(plan.splits) >= 3
    for split in plan.splits[2:]:
        for f in split.files:
            Path(data_file_path(plan, split, f)).unlink()
    rows = installed.sql('SELECT * FROM "pk_table_with_mor"."pk_table_with_mor" LIMIT 1').fetchall()
    assert len(rows) == 1
    with pytest.raises(DataFileNotFoundError):
        installed.sql('SELECT count(*) FROM "pk_table_with_mor"."pk_table_with_mor"').fetchall()


@PATHS
def test_non_key_filter_is_applied_after_the_merge(path):
    # pk_table_with_mor: key (0,0,0,0) was 'apple' v0=10.0 and became v0=110.0; a filter on the old
    # value must not resurrect the old version. (Latest schema: v0 is INT, the apple column is s1.)
    session = path(PARQUET)
    old = 'SELECT * FROM "pk_table_with_mor"."pk_table_with_mor" WHERE v0 = 10'
    new = 'SELECT s1 FROM "pk_table_with_mor"."pk_table_with_mor" WHERE v0 = 110'
    assert session.sql(old).fetchall() == []
    assert session.sql(new).fetchall() == [("apple",)]
