"""What compaction asks of the planner (`plan_scan(mode=, include_level0=, buckets=)`) and of the
one deletion-vector index encoder (`encode_index`)."""

from __future__ import annotations

import pytest
from pyroaring import BitMap

import paimon_sql
from paimon_sql.format.deletion_vector import decode_vector, encode_index, encode_index_file
from paimon_sql.plan.scan import ReadMode, plan_scan


@pytest.fixture
def session(tmp_path):
    s = paimon_sql.connect(tmp_path / "wh", create=True)
    s.sql("CREATE DATABASE db")
    return s


def _dv_table(session):
    session.sql(
        "CREATE TABLE db.t (id INT, v STRING) WITH ('bucket' = '2', 'primary-key' = 'id', "
        "'deletion-vectors.enabled' = 'true', 'write-only' = 'true')"
    )
    session.sql("INSERT INTO db.t VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')")
    return session.table("db.t")


def test_batch_reads_hide_level0_compaction_plans_include_it(session):
    table = _dv_table(session)
    snapshot = table.latest_snapshot()
    batch = plan_scan(table, snapshot)
    assert batch.mode is ReadMode.DELETION_VECTORS
    assert batch.splits == ()
    assert batch.stats.files_hidden_level0 == 2
    full = plan_scan(table, snapshot, mode=ReadMode.MERGE, include_level0=True)
    assert full.mode is ReadMode.MERGE
    assert {f.level for s in full.splits for f in s.files} == {0}
    assert {s.bucket for s in full.splits} == {0, 1}
    assert {s.total_buckets for s in full.splits} == {2}


def test_buckets_limit_the_plan(session):
    table = _dv_table(session)
    snapshot = table.latest_snapshot()
    (part,) = {s.partition_bytes for s in plan_scan(table, snapshot, include_level0=True).splits}
    one = plan_scan(table, snapshot, include_level0=True, buckets={(part, 1)})
    assert {s.bucket for s in one.splits} == {1}
    assert one.stats.files_pruned_bucket == 1


def test_a_mode_that_does_not_fit_the_table_is_refused(session):
    session.sql("CREATE TABLE db.a (id INT)")
    table = session.table("db.a")
    with pytest.raises(ValueError, match="does not fit"):
        plan_scan(table, None, mode=ReadMode.MERGE)


def test_encode_index_ranges_are_what_the_index_manifest_records():
    bitmaps = [BitMap([2, 3]), BitMap(range(1000)), BitMap([7])]
    blob, ranges = encode_index(bitmaps)
    assert blob == encode_index_file(bitmaps)
    for bitmap, (offset, length) in zip(bitmaps, ranges, strict=True):
        got = decode_vector(blob, offset, "f", length=length, cardinality=len(bitmap))
        assert got == bitmap
    assert ranges[0][0] == 1
    assert ranges[-1][0] + 8 + ranges[-1][1] == len(blob)
