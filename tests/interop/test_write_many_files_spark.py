# ruff: noqa: S608 - the statements are fixed test inputs on our own table names
"""Larger writes cut into many files per bucket, read back by Apache Paimon through Spark.

`test_write_spark_reads.py` covers every type on small tables, where each statement writes one file
per bucket. Here a small ``target-file-size`` makes both writer paths cut their sorted stream into
many files: the streaming path (append tables, fixed-bucket deduplicate / first-row tables) and the
staged one (dynamic buckets, partial-update, and a key written twice in one statement). Spark's rows
are compared with a Python oracle and with paimon-sql's own read; the file counts prove the cutting
happened.
"""

from __future__ import annotations

import itertools

import pytest

import paimon_sql
from tests.interop.harness import spark_columns, spark_rows, spark_session

pytestmark = [pytest.mark.interop, pytest.mark.slow]

ROWS = 12_000
UPSERT = range(0, ROWS + 3_000, 4)  # updates every 4th key and adds new ones
SMALL = "'target-file-size' = '96 kb', 'manifest.merge-min-count' = '3'"

TABLES = {
    # name: (DDL options, primary key?, engine)
    "append_flat": ("'bucket' = '-1'", False, None),
    "append_parted": ("'bucket' = '-1'", False, None),
    "append_fixed": ("'bucket' = '3', 'bucket-key' = 'id'", False, None),
    "pk_fixed": ("'bucket' = '3'", True, "deduplicate"),
    "pk_fixed_first_row": ("'bucket' = '3', 'merge-engine' = 'first-row'", True, "first-row"),
    "pk_fixed_repeats": ("'bucket' = '3'", True, "deduplicate"),
    "pk_dynamic": (
        "'bucket' = '-1', 'dynamic-bucket.target-row-num' = '5000'",
        True,
        "deduplicate",
    ),
    "pk_partial": ("'bucket' = '2', 'merge-engine' = 'partial-update'", True, "partial-update"),
    # issue 18: a write buffer of 4,096 rows a run (96 kb / 24): the load is sorted in several
    # runs, each its own overlapping level-0 files; keys 0..1,999 arrive twice, in two runs
    "pk_fixed_runs": ("'bucket' = '3', 'write-buffer-size' = '96 kb'", True, "deduplicate"),
    "pk_first_row_runs": (
        "'bucket' = '3', 'merge-engine' = 'first-row', 'write-buffer-size' = '96 kb'",
        True,
        "first-row",
    ),
    # dynamic buckets, the load in two runs of 8,192 rows (192 kb: the 3 pages of 64 kb Java's
    # writer needs to upsert into it): each run's keys assigned knowing the earlier run's (buckets
    # of 1,000 keys: a run ends inside one), each run its own level-0 files
    "pk_dynamic_runs": (
        "'bucket' = '-1', 'dynamic-bucket.target-row-num' = '1000', 'write-buffer-size' = '192 kb'",
        True,
        "deduplicate",
    ),
}
#: Rows of the ``_runs`` tables' load beyond ``ROWS``: keys 0..REPEATED-1 arrive again.
REPEATED = 2_000


def _ddl(name: str, options: str, pk: bool) -> str:
    key = ", PRIMARY KEY (id, dt) NOT ENFORCED" if pk else ""
    parted = " PARTITIONED BY (dt)" if name.endswith("parted") or pk else ""
    return (
        f"CREATE TABLE db.{name} (id BIGINT NOT NULL, dt STRING NOT NULL, v STRING, n INT{key})"
        f"{parted} WITH ({options}, {SMALL})"
    )


def _dt(i: int) -> str:
    return f"d{i % 3}"


def _write(session: paimon_sql.Session, name: str, pk: bool, engine: str | None) -> list[tuple]:
    """Two statements (a load and an overlapping one) and a DELETE.

    Returns the rows Java must read.
    """
    load = (
        f"SELECT i, 'd' || (i % 3), 'load-' || i || repeat('x', i % 17), i FROM range({ROWS}) t(i)"
    )
    second = (
        f"SELECT i, 'd' || (i % 3), 'up-' || i, NULL FROM range(0, {ROWS + 3000}, 4) t(i)"
        if engine == "partial-update"
        else f"SELECT i, 'd' || (i % 3), 'up-' || i, -i FROM range(0, {ROWS + 3000}, 4) t(i)"
    )
    if (
        name == "pk_fixed_repeats"
    ):  # one key twice in a statement: the staged path picks the later one
        second += " UNION ALL SELECT 8, 'd2', 'again', 88"
    arrivals = range(ROWS)
    if name.endswith("_runs"):  # arrival i writes key i % ROWS: keys < REPEATED twice
        arrivals = range(ROWS + REPEATED)
        load = (
            f"SELECT i % {ROWS}, 'd' || (i % {ROWS} % 3), 'load-' || i || repeat('x', i % 17), i "
            f"FROM range({ROWS + REPEATED}) t(i)"
        )
    session.sql(f"INSERT INTO db.{name} {load}")
    session.sql(f"INSERT INTO db.{name} {second}")
    loaded = [(i % ROWS, _dt(i % ROWS), f"load-{i}" + "x" * (i % 17), i) for i in arrivals]
    if engine == "first-row":  # the first arrival of a key stays
        loaded = list({(r[0], r[1]): r for r in reversed(loaded)}.values())
    upserted = [(i, _dt(i), f"up-{i}", -i) for i in UPSERT]
    if not pk:
        rows = loaded + upserted
    else:
        state = {(r[0], r[1]): r for r in loaded}
        for i, dt, v, n in upserted:
            old = state.get((i, dt))
            if engine == "first-row" and old is not None:
                continue
            if engine == "partial-update":
                state[(i, dt)] = (i, dt, v, old[3] if old is not None else None)
            else:
                state[(i, dt)] = (i, dt, v, n)
        if name == "pk_fixed_repeats":
            state[(8, "d2")] = (8, "d2", "again", 88)
        rows = list(state.values())
    if engine in (
        None,
        "deduplicate",
    ):  # Java refuses DELETE on first-row and partial-update tables
        session.sql(f"DELETE FROM db.{name} WHERE id % 10 = 3")
        rows = [r for r in rows if r[0] % 10 != 3]
    return sorted(rows)


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    warehouse = tmp_path_factory.mktemp("many-files") / "warehouse"
    session = paimon_sql.connect(warehouse, create=True)
    session.sql("CREATE DATABASE db")
    expected = {}
    for name, (options, pk, engine) in TABLES.items():
        session.sql(_ddl(name, options, pk))
        expected[name] = _write(session, name, pk, engine)
    return session, expected, spark_session(warehouse)


@pytest.mark.parametrize("name", list(TABLES))
def test_spark_reads_many_file_writes(written, name):
    session, expected, spark = written
    files = session.sql(
        f"SELECT partition, bucket, count(*) AS n FROM db.`{name}$files` "
        "GROUP BY ALL ORDER BY n DESC"
    ).fetchall()
    # first-row: its writes are compacted at once, into files of the target size
    if TABLES[name][2] != "first-row":
        assert files[0][2] >= 2, f"the writes must be cut into several files per bucket: {files}"
    if name == "pk_fixed_runs":  # the load alone: 14,000 rows in runs of 4,096 (+ a batch)
        loaded = session.sql(
            f"SELECT bucket, min_key, max_key FROM db.`{name}$files` VERSION AS OF 1"
        ).fetchall()
        ids = [
            (b, int(lo.strip("[]").split(",")[0]), int(hi.strip("[]").split(",")[0]))
            for b, lo, hi in loaded
        ]
        # one sorted run per bucket would cut it into files of disjoint key ranges
        overlapping = {
            a[0]
            for a, b in itertools.combinations(ids, 2)
            if a[0] == b[0] and a[1] <= b[2] and b[1] <= a[2]
        }
        assert overlapping == {0, 1, 2}, loaded
    assert spark_columns(spark, f"db.{name}") == ["id", "dt", "v", "n"]
    theirs = sorted((r["id"], r["dt"], r["v"], r["n"]) for r in spark_rows(spark, f"db.{name}"))
    assert theirs == expected[name]
    assert sorted(session.sql(f"SELECT * FROM db.{name}").fetchall()) == expected[name]


def test_spark_upserts_into_a_dynamic_load_of_several_runs(written):
    """Apache Paimon 0.9 (Spark) upserts into the dynamic-bucket table paimon-sql loaded in runs.

    Spark's assigner reads paimon-sql's HASH index: each upserted key (of every run, keys that
    arrived twice included) must land in the bucket paimon-sql gave it, or two buckets would each
    hold a version of it and the read would show the key twice.
    """
    session, expected, spark = written
    name = "pk_dynamic_runs"
    loaded = session.sql(
        f"SELECT partition, bucket, min_key, max_key FROM db.`{name}$files` VERSION AS OF 1"
    ).fetchall()
    ids = [
        ((p, b), int(lo.strip("[]").split(",")[0]), int(hi.strip("[]").split(",")[0]))
        for p, b, lo, hi in loaded
    ]
    # two runs: a bucket the run boundary fell into holds two files of overlapping key ranges
    assert any(
        a[0] == b[0] and a[1] <= b[2] and b[1] <= a[2] for a, b in itertools.combinations(ids, 2)
    ), loaded
    keys = range(0, ROWS, 7)  # every run, keys < REPEATED written twice in the load
    values = ", ".join(f"({i}, '{_dt(i)}', 'spark-{i}', {i * 10})" for i in keys)
    spark.sql(f"INSERT INTO db.{name} VALUES {values}").collect()
    state = {(r[0], r[1]): r for r in expected[name]}
    for i in keys:
        state[(i, _dt(i))] = (i, _dt(i), f"spark-{i}", i * 10)
    rows = sorted(state.values())
    theirs = sorted((r["id"], r["dt"], r["v"], r["n"]) for r in spark_rows(spark, f"db.{name}"))
    assert len({(r[0], r[1]) for r in theirs}) == len(theirs), "a key in two buckets"
    assert theirs == rows
    session.refresh()
    assert sorted(session.sql(f"SELECT * FROM db.{name}").fetchall()) == rows
