"""Writes to deletion-vector and first-row tables, against Apache Paimon 0.9 through Spark.

For each case the same statements run on two twin tables: paimon-sql writes one, Spark the other.

* Each statement commits the same kinds of snapshots on both (APPEND or OVERWRITE, then COMPACT).
* Spark reads every snapshot of the table paimon-sql wrote exactly as paimon-sql does (the
  APPEND snapshots show the state before their write: their level-0 files are hidden).
* Both twins end with the same rows.
* Spark keeps writing on top of the paimon-sql table (its own lookup compaction over our
  compacted files), and both engines still read the same rows.
"""

from __future__ import annotations

import pytest

import paimon_sql
from tests.interop.harness import assert_rows_equal, spark_rows, spark_session, spark_sql

pytestmark = [pytest.mark.interop, pytest.mark.slow]

_PK_COLUMNS = "(id INT, dt STRING, v STRING)"

_BASE = "INSERT INTO {t} VALUES " + ", ".join(f"({i}, 'a', 'b{i}')" for i in range(0, 6000, 2))  # noqa: S608
_UPSERTS = [
    "INSERT INTO {t} VALUES (10, 'a', 'u1'), (2500, 'a', 'u1'), (7001, 'b', 'new1')",
    "INSERT INTO {t} VALUES (10, 'a', 'u2'), (4002, 'a', 'u2'), (11, 'b', 'new2')",
    "DELETE FROM {t} WHERE id = 2500",
    "INSERT INTO {t} VALUES (2500, 'a', 'back'), (5998, 'a', 'u4'), (0, 'a', 'u4')",
    "INSERT INTO {t} VALUES (11, 'b', 'u5'), (3000, 'a', 'u5')",
]

# the same writes keyed by a STRING (v) alone: existing keys, new ones, a delete and a re-insert
_STRING_BASE = "INSERT INTO {t} VALUES " + ", ".join(  # noqa: S608
    f"({i}, 'a', 'k{i:05d}')" for i in range(0, 6000, 2)
)
_STRING_UPSERTS = [
    "INSERT INTO {t} VALUES (1, 'u1', 'k00010'), (2, 'u1', 'k02500'), (3, 'new1', 'k07001')",
    "INSERT INTO {t} VALUES (4, 'u2', 'k00010'), (5, 'u2', 'k04002'), (6, 'new2', 'k00011')",
    "DELETE FROM {t} WHERE v = 'k02500'",
    "INSERT INTO {t} VALUES (7, 'back', 'k02500'), (8, 'u4', 'k05998'), (9, 'u4', 'k00000')",
]

CASES = {
    "dv_fixed_partitioned": (
        "PARTITIONED BY (dt)",
        "'primary-key' = 'id,dt', 'bucket' = '2', 'deletion-vectors.enabled' = 'true'",
        [
            "INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'a', 'y'), (3, 'b', 'z'), (4, 'b', 'w')",
            "INSERT INTO {t} VALUES (2, 'a', 'y2'), (5, 'a', 'q')",
            "DELETE FROM {t} WHERE id = 3",
            "UPDATE {t} SET v = 'upd' WHERE id = 1",
            "INSERT INTO {t} VALUES (6, 'b', NULL)",
        ],
        [
            "INSERT INTO {t} VALUES (2, 'a', 'spark'), (7, 'b', 's7')",
            "DELETE FROM {t} WHERE id = 4",
        ],
    ),
    "dv_fixed_flat_overwrite": (
        "",
        "'primary-key' = 'id', 'bucket' = '1', 'deletion-vectors.enabled' = 'true'",
        [
            "INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'a', 'y')",
            "INSERT INTO {t} VALUES (1, 'a', 'x2')",
            "INSERT OVERWRITE {t} SELECT 9, 'c', 'o'",
            "INSERT INTO {t} VALUES (9, 'c', 'o2'), (10, 'c', 'p')",
        ],
        ["INSERT INTO {t} VALUES (10, 'c', 'spark')"],
    ),
    "dv_dynamic_bucket": (
        "",
        "'primary-key' = 'id', 'bucket' = '-1', 'deletion-vectors.enabled' = 'true'",
        [
            "INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'a', 'y'), (3, 'b', 'z')",
            "INSERT INTO {t} VALUES (2, 'a', 'y2')",
            "DELETE FROM {t} WHERE id = 1",
        ],
        ["INSERT INTO {t} VALUES (3, 'b', 'spark'), (4, 'b', 's4')"],
    ),
    "dv_many_writes": (
        "",
        "'primary-key' = 'id', 'bucket' = '1', 'deletion-vectors.enabled' = 'true'",
        [
            "INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'a', 'y'), (3, 'b', 'z')",
            *[
                f"INSERT INTO {{t}} VALUES ({i % 3 + 1}, 'a', 'v{i}'), ({i + 4}, 'b', 'n')"  # noqa: S608
                for i in range(6)
            ],
            "DELETE FROM {t} WHERE id = 5",
        ],
        ["INSERT INTO {t} VALUES (1, 'a', 'spark')", "DELETE FROM {t} WHERE id = 6"],
    ),
    "dv_partial_update": (
        "",
        "'primary-key' = 'id', 'bucket' = '1', 'deletion-vectors.enabled' = 'true', "
        "'merge-engine' = 'partial-update'",
        [
            "INSERT INTO {t} VALUES (1, 'a', NULL), (2, NULL, 'y')",
            "INSERT INTO {t} VALUES (1, NULL, 'x'), (2, 'b', NULL)",
            "INSERT INTO {t} VALUES (1, 'c', NULL)",
        ],
        ["INSERT INTO {t} VALUES (2, NULL, 'spark')"],
    ),
    "first_row_partitioned": (
        "PARTITIONED BY (dt)",
        "'primary-key' = 'id,dt', 'bucket' = '2', 'merge-engine' = 'first-row'",
        [
            "INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'a', 'y'), (3, 'b', 'z')",
            "INSERT INTO {t} VALUES (2, 'a', 'later'), (4, 'b', 'w')",
        ],
        ["INSERT INTO {t} VALUES (1, 'a', 'spark'), (5, 'b', 's5')"],
    ),
    # a base large enough that each later write is compacted by a lookup over the kept base
    # file (deletion vectors marked, positions only for deduplicate; first-row keeps the kept
    # files' keys), not by a full compaction
    "dv_large_base_upserts": (
        "",
        "'primary-key' = 'id', 'bucket' = '1', 'deletion-vectors.enabled' = 'true'",
        [_BASE, *_UPSERTS],
        ["INSERT INTO {t} VALUES (7, 'a', 'spark'), (5001, 'b', 'spark')"],
    ),
    "first_row_large_base_upserts": (
        "",
        "'primary-key' = 'id', 'bucket' = '1', 'merge-engine' = 'first-row'",
        [_BASE, *[u for u in _UPSERTS if not u.startswith("DELETE")]],
        ["INSERT INTO {t} VALUES (7, 'a', 'spark'), (5001, 'b', 'spark')"],
    ),
    # keys that are not one integer column: found through fingerprints, checked against the
    # stored key (paimon_sql.io.key_lookup), in memory and spilled to local files
    "dv_large_base_composite_key": (
        "",
        "'primary-key' = 'dt,id', 'bucket' = '1', 'deletion-vectors.enabled' = 'true'",
        [_BASE, *_UPSERTS],
        ["INSERT INTO {t} VALUES (7, 'a', 'spark'), (5001, 'b', 'spark')"],
    ),
    "dv_large_base_string_key": (
        "",
        "'primary-key' = 'v', 'bucket' = '1', 'deletion-vectors.enabled' = 'true'",
        [_STRING_BASE, *_STRING_UPSERTS],
        ["INSERT INTO {t} VALUES (7, 'spark', 'k00012'), (5001, 'spark', 'k99999')"],
    ),
}

#: Cases written with every key column pushed to the lookup's disk tier (local files).
SPILLED = {"dv_large_base_string_key"}


#: Cases whose file layout (levels and row counts per statement) must equal Spark's. Java picks
#: runs by file size (size ratio), so where our files' sizes fell on the other side of a ratio the
#: layout could differ while the rows do not; in these cases it does not. Dynamic buckets: our
#: bucket assignment differs from Java's (any is valid), so the layout does too.
# dv_large_base_composite_key: after the last upsert Java keeps levels 2, 3, 4 where we merge
# them into one level-4 file (the same on main before the fingerprint lookup: file sizes).
SAME_LAYOUT = set(CASES) - {"dv_dynamic_bucket", "dv_large_base_composite_key"}


def _ours(session, table, version=None):
    query = f"SELECT * FROM {table}" + (f" VERSION AS OF {version}" if version is not None else "")  # noqa: S608
    rel = session.sql(query)
    names = list(rel.columns)
    return [dict(zip(names, row, strict=True)) for row in rel.fetchall()]


def _snapshots(session, table):
    rows = session.sql(
        f"SELECT snapshot_id, commit_kind FROM {table.replace('.', '.`', 1)}$snapshots`"  # noqa: S608
    )
    return sorted(rows.fetchall())


def _levels(session, table):
    """The live files as sorted (partition, bucket, level, record count)."""
    files = table.replace(".", ".`", 1) + "$files`"
    query = f"SELECT partition, bucket, level, record_count FROM {files}"  # noqa: S608
    return sorted(session.sql(query).fetchall())


def _kinds_per_statement(session, table, statements, run):
    """Run each statement; the commit kinds each one added, and the file layout after it."""
    out = []
    for statement in statements:
        before = len(_snapshots(session, table))
        run(statement.format(t=table))
        kinds = [kind for _, kind in _snapshots(session, table)[before:]]
        out.append((kinds, _levels(session, table)))
    return out


@pytest.mark.parametrize("case", list(CASES))
def test_spark_reads_our_visible_writes_like_its_own(tmp_path, monkeypatch, case):
    partitioned, props, statements, spark_statements = CASES[case]
    warehouse = tmp_path / "wh"
    session = paimon_sql.connect(warehouse, create=True)
    session.sql("CREATE DATABASE db")
    if case in SPILLED:
        from paimon_sql.io import key_lookup

        monkeypatch.setattr(key_lookup, "SPILL_ROWS", 1)
        session.engine.key_lookup.max_bytes = 1
    ours, twin = "db.ours", "db.twin"
    session.sql(f"CREATE TABLE {ours} {_PK_COLUMNS} {partitioned} WITH ({props})")
    spark = spark_session(warehouse)
    spark_sql(
        spark,
        f"CREATE TABLE {twin} {_PK_COLUMNS} USING paimon {partitioned} TBLPROPERTIES ({props})",
    )

    def ours_run(sql):
        session.sql(sql)

    def spark_run(sql):
        spark_sql(spark, sql)

    our_steps = _kinds_per_statement(session, ours, statements, ours_run)
    if case in SPILLED:  # the lookups did go through the local files
        assert session.engine.key_lookup.stats()["row_groups_spilled"] > 0
    spark_steps = _kinds_per_statement(session, twin, statements, spark_run)
    assert [k for k, _ in our_steps] == [k for k, _ in spark_steps]
    assert all(kinds and kinds[-1] == "COMPACT" for kinds, _ in our_steps)
    if case in SAME_LAYOUT:  # lookup compaction picks runs as Java does (levels, row counts)
        assert [lay for _, lay in our_steps] == [lay for _, lay in spark_steps]
    assert_rows_equal(_ours(session, ours), _ours(session, twin), context=f"{case}: ours vs twin")
    assert_rows_equal(spark_rows(spark, ours), spark_rows(spark, twin), context=f"{case}: Spark")

    for snapshot_id, _ in _snapshots(session, ours):
        assert_rows_equal(
            spark_rows(spark, ours, version=snapshot_id),
            _ours(session, ours, snapshot_id),
            context=f"{case}: snapshot {snapshot_id}",
        )

    for statement in spark_statements:
        spark_run(statement.format(t=ours))
        assert_rows_equal(
            _ours(session, ours), spark_rows(spark, ours), context=f"{case}: after {statement}"
        )
    # and paimon-sql writes again on top of Spark's lookup compaction (its deletion vectors)
    session.sql(f"INSERT INTO {ours} VALUES (2, 'a', 'last'), (8, 'b', 'eight')")  # noqa: S608
    assert_rows_equal(_ours(session, ours), spark_rows(spark, ours), context=f"{case}: last write")
