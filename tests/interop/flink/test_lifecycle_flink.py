"""Snapshot expiration, rollback, tag deletion and orphan clean-up against Apache Paimon 1.3.1
(through Flink) as the oracle: the twin check of ``tests/interop/test_lifecycle_spark.py``.

One Flink-written table per kind (primary key, append) with compactions, DELETE/UPDATE, INSERT
OVERWRITE and tags is copied twice; Flink runs ``CALL sys.expire_snapshots`` / ``rollback_to`` /
``delete_tag`` / ``remove_orphan_files`` on one copy, paimon-sql the same procedure (in its own
spelling) on the other, and both must leave exactly the same files, snapshots and tags. Then
paimon-sql must read every remaining version of Flink's copy as Flink read it before the call, and
Flink must read our copy's remaining versions the same way (the latest state and every tag; every
snapshot where the call leaves few). Flink is the only source of truth.
"""

from __future__ import annotations

import datetime
import os
import shutil
from typing import TYPE_CHECKING, Any

import pytest
from sqlglot import exp

import paimon_sql
from tests.interop.flink.harness import FlinkError, arrow_rows, assert_same_rows

if TYPE_CHECKING:
    from pathlib import Path

    from tests.interop.flink.harness import FlinkOracle

pytestmark = [pytest.mark.interop, pytest.mark.slow]

TABLES = {
    "pk": "CREATE TABLE pk (id BIGINT, dt STRING, v STRING, PRIMARY KEY (id, dt) NOT ENFORCED) "
    "PARTITIONED BY (dt) WITH ('bucket' = '2')",
    "app": "CREATE TABLE app (id BIGINT, dt STRING, v STRING) WITH ('bucket' = '-1')",
}
COMPACT = "CALL sys.compact(`table` => 'db.{t}')"


def _tag(name: str) -> str:
    return f"CALL sys.create_tag(`table` => 'db.{{t}}', tag => '{name}')"


# Flink SQL: {t} is the table; a (pk, append) pair where they differ (Flink cannot DELETE or
# UPDATE an append table: an INSERT OVERWRITE or INSERT stands in).
HISTORY: list[str | tuple[str, str]] = [
    "INSERT INTO {t} VALUES (1, 'x', 'a'), (2, 'x', 'b'), (3, 'y', 'c'), (4, 'y', 'd')",
    (
        "INSERT INTO {t} VALUES (2, 'x', 'b2'), (5, 'y', 'e')",
        "INSERT INTO {t} VALUES (5, 'y', 'e')",
    ),
    _tag("a"),
    ("DELETE FROM {t} WHERE id = 3", "INSERT OVERWRITE {t} SELECT * FROM {t} WHERE id <> 3"),
    COMPACT,
    "INSERT INTO {t} VALUES (6, 'x', 'f'), (7, 'z', 'g')",
    _tag("b"),
    ("UPDATE {t} SET v = 'upd' WHERE id = 1", "INSERT INTO {t} VALUES (8, 'x', 'u')"),
    (
        "INSERT OVERWRITE {t} PARTITION (dt = 'z') SELECT CAST(8 AS BIGINT), 'h'",
        "INSERT OVERWRITE {t} SELECT * FROM {t} WHERE id <> 7",
    ),
    COMPACT,
    _tag("c"),
    "INSERT INTO {t} VALUES (9, 'x', 'i')",
    "INSERT INTO {t} VALUES (10, 'y', 'j'), (2, 'x', 'b3')",
    COMPACT,
    "INSERT INTO {t} VALUES (11, 'z', 'k')",
]


def _steps(name: str) -> list[str]:
    out = []
    for step in HISTORY:
        template = step if isinstance(step, str) else step[0 if name == "pk" else 1]
        out.append(template.replace("{t}", name))
    return out


@pytest.fixture(scope="module")
def origin(flink: FlinkOracle, tmp_path_factory) -> Path:
    warehouse: Path = tmp_path_factory.mktemp("lifecycle13") / "origin"
    for name, ddl in TABLES.items():
        flink.run(warehouse, ddl, *_steps(name))
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
        if not f.startswith(".")
    }


def _versions(warehouse: Path, name: str) -> list[int | str]:
    session = paimon_sql.connect(warehouse)
    try:
        table = session.table(f"db.{name}")
        return [*table.snapshot_ids(), *table.tag_names()]
    finally:
        session.close()


def _flink_read(flink: FlinkOracle, warehouse: Path, name: str, version: int | str | None):
    if version is None:
        return flink.read(warehouse, name)[1]
    if isinstance(version, int):
        return flink.read(warehouse, name, snapshot=version)[1]
    return flink.read(warehouse, name, tag=version)[1]


def _ours(warehouse: Path, name: str, version: int | str | None) -> list[dict[str, Any]]:
    session = paimon_sql.connect(warehouse)
    try:
        if version is None:
            query = exp.select("*").from_(exp.table_(name, db="db", quoted=True)).sql("duckdb")
            return arrow_rows(session.sql(query).to_arrow_table())[1]
        snapshot, tag = (version, None) if isinstance(version, int) else (None, version)
        return arrow_rows(session.scan(f"db.{name}", snapshot=snapshot, tag=tag).to_arrow_table())[
            1
        ]
    finally:
        session.close()


class Before:
    """Flink's reads of the untouched origin, made on first need (a twin keeps only some)."""

    def __init__(self, flink: FlinkOracle, origin: Path, name: str) -> None:
        self.flink, self.origin, self.name = flink, origin, name
        self.reads: dict[int | str, list[dict[str, Any]]] = {}

    def __getitem__(self, version: int | str) -> list[dict[str, Any]]:
        if version not in self.reads:
            self.reads[version] = _flink_read(self.flink, self.origin, self.name, version)
        return self.reads[version]


@pytest.fixture(scope="module")
def before(flink: FlinkOracle, origin: Path) -> dict[str, Before]:
    """Flink's reads of every snapshot and tag of the origin tables (made when first asked)."""
    return {name: Before(flink, origin, name) for name in TABLES}


def _our_sql(warehouse: Path, statement: str) -> list[tuple[Any, ...]]:
    session = paimon_sql.connect(warehouse)
    try:
        rows: list[tuple[Any, ...]] = session.sql(statement).fetchall()
        return rows
    finally:
        session.close()


def _time_of(warehouse: Path, name: str, snapshot_id: int) -> str:
    """A snapshot's commit time as 'yyyy-MM-dd HH:mm:ss' (UTC: the JVM's and the machine's zone)."""
    session = paimon_sql.connect(warehouse)
    try:
        millis = session.table(f"db.{name}").snapshot(snapshot_id).time_millis
    finally:
        session.close()
    moment = datetime.datetime.fromtimestamp(millis / 1000 + 1, datetime.UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S")


#: (Flink's call, paimon-sql's call); {t} is db.<table>, {mid} a time just after snapshot 6. Every
#: argument of expire_snapshots is given: Paimon 1.x fills omitted ones from the table's options
#: (`test_java_13_fills_omitted_expire_arguments_from_the_table`), paimon-sql as Paimon 0.9 does.
_ALL = "retain_min => 1, max_deletes => 1000"
CALLS = [
    (
        f"expire_snapshots(`table` => '{{t}}', retain_max => 3, {_ALL}, "
        "older_than => '2000-01-01 00:00:00')",
        f"expire_snapshots(table => '{{t}}', retain_max => 3, {_ALL}, "
        "older_than => '2000-01-01 00:00:00')",
    ),
    (
        f"expire_snapshots(`table` => '{{t}}', older_than => '{{mid}}', retain_max => 9, {_ALL})",
        f"expire_snapshots(table => '{{t}}', older_than => '{{mid}}', retain_max => 9, {_ALL})",
    ),
    (
        "rollback_to(`table` => '{t}', snapshot_id => CAST(6 AS BIGINT))",
        "rollback(table => '{t}', snapshot => 6)",
    ),
    ("rollback_to(`table` => '{t}', tag => 'b')", "rollback(table => '{t}', tag => 'b')"),
]


def test_java_13_fills_omitted_expire_arguments_from_the_table(flink, origin, tmp_path):
    """A known difference, pinned: Paimon 1.x's expire_snapshots takes an omitted retain_min,
    max_deletes and older_than from the table's options (snapshot.num-retained.min = 10,
    snapshot.expire.limit, snapshot.time-retained = 1 h), so ``retain_max => 3`` alone is refused;
    Paimon 0.9 and paimon-sql default to retain_min 1, no limit and no time bound."""
    java, ours = _twin(origin, tmp_path, "java"), _twin(origin, tmp_path, "ours")
    with pytest.raises(FlinkError, match=r"retainMax \(3\) must not be less than retainMin \(10\)"):
        flink.run(java, "CALL sys.expire_snapshots(`table` => 'db.pk', retain_max => 3)")
    assert _our_sql(ours, "CALL sys.expire_snapshots(table => 'db.pk', retain_max => 3)") == [
        (len(_versions(origin, "pk")) - 3 - 3,)
    ]


def _flink_expire(name: str, retain_max: int) -> str:
    """Flink's expire_snapshots keeping `retain_max` snapshots, every argument given."""
    return (
        f"CALL sys.expire_snapshots(`table` => 'db.{name}', retain_max => {retain_max}, {_ALL}, "
        "older_than => '2000-01-01 00:00:00')"
    )


def _age(warehouse: Path, name: str, *, but: str = "\0") -> None:
    """Every file of the table older than 2020 (but those whose name holds `but`)."""
    old = datetime.datetime(2020, 1, 1).timestamp()
    for folder, _, files in os.walk(warehouse / "db.db" / name):
        for f in files:
            if but not in f:
                os.utime(os.path.join(folder, f), (old, old))


def _java_orphans(flink: FlinkOracle, warehouse: Path, name: str) -> list[Any]:
    """Java's remove_orphan_files over the (aged) table: its answer rows."""
    (out,) = flink.run(
        warehouse,
        f"CALL sys.remove_orphan_files(`table` => 'db.{name}', "
        "older_than => '2024-01-01 00:00:00')",
    )
    rows: list[Any] = out["rows"]
    return rows


def _fill(template: str, name: str, **values: str) -> str:
    for key, value in {"t": f"db.{name}", **values}.items():
        template = template.replace("{" + key + "}", value)
    return template


def _same_after(
    flink: FlinkOracle, java: Path, ours: Path, name: str, before: Before, *, rollback: bool = False
) -> None:
    """Same files and versions; we read Java's copy as before; Flink reads ours as before.

    `rollback`: Java 1.2+ rolls back by deleting snapshot and tag files only (RollbackHelper
    "only clean snapshots"), leaving the dropped snapshots' data and manifest files to
    remove_orphan_files; paimon-sql deletes them at once, as Paimon 0.9 did. Then Java's copy holds
    more files, and after Java's own orphan clean-up exactly ours.
    """
    if rollback:
        assert _files(ours, name) <= _files(java, name)
        _age(java, name)
        _java_orphans(flink, java, name)
    assert _files(ours, name) == _files(java, name), (
        f"only ours: {sorted(_files(ours, name) - _files(java, name))}, "
        f"only Java's: {sorted(_files(java, name) - _files(ours, name))}"
    )
    versions = _versions(java, name)
    assert _versions(ours, name) == versions
    for version in versions:
        assert_same_rows(
            _ours(java, name, version), before[version], context=f"we read Java's {version}"
        )
    tags = [v for v in versions if isinstance(v, str)]
    snapshots = [v for v in versions if isinstance(v, int)]
    latest: list[int | str | None] = [None]
    for read in [*latest, min(snapshots), *tags[-1:]]:  # the latest, the earliest, a tag
        expected = before[max(snapshots) if read is None else read]
        assert_same_rows(
            _flink_read(flink, ours, name, read), expected, context=f"Flink reads our {read}"
        )


@pytest.mark.parametrize("name", list(TABLES))
@pytest.mark.parametrize(
    "calls", CALLS, ids=[c[1].split("(")[0] + str(i) for i, c in enumerate(CALLS)]
)
def test_same_files_as_java(flink, origin, before, tmp_path, name, calls):
    """Flink and paimon-sql run the same procedure on twin copies: the same files remain."""
    java, ours = _twin(origin, tmp_path, "java"), _twin(origin, tmp_path, "ours")
    mid = _time_of(origin, name, 6)
    (java_out,) = flink.run(java, "CALL sys." + _fill(calls[0], name, mid=mid))
    our_out = _our_sql(ours, "CALL sys." + _fill(calls[1], name, mid=mid))
    if calls[0].startswith("expire"):  # the number of expired snapshots, in both
        assert java_out["rows"] == [[str(our_out[0][0])]]
    _same_after(flink, java, ours, name, before[name], rollback=calls[0].startswith("rollback"))


@pytest.mark.parametrize("name", list(TABLES))
def test_rollback_to_an_expired_tag_then_both_write(flink, origin, before, tmp_path, name):
    """Expire past tag 'a', roll back to it (the only snapshot now), then each side writes on."""
    expired = _twin(origin, tmp_path, "expired")
    flink.run(expired, _flink_expire(name, 4))
    java, ours = _twin(expired, tmp_path, "java"), _twin(expired, tmp_path, "ours")
    flink.run(java, f"CALL sys.rollback_to(`table` => 'db.{name}', tag => 'a')")
    _our_sql(ours, f"CALL sys.rollback(table => 'db.{name}', tag => 'a')")
    _same_after(flink, java, ours, name, before[name], rollback=True)
    assert len([v for v in _versions(ours, name) if isinstance(v, int)]) == 1
    assert_same_rows(_flink_read(flink, ours, name, None), before[name]["a"], context="Flink")
    insert = "INSERT INTO {t} VALUES (100, 'x', 'new')"
    _our_sql(ours, insert.format(t=f"db.{name}"))
    flink.run(java, insert.format(t=name))
    expected = [*before[name]["a"], {"id": 100, "dt": "x", "v": "new"}]
    assert_same_rows(_flink_read(flink, ours, name, None), expected, context="Flink on ours")
    assert_same_rows(_ours(java, name, None), expected, context="we on Java's")


def test_rollback_to_an_expired_snapshot_id_a_tag_holds(flink, origin, before, tmp_path):
    """Paimon 1.x's rollback_to a snapshot id that expired but a tag still holds rolls back to that
    tag (AbstractFileStoreTable.rollbackTo(long)); paimon-sql refused it."""
    name = "pk"
    expired = _twin(origin, tmp_path, "expired")
    flink.run(expired, _flink_expire(name, 4))
    session = paimon_sql.connect(expired)
    try:
        held = session.table(f"db.{name}").tag("a").id
        assert held not in session.table(f"db.{name}").snapshot_ids()
    finally:
        session.close()
    java, ours = _twin(expired, tmp_path, "java"), _twin(expired, tmp_path, "ours")
    flink.run(
        java, f"CALL sys.rollback_to(`table` => 'db.{name}', snapshot_id => CAST({held} AS BIGINT))"
    )
    _our_sql(ours, f"CALL sys.rollback(table => 'db.{name}', snapshot => {held})")
    _same_after(flink, java, ours, name, before[name], rollback=True)
    assert_same_rows(_flink_read(flink, ours, name, None), before[name]["a"], context="Flink")


def test_a_branch_keeps_its_files_where_java_deletes_them(flink, origin, before, tmp_path):
    """A known difference, on purpose: a branch made from tag 'a' (Flink's create_branch) shares
    that snapshot's files; once the snapshot expired, deleting tag 'a' makes Java 1.3 delete them
    (TagManager.deleteTag looks at the main branch only) and Flink then fails on the branch.
    paimon-sql keeps every file another branch uses: Flink reads our branch as tag 'a' was, and
    Java's remove_orphan_files, which sees branches, deletes none of them."""
    name = "pk"
    branched = _twin(origin, tmp_path, "branched")
    flink.run(
        branched,
        f"CALL sys.create_branch(`table` => 'db.{name}', branch => 'br', tag => 'a')",
        _flink_expire(name, 4),
    )
    java, ours = _twin(branched, tmp_path, "java"), _twin(branched, tmp_path, "ours")
    flink.run(java, f"CALL sys.delete_tag(`table` => 'db.{name}', tag => 'a')")
    _our_sql(ours, f"CALL sys.delete_tag(table => 'db.{name}', tag => 'a')")
    with pytest.raises(FlinkError):
        flink.read(java, f"{name}$branch_br")
    assert _files(ours, name) > _files(java, name)
    _age(ours, name)
    assert _java_orphans(flink, ours, name)[0] == ["0"]
    latest = max(v for v in _versions(origin, name) if isinstance(v, int))
    for warehouse in (ours, java):  # the main branch: as before, in both
        assert_same_rows(_ours(warehouse, name, None), before[name][latest], context="main")
    branch = flink.read(ours, f"{name}$branch_br")[1]
    assert_same_rows(branch, before[name]["a"], context="Flink reads our branch")


def test_a_tag_named_unlike_ours_keeps_its_files_like_java(flink, origin, before, tmp_path):
    """Java names a tag '..' (one file tag/tag-..); paimon-sql would not, but lists it, keeps its
    files through expiration as Java does, and reads it as Flink does. It was left out of the
    listing, and expiration deleted its files."""
    name = "pk"
    tagged = _twin(origin, tmp_path, "tagged")
    flink.run(tagged, f"CALL sys.create_tag(`table` => 'db.{name}', tag => '..', snapshot_id => 1)")
    java, ours = _twin(tagged, tmp_path, "java"), _twin(tagged, tmp_path, "ours")
    flink.run(java, _flink_expire(name, 3))
    _our_sql(ours, _flink_expire(name, 3).replace("`table`", "table"))
    assert _files(ours, name) == _files(java, name)
    assert "tag/tag-.." in _files(ours, name)
    expected = before[name][1]
    assert_same_rows(_ours(java, name, ".."), expected, context="we read Java's tag '..'")
    assert_same_rows(_flink_read(flink, ours, name, ".."), expected, context="Flink reads ours")


@pytest.mark.parametrize("name", list(TABLES))
def test_remove_orphan_files_like_java(flink, origin, before, tmp_path, name):
    """Stray files old and new, and Java's rollback leftovers: both sides delete the same ones."""
    java, ours = _twin(origin, tmp_path, "java"), _twin(origin, tmp_path, "ours")
    for warehouse in (java, ours):
        flink.run(
            warehouse,
            _flink_expire(name, 4),
            f"CALL sys.rollback_to(`table` => 'db.{name}', tag => 'b')",
        )
        root = warehouse / "db.db" / name
        for rel in ("manifest/manifest-stray-0", "bucket-7/data-stray.parquet", "new-stray"):
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_bytes(b"x")
        _age(warehouse, name, but="new")  # every file old now: only being used protects it
    left = _files(ours, name)
    java_out = _java_orphans(flink, java, name)
    our_out = _our_sql(
        ours,
        f"CALL sys.remove_orphan_files(table => 'db.{name}', older_than => '2024-01-01 00:00:00')",
    )
    assert any("stray" in r[0] for r in our_out)
    assert len(our_out) > 3, "Java's rollback leftovers are orphans too"
    assert java_out[0] == [str(len(our_out))], java_out  # Java: [files deleted], [bytes]
    assert (ours / "db.db" / name / "new-stray").exists()
    assert _files(ours, name) < left
    _same_after(flink, java, ours, name, before[name])


@pytest.mark.parametrize("name", list(TABLES))
def test_delete_tag_of_an_expired_snapshot_like_java(flink, origin, before, tmp_path, name):
    """Tag deletion after its snapshot expired frees the files only it held, as Java's."""
    expired = _twin(origin, tmp_path, "expired")
    flink.run(expired, _flink_expire(name, 3))
    java, ours = _twin(expired, tmp_path, "java"), _twin(expired, tmp_path, "ours")
    flink.run(java, f"CALL sys.delete_tag(`table` => 'db.{name}', tag => 'a')")
    _our_sql(ours, f"CALL sys.delete_tag(table => 'db.{name}', tag => 'a')")
    assert _files(ours, name) < _files(expired, name)  # something was freed
    _same_after(flink, java, ours, name, before[name])


OUR_HISTORY = [
    "INSERT INTO db.t VALUES (1, 'a', 1), (2, 'a', 2), (3, 'b', 3)",
    "INSERT INTO db.t VALUES (4, 'b', 4), (5, 'c', 5)",
    "INSERT OVERWRITE db.t PARTITION (dt = 'a') SELECT 10, 10",
    "CALL sys.create_tag(table => 'db.t', tag => 'three')",
    "DELETE FROM db.t WHERE id = 3",
    "INSERT INTO db.t VALUES (6, 'a', 6)",
    "CALL sys.compact(table => 'db.t')",
    "UPDATE db.t SET v = 50 WHERE id = 5",
    "INSERT INTO db.t VALUES (7, 'c', 7), (8, 'a', 8)",
    "CALL sys.compact(table => 'db.t')",
    "INSERT INTO db.t VALUES (9, 'b', 9)",
]


@pytest.mark.parametrize(
    "calls",
    [
        (
            f"expire_snapshots(`table` => 'db.t', retain_max => 2, {_ALL}, "
            "older_than => '2000-01-01 00:00:00')",
            "expire_snapshots(table => 'db.t', retain_max => 2)",
        ),
        (
            "rollback_to(`table` => 'db.t', tag => 'three')",
            "rollback(table => 'db.t', tag => 'three')",
        ),
    ],
    ids=["expire", "rollback"],
)
def test_same_files_as_java_on_a_table_we_wrote(flink, tmp_path, calls):
    """The twin check on a paimon-sql-written table (our compactions, our tags)."""
    origin = tmp_path / "origin"
    session = paimon_sql.connect(origin, create=True)
    try:
        session.sql("CREATE DATABASE db")
        session.sql(
            "CREATE TABLE db.t (id BIGINT NOT NULL, dt STRING NOT NULL, v INT) PARTITIONED BY (dt) "
            "WITH ('bucket' = '2', 'primary-key' = 'id,dt')"
        )
        for statement in OUR_HISTORY:
            session.sql(statement)
    finally:
        session.close()
    before = Before(flink, origin, "t")
    java, ours = _twin(origin, tmp_path, "java"), _twin(origin, tmp_path, "ours")
    flink.run(java, "CALL sys." + calls[0])
    _our_sql(ours, "CALL sys." + calls[1])
    _same_after(flink, java, ours, "t", before, rollback="rollback" in calls[0])
