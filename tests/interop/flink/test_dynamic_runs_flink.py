# ruff: noqa: S608 - the statements are test inputs built from our own names and values
"""A dynamic-bucket load written in several runs leaves the HASH index Apache Paimon 1.3.1 leaves.

paimon-sql cuts a large write into runs of at most ``write-buffer-size`` / 24 rows
(`TableWriter._write_dynamic`), as Java's writer flushes its buffer; each run's new keys get
buckets knowing every key of the earlier runs, as Java's assigner (one task: parallelism 1) sees
keys one by one. Java's buffer decides when files are written, not which bucket a key gets, so
after each statement the index of every partition (which hashes, in which bucket) must be
Flink's: a load of distinct keys in several runs, then a statement naming every key twice, in
two of its runs: old keys (in the HASH files) and new ones (first met in an earlier run of the same
statement, so only the runs' memory, `_remember`, knows their bucket). Its later version of a key
(``v`` = the row's arrival number) is the one both engines read back, from either table. Flink's
upsert into paimon-sql's table leaves every key in one bucket.

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

#: 96 KB: runs of 4,096 rows (`TableWriter.run_rows`, its least); 500 keys a bucket. Java's
#: buffer needs three pages: 32 KB pages.
DDL = (
    "CREATE TABLE {db}t (p INT NOT NULL, id INT NOT NULL, v INT, PRIMARY KEY (p, id) NOT ENFORCED) "
    "PARTITIONED BY (p) WITH ('bucket' = '-1', 'dynamic-bucket.target-row-num' = '500', "
    "'write-buffer-size' = '96 kb', 'page-size' = '32 kb')"
)
RUN = 4_096
LOAD = 15_000  # keys 0..14,999: four runs
#: the second statement, seven runs: keys 10,000..22,499 twice (rows i and i + 12,500); the new
#: keys 15,000..22,499 first come in runs 1-3 and again in runs 4-6
AGAIN, SPAN, FIRST = 25_000, 12_500, 10_000
KEYS = FIRST + SPAN  # keys 0..22,499 in the end


def _flink_insert(source: int, key: str, v: str) -> tuple[str, str]:
    """Flink's statements: rows 0..`source`-1 of a sequence, the key `key` of ``i``."""
    gen = (
        f"CREATE TEMPORARY TABLE IF NOT EXISTS gen{source} (i INT) WITH ('connector' = 'datagen', "
        f"'fields.i.kind' = 'sequence', 'fields.i.start' = '0', 'fields.i.end' = '{source - 1}', "
        f"'number-of-rows' = '{source}')"
    )
    return gen, f"INSERT INTO t SELECT MOD({key}, 3), {key}, {v} FROM gen{source}"


def _ours_insert(source: int, key: str, v: str) -> str:
    """The same rows in paimon-sql (``MOD`` is DuckDB's too)."""
    return f"INSERT INTO db.t SELECT MOD({key}, 3), {key}, {v} FROM range({source}) r(i)"


#: (rows, the key of row i, v of row i)
STEPS = [(LOAD, "i", "0"), (AGAIN, f"{FIRST} + MOD(i, {SPAN})", "i")]


def test_a_load_in_runs_leaves_javas_hash_index(
    flink: FlinkOracle, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    java, ours = tmp_path / "java", tmp_path / "ours"
    ours.mkdir()
    flink.run(java, DDL.format(db=""))
    session = paimon_sql.connect(ours)
    session.sql("CREATE DATABASE db")
    session.sql(DDL.format(db="db."))
    assert TableWriter(None, session.table("db.t")).run_rows() == RUN
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
        assert len(runs) == -(-source // RUN), runs  # written in runs, not at once
        assert hash_index(ours) == hash_index(java), f"after the {source}-row statement"
    index = hash_index(java)
    assert sum(len(h) for h in index.values()) == KEYS  # every key once
    assert max(b for _, b in index) == 14  # 7,500 keys a partition: 15 buckets
    theirs = flink.read(java, "t")[1]
    # every key once, the second statement's later version of it (arrival i + 12,500)
    expected = dict.fromkeys(range(FIRST), 0) | {FIRST + i: SPAN + i for i in range(SPAN)}
    assert {r["id"]: r["v"] for r in theirs} == expected
    assert len(theirs) == KEYS
    assert_same_rows(our_rows(java), theirs, context="paimon-sql reads Flink's")
    assert_same_rows(flink.read(ours, "t")[1], theirs, context="Flink reads paimon-sql's")
    assert_same_rows(our_rows(ours), theirs, context="paimon-sql reads its own")

    # Flink upserts keys of every run into paimon-sql's table: each lands in the bucket we gave it
    flink.run(ours, *_flink_insert(KEYS, "i", "2"))
    theirs = flink.read(ours, "t")[1]
    assert len(theirs) == KEYS
    assert {r["v"] for r in theirs} == {2}
    assert_same_rows(our_rows(ours), theirs, context="after Flink's upsert")
