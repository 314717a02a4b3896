"""Incremental reads on Java-written tables and the bounds they accept (issue 17).

The Flink twins (tests/interop/flink/test_changes_flink.py) check the rows against Paimon 1.3.1;
here: the changelog files Java 0.9 wrote (fixture ``pk_changelog_input``) read as pyarrow reads
them, and how bounds and options are resolved or refused.
"""

from __future__ import annotations

import shutil
from collections import Counter

import duckdb
import pyarrow.parquet as pq
import pytest

import paimon_sql
from paimon_sql.errors import ArgumentError, SnapshotNotFoundError, UnsupportedFeatureError
from tests.fixtures import FIXTURES

JAVA09 = FIXTURES / "generated-paimon-java-0.9" / "warehouse"
KINDS = {0: "+I", 1: "-U", 2: "+U", 3: "-D"}


@pytest.fixture(scope="module")
def java(tmp_path_factory):
    target = tmp_path_factory.mktemp("java09") / "warehouse"
    shutil.copytree(JAVA09, target)
    con = duckdb.connect()
    paimon_sql.install(con, target)
    return target, con


def test_java_written_changelog_files_read_as_pyarrow_reads_them(java):
    warehouse, con = java
    bucket = warehouse / "db.db" / "pk_changelog_input" / "bucket-0"
    expected: Counter[tuple[object, ...]] = Counter()
    for path in bucket.glob("changelog-*.parquet"):
        for row in pq.read_table(path).to_pylist():
            expected[(KINDS[row["_VALUE_KIND"]], row["id"], row["name"], row["v"])] += 1
    assert sum(expected.values()) == 6  # the fixture's three commits
    got = Counter(
        con.sql(
            "SELECT rowkind, id, name, v FROM paimon_changes('db.pk_changelog_input', 0, 3)"
        ).fetchall()
    )
    assert got == expected
    # the input producer's changelog holds what the deltas hold
    delta = con.sql(
        "SELECT rowkind, id, name, v FROM paimon_changes('db.pk_changelog_input', 0, 3, "
        "mode := 'delta')"
    ).fetchall()
    assert Counter(delta) == expected


def test_tags_are_a_diff_and_timestamps_pick_snapshots(java):
    warehouse, con = java
    session = paimon_sql.connect(warehouse)
    table = session.catalog.load_table("db.append_tags")
    # two tags: always a diff of their snapshots (Java's betweenTags); append tables by multiset
    by_tags = con.sql(
        "SELECT rowkind, count(*) FROM paimon_changes('db.append_tags', 'tag1', 'tag2') GROUP BY 1"
    ).fetchall()
    by_ids = con.sql(
        "SELECT rowkind, count(*) FROM paimon_changes('db.append_tags', 1, 2, mode := 'diff') "
        "GROUP BY 1"
    ).fetchall()
    assert by_tags == by_ids == [("+I", 2)]  # snapshot 2 added two rows
    # timestamps: start exclusive at snapshot 1's commit, end at snapshot 2's: snapshot 2 only
    first, second = (table.snapshot(i).time_millis for i in (1, 2))
    hint = f"/*+ OPTIONS('incremental-between-timestamp' = '{first},{second}') */"
    rows = session.sql(f"SELECT count(*) FROM db.append_tags {hint}").fetchall()  # noqa: S608
    assert rows == [(2,)]
    session.close()


@pytest.mark.parametrize(
    ("hint", "error", "fragment"),
    [
        ("'incremental-between' = '3,1'", ArgumentError, "before its start"),
        ("'incremental-between' = 'a,b'", ArgumentError, "two tags or two snapshot ids"),
        ("'incremental-between' = '3'", ArgumentError, "separated by a comma"),
        ("'incremental-between' = '0,9'", ArgumentError, "out of the snapshots"),
        (
            "'incremental-between' = '1,2', 'incremental-between-scan-mode' = 'all'",
            ArgumentError,
            "not a scan mode",
        ),
        ("'incremental-to-auto-tag' = 'x'", UnsupportedFeatureError, "incremental-to-auto-tag"),
        (
            "'incremental-between' = '9,10', 'incremental-between-scan-mode' = 'diff'",
            SnapshotNotFoundError,
            "snapshot",
        ),
    ],
)
def test_bad_bounds_are_refused_by_name(java, hint, error, fragment):
    warehouse, _ = java
    session = paimon_sql.connect(warehouse)
    with pytest.raises(error, match=fragment):
        session.sql(f"SELECT * FROM db.pk_dedup /*+ OPTIONS({hint}) */")  # noqa: S608
    session.close()


def test_equal_bounds_are_empty_and_unknown_tables_fail(java):
    _, con = java
    assert con.sql("SELECT * FROM paimon_changes('db.pk_dedup', 2, 2)").fetchall() == []
    with pytest.raises(duckdb.Error, match="nope"):
        con.sql("SELECT * FROM paimon_changes('db.nope', 1, 2)").fetchall()


def test_paimon_changes_in_a_session_equals_the_installed_function(java):
    warehouse, con = java
    session = paimon_sql.connect(warehouse)
    for mode in ("auto", "delta", "diff"):
        query = f"SELECT * FROM paimon_changes('db.pk_dedup', 1, 3, mode := '{mode}')"  # noqa: S608
        assert Counter(session.sql(query).fetchall()) == Counter(con.sql(query).fetchall()), mode
    session.close()
