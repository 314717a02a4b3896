# ruff: noqa: S608 - the statements are test inputs built from our own names and values
"""A dynamic-bucket load written in several runs leaves the HASH index Apache Paimon 1.3.1 leaves.

paimon-sql cuts a large write into runs of at most ``write-buffer-size`` / 24 rows
(`TableWriter._write_dynamic`), as Java's writer flushes its buffer; each run's new keys get
buckets knowing every key of the earlier runs, as Java's assigner (one task: parallelism 1) sees
keys one by one. Java's buffer decides when files are written, not which bucket a key gets, so
after each statement the index of every partition (which hashes, in which bucket) must be
Flink's: a load of distinct keys in several runs, then a statement naming keys of every run
twice (once in each of its own two runs) beside new keys. Both read each other's table the same,
and Flink's upsert into paimon-sql's table leaves every key in one bucket.

Flink takes the rows from a ``datagen`` sequence (in order: one task), paimon-sql from
``range()``: the same arrival order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

import paimon_sql
from paimon_sql.write.writer import TableWriter
from tests.interop.flink.harness import assert_same_rows, hash_index, our_rows

if TYPE_CHECKING:
    from pathlib import Path

    from tests.interop.flink.harness import FlinkOracle

pytestmark = [pytest.mark.interop, pytest.mark.slow]

#: 192 KB: runs of 8,192 rows (`TableWriter.run_rows`); 1,000 keys a bucket.
DDL = (
    "CREATE TABLE {db}t (p INT NOT NULL, id INT NOT NULL, v INT, PRIMARY KEY (p, id) NOT ENFORCED) "
    "PARTITIONED BY (p) WITH ('bucket' = '-1', 'dynamic-bucket.target-row-num' = '1000', "
    "'write-buffer-size' = '192 kb')"
)
LOAD = 30_000  # keys 0..29,999: four runs
KEYS = 40_000  # the second statement: keys 0..39,999, then 0..9,999 again (new: 30,000..39,999)
AGAIN = 50_000


def _flink_insert(source: int, key: str, v: int) -> tuple[str, str]:
    """Flink's statements: rows 0..`source`-1 of a sequence, the key `key` of ``i``."""
    gen = (
        f"CREATE TEMPORARY TABLE IF NOT EXISTS gen{source} (i INT) WITH ('connector' = 'datagen', "
        f"'fields.i.kind' = 'sequence', 'fields.i.start' = '0', 'fields.i.end' = '{source - 1}', "
        f"'number-of-rows' = '{source}')"
    )
    return gen, f"INSERT INTO t SELECT MOD({key}, 3), {key}, {v} FROM gen{source}"


def _ours_insert(source: int, key: str, v: int) -> str:
    """The same rows in paimon-sql (``MOD`` is DuckDB's too)."""
    return f"INSERT INTO db.t SELECT MOD({key}, 3), {key}, {v} FROM range({source}) r(i)"


#: (rows, the key of row i, v)
STEPS = [(LOAD, "i", 0), (AGAIN, f"MOD(i, {KEYS})", 1)]


def test_a_load_in_runs_leaves_javas_hash_index(
    flink: FlinkOracle, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    java, ours = tmp_path / "java", tmp_path / "ours"
    ours.mkdir()
    flink.run(java, DDL.format(db=""))
    session = paimon_sql.connect(ours)
    session.sql("CREATE DATABASE db")
    session.sql(DDL.format(db="db."))
    assert TableWriter(None, session.table("db.t")).run_rows() == 8_192
    session.close()
    runs: list[Any] = []
    run_of = TableWriter._run_of

    def counted(self: TableWriter, staged: str, low: int, high: int) -> str:
        runs.append((low, high))
        return run_of(self, staged, low, high)

    monkeypatch.setattr(TableWriter, "_run_of", counted)
    for source, key, v in STEPS:
        flink.run(java, *_flink_insert(source, key, v))
        runs.clear()
        session = paimon_sql.connect(ours)
        session.sql(_ours_insert(source, key, v))
        session.close()
        assert len(runs) == -(-source // 8_192), runs  # written in runs, not at once
        assert hash_index(ours) == hash_index(java), f"after the {source}-row statement"
    index = hash_index(java)
    assert sum(len(h) for h in index.values()) == KEYS
    assert max(b for _, b in index) >= 13  # 13,334 keys a partition: 14 buckets
    theirs_of_ours = flink.read(ours, "t")[1]
    assert len(theirs_of_ours) == KEYS
    assert_same_rows(our_rows(java), flink.read(java, "t")[1], context="paimon-sql reads Flink's")
    assert_same_rows(our_rows(ours), theirs_of_ours, context="Flink reads paimon-sql's")

    # Flink upserts keys of every run into paimon-sql's table: each lands in the bucket we gave it
    flink.run(ours, *_flink_insert(KEYS, "i", 2))
    theirs = flink.read(ours, "t")[1]
    assert len(theirs) == KEYS
    assert {r["v"] for r in theirs} == {2}
    assert_same_rows(our_rows(ours), theirs, context="after Flink's upsert")
