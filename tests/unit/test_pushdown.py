# ruff: noqa: S608 - the statements are test inputs over our own names
"""Filters and LIMIT reach planning: proven by deleting the files a correct plan never opens.

No mocks: a copy of a Java-written table loses the data files of every other partition (or split); a
read that opened them would fail with DataFileNotFoundError.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

import paimon_sql
from paimon_sql.errors import DataFileNotFoundError
from tests.fixtures import FIXTURES

PARQUET = FIXTURES / "paimon-cpp/test/test_data/parquet"


class Installed:
    """The plain-DuckDB path: paimon_sql.install() and the streaming source protocol."""

    def __init__(self, warehouse: Path) -> None:
        self.con = duckdb.connect()
        self.session = paimon_sql.install(self.con, warehouse)

    def sql(self, text: str):
        return self.session.relation(lambda con: con.sql(text))

    def plan(self, name: str):
        ident = paimon_sql.Identifier(*name.split("."))
        return self.session.engine.view_source(ident).last_plan


class Inlined:
    """session.sql(): the planned merge SQL inlined into the statement."""

    def __init__(self, warehouse: Path) -> None:
        self.session = paimon_sql.connect(warehouse)

    def sql(self, text: str):
        return self.session.sql(text)

    def plan(self, name: str):
        return self.session.last_plan(name)


PATHS = pytest.mark.parametrize("path", [Inlined, Installed], ids=["inlined", "installed"])


def _copy(tmp_path: Path, name: str) -> Path:
    warehouse = tmp_path / "wh"
    shutil.copytree(PARQUET / f"{name}.db", warehouse / f"{name}.db")
    return warehouse


@PATHS
def test_partition_filter_opens_only_that_partition(tmp_path, path):
    warehouse = _copy(tmp_path, "pk_table_with_mor")
    table_dir = warehouse / "pk_table_with_mor.db/pk_table_with_mor"
    for data in (table_dir / "p0=1").rglob("*.parquet"):
        data.unlink()
    session = path(warehouse)
    # Columns by the latest schema (schema-7 swapped the names k0/k1 and s0/s1 and narrowed v0 to
    # INT).
    query = 'SELECT k1, k0, s1 FROM "pk_table_with_mor"."pk_table_with_mor"'
    rows = session.sql(query + " WHERE p0 = 0 AND p1 = 1").fetchall()
    assert rows == [(0, 1, "zoo")]
    with pytest.raises(DataFileNotFoundError, match="p0=1"):
        session.sql(query).fetchall()


@PATHS
def test_plan_records_partition_pruning(path):
    session = path(PARQUET)
    rel = session.sql('SELECT * FROM "pk_table_with_mor"."pk_table_with_mor" WHERE p0 = 1')
    assert len(rel.fetchall()) == 1
    plan = session.plan("pk_table_with_mor.pk_table_with_mor")
    assert plan.stats.files_pruned_partition > 0
    assert {s.partition for s in plan.splits} == {(1, 0)}


@PATHS
def test_bucket_filter_prunes_buckets(path):
    session = path(FIXTURES / "generated-paimon-java-0.9/warehouse")
    assert session.sql("SELECT id, name FROM db.pk_orc_2b WHERE id = 3").fetchall() == [(3, "c")]
    plan = session.plan("db.pk_orc_2b")
    assert plan.stats.files_pruned_bucket > 0
    assert len({s.bucket for s in plan.splits}) == 1


def test_limit_reads_only_the_first_split(tmp_path):
    # The streaming source: splits are read one after another, so LIMIT stops in the first one.
    warehouse = _copy(tmp_path, "pk_table_with_mor")
    installed = Installed(warehouse)
    session = installed.session
    table = session.table("pk_table_with_mor.pk_table_with_mor")
    from paimon_sql.plan.scan import data_file_path, plan_scan

    plan = plan_scan(table, table.latest_snapshot())
    assert len(plan.splits) >= 3
    for split in plan.splits[2:]:
        for f in split.files:
            Path(data_file_path(plan, split, f)).unlink()
    rows = installed.sql('SELECT * FROM "pk_table_with_mor"."pk_table_with_mor" LIMIT 1').fetchall()
    assert len(rows) == 1
    with pytest.raises(DataFileNotFoundError):
        installed.sql('SELECT count(*) FROM "pk_table_with_mor"."pk_table_with_mor"').fetchall()


@PATHS
def test_non_key_filter_is_applied_after_the_merge(path):
    # pk_table_with_mor: key (0,0,0,0) was 'apple' v0=10.0 and became v0=110.0; a filter on the old
    # value must not resurrect the old version. (Latest schema: v0 is INT, the apple column is s1.)
    session = path(PARQUET)
    old = 'SELECT * FROM "pk_table_with_mor"."pk_table_with_mor" WHERE v0 = 10'
    new = 'SELECT s1 FROM "pk_table_with_mor"."pk_table_with_mor" WHERE v0 = 110'
    assert session.sql(old).fetchall() == []
    assert session.sql(new).fetchall() == [("apple",)]


MOR = '"pk_table_with_mor"."pk_table_with_mor"'
#: Constants of another numeric type than the INT key/value columns they are compared with: DuckDB
#: widens the column (``k1 > 0.5`` keeps k1 = 1), so a filter below the merge must not narrow the
#: constant to INT (a cast rounds 0.5 to 1 and fails on 3000000000).
WIDER_CONSTANTS = [
    "k1 > 0.5",
    "k1 >= 0.5",
    "k1 < 0.5",
    "k1 <= 99.5",
    "k1 <> 0.5",
    "k1 = 0.5",
    "k1 = 1.00",
    "k0 BETWEEN 0.5 AND 1.5",
    "k1 IN (0.5, 1)",
    "k1 IN (9223372036854775807, 1)",
    "k1 < 3000000000",
    "k1 >= -3000000000",
    "k1 > 3000000000",
    "k1 >= 1.00000000000000000000000000000000000001",
    "p0 > 0.5",
    "v0 > 12.5",
    "v0 < 9300000000000000000",
]


@PATHS
@pytest.mark.parametrize("condition", WIDER_CONSTANTS)
def test_wider_constant_on_merged_table_keeps_duckdb_meaning(path, condition):
    session = path(PARQUET)
    full = paimon_sql.connect(PARQUET).sql(f"SELECT * FROM {MOR}").to_arrow_table()
    con = duckdb.connect()
    con.register("full_read", full)
    want = sorted(con.execute(f"SELECT * FROM full_read WHERE {condition}").fetchall())
    assert sorted(session.sql(f"SELECT * FROM {MOR} WHERE {condition}").fetchall()) == want


#: FLOAT, DOUBLE, DECIMAL and TINYINT keys of a merge-on-read table we write (two commits).
NUMERIC_KEY_CONSTANTS = [
    "f < 1.00000001e0",
    "f < 1e39",
    "f IN (0.1, 2.5)",
    "f <> 0.1",
    "d = 0.1",
    "dc > 1.245",
    "dc < 1000",
    "dc > -1000",
    "dc IN (1.25, 1.255)",
    "dc = '1.245'",
    "ti < 128",
    "ti > -129",
    "ti > 126.5",
    "ti BETWEEN 4.5 AND 1000",
]


@PATHS
@pytest.mark.parametrize("condition", NUMERIC_KEY_CONSTANTS)
def test_numeric_key_constants_keep_duckdb_meaning(tmp_path, path, condition):
    writer = paimon_sql.connect(tmp_path)
    writer.sql("CREATE DATABASE db")
    writer.sql(
        "CREATE TABLE db.t (f FLOAT, d DOUBLE, dc DECIMAL(5, 2), ti TINYINT, v INT, "
        "PRIMARY KEY (f, d, dc, ti) NOT ENFORCED) WITH ('bucket' = '1')"
    )
    writer.sql("INSERT INTO db.t VALUES (1.0, 0.1, 1.25, 5, 1), (0.1, 1.0, -999.99, -128, 2)")
    writer.sql("INSERT INTO db.t VALUES (1.0, 0.1, 1.25, 5, 3), (2.5, 2.5, 999.99, 127, 4)")
    con = duckdb.connect()
    con.register("full_read", writer.sql("SELECT * FROM db.t").to_arrow_table())
    want = sorted(con.execute(f"SELECT * FROM full_read WHERE {condition}").fetchall())
    assert want  # every condition keeps a row
    assert sorted(path(tmp_path).sql(f"SELECT * FROM db.t WHERE {condition}").fetchall()) == want


@pytest.fixture
def ids(tmp_path):
    """db.a: ids 1..5 and a second 1, one file per commit in two buckets (filters prune files)."""
    s = paimon_sql.connect(tmp_path)
    s.sql("CREATE DATABASE db")
    s.sql("CREATE TABLE db.a (id INT, v STRING) WITH ('bucket' = '2', 'bucket-key' = 'id')")
    for rows in ("(1, 'a'), (2, 'b')", "(1, 'c'), (4, 'd')", "(5, 'e'), (3, 'f')"):
        s.sql(f"INSERT INTO db.a VALUES {rows}")
    s.sql("CREATE TABLE db.b (id INT) WITH ('bucket' = '1', 'bucket-key' = 'id')")
    s.sql("INSERT INTO db.b VALUES (3)")
    return s


#: `a.id` names a relation other than db.a wherever db.a is aliased (or the outer query's).
QUALIFIER_CASES = [
    ("SELECT count(*) FROM db.a AS x, (SELECT 424242 AS id) AS a WHERE a.id = 424242", 6),
    ("SELECT count(*) FROM db.a AS b JOIN db.b AS a ON true WHERE a.id = 3", 6),
    (
        "SELECT count(*) FROM (SELECT 424242 AS id) AS a "
        "WHERE EXISTS (SELECT 1 FROM db.a AS y WHERE a.id = 424242)",
        1,
    ),
    ("SELECT count(*) FROM db.a AS x WHERE X.id = 4", 1),
]


@pytest.mark.parametrize(("query", "want"), QUALIFIER_CASES)
def test_qualifier_names_the_relation_sql_binds(ids, query, want):
    assert ids.sql(query).fetchall() == [(want,)]


#: A WHERE on the Paimon side that must not prune before the FROM: the join pairs rows by
#: as-of match or position, or a sample is drawn first; a LIMIT inside keeps its first rows.
NOT_PUSHED = [
    "SELECT q.t, a.id, a.v FROM (SELECT 10 AS t) q ASOF JOIN db.a a ON q.t >= a.id WHERE a.id = 4",
    "SELECT a.id, a.v, b.x FROM db.a a POSITIONAL JOIN (SELECT range AS x FROM range(6)) b "
    "WHERE a.id = 4",
    "SELECT count(*) FROM db.a WHERE id = 4 USING SAMPLE 100 PERCENT (bernoulli)",
    "SELECT count(*) FROM db.a TABLESAMPLE 100 PERCENT (bernoulli) WHERE id = 4",
    "SELECT * FROM (SELECT * FROM db.a LIMIT 3) WHERE id = 4",
]


@pytest.mark.parametrize("query", NOT_PUSHED)
def test_where_does_not_prune_before_order_joins_samples_or_limits(ids, query):
    con = duckdb.connect()
    con.register("full_read", ids.sql("SELECT * FROM db.a").to_arrow_table())
    want = con.execute(query.replace("db.a", "full_read")).fetchall()
    assert ids.sql(query).fetchall() == want
    files = [r[2] for r in ids.sql("EXPLAIN " + query).fetchall() if r[1] == "files"]
    assert files
    assert "pruned: 0 by partition, 0 by bucket, 0 by statistics" in files[0], files


def test_where_still_prunes_beside_lateral_and_unnest(ids):
    # inner lateral joins see each row of db.a on its own: its filter may prune first
    query = "SELECT a.id, u.x FROM db.a a, unnest([a.id, 7]) AS u(x) WHERE a.id = 4"
    assert sorted(ids.sql(query).fetchall()) == [(4, 4), (4, 7)]
    files = [r[2] for r in ids.sql("EXPLAIN " + query).fetchall() if r[1] == "files"]
    assert files[0].startswith("1 read of 4 live"), files


def test_tablesample_on_a_paimon_table_is_kept(ids):
    assert ids.sql("SELECT count(*) FROM db.a TABLESAMPLE RESERVOIR(2 ROWS)").fetchall() == [(2,)]


@pytest.mark.parametrize(
    "options",
    [
        "'file.format' = 'orc'",
        # no statistics: only the bloom filter index could prune
        "'file.format' = 'orc', 'metadata.stats-mode' = 'none', "
        "'file-index.bloom-filter.columns' = 'c'",
    ],
    ids=["statistics", "bloom-filter"],
)
def test_orc_char_values_read_unpadded_are_not_pruned_by_padded_metadata(tmp_path, options):
    # CHAR statistics and indexes hold the padded value ('ab   '), an ORC file gives 'ab' back
    s = paimon_sql.connect(tmp_path)
    s.sql("CREATE DATABASE db")
    s.sql(f"CREATE TABLE db.c (id INT, c CHAR(5)) WITH ({options})")
    s.sql("INSERT INTO db.c VALUES (1, 'ab')")
    s.sql("INSERT INTO db.c VALUES (2, 'zz')")
    assert s.sql("SELECT * FROM db.c ORDER BY id").fetchall() == [(1, "ab"), (2, "zz")]
    assert s.sql("SELECT * FROM db.c WHERE c = 'ab'").fetchall() == [(1, "ab")]
    assert s.sql("SELECT id FROM db.c WHERE c IN ('zz', 'q')").fetchall() == [(2,)]
