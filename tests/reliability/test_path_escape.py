"""Names never leave the warehouse (issue 11, item 1): each path-escape vector, each entry point.

Each case builds a warehouse three folders deep inside a scratch root, plants decoys where escaping
name would land (``<root>/decoy.db/user.txt`` ...), snapshots everything outside the warehouse, runs
one vector through one entry point (SQL, a procedure, the Python API, ``install``'s functions or the
shell) and asserts both the clear `paimon_sql.errors` error and that nothing outside the warehouse
was created, changed or deleted. Real files, real DuckDB; no mocks.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb
import pytest
from sqlglot import exp

import paimon_sql
from paimon_sql.catalog import Identifier, Table
from paimon_sql.catalog.names import validate_name
from paimon_sql.commit import tags
from paimon_sql.errors import (
    ExecutionError,
    InvalidNameError,
    OptionError,
    PaimonSqlError,
    PathEscapeError,
    SpecViolationError,
    SqlError,
)
from paimon_sql.format.avro_schemas import MANIFEST_ENTRY_SCHEMA, MANIFEST_FILE_META_SCHEMA
from paimon_sql.io import file_io, read_records
from paimon_sql.io.records import encode_avro
from paimon_sql.plan.scan import plan_scan

if TYPE_CHECKING:
    from collections.abc import Callable

    from paimon_sql.catalog import Catalog

OLD = 946_684_800  # 2000-01-01: files this old are orphans for any older_than
FUTURE = "2999-01-01 00:00:00"


@dataclass
class Env:
    root: Path
    warehouse: Path
    session: paimon_sql.Session

    @property
    def catalog(self) -> Catalog:
        return self.session.catalog

    def sql(self, text: str):
        return self.session.sql(text).fetchall()


def _tree(root: Path, skip: Path) -> dict[str, tuple[str, str]]:
    """Everything under `root` but `skip`: kind and content hash (links by target, not followed)."""
    out: dict[str, tuple[str, str]] = {}
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        if here == skip:
            dirs[:] = []
            continue
        for name in dirs + files:
            path = here / name
            if path == skip:
                continue
            rel = str(path.relative_to(root))
            if path.is_symlink():
                out[rel] = ("link", os.readlink(path))
            elif path.is_dir():
                out[rel] = ("dir", "")
            else:
                out[rel] = ("file", hashlib.sha256(path.read_bytes()).hexdigest())
    return out


def _decoy(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "user.txt").write_text("the user's file: never to be deleted")


def _make_env(root: Path) -> Env:
    warehouse = root / "l1" / "l2" / "wh"
    session = paimon_sql.connect(warehouse, create=True)
    # where '../x', '../../x' and '../../../x' land from the warehouse and from a database folder
    for place in (root, root / "l1", root / "l1" / "l2"):
        for name in ("decoy.db", "x.db", "x", "decoy"):
            _decoy(place / name)
    (root / "victim.txt").write_text("precious")
    session.sql("CREATE DATABASE d")
    session.sql("CREATE TABLE d.t (a INT, b STRING) WITH ('bucket' = '-1')")
    session.sql("INSERT INTO d.t VALUES (1, 'x')")
    return Env(root, warehouse, session)


@pytest.fixture
def env(tmp_path) -> Env:
    """A fresh warehouse, for the cases that change the table (links, crafted metadata)."""
    made = _make_env(tmp_path / "root")
    yield made
    made.session.close()


@pytest.fixture(scope="module")
def shared(tmp_path_factory) -> Env:
    """One warehouse (with tag 'good') for the cases that must change nothing; each checks that."""
    made = _make_env(tmp_path_factory.mktemp("shared") / "root")
    made.sql("CALL sys.create_tag(table => 'd.t', tag => 'good')")
    yield made
    made.session.close()


def contained(
    env: Env,
    action: Callable[[], object],
    error: type[Exception] | tuple[type[Exception], ...],
    match: str | None = None,
) -> None:
    """`action` raises `error` (matching `match`) and leaves everything outside untouched."""
    before = _tree(env.root, env.warehouse)
    with pytest.raises(error, match=match) as info:
        action()
    after = _tree(env.root, env.warehouse)
    assert before == after, f"outside the warehouse changed: {set(before) ^ set(after)}"
    if all(
        issubclass(e, PaimonSqlError) for e in (error if isinstance(error, tuple) else (error,))
    ):
        assert isinstance(info.value, PaimonSqlError), f"not a paimon_sql error: {info.value!r}"


def untouched(env: Env, action: Callable[[], object]) -> None:
    """`action` may succeed, but nothing outside the warehouse changes."""
    before = _tree(env.root, env.warehouse)
    action()
    assert _tree(env.root, env.warehouse) == before


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


# --- vectors --------------------------------------------------------------------------------------

#: Table names; "ABS" stands for an absolute path inside the scratch root.
TABLE_NAMES = ["../../x", "ABS", "..", "a/b", "a\\b", "x" * 256, "t$x"]
#: Database names (the issue's DROP DATABASE "../decoy" among them).
DATABASE_NAMES = ["../../x", "../decoy", "ABS", "..", "a/b", "a\\b", "x" * 253]
#: Tag and branch names.
TAG_NAMES = ["../../x", "a/b", "..", "a\\b", "ABS", "a\x00b", "a\nb"]


def _name(env: Env, name: str) -> str:
    return str(env.root / "abs_target") if name == "ABS" else name


TABLE_SQL = {
    "create": "CREATE TABLE d.{q} (a INT) WITH ('bucket' = '-1')",
    "create_as_select": "CREATE TABLE d.{q} WITH ('bucket' = '-1') AS SELECT 1 AS a",
    "insert": "INSERT INTO d.{q} VALUES (1)",
    "select": "SELECT * FROM d.{q}",
    "describe": "DESCRIBE d.{q}",
    "delete": "DELETE FROM d.{q} WHERE a = 1",
    "update": "UPDATE d.{q} SET a = 2",
    "drop": "DROP TABLE d.{q}",
    "drop_if_exists": "DROP TABLE IF EXISTS d.{q}",
    "truncate": "TRUNCATE TABLE d.{q}",
    "alter": "ALTER TABLE d.{q} SET ('snapshot.num-retained.max' = '50')",
    "rename_to": "ALTER TABLE d.t RENAME TO d.{q}",
}


@pytest.mark.parametrize("statement", list(TABLE_SQL))
@pytest.mark.parametrize("raw", TABLE_NAMES, ids=repr)
def test_table_name_via_sql(shared, raw, statement):
    env = shared
    name = _name(env, raw)
    text = TABLE_SQL[statement].format(q=_q(name))
    if raw == "t$x" and statement not in ("create", "create_as_select", "rename_to"):
        contained(env, lambda: env.sql(text), PaimonSqlError, "system table")
        return
    contained(env, lambda: env.sql(text), InvalidNameError, "invalid table name")
    assert env.sql("SELECT * FROM d.t") in ([(1, "x")], [])  # the real table is intact


TABLE_PROCEDURES = {
    "create_tag": "CALL sys.create_tag(table => '{t}', tag => 'n')",
    "expire_snapshots": "CALL sys.expire_snapshots(table => '{t}', retain_max => 1)",
    "rollback": "CALL sys.rollback(table => '{t}', snapshot => 1)",
    "remove_orphan_files": "CALL sys.remove_orphan_files(table => '{t}', older_than => '"
    + FUTURE
    + "')",
    "compact": "CALL sys.compact(table => '{t}')",
}


@pytest.mark.parametrize("procedure", list(TABLE_PROCEDURES))
@pytest.mark.parametrize("raw", ["../../x", "ABS", "a/b", "a\\b", ".."], ids=repr)
def test_table_name_via_procedures(shared, raw, procedure):
    env = shared
    table = "d." + _name(env, raw)
    text = TABLE_PROCEDURES[procedure].format(t=table.replace("'", "''"))
    contained(env, lambda: env.sql(text), InvalidNameError)


def _api_calls(env: Env, name: str) -> dict[str, Callable[[], object]]:
    schema = env.session.table("d.t").latest_schema
    con = duckdb.connect()
    return {
        "Identifier": lambda: Identifier("d", name),
        "Catalog.create_table": lambda: env.catalog.create_table(Identifier("d", name), schema),
        "Catalog.load_table": lambda: env.catalog.load_table("d." + name),
        "Catalog.drop_table": lambda: env.catalog.drop_table(Identifier("d", name)),
        "Session.table": lambda: env.session.table("d." + name),
        "Session.scan": lambda: env.session.scan("d." + name).fetchall(),
        "install.paimon_scan": lambda: (
            paimon_sql.install(con, env.warehouse)
            .sql(
                exp.select("*")
                .from_(exp.func("paimon_scan", exp.Literal.string("d." + name)))
                .sql()
            )
            .fetchall()
        ),
    }


API_TABLE = [
    "Identifier",
    "Catalog.create_table",
    "Catalog.load_table",
    "Catalog.drop_table",
    "Session.table",
    "Session.scan",
    "install.paimon_scan",
]


@pytest.mark.parametrize("call", API_TABLE)
@pytest.mark.parametrize("raw", ["../../x", "ABS", "a/b", "..", "a\x00b", ""], ids=repr)
def test_table_name_via_python_api(shared, raw, call):
    env = shared
    if call == "install.paimon_scan" and raw in ("a\x00b", ""):
        pytest.skip("not expressible as a SQL string literal")
    action = _api_calls(env, _name(env, raw))[call]
    contained(env, action, InvalidNameError)


DATABASE_SQL = {
    "create": "CREATE DATABASE {q}",
    "create_if_not_exists": "CREATE DATABASE IF NOT EXISTS {q}",
    "create_schema": "CREATE SCHEMA {q}",
    "drop": "DROP DATABASE {q}",
    "drop_if_exists": "DROP DATABASE IF EXISTS {q}",
    "drop_cascade": "DROP DATABASE {q} CASCADE",
}


@pytest.mark.parametrize("statement", list(DATABASE_SQL))
@pytest.mark.parametrize("raw", DATABASE_NAMES, ids=repr)
def test_database_name_via_sql(shared, raw, statement):
    env = shared
    text = DATABASE_SQL[statement].format(q=_q(_name(env, raw)))
    contained(env, lambda: env.sql(text), InvalidNameError, "invalid database name")


@pytest.mark.parametrize("raw", ["../../x", "../decoy", "ABS", ".."], ids=repr)
def test_database_name_in_table_statements_and_use(shared, raw):
    env = shared
    """A database that cannot exist is not Paimon's: CREATE TABLE says so; USE etc. are DuckDB's."""
    q = _q(_name(env, raw))
    contained(env, lambda: env.sql(f"CREATE TABLE {q}.t (a INT) WITH ('bucket' = '-1')"), SqlError)
    for text in (f"USE {q}", f"SELECT * FROM {q}.t", f"INSERT INTO {q}.t VALUES (1)"):  # noqa: S608
        before = _tree(env.root, env.warehouse)
        with pytest.raises(ExecutionError):  # DuckDB's error, wrapped by the session
            env.sql(text)
        assert _tree(env.root, env.warehouse) == before


@pytest.mark.parametrize(
    "call",
    [
        "create_database",
        "drop_database",
        "drop_database_cascade",
        "tables",
        "orphans_pattern",
        "shell",
    ],
)
@pytest.mark.parametrize("raw", ["../../x", "../decoy", "ABS", "a/b", ".."], ids=repr)
def test_database_name_via_python_api_procedures_and_shell(shared, raw, call):
    env = shared
    name = _name(env, raw)
    if call == "shell":
        from paimon_sql.cli._commands import dot_command
        from paimon_sql.cli._shell import Settings, Shell

        err = io.StringIO()
        shell = Shell(env.session, Settings(), stdout=io.StringIO(), stderr=err)
        for line in (
            f".tables {name}",
            f"CREATE DATABASE {_q(name)};",
            f"DROP DATABASE {_q(name)};",
        ):
            untouched(
                env,
                lambda line=line: dot_command(shell, line) if line[0] == "." else shell.run(line),
            )
        assert err.getvalue().count("invalid database name") == 3, err.getvalue()
        return
    actions = {
        "create_database": lambda: env.catalog.create_database(name),
        "drop_database": lambda: env.catalog.drop_database(name),
        "drop_database_cascade": lambda: env.catalog.drop_database(name, cascade=True),
        "tables": lambda: env.catalog.tables(name),
        "orphans_pattern": lambda: env.sql(
            f"CALL sys.remove_orphan_files(table => '{name}.*', older_than => '{FUTURE}')"
        ),
    }
    contained(env, actions[call], InvalidNameError, "invalid database name")


def test_issue_repro_drop_database_decoy_keeps_the_users_folder(env):
    """The issue: DROP DATABASE "../decoy" deleted a non-Paimon folder outside the warehouse."""
    decoy = env.warehouse.parent / "decoy.db" / "user.txt"
    assert decoy.exists()
    contained(env, lambda: env.sql('DROP DATABASE "../decoy"'), InvalidNameError)
    assert decoy.read_text().startswith("the user's file")


# --- what DROP deletes ----------------------------------------------------------------------------


def test_drop_database_without_cascade_refuses_any_content(env):
    env.sql("CREATE DATABASE e")
    stray = env.warehouse / "e.db" / "notes.txt"
    stray.write_text("not a table")
    contained(env, lambda: env.sql("DROP DATABASE e"), PaimonSqlError, "not empty")
    assert stray.exists()
    with pytest.raises(PaimonSqlError, match="not empty"):
        env.sql("DROP DATABASE d")  # holds d.t
    assert env.sql("SELECT * FROM d.t") == [(1, "x")]
    env.sql("DROP DATABASE e CASCADE")
    assert not (env.warehouse / "e.db").exists()


def test_drop_table_only_deletes_a_paimon_table(env):
    """A folder without ``schema/schema-N`` is not a table: DROP TABLE leaves it."""
    folder = env.warehouse / "d.db" / "notatable"
    (folder / "schema").mkdir(parents=True)
    (folder / "schema" / "schema-x").write_text("{}")
    (folder / "keep.txt").write_text("keep")
    with pytest.raises(PaimonSqlError):
        env.sql("DROP TABLE d.notatable")
    assert (folder / "keep.txt").exists()


# --- options that name paths ----------------------------------------------------------------------

PATH_OPTIONS = [
    ("data-file.prefix", "../../../pfx-"),
    ("data-file.prefix", "a/b-"),
    ("data-file.prefix", "..\\x-"),
    ("changelog-file.prefix", "../c-"),
    ("data-file.path-directory", "../../out"),
    ("data-file.path-directory", "ABS"),
    ("data-file.path-directory", "a/../../b"),
    ("data-file.external-paths", "relative/ext"),
]


def _option(env: Env, key: str, value: str) -> tuple[str, str]:
    return key, str(env.root / "abs_dir") if value == "ABS" else value


@pytest.mark.parametrize("entry", ["create_sql", "alter_sql", "create_api"])
@pytest.mark.parametrize(("key", "value"), PATH_OPTIONS, ids=lambda v: str(v))
def test_path_options_are_refused_where_set(shared, key, value, entry):
    env = shared
    key, value = _option(env, key, value)
    lit = value.replace("'", "''")
    if entry == "create_sql":
        ddl = f"CREATE TABLE d.o (a INT) WITH ('bucket' = '-1', '{key}' = '{lit}')"
        action = lambda: env.sql(ddl)  # noqa: E731
    elif entry == "alter_sql":
        action = lambda: env.sql(f"ALTER TABLE d.t SET ('{key}' = '{lit}')")  # noqa: E731
    else:
        import dataclasses

        schema = env.session.table("d.t").latest_schema
        bad = dataclasses.replace(schema, options={**schema.options, key: value})
        action = lambda: env.catalog.create_table(Identifier("d", "o"), bad)  # noqa: E731
    contained(env, action, OptionError, key)
    assert env.sql("SELECT * FROM d.t") == [(1, "x")]


def _craft_schema(env: Env, options: dict[str, str]) -> None:
    """A ``schema-1`` written straight to disk (as a crafted or foreign table would have it)."""
    folder = env.warehouse / "d.db" / "t" / "schema"
    data = json.loads((folder / "schema-0").read_text())
    data["id"] = 1
    data["options"] = {**data["options"], **options}
    (folder / "schema-1").write_text(json.dumps(data))


CRAFTED = {
    # option → the entry points that must refuse it (others may work: they do not build that path)
    ("data-file.prefix", "../../../pfx-"): ["insert", "compact"],
    ("data-file.path-directory", "../../out"): ["select", "orphans", "insert_then_select"],
    ("data-file.path-directory", "ABS"): ["select", "orphans", "insert_then_select"],
}
CRAFTED_ENTRIES = {
    "insert": lambda env: env.sql("INSERT INTO d.t VALUES (2, 'y')"),
    "compact": lambda env: (
        env.sql("INSERT INTO d.t VALUES (2, 'y')"),
        env.sql("CALL sys.compact(table => 'd.t')"),
    ),
    "select": lambda env: env.sql("SELECT * FROM d.t"),
    "orphans": lambda env: env.sql(
        f"CALL sys.remove_orphan_files(table => 'd.t', older_than => '{FUTURE}')"
    ),
    "insert_then_select": lambda env: (
        env.sql("INSERT INTO d.t VALUES (2, 'y')"),
        env.sql("SELECT * FROM d.t"),
    ),
}


@pytest.mark.parametrize(
    ("option", "entry"), [(o, e) for o, es in CRAFTED.items() for e in es], ids=str
)
def test_crafted_path_options_are_refused_where_used(env, option, entry):
    key, value = _option(env, *option)
    _craft_schema(env, {key: value})
    env.session.refresh_table(Identifier("d", "t"))
    contained(env, lambda: CRAFTED_ENTRIES[entry](env), OptionError, key)


# --- tag and branch names -------------------------------------------------------------------------

TAG_PROCEDURES = {
    "create_tag": "CALL sys.create_tag(table => 'd.t', tag => '{n}')",
    "create_tag_from_timestamp": (
        "CALL sys.create_tag_from_timestamp(table => 'd.t', tag => '{n}', timestamp => 0)"
    ),
    "replace_tag": "CALL sys.replace_tag(table => 'd.t', tag => '{n}')",
    "delete_tag": "CALL sys.delete_tag(table => 'd.t', tag => '{n}')",
    "rename_tag_from": "CALL sys.rename_tag(table => 'd.t', tag => '{n}', target_tag => 'ok')",
    "rename_tag_to": "CALL sys.rename_tag(table => 'd.t', tag => 'good', target_tag => '{n}')",
    "rollback_tag": "CALL sys.rollback(table => 'd.t', tag => '{n}')",
    "rollback_version": "CALL sys.rollback(table => 'd.t', version => '{n}')",
    "sql_version_as_of": "SELECT * FROM d.t VERSION AS OF '{n}'",
}


@pytest.mark.parametrize("entry", list(TAG_PROCEDURES))
@pytest.mark.parametrize("raw", TAG_NAMES, ids=repr)
def test_tag_name_via_sql_and_procedures(shared, raw, entry):
    env = shared
    name = _name(env, raw).replace("'", "''")
    text = TAG_PROCEDURES[entry].format(n=name)
    contained(env, lambda: env.sql(text), InvalidNameError, "tag")
    assert env.session.table("d.t").tag_names() == ["good"]


TAG_API = {
    "Session.scan(tag=)": lambda env, n: env.session.scan("d.t", tag=n).fetchall(),
    "tags.create_tag": lambda env, n: tags.create_tag(env.session.table("d.t"), n),
    "tags.delete_tag": lambda env, n: tags.delete_tag(env.session.table("d.t"), n),
    "tags.rename_tag": lambda env, n: tags.rename_tag(env.session.table("d.t"), "good", n),
    "Table.tag": lambda env, n: env.session.table("d.t").tag(n),
    "Table.branch_table": lambda env, n: env.session.table("d.t").branch_table(n),
    "Table(branch=)": lambda env, n: Table(
        env.catalog.fileio, str(env.warehouse / "d.db" / "t"), "d.t", n
    ),
    "scan.fallback-branch": lambda env, n: (
        env.sql("ALTER TABLE d.t SET ('scan.fallback-branch' = '" + n.replace("'", "''") + "')"),
        env.sql("SELECT * FROM d.t"),
    ),
}


@pytest.mark.parametrize("entry", list(TAG_API))
@pytest.mark.parametrize("raw", TAG_NAMES, ids=repr)
def test_tag_and_branch_name_via_python_api(shared, raw, entry):
    env = shared
    contained(env, lambda: TAG_API[entry](env, _name(env, raw)), InvalidNameError)


def test_valid_unusual_names_still_work(env):
    """The boundary refuses paths, not ordinary names: dots in tags, unicode, spaces, digits."""
    env.sql('CREATE DATABASE "dé b"')
    env.sql("CREATE TABLE \"dé b\".\"t 1-ü\" (a INT) WITH ('bucket' = '-1')")
    env.sql('INSERT INTO "dé b"."t 1-ü" VALUES (7)')
    assert env.sql('SELECT * FROM "dé b"."t 1-ü"') == [(7,)]
    env.sql("CALL sys.create_tag(table => 'd.t', tag => 'v1.0')")
    env.sql("CALL sys.create_tag(table => 'd.t', tag => '2024-05-14 10')")
    assert env.session.scan("d.t", tag="v1.0").fetchall() == [(1, "x")]
    assert validate_name("table", "x" * 255) == "x" * 255


# --- symbolic links out of the warehouse ----------------------------------------------------------


def _outside_table(env: Env) -> Path:
    """A real Paimon table in another warehouse beside ours (with data)."""
    other = paimon_sql.connect(env.root / "other", create=True)
    other.sql("CREATE DATABASE o")
    other.sql("CREATE TABLE o.real (a INT, b STRING) WITH ('bucket' = '-1')")
    other.sql("INSERT INTO o.real VALUES (9, 'outside')")
    other.close()
    return env.root / "other" / "o.db" / "real"


LINKED_TABLE = {
    "select": lambda env: env.sql("SELECT * FROM d.ln"),
    "insert": lambda env: env.sql("INSERT INTO d.ln VALUES (1, 'y')"),
    "drop": lambda env: env.sql("DROP TABLE d.ln"),
    "truncate": lambda env: env.sql("TRUNCATE TABLE d.ln"),
    "alter": lambda env: env.sql("ALTER TABLE d.ln SET ('snapshot.num-retained.max' = '50')"),
    "create_tag": lambda env: env.sql("CALL sys.create_tag(table => 'd.ln', tag => 'n')"),
    "expire": lambda env: env.sql("CALL sys.expire_snapshots(table => 'd.ln', retain_max => 1)"),
    "orphans": lambda env: env.sql(
        f"CALL sys.remove_orphan_files(table => 'd.ln', older_than => '{FUTURE}')"
    ),
    "Catalog.load_table": lambda env: env.catalog.load_table("d.ln"),
    "Catalog.drop_table": lambda env: env.catalog.drop_table(Identifier("d", "ln")),
    "Session.scan": lambda env: env.session.scan("d.ln").fetchall(),
}


@pytest.mark.parametrize("entry", list(LINKED_TABLE))
def test_symlinked_table_folder_is_never_followed(env, entry):
    real = _outside_table(env)
    for path in real.rglob("*"):
        os.utime(path, (OLD, OLD))
    (env.warehouse / "d.db" / "ln").symlink_to(real, target_is_directory=True)
    contained(env, lambda: LINKED_TABLE[entry](env), PathEscapeError, "symbolic link")


def test_symlinked_table_is_not_listed_and_connect_works(env, caplog):
    real = _outside_table(env)
    (env.warehouse / "d.db" / "ln").symlink_to(real, target_is_directory=True)
    session = paimon_sql.connect(env.warehouse)
    assert session.catalog.tables("d") == ["t"]
    assert "symbolic link" in caplog.text
    untouched(
        env,
        lambda: env.sql("CALL sys.remove_orphan_files(table => 'd.*', older_than => '2999-01-01')"),
    )
    # CASCADE removes the link itself, never what it points to
    untouched(env, lambda: env.sql("DROP DATABASE d CASCADE"))
    assert not (env.warehouse / "d.db").exists()
    assert (real / "schema" / "schema-0").exists()


@pytest.mark.parametrize("entry", ["sql_drop_cascade", "api_drop_cascade", "api_tables"])
def test_symlinked_database_folder_is_never_followed(env, entry):
    outside = env.root / "outside_db"
    shutil.copytree(_outside_table(env).parent, outside)
    (env.warehouse / "e.db").symlink_to(outside, target_is_directory=True)
    assert "e" not in env.catalog.databases()
    actions = {
        "sql_drop_cascade": lambda: env.sql("DROP DATABASE e CASCADE"),
        "api_drop_cascade": lambda: env.catalog.drop_database("e", cascade=True),
        "api_tables": lambda: env.catalog.tables("e"),
    }
    contained(env, actions[entry], PathEscapeError, "symbolic link")


def _link_bucket(env: Env) -> Path:
    """d.t's ``bucket-0`` moved out of the warehouse, a link to it left (plus an old orphan)."""
    bucket = env.warehouse / "d.db" / "t" / "bucket-0"
    outside = env.root / "outside_bucket"
    shutil.move(bucket, outside)
    (outside / "data-orphan-0.parquet").write_bytes(b"not referenced by any snapshot")
    for path in outside.iterdir():
        os.utime(path, (OLD, OLD))
    bucket.symlink_to(outside, target_is_directory=True)
    return outside


LINKED_BUCKET = {
    "select": lambda env: env.sql("SELECT * FROM d.t"),
    "insert": lambda env: env.sql("INSERT INTO d.t VALUES (2, 'y')"),
    "orphans": lambda env: env.sql(
        f"CALL sys.remove_orphan_files(table => 'd.t', older_than => '{FUTURE}')"
    ),
    "orphans_dry_run": lambda env: env.sql(
        f"CALL sys.remove_orphan_files(table => 'd.t', older_than => '{FUTURE}', dry_run => true)"
    ),
    "truncate_then_expire": lambda env: (
        env.sql("TRUNCATE TABLE d.t"),
        env.sql("CALL sys.expire_snapshots(table => 'd.t', retain_max => 1)"),
    ),
}


@pytest.mark.parametrize("entry", list(LINKED_BUCKET))
def test_symlinked_bucket_folder_is_never_followed(env, entry):
    _link_bucket(env)
    contained(env, lambda: LINKED_BUCKET[entry](env), PathEscapeError, "symbolic link")


@pytest.mark.parametrize("folder", ["manifest", "snapshot", "schema"])
def test_symlinked_metadata_folder_is_never_followed(env, folder):
    meta = env.warehouse / "d.db" / "t" / folder
    outside = env.root / f"outside_{folder}"
    shutil.move(meta, outside)
    meta.symlink_to(outside, target_is_directory=True)
    fresh = paimon_sql.connect(
        env.warehouse
    )  # connects: the table is not listed (a warning says why)
    assert fresh.catalog.tables("d") == []
    contained(
        env, lambda: fresh.sql("SELECT * FROM d.t").fetchall(), PathEscapeError, "symbolic link"
    )
    contained(env, lambda: fresh.sql("DROP TABLE d.t"), PathEscapeError, "symbolic link")


# --- file names inside metadata -------------------------------------------------------------------


def _manifests(env: Env, snapshot_id: int) -> list[Path]:
    """The delta manifest files of a snapshot of d.t."""
    table_dir = env.warehouse / "d.db" / "t"
    snap = json.loads((table_dir / "snapshot" / f"snapshot-{snapshot_id}").read_text())
    table = env.session.table("d.t")
    return [
        table_dir / "manifest" / m.file_name for m in table.manifest_list(snap["deltaManifestList"])
    ]


def _rewrite_entries(path: Path, change: Callable[[dict], None]) -> None:
    """Rewrite a manifest's entries, keeping the sizes its lists and snapshots record right (so the
    validation on read does not refuse the file before the path checks see it)."""
    from paimon_sql.io import file_io

    records = read_records(file_io(str(path)), str(path))
    for record in records:
        change(record["_FILE"])
    path.write_bytes(encode_avro(records, MANIFEST_ENTRY_SCHEMA))
    _resize(path.parent, path.name, path.stat().st_size, MANIFEST_FILE_META_SCHEMA, "_FILE_NAME")


def _resize(folder: Path, name: str, size: int, schema: dict, key: str) -> None:
    """Record `size` for file `name` in every manifest list of `folder` naming it, then the new size
    of each rewritten list in the snapshots naming it."""
    for listed in folder.glob("manifest-list-*"):
        metas = read_records(file_io(str(listed)), str(listed))
        if not any(m[key] == name for m in metas):
            continue
        for m in metas:
            if m[key] == name:
                m["_FILE_SIZE"] = size
        listed.write_bytes(encode_avro(metas, schema))
        for snap_path in (folder.parent / "snapshot").glob("snapshot-*"):
            snap = json.loads(snap_path.read_text())
            for field in ("baseManifestList", "deltaManifestList", "changelogManifestList"):
                if snap.get(field) == listed.name:
                    snap[field + "Size"] = listed.stat().st_size
            snap_path.write_text(json.dumps(snap))


def _victim_relative(env: Env) -> str:
    bucket = env.warehouse / "d.db" / "t" / "bucket-0"
    return os.path.relpath(env.root / "victim.txt", bucket)


MANIFEST_VECTORS = {
    "file_name_dotdot": lambda env: lambda f: f.update(_FILE_NAME=_victim_relative(env)),
    "file_name_absolute": lambda env: lambda f: f.update(_FILE_NAME=str(env.root / "victim.txt")),
    "external_path_unconfigured": lambda env: (
        lambda f: f.update(_EXTERNAL_PATH="file:" + str(env.root / "victim.txt"))
    ),
    "extra_file_dotdot": lambda env: lambda f: f.update(_EXTRA_FILES=[_victim_relative(env)]),
}
MANIFEST_ENTRIES = {
    "select": lambda env: env.sql("SELECT * FROM d.t"),
    "rollback": lambda env: env.sql("CALL sys.rollback(table => 'd.t', snapshot => 1)"),
    "plan_scan": lambda env: [
        paimon_sql.connect(env.warehouse).sql("SELECT count(*) FROM d.t").fetchall(),
        plan_scan(env.catalog.load_table("d.t"), None),
    ],
}


@pytest.mark.parametrize("entry", list(MANIFEST_ENTRIES))
@pytest.mark.parametrize("vector", list(MANIFEST_VECTORS))
def test_manifest_entries_naming_files_outside(env, vector, entry):
    """Snapshot 2 ADDs a file whose manifest entry was crafted: reading and rolling back refuse."""
    env.sql("INSERT INTO d.t VALUES (2, 'y')")
    for path in _manifests(env, 2):
        _rewrite_entries(path, MANIFEST_VECTORS[vector](env))
    fresh = paimon_sql.connect(env.warehouse)  # no cached manifests
    env.session = fresh
    if vector == "extra_file_dotdot" and entry in ("select", "plan_scan"):
        untouched(env, lambda: MANIFEST_ENTRIES[entry](env))  # extra files are never read
        return
    if vector.startswith("file_name") and entry == "rollback":
        # the manifest codec refuses the entry as damage; rollback's clean-up leaves the files of
        # an unreadable manifest to remove_orphan_files, and touches nothing outside
        untouched(env, lambda: MANIFEST_ENTRIES[entry](env))
        return
    # the path checks, or first the manifest codec (a file name that is not a bare name is damage)
    contained(
        env,
        lambda: MANIFEST_ENTRIES[entry](env),
        (PathEscapeError, SpecViolationError),
        "outside|plain file name|external|bare file name",
    )
    assert (env.root / "victim.txt").read_text() == "precious"


SNAPSHOT_FIELDS = ["baseManifestList", "deltaManifestList", "indexManifest"]


@pytest.mark.parametrize("entry", ["select", "expire", "orphans", "rollback"])
@pytest.mark.parametrize("field", SNAPSHOT_FIELDS)
def test_snapshot_naming_manifests_outside(env, field, entry):
    env.sql("INSERT INTO d.t VALUES (2, 'y')")
    env.sql("INSERT INTO d.t VALUES (3, 'z')")
    target = 1 if entry in ("expire",) else 3
    path = env.warehouse / "d.db" / "t" / "snapshot" / f"snapshot-{target}"
    data = json.loads(path.read_text())
    data[field] = os.path.relpath(
        env.root / "victim.txt", env.warehouse / "d.db" / "t" / "manifest"
    )
    path.write_text(json.dumps(data))
    fresh = paimon_sql.connect(env.warehouse)
    actions = {
        "select": lambda: fresh.sql("SELECT * FROM d.t").fetchall(),
        "expire": lambda: fresh.sql("CALL sys.expire_snapshots(table => 'd.t', retain_max => 1)"),
        "orphans": lambda: fresh.sql(
            f"CALL sys.remove_orphan_files(table => 'd.t', older_than => '{FUTURE}')"
        ),
        "rollback": lambda: fresh.sql("CALL sys.rollback(table => 'd.t', snapshot => 1)"),
    }
    # the snapshot codec refuses a manifest list name that is not a bare file name (procedures
    # report it as their SqlError, naming the damaged snapshot file)
    contained(
        env, actions[entry], (PathEscapeError, SpecViolationError, SqlError), "bare file name"
    )
    assert (env.root / "victim.txt").read_text() == "precious"


def test_symlinked_partition_folder_is_never_followed(env):
    """One partition folder of many moved out of the warehouse, a link left: a SELECT refuses it.

    The scan checks partition folders from one listing of their parent (`names.LinkScan`), so a
    link among plain folders must still be found.
    """
    env.sql("CREATE TABLE d.parts (id INT, p INT) PARTITIONED BY (p)")
    env.sql("INSERT INTO d.parts SELECT range, range % 5 FROM range(20)")
    assert env.sql("SELECT count(*) FROM d.parts") == [(20,)]
    folder = env.warehouse / "d.db" / "parts" / "p=3"
    outside = env.root / "outside_partition"
    shutil.move(folder, outside)
    folder.symlink_to(outside, target_is_directory=True)
    contained(env, lambda: env.sql("SELECT * FROM d.parts"), PathEscapeError, "symbolic link")
    # a link that stays inside the table is followed, as before
    folder.unlink()
    inner = env.warehouse / "d.db" / "parts" / "moved"
    shutil.move(outside, inner)
    folder.symlink_to(inner, target_is_directory=True)
    assert env.sql("SELECT count(*) FROM d.parts") == [(20,)]


def test_symlinked_data_file_is_never_followed(env):
    """A data file moved out of the warehouse, a link left in its bucket: a SELECT refuses it.

    Folders are checked when planned (`names.LinkScan`, `child_inside`); the file itself when its
    size is checked before the read (one ``lstat``, which the size check needed anyway). A link to
    a file inside the table is followed, as folder links inside it are.
    """
    env.sql("CREATE TABLE d.files (id INT, p INT) PARTITIONED BY (p)")
    env.sql("INSERT INTO d.files SELECT range, range % 3 FROM range(30)")
    expected = env.sql("SELECT * FROM d.files ORDER BY id")
    assert len(expected) == 30
    bucket = env.warehouse / "d.db" / "files" / "p=1" / "bucket-0"
    (data,) = bucket.glob("data-*.parquet")
    outside = env.root / "outside_file.parquet"
    shutil.move(data, outside)
    data.symlink_to(outside)
    contained(env, lambda: env.sql("SELECT * FROM d.files"), PathEscapeError, "symbolic link")
    # a link that stays inside the table is followed
    data.unlink()
    inner = env.warehouse / "d.db" / "files" / "kept.parquet"
    shutil.move(outside, inner)
    data.symlink_to(inner)
    assert env.sql("SELECT * FROM d.files ORDER BY id") == expected
