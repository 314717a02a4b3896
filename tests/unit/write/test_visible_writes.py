"""Writes to tables whose readers hide level 0 (deletion vectors, first-row) are visible at once:
each write commits its APPEND (or OVERWRITE) snapshot and then a COMPACT snapshot of the buckets it
touched, as Java's writer; time travel to the write's own snapshot shows the state before it."""

from __future__ import annotations

import os

import pytest

import paimon_sql
from paimon_sql.catalog import Identifier
from paimon_sql.errors import PaimonSqlError
from paimon_sql.sql.ddl import parse_create_table


@pytest.fixture
def session(tmp_path):
    s = paimon_sql.connect(tmp_path / "wh", create=True)
    s.sql("CREATE DATABASE db")
    return s


def _rows(session, query="SELECT * FROM db.t"):
    return sorted(session.sql(query).fetchall(), key=repr)


def _kinds(session):
    return [k for _, k in _rows(session, "SELECT snapshot_id, commit_kind FROM db.`t$snapshots`")]


def _latest(session):
    return max(i for (i,) in session.sql("SELECT snapshot_id FROM db.`t$snapshots`").fetchall())


ENGINES = {
    "dv": "'deletion-vectors.enabled' = 'true'",
    "first_row": "'merge-engine' = 'first-row'",
}
BUCKETS = {"fixed1": "1", "fixed2": "2", "dynamic": "-1"}


def _create(session, engine, bucket, partitioned, name="t", extra=""):
    part = "PARTITIONED BY (p)" if partitioned else ""
    key = "p, id" if partitioned else "id"
    ddl = (
        f"CREATE TABLE db.{name} (p STRING, id INT, v STRING, PRIMARY KEY ({key}) NOT ENFORCED) "
        f"{part} WITH ('bucket' = '{BUCKETS[bucket]}', {ENGINES[engine]}{extra})"
    )
    if "changelog-producer" in ddl and "'none'" not in ddl:
        _create_as_flink(session, ddl)
    else:
        session.sql(ddl)


@pytest.mark.parametrize("partitioned", [False, True], ids=["flat", "partitioned"])
@pytest.mark.parametrize("bucket", list(BUCKETS))
@pytest.mark.parametrize("engine", list(ENGINES))
def test_insert_is_visible_at_once_and_commits_append_then_compact(
    session, engine, bucket, partitioned
):
    _create(session, engine, bucket, partitioned)
    assert session.sql(
        "INSERT INTO db.t VALUES ('x', 1, 'a'), ('y', 2, 'b'), ('x', 3, 'c')"
    ).fetchall() == [(3,)]
    assert _rows(session) == [("x", 1, "a"), ("x", 3, "c"), ("y", 2, "b")]
    assert _kinds(session) == ["APPEND", "COMPACT"]
    assert session.sql("INSERT INTO db.t VALUES ('x', 1, 'new'), ('y', 4, 'd')").fetchall() == [
        (2,)
    ]
    first = "a" if "first_row" in engine else "new"
    assert _rows(session) == [("x", 1, first), ("x", 3, "c"), ("y", 2, "b"), ("y", 4, "d")]
    assert _kinds(session) == ["APPEND", "COMPACT", "APPEND", "COMPACT"]
    # time travel to the write's APPEND snapshot shows the state before it (its level 0 is hidden)
    assert _rows(session, "SELECT * FROM db.t VERSION AS OF 3") == [
        ("x", 1, "a"),
        ("x", 3, "c"),
        ("y", 2, "b"),
    ]
    assert _rows(session, "SELECT * FROM db.t VERSION AS OF 1") == []


@pytest.mark.parametrize("partitioned", [False, True], ids=["flat", "partitioned"])
@pytest.mark.parametrize("bucket", list(BUCKETS))
def test_delete_and_update_apply_at_once_on_deletion_vector_tables(session, bucket, partitioned):
    _create(session, "dv", bucket, partitioned)
    session.sql("INSERT INTO db.t VALUES ('x', 1, 'a'), ('y', 2, 'b'), ('x', 3, 'c')")
    assert session.sql("DELETE FROM db.t WHERE id = 2").fetchall() == [(1,)]
    assert _rows(session) == [("x", 1, "a"), ("x", 3, "c")]
    assert session.sql("UPDATE db.t SET v = 'u' WHERE id = 3").fetchall() == [(1,)]
    assert _rows(session) == [("x", 1, "a"), ("x", 3, "u")]
    assert _kinds(session) == ["APPEND", "COMPACT"] * 3
    assert _rows(session, "SELECT * FROM db.t VERSION AS OF 5") == [("x", 1, "a"), ("x", 3, "c")]
    assert session.sql("DELETE FROM db.t WHERE id = 99").fetchall() == [(0,)]
    assert _kinds(session) == ["APPEND", "COMPACT"] * 3


def test_only_the_touched_buckets_are_compacted(session):
    _create(session, "dv", "fixed2", True)
    session.sql("INSERT INTO db.t VALUES ('x', 1, 'a'), ('y', 2, 'b')")
    session.sql("INSERT INTO db.t VALUES ('x', 1, 'z')")
    files = "SELECT partition, bucket, level, file_path FROM db.`t$files`"
    y_before = [f for f in session.sql(files + " VERSION AS OF 2").fetchall() if "y" in f[0]]
    y_after = [f for f in session.sql(files).fetchall() if "y" in f[0]]
    assert len(y_before) == 1
    assert y_after == y_before  # partition y was not touched by the second write: same file
    x_after = [f for f in session.sql(files).fetchall() if "x" in f[0]]
    assert all(level > 0 for _, _, level, _ in x_after)
    assert _rows(session) == [("x", 1, "z"), ("y", 2, "b")]


def test_insert_overwrite_commits_overwrite_then_compact(session):
    _create(session, "dv", "fixed1", True)
    session.sql("INSERT INTO db.t VALUES ('x', 1, 'a'), ('y', 2, 'b')")
    session.sql("INSERT OVERWRITE db.t PARTITION (p = 'x') SELECT 'x', 5, 'e'")
    assert _rows(session) == [("x", 5, "e"), ("y", 2, "b")]
    assert _kinds(session) == ["APPEND", "COMPACT", "OVERWRITE", "COMPACT"]
    assert _rows(session, "SELECT * FROM db.t VERSION AS OF 3") == [("y", 2, "b")]


def test_sequence_field_decides_on_deletion_vector_tables(session):
    session.sql(
        "CREATE TABLE db.t (id INT, ts INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH "
        "('bucket' = '1', 'deletion-vectors.enabled' = 'true', 'sequence.field' = 'ts')"
    )
    session.sql("INSERT INTO db.t VALUES (1, 5, 'new'), (2, 1, 'old')")
    session.sql("INSERT INTO db.t VALUES (1, 3, 'late'), (2, 2, 'newer')")
    assert _rows(session) == [(1, 5, "new"), (2, 2, "newer")]


def test_descending_sequence_within_one_write_keeps_the_smallest(session):
    """'sequence.field.sort-order' = 'descending': the smallest value wins, within one write as
    across writes (Paimon 2.0's write buffer, #7684; 1.x kept the largest within a write). One
    write of the rows reads as one write per row; Java 1.4.2 reads the per-row table alike in
    tests/interop/paimon20/test_sequence_order.py."""
    for name in ("a", "b", "c"):
        session.sql(
            f"CREATE TABLE db.{name} (k INT NOT NULL, v STRING, s1 INT, PRIMARY KEY (k) NOT "
            "ENFORCED) WITH ('bucket' = '1', 'sequence.field' = 's1', "
            "'sequence.field.sort-order' = 'descending')"
        )
    rows = ["(1, 'a', 5)", "(1, 'b', 3)", "(1, 'c', 4)", "(2, 'x', NULL)", "(2, 'y', 1)"]
    session.sql("INSERT INTO db.a VALUES (1, 'a', 5), (1, 'b', 3), (2, 'x', NULL)")
    session.sql("INSERT INTO db.a VALUES (1, 'c', 4), (2, 'y', 1)")
    session.sql(f"INSERT INTO db.b VALUES {', '.join(rows)}")  # noqa: S608 - constant rows
    for row in rows:
        session.sql(f"INSERT INTO db.c VALUES {row}")  # noqa: S608 - constant rows
    # a NULL sequence value sorts first in either order (Java: nullIsLast = false): it loses
    want = [(1, "b", 3), (2, "y", 1)]
    for name in ("a", "b", "c"):
        assert _rows(session, f"SELECT * FROM db.{name} ORDER BY k") == want, name  # noqa: S608


def test_create_table_as_select_is_visible(session):
    session.sql(
        "CREATE TABLE db.t WITH ('primary-key' = 'id', 'bucket' = '1', "
        "'deletion-vectors.enabled' = 'true') AS SELECT 1 AS id, 'a' AS v"
    )
    assert _rows(session) == [(1, "a")]


def test_write_only_tables_are_not_compacted(session):
    _create(session, "dv", "fixed1", False, extra=", 'write-only' = 'true'")
    session.sql("INSERT INTO db.t VALUES ('x', 1, 'a')")
    assert _kinds(session) == ["APPEND"]
    assert _rows(session) == []  # level 0: a separate job compacts (Java's write-only)
    session.sql("CALL sys.compact(table => 'db.t')")
    assert _rows(session) == [("x", 1, "a")]


def test_plain_primary_key_tables_are_not_compacted(session):
    session.sql(
        "CREATE TABLE db.t (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1')"
    )
    session.sql("INSERT INTO db.t VALUES (1, 'a')")
    assert _kinds(session) == ["APPEND"]
    assert _rows(session) == [(1, "a")]


def test_lookup_changelog_write_is_compacted_with_its_changelog(session):
    # issue 17: as Java's writer, a write to a lookup-changelog table is compacted at once and the
    # compaction writes the changelog (Flink twin: tests/interop/flink/test_changes_flink.py)
    _create_as_flink(
        session,
        "CREATE TABLE db.t (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH "
        "('bucket' = '1', 'changelog-producer' = 'lookup')",
    )
    session.sql("INSERT INTO db.t VALUES (1, 'a')")
    assert _rows(session) == [(1, "a")]
    assert _kinds(session) == ["APPEND", "COMPACT"]


@pytest.mark.parametrize("engine", ["dv", "first_row"])
def test_lookup_changelog_with_hidden_level_0_is_visible_after_the_write(session, engine):
    _create(session, engine, "fixed1", False, extra=", 'changelog-producer' = 'lookup'")
    session.sql("INSERT INTO db.t VALUES ('x', 1, 'a')")
    assert _kinds(session) == ["APPEND", "COMPACT"]
    assert len(_rows(session)) == 1


def test_a_failed_compaction_keeps_the_append_and_says_how_to_show_it(session, tmp_path):
    _create(session, "dv", "fixed1", False)
    session.sql("INSERT INTO db.t VALUES ('x', 1, 'a')")
    (name,) = session.sql("SELECT file_path FROM db.`t$files`").fetchall()[0]
    bucket = tmp_path / "wh" / "db.db" / "t" / "bucket-0"
    os.remove(bucket / name)  # the next compaction cannot read the bucket's top-level file
    with pytest.raises(PaimonSqlError, match=r"snapshot 3.*CALL sys\.compact\(table => 'db\.t'\)"):
        session.sql("INSERT INTO db.t VALUES ('y', 2, 'b')")
    assert _kinds(session) == ["APPEND", "COMPACT", "APPEND"]
    assert _latest(session) == 3


@pytest.mark.parametrize(
    "engine", ["", ", 'deletion-vectors.enabled' = 'true'"], ids=["plain", "dv"]
)
def test_dynamic_bucket_upsert_of_existing_keys_only(session, engine):
    session.sql(
        "CREATE TABLE db.t (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) "
        f"WITH ('bucket' = '-1'{engine})"
    )
    session.sql("INSERT INTO db.t VALUES (1, 'a'), (2, 'b')")
    assert session.sql("INSERT INTO db.t VALUES (1, 'z')").fetchall() == [(1,)]
    assert _rows(session) == [(1, "z"), (2, "b")]


# --- lookup compaction of deletion-vector tables (sql/_lookup_compact) ---------------------------


def _files(session, version=None):
    query = "SELECT file_path, level, record_count FROM db.`t$files`"
    if version is not None:
        query += f" VERSION AS OF {version}"
    return sorted(session.sql(query).fetchall(), key=lambda f: -f[1])


def _dv_ranges(session):
    table = session.table("db.t")
    snap = table.latest_snapshot()
    if snap.index_manifest is None:
        return {}
    out = {}
    for entry in table.index_manifest(snap.index_manifest):
        if entry.index_file.index_type == "DELETION_VECTORS":
            for r in entry.index_file.dv_ranges:
                out[r.data_file_name] = r.cardinality
    return out


def _many(n):
    return ", ".join(f"('x', {i}, 'value {i}')" for i in range(1, n + 1))


def test_a_second_write_marks_old_rows_instead_of_rewriting_them(session):
    # a big top-level run and a small write: Java's size ratio merges the write alone, one level
    # below the top, and marks the rows it replaces (tests/interop: Spark lays out the same)
    _create(session, "dv", "fixed1", False)
    session.sql(f"INSERT INTO db.t VALUES {_many(40)}")  # noqa: S608
    (top,) = _files(session)
    assert top[1:] == (5, 40)
    session.sql("INSERT INTO db.t VALUES ('x', 2, 'b2'), ('x', 50, 'd')")
    files = _files(session)
    assert files[0] == top  # the top-level file stays, untouched
    assert [f[1:] for f in files] == [(5, 40), (4, 2)]  # level 0 merged one level up
    assert _dv_ranges(session) == {top[0]: 1}  # key 2's old row, marked deleted
    expected = {i: ("x", i, f"value {i}") for i in range(1, 41)}
    expected.update({2: ("x", 2, "b2"), 50: ("x", 50, "d")})
    assert _rows(session) == sorted(expected.values(), key=repr)
    session.sql("DELETE FROM db.t WHERE id IN (1, 2)")
    assert all(f[1] > 0 for f in _files(session))
    del expected[1], expected[2]
    assert _rows(session) == sorted(expected.values(), key=repr)
    assert _kinds(session) == ["APPEND", "COMPACT"] * 3


def test_many_writes_walk_down_the_levels_then_compact_fully(session):
    _create(session, "dv", "fixed2", True)
    oracle, states = {}, {}
    for i in range(7):
        batch = [("x", i % 3, f"v{i}"), ("y", i, f"w{i}")]
        values = ", ".join(f"('{p}', {k}, '{v}')" for p, k, v in batch)
        session.sql(f"INSERT INTO db.t VALUES {values}")  # noqa: S608
        oracle.update({(p, k): (p, k, v) for p, k, v in batch})
        if i == 3:
            session.sql("UPDATE db.t SET v = 'upd' WHERE id = 1")
            oracle = {key: (p, k, "upd" if k == 1 else v) for key, (p, k, v) in oracle.items()}
        assert _rows(session) == sorted(oracle.values(), key=repr)
        states[_latest(session)] = sorted(oracle.values(), key=repr)
    assert min(f[1] for f in _files(session)) >= 1
    for snapshot_id, rows in states.items():
        assert _rows(session, f"SELECT * FROM db.t VERSION AS OF {snapshot_id}") == rows  # noqa: S608
    session.sql("CALL sys.compact(table => 'db.t')")
    assert _rows(session) == sorted(oracle.values(), key=repr)
    assert {f[1] for f in _files(session)} == {5}
    assert _dv_ranges(session) == {}


def test_partial_update_and_aggregation_merge_with_the_old_row(session):
    session.sql(
        "CREATE TABLE db.t (id INT, a STRING, b BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH "
        "('bucket' = '1', 'deletion-vectors.enabled' = 'true', 'merge-engine' = 'partial-update')"
    )
    session.sql("INSERT INTO db.t VALUES (1, 'a', NULL), (2, NULL, 2)")
    session.sql("INSERT INTO db.t VALUES (1, NULL, 10), (2, 'b', NULL)")
    assert _rows(session) == [(1, "a", 10), (2, "b", 2)]
    session.sql("DROP TABLE db.t")
    session.sql(
        "CREATE TABLE db.t (id INT, n BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1', "
        "'deletion-vectors.enabled' = 'true', 'merge-engine' = 'aggregation', "
        "'fields.n.aggregate-function' = 'sum')"
    )
    for _ in range(3):
        session.sql("INSERT INTO db.t VALUES (1, 5), (2, 1)")
    assert _rows(session) == [(1, 15), (2, 3)]


@pytest.mark.parametrize("file_format", ["orc", "avro"])
def test_lookup_compaction_of_orc_and_avro_files(session, file_format):
    _create(session, "dv", "fixed1", False, extra=f", 'file.format' = '{file_format}'")
    session.sql(f"INSERT INTO db.t VALUES {_many(40)}")  # noqa: S608
    session.sql("INSERT INTO db.t VALUES ('x', 2, 'b2')")
    assert [f[1] for f in _files(session)] == [5, 4]
    assert len(_dv_ranges(session)) == 1
    rows = _rows(session)
    assert len(rows) == 40
    assert ("x", 2, "b2") in rows
    assert ("x", 2, "value 2") not in rows


def test_a_delete_marks_the_old_row_and_writes_no_file(session):
    _create(session, "dv", "fixed1", False)
    session.sql(f"INSERT INTO db.t VALUES {_many(40)}")  # noqa: S608
    (top,) = _files(session)
    session.sql("DELETE FROM db.t WHERE id = 3")
    assert _files(session) == [top]  # the -D record's key is gone: nothing to write
    assert _dv_ranges(session) == {top[0]: 1}
    assert len(_rows(session)) == 39
    assert _rows(session, "SELECT * FROM db.t WHERE id = 3") == []
    assert _kinds(session) == ["APPEND", "COMPACT"] * 2


def _create_as_flink(session, ddl):
    """A table made by Flink/Spark with an option paimon-sql's CREATE TABLE refuses
    ('changelog-producer' = 'lookup'): created through the catalog, as another engine would."""
    create = parse_create_table(ddl)
    database, name = create.identifier
    ident = Identifier(database or "db", name)
    session.catalog.create_table(ident, create.to_schema())
    session.refresh()


def test_a_decimal_sum_beyond_its_precision_is_named_and_a_wider_column_reads_it(session):
    """Java's decimal sum keeps more digits than the column declares; DuckDB cannot hold them:
    the read names the column and the fix, and after widening the column reads the sum."""
    session.sql(
        "CREATE TABLE db.t (k INT NOT NULL, d DECIMAL(5, 2), PRIMARY KEY (k) NOT ENFORCED) "
        "WITH ('bucket' = '1', 'merge-engine' = 'aggregation', "
        "'fields.d.aggregate-function' = 'sum')"
    )
    session.sql("INSERT INTO db.t VALUES (1, 999.99), (2, 1.5)")
    session.sql("INSERT INTO db.t VALUES (1, 999.99), (2, 1.5)")
    with pytest.raises(PaimonSqlError, match=r"column 'd': the DECIMAL\(5, 2\) aggregate has more"):
        session.sql("SELECT * FROM db.t").fetchall()
    session.sql("ALTER TABLE db.t MODIFY d DECIMAL(38, 2)")
    rows = session.sql("SELECT k, d::VARCHAR FROM db.t ORDER BY k").fetchall()
    assert rows == [(1, "1999.98"), (2, "3.00")]
