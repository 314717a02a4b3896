# ruff: noqa: S608 - the statements are test inputs built from our own names and values
"""INSERT OVERWRITE of a dynamic-bucket table leaves the HASH index Apache Paimon 1.3.1 leaves.

Java's overwrite deletes every index file of the partitions it replaces and writes the keys it
writes from scratch (``OverwriteChangesProvider``): afterwards a partition's HASH files hold
exactly its live keys. paimon-sql once kept the replaced partition's old HASH files (and loaded
their keys when it assigned the overwrite's buckets), so the index still named every key the
overwrite had dropped: buckets looked full of ghosts, and a later writer (ours or Java's) opened new
buckets for keys that had room.

The same statements run in Flink on one warehouse and in paimon-sql on another; the index of
each partition (which hashes, in which bucket) must be the same after every step. Then Flink
upserts into paimon-sql's table and both read it back identically, every key once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

import paimon_sql
from tests.interop.flink.harness import arrow_rows, assert_same_rows, hash_index

if TYPE_CHECKING:
    from pathlib import Path

    from tests.interop.flink.harness import FlinkOracle

pytestmark = [pytest.mark.interop, pytest.mark.slow]

DDL = (
    "CREATE TABLE {db}t (p INT, id INT, v INT, PRIMARY KEY (p, id) NOT ENFORCED) "
    "PARTITIONED BY (p) WITH ('bucket' = '-1', 'dynamic-bucket.target-row-num' = '30')"
)


def _values(p: int, ids: range, v: int) -> str:
    return ", ".join(f"({p}, {i}, {v})" for i in ids)


#: (statement in both dialects, what it does); ``{db}`` is ``db.`` for paimon-sql, empty for Flink.
STEPS = [
    f"INSERT INTO {{db}}t VALUES {_values(1, range(100), 0)}, {_values(2, range(50), 0)}",
    # static partition: p = 1 replaced by 5 keys (all in its first bucket before)
    f"INSERT OVERWRITE {{db}}t PARTITION (p = 1) VALUES {', '.join(f'({i}, 1)' for i in range(5))}",
    # dynamic partition overwrite: p = 2 replaced by 3 new keys, p = 1 kept
    f"INSERT OVERWRITE {{db}}t VALUES {_values(2, range(1000, 1003), 1)}",
    # new keys into the replaced partition: they fill the buckets the overwrite left
    f"INSERT INTO {{db}}t VALUES {_values(1, range(40), 2)}",
]


def test_overwrite_leaves_javas_hash_index(flink: FlinkOracle, tmp_path: Path):
    java, ours = tmp_path / "java", tmp_path / "ours"
    ours.mkdir()
    flink.run(java, DDL.format(db=""))
    session = paimon_sql.connect(ours)
    session.sql("CREATE DATABASE db")
    session.sql(DDL.format(db="db."))
    session.close()
    for step in STEPS:
        flink.run(java, step.format(db=""))
        session = paimon_sql.connect(ours)
        session.sql(step.format(db="db."))
        session.close()
        assert hash_index(ours) == hash_index(java), f"after: {step[:60]}"
    # the first overwrite's partition holds its 40 keys in two buckets, as Java assigned them
    assert sorted(len(h) for (p, _), h in hash_index(java).items() if p == 1) == [10, 30]

    flink.run(ours, f"INSERT INTO t VALUES {_values(1, range(35, 60), 3)}")
    _, java_read = flink.query(ours, "SELECT p, id, v FROM t")
    session = paimon_sql.connect(ours)
    _, ours_read = arrow_rows(session.sql("SELECT p, id, v FROM db.t").to_arrow_table())
    session.close()
    assert len(java_read) == 60 + 3
    assert sorted((r["p"], r["id"]) for r in java_read) == sorted(
        [(1, i) for i in range(60)] + [(2, i) for i in range(1000, 1003)]
    )
    assert_same_rows(ours_read, java_read, context="paimon-sql vs Flink after Flink's upsert")


#: (DDL options, the hint of the INSERT OVERWRITE): dynamic by default, whole table when false.
OVERWRITE_MODES = [
    ("", ""),
    ("", "/*+ OPTIONS('dynamic-partition-overwrite' = 'false') */"),
    (" WITH ('dynamic-partition-overwrite' = 'false')", ""),
]


@pytest.mark.parametrize(("options", "hint"), OVERWRITE_MODES)
def test_dynamic_partition_overwrite_leaves_javas_rows(
    flink: FlinkOracle, tmp_path: Path, options: str, hint: str
):
    """An INSERT OVERWRITE without PARTITION replaces what Flink's replaces, per the option."""
    java, ours = tmp_path / "java", tmp_path / "ours"
    ours.mkdir()
    steps = [
        f"CREATE TABLE {{db}}o (id INT, p STRING) PARTITIONED BY (p){options}",
        "INSERT INTO {db}o VALUES (1, 'a'), (2, 'b')",
        f"INSERT OVERWRITE {{db}}o {hint} SELECT 3, 'a'",
    ]
    session = paimon_sql.connect(ours)
    session.sql("CREATE DATABASE db")
    for step in steps:
        flink.run(java, step.format(db=""))
        session.sql(step.format(db="db."))
    _, java_read = flink.query(java, "SELECT id, p FROM o")
    _, ours_read = arrow_rows(session.sql("SELECT id, p FROM db.o").to_arrow_table())
    session.close()
    assert_same_rows(ours_read, java_read, context=f"INSERT OVERWRITE {options} {hint}")
    assert len(java_read) == (2 if not options and not hint else 1)
