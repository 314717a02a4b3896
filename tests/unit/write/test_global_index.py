"""The cross-partition bucket slots against Java's BucketAssigner, run record by record.

`_java_assign` follows ``org.apache.paimon.crosspartition.BucketAssigner.assignBucket`` step by
step (a sorted map of bucket -> key count, filtered by the assigner's id); `global_index.slots`
computes the same placement for a whole batch of new keys at once.
"""

from __future__ import annotations

import random

import pytest

from paimon_sql.write.global_index import slots


def _java_assign(counts: dict[int, int], assign_id: int, n: int, target: int) -> int:
    for bucket in sorted(counts):
        if bucket % n == assign_id and counts[bucket] < target:
            counts[bucket] += 1
            return bucket
    i = 0
    while True:
        if i % n == assign_id and i not in counts:
            counts[i] = 1
            return i
        i += 1


def _from_slots(counts: dict[int, int], assign_id: int, n: int, fresh: int, target: int):
    placed = []
    for bucket, start, stop in slots(counts, assign_id, n, fresh, target):
        placed += [bucket] * (min(stop, fresh) - start)
    return placed[:fresh]


@pytest.mark.parametrize("seed", range(40))
def test_slots_place_new_keys_as_javas_bucket_assigner(seed):
    rng = random.Random(seed)
    n = rng.choice([1, 1, 2, 3])
    target = rng.randint(1, 5)
    assign_id = rng.randrange(n)
    # a map as bootstrap and earlier moves leave it: some full, some not, some emptied, gaps
    counts = {b: rng.randint(0, target) for b in rng.sample(range(12), rng.randint(0, 8))}
    fresh = rng.randint(0, 25)
    java_counts = dict(counts)
    expected = [_java_assign(java_counts, assign_id, n, target) for _ in range(fresh)]
    assert _from_slots(counts, assign_id, n, fresh, target) == expected


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["deduplicate", "partial-update"])
def test_ids_beyond_one_byte_route_as_javas_rules(tmp_path, engine):
    """The index stores partition ids and buckets in the narrowest type holding them
    (`global_index.id_type`): 300 partitions and a partition of 300 buckets need two bytes. Keys
    moved from and to those partitions and buckets leave the rows the dict model of Java's rules
    gives (`tests.interop.cross_partition.model`), and the index's DuckDB table is dropped after
    each statement."""
    import paimon_sql
    from tests.interop import cross_partition as cross

    steps = [
        [(k, f"p{k % 300}", k, "a") for k in range(600)],  # 300 partitions of one bucket
        [(k, "big", k, "b") for k in range(1000, 1600)],  # 300 buckets of 2 keys
        [(599, "big", 1, None), (1599, "p0", 2, "c"), (1000, "p299", 3, None), (5, "big", 4, "d")],
    ]
    session = paimon_sql.connect(tmp_path / "wh", create=True)
    try:
        session.sql("CREATE DATABASE db")
        session.sql(cross.ddl(engine).replace("{t}", "db.t"))
        for step in steps:
            session.sql(cross.statement(step, "db.t"))
        leftovers = session.engine.con.sql(
            "SELECT count(*) FROM duckdb_tables() WHERE table_name LIKE '__paimon_index%'"
        ).fetchall()
        assert leftovers == [(0,)]
        got = session.sql("SELECT id, dt, v, s FROM db.t ORDER BY id").fetchall()
        (buckets,) = session.sql(
            "SELECT count(DISTINCT bucket) FROM db.\"t$files\" WHERE partition = '[big]'"
        ).fetchall()[0]
    finally:
        session.close()
    want = sorted(tuple(r.values()) for r in cross.model(engine, steps))
    assert got == want
    assert buckets == 300
