"""functions/ on a plain DuckDB connection: time travel, pushdown and fresh metadata.

No mocks: the Java-written fixture warehouse (copied where a test deletes files) and tables
written by paimon-sql.
"""

from __future__ import annotations

import datetime
import shutil
from typing import TYPE_CHECKING

import duckdb
import pytest
from sqlglot import exp

import paimon_sql
from tests.fixtures import FIXTURES

if TYPE_CHECKING:
    from pathlib import Path

JAVA = FIXTURES / "generated-paimon-java-0.9/warehouse"


def _call(function: str, *args: object, **named: object) -> exp.Select:
    """``SELECT * FROM function(args..., name := value ...)`` built with sqlglot."""
    values = [_literal(a) for a in args]
    values += [exp.PropertyEQ(this=exp.column(k), expression=_literal(v)) for k, v in named.items()]
    return exp.select("*").from_(exp.Anonymous(this=function, expressions=values))


def _literal(value: object) -> exp.Expression:
    if isinstance(value, datetime.datetime):
        return exp.cast(exp.Literal.string(value.isoformat(sep=" ")), exp.DataType.Type.TIMESTAMP)
    return exp.convert(value)


def _rows(con: duckdb.DuckDBPyConnection, query: exp.Expression) -> tuple[list[str], list[tuple]]:
    rel = con.sql(query.sql("duckdb"))
    return rel.columns, sorted(rel.fetchall(), key=repr)


@pytest.fixture(scope="module")
def installed():
    con = duckdb.connect()
    session = paimon_sql.install(con, JAVA)
    yield con, session
    con.close()


def _local(millis: int) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(millis / 1000)


TRAVEL = [
    {"snapshot": 1},
    {"snapshot": 2},
    {"snapshot": 3},
    {"tag": "tag1"},
    {"tag": "tag2"},
    {"timestamp": "snapshot-2"},  # the commit time of snapshot 2, as local wall-clock time
]


@pytest.mark.parametrize("travel", TRAVEL, ids=lambda t: "-".join(map(str, t.items())))
def test_time_travel_equals_session_scan(installed, travel):
    con, session = installed
    table = session.table("db.append_tags")
    expected = dict(travel)
    if "timestamp" in travel:
        millis = table.snapshot(2).time_millis
        expected = {"timestamp_ms": millis}
        travel = {"timestamp": _local(millis)}
    reference = session.scan("db.append_tags", **expected)
    columns, rows = _rows(con, _call("paimon_scan", "db.append_tags", **travel))
    assert columns == reference.columns
    assert rows == sorted(reference.fetchall(), key=repr)


def test_schema_of_the_snapshot_and_of_the_latest_state_in_one_query(installed):
    # The bind-time schema hand-off: snapshot 1 has 3 columns, the latest 4 (ALTER TABLE ADD extra).
    con, _ = installed
    old = _call("paimon_scan", "db.append_tags", snapshot=1).subquery("a")
    new = _call("paimon_scan", "db.append_tags").subquery("b")
    query = exp.select("a.*", "b.extra").from_(old).join(new, using=["id", "name"])
    columns, rows = _rows(con, query)
    assert columns == ["id", "name", "v", "extra"]
    assert rows == sorted([(1, "a", 10, None), (2, "b", 20, None), (4, "d", 40, None)], key=repr)


def test_arguments_are_checked_while_binding(installed):
    con, _ = installed
    with pytest.raises(duckdb.Error, match="at most one"):
        con.sql(
            _call("paimon_scan", "db.append_tags", snapshot=1, tag="tag1").sql("duckdb")
        ).fetchall()
    with pytest.raises(duckdb.Error, match="not found"):
        con.sql(_call("paimon_scan", "db.nope").sql("duckdb")).fetchall()
    with pytest.raises(duckdb.Error, match="snapshot 99"):
        con.sql(_call("paimon_scan", "db.append_tags", snapshot=99).sql("duckdb")).fetchall()


def test_a_table_name_that_is_not_a_constant_is_refused(installed):
    # The routing filter cannot be pushed down: an error, never the rows of some other table.
    con, _ = installed
    names = exp.select("*").from_(exp.values([("db.pk_agg",)], alias="v", columns=["t"]))
    refusals = {"paimon_options": "must be constants", "paimon_scan": "only supports literals"}
    for function, message in refusals.items():
        lateral = exp.Lateral(this=exp.Anonymous(this=function, expressions=[exp.column("t", "v")]))
        with pytest.raises(duckdb.Error, match=message):
            con.sql(names.join(lateral).sql("duckdb")).fetchall()


def test_without_the_optimizer_the_functions_refuse_rather_than_guess():
    # No filter pushdown at all: the routing arguments never reach the sources.
    con = duckdb.connect()
    paimon_sql.install(con, JAVA)
    con.execute("PRAGMA disable_optimizer")
    for query in (
        _call("paimon_scan", "db.append_tags", snapshot=1),
        _call("paimon_snapshots", "db.append_tags"),
    ):
        with pytest.raises(duckdb.Error, match="optimizer must be on"):
            con.sql(query.sql("duckdb")).fetchall()
    con.close()


def _copy_table(tmp_path: Path, name: str) -> Path:
    warehouse = tmp_path / "wh"
    shutil.copytree(JAVA / "db.db" / name, warehouse / "db.db" / name)
    return warehouse


@pytest.mark.parametrize("travel", [{}, {"snapshot": 2}], ids=["latest", "snapshot-2"])
def test_a_partition_filter_never_opens_the_other_partition(tmp_path, travel):
    warehouse = _copy_table(tmp_path, "pk_part_dv")
    con = duckdb.connect()
    session = paimon_sql.install(con, warehouse)
    expected = [
        r for r in session.scan("db.pk_part_dv", **travel).fetchall() if r[2] == "2024-01-02"
    ]
    assert expected
    for data in (warehouse / "db.db/pk_part_dv/dt=2024-01-01").rglob("*.parquet"):
        data.unlink()
    query = _call("paimon_scan", "db.pk_part_dv", **travel)
    filtered = query.where(exp.column("dt").eq(exp.Literal.string("2024-01-02")))
    assert _rows(con, filtered)[1] == sorted(expected, key=repr)
    plan = con.sql("EXPLAIN " + filtered.sql("duckdb")).fetchall()[0][1]
    assert "\"dt\" = '2024-01-02'" in plan  # DuckDB handed the filter to the source
    with pytest.raises(duckdb.Error, match="dt=2024-01-01"):
        con.sql(query.sql("duckdb")).fetchall()  # the unfiltered read does open it
    con.close()


def test_a_new_commit_and_a_new_table_show_on_the_next_call(tmp_path):
    warehouse = tmp_path / "wh"
    warehouse.mkdir()
    con = duckdb.connect()
    paimon_sql.install(con, warehouse)
    writer = paimon_sql.connect(warehouse)  # another writer: nothing goes through `con`
    writer.sql("CREATE DATABASE db")
    writer.sql(
        "CREATE TABLE db.t (id BIGINT NOT NULL, v INT, PRIMARY KEY (id)) WITH ('bucket' = '1')"
    )
    scan, snapshots = _call("paimon_scan", "db.t"), _call("paimon_snapshots", "db.t")
    assert _rows(con, scan)[1] == []
    assert ("db", "t") in [r[:2] for r in _rows(con, _call("paimon_tables"))[1]]

    writer.sql("INSERT INTO db.t VALUES (1, 10), (2, 20)")
    assert _rows(con, scan)[1] == [(1, 10), (2, 20)]
    assert len(_rows(con, snapshots)[1]) == 1

    writer.sql("INSERT INTO db.t VALUES (2, 21), (3, 30)")
    assert _rows(con, scan)[1] == [(1, 10), (2, 21), (3, 30)]
    assert len(_rows(con, snapshots)[1]) == 2
    assert _rows(con, _call("paimon_scan", "db.t", snapshot=1))[1] == [(1, 10), (2, 20)]
    files_then = _rows(con, _call("paimon_files", "db.t", snapshot=1))[1]
    files_now = _rows(con, _call("paimon_files", "db.t"))[1]
    assert len(files_then) == 1
    assert len(files_now) == 2
    writer.close()
    con.close()


def test_a_filter_outside_a_file_statistics_never_opens_it(tmp_path):
    # Statistics pruning: append_tags' snapshot-3 file holds only id 9.
    warehouse = _copy_table(tmp_path, "append_tags")
    con = duckdb.connect()
    paimon_sql.install(con, warehouse)
    newest = _call("paimon_files", "db.append_tags").where(exp.column("schema_id").eq(1))
    [(name,)] = con.sql(newest.select("file_path", append=False).sql("duckdb")).fetchall()
    (warehouse / "db.db/append_tags/bucket-0" / name).unlink()
    query = _call("paimon_scan", "db.append_tags")
    small = query.where(exp.column("id") < 5)
    assert [r[0] for r in _rows(con, small)[1]] == [1, 1, 2, 3, 4]
    with pytest.raises(duckdb.Error, match=name):
        con.sql(query.where(exp.column("id").eq(9)).sql("duckdb")).fetchall()
    con.close()


KINDS = [
    "snapshots",
    "schemas",
    "options",
    "tags",
    "consumers",
    "aggregation_fields",
    "files",
    "manifests",
    "partitions",
    "buckets",
    "table_indexes",
    "audit_log",
    "ro",
]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("table", ["db.append_tags", "db.pk_dv"])
def test_each_system_function_equals_the_session_system_table(installed, kind, table):
    con, session = installed
    db, name = table.split(".")
    system = exp.select("*").from_(exp.table_(name + "$" + kind, db=db, quoted=True))
    reference = session.sql(system.sql("duckdb"))
    columns, rows = _rows(con, _call("paimon_" + kind, table))
    assert columns == reference.columns
    assert rows == sorted(reference.fetchall(), key=repr)


@pytest.mark.parametrize("kind", ["files", "manifests", "partitions", "buckets"])
@pytest.mark.parametrize("version", [1, "tag2"])
def test_storage_functions_at_a_snapshot_or_tag(installed, kind, version):
    con, session = installed
    table = exp.table_("append_tags$" + kind, db="db", quoted=True)
    table.set("version", exp.Version(this="VERSION", kind="AS OF", expression=exp.convert(version)))
    reference = session.sql(exp.select("*").from_(table).sql("duckdb"))
    travel = {"snapshot": version} if isinstance(version, int) else {"tag": version}
    columns, rows = _rows(con, _call("paimon_" + kind, "db.append_tags", **travel))
    assert columns == reference.columns
    assert rows == sorted(reference.fetchall(), key=repr)
    assert rows != _rows(con, _call("paimon_" + kind, "db.append_tags"))[1]


@pytest.mark.parametrize("kind", ["tables", "partitions", "all_table_options"])
def test_catalog_functions_equal_the_sys_tables(installed, kind):
    con, session = installed
    function = {"partitions": "paimon_all_partitions"}.get(kind, "paimon_" + kind)
    reference = session.sql(exp.select("*").from_(exp.table_(kind, db="sys")).sql("duckdb"))
    columns, rows = _rows(con, _call(function))
    assert columns == reference.columns
    assert rows == sorted(reference.fetchall(), key=repr)
