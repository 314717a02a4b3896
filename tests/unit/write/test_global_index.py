"""The cross-partition bucket slots against Java's BucketAssigner, run record by record.

`_java_assign` follows ``org.apache.paimon.crosspartition.BucketAssigner.assignBucket`` step by
step (a sorted map of bucket -> key count, filtered by the assigner's id); `global_index.slots`
computes the same placement for a whole batch of new keys at once.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from paimon_sql.write import global_index
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


def _placement(session: Any) -> list[tuple[Any, ...]]:
    """Every live key with its partition and bucket, from the whole index (`bootstrap`)."""
    from paimon_sql.catalog import Identifier
    from paimon_sql.sql.statements.dml import key_reader

    table = session.catalog.load_table(Identifier.parse("db.t"))
    con = session.engine.con
    index = global_index.bootstrap(table, key_reader(session), con, "__placement")
    con.register("__placement_parts", index.partitions)
    try:
        rows = con.sql(
            "SELECT i.id, p.__paimon_op_0, i.__paimon_old_bucket::INT FROM __placement i "
            "JOIN __placement_parts p USING (__paimon_old_part) ORDER BY i.id"
        ).fetchall()
    finally:
        con.unregister("__placement_parts")
        con.sql("DROP TABLE __placement")
    return [tuple(r) for r in rows]


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["deduplicate", "partial-update", "first-row"])
def test_a_statement_reading_its_part_of_the_index_routes_and_places_as_the_whole_index(
    tmp_path, monkeypatch, engine
):
    """A statement reads the keys of the partitions it names and its own keys elsewhere
    (`global_index.Scope`), not every key: the same statements on a second warehouse that reads
    the whole index (the filter turned off) leave the same rows (those of the dict model of Java's
    rules) and every key in the same partition and bucket; and the scoped reads return far fewer
    keys than the table holds."""
    import paimon_sql
    from paimon_sql.sql.statements import dml
    from tests.interop import cross_partition as cross

    rng = random.Random(engine)
    parts = [f"p{i}" for i in range(6)]
    load = [(k, parts[k % 3], k, "a") for k in range(150)]
    steps: list[Any] = [load]
    for n in range(14):
        size = rng.choice([1, 1, 2, 5, 12])
        keys = rng.sample(range(220), size)
        steps.append([(k, rng.choice(parts), n, rng.choice([None, f"s{n}"])) for k in keys])
    read: list[int] = []
    splits: list[int] = []  # the splits each statement read
    reader = dml.key_reader

    class Counting:
        def __init__(self, inner: Any) -> None:
            self.inner = inner

        def __call__(self, plan: Any, columns: Any, filters: Any = ()) -> Any:
            splits[-1] += len(plan.splits)
            for batch in self.inner(plan, columns, filters):
                read[-1] += batch.num_rows
                yield batch

        def holding(self, plan: Any, predicate: Any) -> Any:
            return self.inner.holding(plan, predicate)

    def counting(ctx: Any) -> Any:
        return Counting(reader(ctx))

    placements, rows = [], []
    for scoped in (True, False):
        if not scoped:
            monkeypatch.setattr(global_index, "SCOPED_KEYS", -1)
            monkeypatch.setattr(global_index, "SCOPED_COMPOSITE_KEYS", -1)
        monkeypatch.setattr(dml, "key_reader", counting)
        session = paimon_sql.connect(tmp_path / f"wh-{scoped}", create=True)
        session.sql("CREATE DATABASE db")
        session.sql(
            cross.ddl(engine).replace("{t}", "db.t").replace("'2'", "'4'")  # 4 keys a bucket
        )
        read.clear()
        splits.clear()
        for step in steps:
            read.append(0)
            splits.append(0)
            session.sql(cross.statement(step, "db.t"))
        monkeypatch.setattr(dml, "key_reader", reader)
        if scoped:
            # one-row statements read one partition (~1/6 of the keys) and one key elsewhere,
            # skipping the other partitions' buckets whose key ranges do not hold it
            assert min(read[1:]) < 60, read
            scoped_splits = splits[1:]
        else:
            assert min(read[1:]) >= 150, read
            one_row = [i for i, step in enumerate(steps[1:]) if len(step) == 1]
            assert one_row
            fewer = [scoped_splits[i] < splits[1 + i] for i in one_row]
            assert all(fewer), (scoped_splits, splits[1:])
        placements.append(_placement(session))
        rows.append(session.sql("SELECT id, dt, v, s FROM db.t ORDER BY id").fetchall())
        session.close()
    assert placements[0] == placements[1]
    assert rows[0] == rows[1]
    assert rows[0] == sorted(tuple(r.values()) for r in cross.model(engine, steps))
    assert len({b for _, _, b in placements[0]}) > 3  # buckets filled up and new ones opened


@pytest.mark.parametrize("file_format", ["parquet", "orc"])
def test_a_one_row_upsert_merges_only_the_splits_holding_its_key(
    tmp_path, monkeypatch, file_format
):
    """Outside the partition a statement names, the bootstrap merges only the splits with a file
    holding one of its keys (one search of their files, `SplitReader.holding`): a key moved from
    one partition to another reads the target partition and the one split that held the key, not
    a split of each of the five other partitions. ORC files are not searched (DuckDB cannot scan
    them here): there the planner's key-range pruning alone decides, as before (the buckets fill
    with keys in arrival order, so it leaves one split per partition). Either way the key moves
    and nothing else changes."""
    import paimon_sql
    from paimon_sql.sql.statements import dml

    reader = dml.key_reader
    merged: list[tuple[bytes, int]] = []

    class Recording:
        def __init__(self, inner: Any) -> None:
            self.inner = inner

        def __call__(self, plan: Any, columns: Any, filters: Any = ()) -> Any:
            merged.extend((s.partition_bytes, s.bucket) for s in plan.splits)
            return self.inner(plan, columns, filters)

        def holding(self, plan: Any, predicate: Any) -> Any:
            return self.inner.holding(plan, predicate)

    monkeypatch.setattr(dml, "key_reader", lambda ctx: Recording(reader(ctx)))
    session = paimon_sql.connect(tmp_path, create=True)
    session.sql("CREATE DATABASE db")
    session.sql(
        "CREATE TABLE db.t (id INT NOT NULL, p INT NOT NULL, v STRING, "
        "PRIMARY KEY (id) NOT ENFORCED) PARTITIONED BY (p) WITH ('bucket' = '-1', "
        f"'dynamic-bucket.target-row-num' = '25', 'file.format' = '{file_format}')"
    )
    session.sql("INSERT INTO db.t SELECT i, i % 6, 'v' || i FROM range(600) r(i)")
    ((home,),) = session.sql("SELECT p FROM db.t WHERE id = 7").fetchall()
    merged.clear()
    session.sql("INSERT INTO db.t VALUES (7, 4, 'moved')")
    in_target = [m for m in merged if m[0] == merged[0][0]]  # the named partition comes first
    outside = {m for m in merged if m not in in_target}
    assert home == 1
    assert len(outside) == (1 if file_format == "parquet" else 5), merged
    assert len({m[0] for m in outside}) == len(outside)
    assert session.sql("SELECT p, v FROM db.t WHERE id = 7").fetchall() == [(4, "moved")]
    rows = session.sql("SELECT count(*), count(DISTINCT id) FROM db.t").fetchall()
    assert rows == [(600, 600)]
    session.close()
