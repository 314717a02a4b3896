"""Snapshot expiration and rollback against Apache Paimon 0.9 (through Spark) as the oracle.

The strongest check is the twin: one Spark-written table with compactions, DELETE/UPDATE, INSERT
OVERWRITE and tags, copied twice; Java runs ``CALL sys.expire_snapshots`` / ``rollback`` on one
copy, paimon-sql runs the same call on the other, and both must leave exactly the same files. Then
Spark must read every remaining snapshot and tag of our copy as it read them before, and paimon-sql
must read Java's copy as Spark does.
"""

from __future__ import annotations

import datetime
import os
import shutil
from typing import TYPE_CHECKING

import pytest

import paimon_sql
from paimon_sql.commit.expire import list_entries, live_entries
from paimon_sql.format.manifest import FileKind
from tests.interop.harness import assert_rows_equal, spark_rows, spark_session, spark_sql

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = [pytest.mark.interop]

TABLES = {
    "pk": (
        "CREATE TABLE db.pk (id BIGINT, dt STRING, v STRING) USING paimon PARTITIONED BY (dt) "
        "TBLPROPERTIES ('primary-key' = 'id,dt', 'bucket' = '2')"
    ),
    "app": "CREATE TABLE db.app (id BIGINT, dt STRING, v STRING) USING paimon "
    "TBLPROPERTIES ('bucket' = '-1')",
}


# Spark SQL templates: {t} is the table (db.pk or db.app); a (pk, append) pair where they differ.
HISTORY = [
    "INSERT INTO {t} VALUES (1, 'x', 'a'), (2, 'x', 'b'), (3, 'y', 'c'), (4, 'y', 'd')",
    (
        "INSERT INTO {t} VALUES (2, 'x', 'b2'), (5, 'y', 'e')",
        "INSERT INTO {t} VALUES (5, 'y', 'e')",
    ),
    "CALL sys.create_tag(table => '{t}', tag => 'a')",
    "DELETE FROM {t} WHERE id = 3",
    "CALL sys.compact(table => '{t}')",
    "INSERT INTO {t} VALUES (6, 'x', 'f'), (7, 'z', 'g')",
    "CALL sys.create_tag(table => '{t}', tag => 'b')",
    "UPDATE {t} SET v = 'upd' WHERE id = 1",
    (
        "INSERT OVERWRITE {t} PARTITION (dt = 'z') SELECT id, v FROM VALUES (8, 'h') AS s(id, v)",
        "INSERT OVERWRITE {t} SELECT * FROM {t} WHERE id <> 7",
    ),
    "CALL sys.compact(table => '{t}')",
    "CALL sys.create_tag(table => '{t}', tag => 'c')",
    "INSERT INTO {t} VALUES (9, 'x', 'i')",
    "INSERT INTO {t} VALUES (10, 'y', 'j'), (2, 'x', 'b3')",
    "CALL sys.compact(table => '{t}')",
    "INSERT INTO {t} VALUES (11, 'z', 'k')",
]


def _sql(template: str, name: str, **values: str) -> str:
    """A statement from a template: ``{t}`` is ``db.<name>``, other ``{key}``s from `values`."""
    for key, value in {"t": f"db.{name}", **values}.items():
        template = template.replace("{" + key + "}", value)
    return template


def _history(spark, name: str) -> None:
    """A dozen snapshots: inserts, upserts, DELETE, compactions, UPDATE, INSERT OVERWRITE, tags."""
    spark_sql(spark, "CREATE DATABASE IF NOT EXISTS db")
    spark_sql(spark, TABLES[name])
    for step in HISTORY:
        template = step if isinstance(step, str) else step[0 if name == "pk" else 1]
        spark_sql(spark, _sql(template, name))


@pytest.fixture(scope="module")
def origin(tmp_path_factory) -> Path:
    warehouse = tmp_path_factory.mktemp("lifecycle") / "origin"
    spark = spark_session(warehouse)
    for name in TABLES:
        _history(spark, name)
    return warehouse


def _twin(origin: Path, tmp_path: Path, label: str) -> Path:
    target = tmp_path / label
    shutil.copytree(origin, target)
    return target


def _files(warehouse: Path, name: str) -> set[str]:
    root = warehouse / "db.db" / name
    return {
        os.path.relpath(os.path.join(d, f), root)
        for d, _, fs in os.walk(root)
        for f in fs
        if not f.startswith(".")  # Hadoop's .crc checksum side files
    }


def _versions(warehouse: Path, name: str) -> list[int | str]:
    table = paimon_sql.connect(warehouse).table(f"db.{name}")
    return [*table.snapshot_ids(), *table.tag_names()]


def _spark_reads(warehouse: Path, name: str) -> dict[int | str, list[dict]]:
    spark = spark_session(warehouse)
    return {v: spark_rows(spark, f"db.{name}", version=v) for v in _versions(warehouse, name)}


def _ours(warehouse: Path, name: str, version: int | str) -> list[dict]:
    session = paimon_sql.connect(warehouse)
    travel = str(version) if isinstance(version, int) else f"'{version}'"
    rel = session.sql(_sql("SELECT * FROM {t} VERSION AS OF {v}", name, v=travel))
    return [dict(zip(rel.columns, row, strict=True)) for row in rel.fetchall()]


def _time_of(warehouse: Path, name: str, snapshot_id: int) -> str:
    """A snapshot's commit time as Spark's TIMESTAMP literal text (UTC, milliseconds)."""
    millis = paimon_sql.connect(warehouse).table(f"db.{name}").snapshot(snapshot_id).time_millis
    moment = datetime.datetime.fromtimestamp(millis / 1000, datetime.UTC)
    return moment.replace(tzinfo=None).isoformat(sep=" ", timespec="milliseconds")


CALLS = [
    "expire_snapshots(table => '{t}', retain_max => 3)",
    "expire_snapshots(table => '{t}', retain_max => 6)",
    "expire_snapshots(table => '{t}', retain_max => 2, max_deletes => 4)",
    "expire_snapshots(table => '{t}', older_than => TIMESTAMP '2999-01-01 00:00', retain_min => 5)",
    "expire_snapshots(table => '{t}', older_than => TIMESTAMP '2000-01-01 00:00', retain_min => 1)",
    "expire_snapshots(table => '{t}', older_than => TIMESTAMP '{mid}', retain_max => 9)",
    "rollback(table => '{t}', version => '6')",
    "rollback(table => '{t}', version => 'b')",
    "rollback(table => '{t}', version => '1')",
]


@pytest.mark.parametrize("name", list(TABLES))
@pytest.mark.parametrize("call", CALLS)
def test_same_files_as_java(origin, tmp_path, name, call):
    """Java and paimon-sql run the same procedure on twin copies: the same files remain."""
    before = _spark_reads(origin, name)
    java, ours = _twin(origin, tmp_path, "java"), _twin(origin, tmp_path, "ours")
    statement = _sql("CALL sys." + call, name, mid=_time_of(origin, name, 6))
    java_out = spark_sql(spark_session(java), statement)
    our_out = paimon_sql.connect(ours).sql(statement).fetchall()
    assert [tuple(r) for r in java_out] == our_out
    assert _files(ours, name) == _files(java, name), (
        f"only ours: {sorted(_files(ours, name) - _files(java, name))}, "
        f"only Java's: {sorted(_files(java, name) - _files(ours, name))}"
    )
    assert _versions(ours, name) == _versions(java, name)
    for version, rows in _spark_reads(ours, name).items():  # Spark reads our copy as before
        assert_rows_equal(rows, before[version])
    for version in _versions(java, name):  # we read Java's copy as Spark did
        assert_rows_equal(_ours(java, name, version), before[version])


@pytest.mark.parametrize("name", list(TABLES))
def test_rollback_to_an_expired_tag_then_both_write(origin, tmp_path, name):
    """Expire past tag 'a', roll back to it (the only snapshot now), then each side writes on."""
    before = _spark_reads(origin, name)
    expired = _twin(origin, tmp_path, "expired")
    expire = _sql("CALL sys.expire_snapshots(table => '{t}', retain_max => 4)", name)
    spark_sql(spark_session(expired), expire)
    java, ours = _twin(expired, tmp_path, "java"), _twin(expired, tmp_path, "ours")
    statement = _sql("CALL sys.rollback(table => '{t}', version => 'a')", name)
    spark_sql(spark_session(java), statement)
    paimon_sql.connect(ours).sql(statement)
    assert _versions(ours, name) == _versions(java, name) == [2, "a"]
    assert _files(ours, name) == _files(java, name)
    assert_rows_equal(spark_rows(spark_session(ours), f"db.{name}"), before["a"])
    session = paimon_sql.connect(ours)
    insert = _sql("INSERT INTO {t} VALUES (100, 'x', 'new')", name)
    session.sql(insert)
    expected = [*before["a"], {"id": 100, "dt": "x", "v": "new"}]
    assert_rows_equal(spark_rows(spark_session(ours), f"db.{name}"), expected)
    spark_sql(spark_session(java), insert)
    assert_rows_equal(_ours(java, name, 3), expected)


@pytest.mark.parametrize("name", list(TABLES))
def test_remove_orphan_files_like_java(origin, tmp_path, name):
    """Stray files old and new, and Java's rollback leftovers: both sides delete the same ones."""
    java, ours = _twin(origin, tmp_path, "java"), _twin(origin, tmp_path, "ours")
    old = datetime.datetime(2020, 1, 1).timestamp()
    for warehouse in (java, ours):
        spark = spark_session(warehouse)
        spark_sql(spark, _sql("CALL sys.expire_snapshots(table => '{t}', retain_max => 4)", name))
        spark_sql(spark, _sql("CALL sys.rollback(table => '{t}', version => 'a')", name))
        root = warehouse / "db.db" / name
        for rel in (
            "manifest/manifest-stray-0",
            "bucket-7/data-stray.orc",
            "dt=x/bucket-0/data-new.orc",
        ):
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_bytes(b"x")
            if "new" not in rel:
                os.utime(root / rel, (old, old))
        for folder, _, files in os.walk(root):  # every file is old now: only being used protects it
            for f in files:
                if "new" not in f:
                    os.utime(os.path.join(folder, f), (old, old))
    before = _spark_reads(java, name)
    statement = _sql(
        "CALL sys.remove_orphan_files(table => '{t}', older_than => '2024-01-01 00:00:00')", name
    )
    java_out = {r[0].removeprefix("file:") for r in spark_sql(spark_session(java), statement)}
    our_out = {r[0] for r in paimon_sql.connect(ours).sql(statement).fetchall()}
    assert any("stray" in p for p in java_out)
    assert not any("new" in p for p in java_out)
    assert {os.path.relpath(p, java) for p in java_out} == {
        os.path.relpath(p, ours) for p in our_out
    }
    assert _files(ours, name) == _files(java, name)
    assert _spark_reads(ours, name) == before


def test_rollback_over_a_level_upgrade_keeps_the_upgraded_file(tmp_path):
    """A known difference: Java 0.9 deletes every file a dropped delta ADDs, level upgrades too.

    paimon-sql's compaction moves a lone file to the top level without a rewrite (DELETE + ADD of
    the same file, as Java's). Rolling back past it must keep the file: the target still reads it.
    Java 0.9's RollbackHelper deletes it and the table no longer reads; ours keeps it.
    """
    session = paimon_sql.connect(tmp_path / "ours", create=True)
    session.sql("CREATE DATABASE db")
    session.sql(
        "CREATE TABLE db.t (id BIGINT NOT NULL, dt STRING NOT NULL, v INT) PARTITIONED BY (dt) "
        "WITH ('bucket' = '2', 'primary-key' = 'id,dt')"
    )
    for statement in (
        "INSERT INTO db.t VALUES (1, 'a', 1), (2, 'a', 2), (3, 'b', 3)",
        "INSERT INTO db.t VALUES (4, 'b', 4), (5, 'c', 5)",
        "INSERT INTO db.t VALUES (6, 'a', 6)",
        "CALL sys.compact(table => 'db.t')",
        "INSERT INTO db.t VALUES (7, 'c', 7)",
    ):
        session.sql(statement)
    compact = next(
        i for i in session.table("db.t").snapshot_ids() if i > 1 and _upgrades(session, i)
    )
    target = compact - 1
    java = tmp_path / "java"
    shutil.copytree(tmp_path / "ours", java)
    before = spark_rows(spark_session(tmp_path / "ours"), "db.t", version=target)
    statement = _sql("CALL sys.rollback(table => '{t}', version => '{v}')", "t", v=str(target))
    session.sql(statement)
    assert_rows_equal(spark_rows(spark_session(tmp_path / "ours"), "db.t"), before)
    spark_sql(spark_session(java), statement)
    with pytest.raises(Exception, match="FileNotFoundException"):
        spark_rows(spark_session(java), "db.t")


def _upgrades(session, snapshot_id: int) -> bool:
    table = session.table("db.t")
    entries = list_entries(table, table.snapshot(snapshot_id).delta_manifest_list)
    deleted = {e.file.file_name for e in entries if e.kind is FileKind.DELETE}
    return any(e.kind is FileKind.ADD and e.file.file_name in deleted for e in entries)


OUR_HISTORY = [
    "INSERT INTO db.t VALUES (1, 'a', 1), (2, 'a', 2), (3, 'b', 3)",
    "INSERT INTO db.t VALUES (4, 'b', 4), (5, 'c', 5)",
    "INSERT OVERWRITE db.t PARTITION (dt = 'a') SELECT 10, 'a', 10",
    "CALL sys.create_tag(table => 'db.t', tag => 'three')",
    "DELETE FROM db.t WHERE id = 3",
    "INSERT INTO db.t VALUES (6, 'a', 6)",
    "CALL sys.compact(table => 'db.t')",
    "CALL sys.create_tag(table => 'db.t', tag => 'compacted')",
    "UPDATE db.t SET v = 50 WHERE id = 5",
    "INSERT OVERWRITE db.t SELECT 20, 'b', 20",
    "INSERT INTO db.t VALUES (7, 'c', 7), (8, 'a', 8)",
    "CALL sys.compact(table => 'db.t')",
    "INSERT INTO db.t VALUES (9, 'b', 9)",
]


@pytest.mark.parametrize(
    "call",
    [
        "expire_snapshots(table => '{t}', retain_max => 2)",
        "expire_snapshots(table => '{t}', retain_max => 5)",
        "rollback(table => '{t}', version => 'three')",
    ],
)
def test_same_files_as_java_on_a_table_we_wrote(tmp_path, call):
    """The twin check on a paimon-sql-written table (our compactions, tags made by our CALL)."""
    origin = tmp_path / "origin"
    session = paimon_sql.connect(origin, create=True)
    session.sql("CREATE DATABASE db")
    session.sql(
        "CREATE TABLE db.t (id BIGINT NOT NULL, dt STRING NOT NULL, v INT) PARTITIONED BY (dt) "
        "WITH ('bucket' = '2', 'primary-key' = 'id,dt')"
    )
    for statement in OUR_HISTORY:
        session.sql(statement)
    before = _spark_reads(origin, "t")
    java, ours = _twin(origin, tmp_path, "java"), _twin(origin, tmp_path, "ours")
    statement = _sql("CALL sys." + call, "t")
    java_out = spark_sql(spark_session(java), statement)
    assert [tuple(r) for r in java_out] == paimon_sql.connect(ours).sql(statement).fetchall()
    only_ours = _files(ours, "t") - _files(java, "t")
    assert _files(java, "t") <= _files(ours, "t")
    if (
        only_ours
    ):  # only the level-upgraded files Java 0.9's rollback deletes though the target reads them
        table = paimon_sql.connect(ours).table("db.t")
        target_files = {e.file.file_name for e in live_entries(table, table.latest_snapshot())}
        assert "rollback" in call
        assert {f.rsplit("/", 1)[-1] for f in only_ours} <= target_files
    for version, rows in _spark_reads(ours, "t").items():
        assert_rows_equal(rows, before[version])


@pytest.mark.parametrize("name", list(TABLES))
@pytest.mark.parametrize("tag", ["a", "b"])
def test_delete_tag_of_an_expired_snapshot_like_java(origin, tmp_path, name, tag):
    """Tag deletion after its snapshot expired frees the files only it held, as Java's deleteTag."""
    expired = _twin(origin, tmp_path, "expired")
    expire = _sql("CALL sys.expire_snapshots(table => '{t}', retain_max => 3)", name)
    spark_sql(spark_session(expired), expire)
    before = _spark_reads(expired, name)
    java, ours = _twin(expired, tmp_path, "java"), _twin(expired, tmp_path, "ours")
    statement = _sql("CALL sys.delete_tag(table => '{t}', tag => '{g}')", name, g=tag)
    spark_sql(spark_session(java), statement)
    paimon_sql.connect(ours).sql(statement)
    assert _files(ours, name) < _files(expired, name)  # something was freed
    assert _files(ours, name) == _files(java, name)
    for version, rows in _spark_reads(ours, name).items():
        assert_rows_equal(rows, before[version])
