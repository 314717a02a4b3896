"""System tables: paimon-sql's ``"db"."t$x"`` against Apache Paimon 0.9's own, through Spark.

For every system table Paimon 0.9's Spark integration exposes and paimon-sql implements, on a
representative set of Spark-written corpus tables (`CORPUS_TABLES`) and on every Java-written 0.9
fixture (copied to a temporary warehouse), the same ``SELECT *`` runs in both engines and is
compared column by column: the column names (in order), each column's type (Spark's type mapped
to DuckDB's by `duckdb_type`; nullability against our Arrow schema) and every value (multisets per
column, then whole rows, normalised by the harness). Spark is the only source of truth: nothing
here states an expected value.

What Paimon 0.9's Spark has (asked from Spark by `test_spark_09_system_tables`):

* compared here: ``snapshots``, ``schemas``, ``options``, ``tags``, ``files``, ``manifests``,
  ``partitions``, ``consumers``, ``aggregation_fields``, ``audit_log``, ``ro``, ``branches``,
  ``statistics`` (with branches and ANALYZE statistics on a table of this test's own, as the
  corpus has neither) and the global ``sys.all_table_options``. ``files``, ``audit_log`` and
  ``ro`` are also compared with ``VERSION AS OF <snapshot id>`` and ``VERSION AS OF '<tag>'``,
  ``manifests`` with snapshot ids. Spark 0.9's ``$partitions`` ignores time travel and its
  ``$manifests`` ignores a tag (`test_spark_09_time_travel_on_system_tables` pins both):
  ``$partitions`` is compared at the latest snapshot only (so is ``$statistics``, see
  `PER_SNAPSHOT`), and a tag's ``$manifests`` against Spark's ``$manifests`` of the tagged
  snapshot id. ``snapshots``, ``schemas``, ``options``, ``tags`` and ``branches`` describe the
  whole table in both engines.
* in Spark 0.9 but not in paimon-sql: ``sys.catalog_options``, ``sys.source_table_lineage`` and
  ``sys.sink_table_lineage`` (`NOT_IMPLEMENTED_GLOBAL`; the test fails once we grow one, so that
  it gets compared).
* in paimon-sql but not in Spark 0.9 (nothing to compare with): ``buckets``, ``table_indexes``,
  ``sys.tables``, ``sys.partitions``. They follow later Java versions.

Differences that are deliberate, or where Spark 0.9 is wrong, are listed in `KNOWN_DIFFERENCES`,
keyed by (table, system table, column). The list is strict: an entry that no longer differs fails
the run, like a strict xfail.
"""

from __future__ import annotations

import shutil
from collections import Counter
from typing import TYPE_CHECKING, Any

import pytest

import paimon_sql
from paimon_sql.catalog import Identifier
from paimon_sql.catalog.system_tables import CATALOG_TABLES, SYSTEM_TABLES, system_table
from paimon_sql.sql.data_tables import read_data_table
from tests.fixtures import FIXTURES
from tests.interop.harness import _from_spark, canonical_rows, spark_session

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

pytestmark = pytest.mark.interop

JAVA_FIXTURES = FIXTURES / "generated-paimon-java-0.9" / "warehouse"
#: Java fixtures also compared at older snapshots and tags (the others at the latest only):
#: tags and a schema change, deletion vectors, first-row (level 0 hidden), changelog manifests.
JAVA_VERSIONED = ("append_tags", "pk_dv", "pk_first", "pk_changelog_input")

#: Per-table system tables of Paimon 0.9 (Spark), as `test_spark_09_system_tables` finds them.
SPARK_09 = (
    "snapshots",
    "schemas",
    "options",
    "tags",
    "files",
    "manifests",
    "partitions",
    "consumers",
    "aggregation_fields",
    "audit_log",
    "ro",
    "branches",
    "statistics",
)
NOT_IMPLEMENTED: tuple[str, ...] = ()
#: Global ``sys`` tables of Spark 0.9 we lack (the lineage ones need a lineage meta store).
NOT_IMPLEMENTED_GLOBAL = ("catalog_options", "source_table_lineage", "sink_table_lineage")
COMPARED = tuple(n for n in SPARK_09 if n not in NOT_IMPLEMENTED)
#: Ours only (later Java versions); Spark 0.9 reports them as missing tables.
NOT_IN_SPARK_09 = ("buckets", "table_indexes", "row_tracking")
#: System tables whose content depends on the snapshot, time-travelled in both engines. Spark 0.9's
#: ``$partitions`` ignores time travel (always the latest) and its ``$manifests`` ignores a tag (see
#: `test_spark_09_time_travel_on_system_tables`); its ``$statistics`` at a snapshot older than the
#: ANALYZE still shows statistics (`test_branches_and_statistics_like_spark`), ours none:
#: ``$partitions`` and ``$statistics`` are compared at the latest only, a tag's ``$manifests``
#: against Spark's ``$manifests`` of the tagged snapshot id.
PER_SNAPSHOT = ("files", "manifests", "audit_log", "ro")

#: The corpus tables compared, with what each one stands for.
CORPUS_TABLES = {
    "append_basic": "append, unpartitioned, a tag, overwrite",
    "append_partitioned": "append, NULL/''/DATE/escaped partitions, overwrites",
    "append_dv": "append with deletion vectors",
    "append_orc": "append, ORC, TIMESTAMP LTZ and DECIMAL columns",
    "pk_fixed": "primary key, partitioned, two tags, MERGE INTO",
    "pk_fixed_unpartitioned": "primary key, 4 buckets, compacted",
    "pk_deletion_vectors": "primary key with deletion vectors, partitioned",
    "pk_first_row": "first-row engine",
    "pk_aggregation": "aggregation engine ($aggregation_fields)",
    "pk_changelog_input": "changelog-producer=input (changelog manifests)",
    "schema_evolution_pk": "schema-evolved primary-key table (stats over old schemas)",
    "schema_evolution_append": "schema-evolved partitioned append table",
    "history_pk": "expired snapshots, tags, rollback",
    "history_append": "expired snapshots, a tag, rollback to the tag",
    "types_parquet": "every type (stats rendering), Parquet",
}

#: (table, system table, column) -> why paimon-sql differs from Spark. Columns may be the
#: pseudo-columns of `compare`. Strict: an entry that no longer differs fails its table's test.
KNOWN_DIFFERENCES: dict[tuple[str, str, str], str] = {
    ("schema_evolution_append", "files", "<spark error>"): (
        "Spark 0.9 fails on $files of a file written before ALTER COLUMN a TYPE INT next to an "
        "ARRAY column (ArrayIndexOutOfBoundsException in FilesTable's CastedRow stats)"
    ),
}

_SCALARS = {
    "bigint": "BIGINT",
    "int": "INTEGER",
    "smallint": "SMALLINT",
    "tinyint": "TINYINT",
    "string": "VARCHAR",
    "boolean": "BOOLEAN",
    "double": "DOUBLE",
    "float": "FLOAT",
    "date": "DATE",
    "binary": "BLOB",
    "timestamp": "TIMESTAMP WITH TIME ZONE",  # Spark TIMESTAMP is Paimon TIMESTAMP_LTZ
    "timestamp_ntz": "TIMESTAMP",
}
#: A Paimon TIMESTAMP(3) is DuckDB's TIMESTAMP_MS; Spark has only microsecond timestamps.
_SAME_TYPE = {("TIMESTAMP", "TIMESTAMP_MS"), ("TIMESTAMP WITH TIME ZONE", "TIMESTAMP_MS")}


def duckdb_type(dtype: Any) -> str:
    """The DuckDB type of a Spark type: one table for scalars, recursion for the nested ones."""
    from pyspark.sql import types as T

    if isinstance(dtype, T.DecimalType):
        return f"DECIMAL({dtype.precision},{dtype.scale})"
    if isinstance(dtype, T.ArrayType):
        return duckdb_type(dtype.elementType) + "[]"
    if isinstance(dtype, T.MapType):
        return f"MAP({duckdb_type(dtype.keyType)}, {duckdb_type(dtype.valueType)})"
    if isinstance(dtype, T.StructType):
        return "STRUCT(" + ", ".join(f"{f.name} {duckdb_type(f.dataType)}" for f in dtype) + ")"
    return _SCALARS[dtype.simpleString()]


def _types_match(ours: str, spark: str) -> bool:
    ours = ours.replace('"', "")  # DuckDB quotes reserved words in STRUCT field names
    return ours == spark or (spark, ours) in _SAME_TYPE


# --- running both sides -------------------------------------------------------------------------


SparkAnswer = tuple[list[str], list[str], list[bool], list[dict[str, Any]]]


def _answer(fields: list[Any], rows: list[Any]) -> SparkAnswer:
    plain = [
        {f.name: _from_spark(row[i], f.dataType) for i, f in enumerate(fields)} for row in rows
    ]
    names = [f.name for f in fields]
    return names, [duckdb_type(f.dataType) for f in fields], [f.nullable for f in fields], plain


def spark_batch(spark, queries: Sequence[str]) -> dict[str, SparkAnswer | Exception]:
    """Each query's answer (names, DuckDB types, nullability, rows) or Spark's error.

    One job per query: a ``UNION ALL`` of many small system-table scans was measured twice as slow
    (Spark's planning grows with the union), so batching here means one pass, no retries.
    """
    out: dict[str, SparkAnswer | Exception] = {}
    for sql in dict.fromkeys(queries):
        try:
            frame = spark.sql(sql)
            out[sql] = _answer(frame.schema.fields, frame.collect())
        except Exception as err:  # noqa: BLE001 - Py4J wraps Spark's failure: kept, compared
            out[sql] = err
    return out


def _ours(session, sql: str) -> tuple[list[str], list[str], list[dict[str, Any]]]:
    rel = session.sql(sql)
    names = list(rel.columns)
    rows = [dict(zip(names, r, strict=True)) for r in rel.fetchall()]
    return names, [str(t) for t in rel.types], rows


def _column(rows: list[dict[str, Any]], name: str) -> Counter[str]:
    return Counter(canonical_rows([{name: r[name]} for r in rows]))


def _diff_text(ours: Counter[str], spark: Counter[str]) -> str:
    missing = list((spark - ours).elements())[:3]
    extra = list((ours - spark).elements())[:3]
    return f"Spark has {missing}, we have {extra}"


def compare(
    answer: SparkAnswer | Exception, session, key: str, systable: str, our_sql: str
) -> dict[str, str]:
    """Per column: what differs (name, type, nullability, values); plus whole-row differences.

    Pseudo-columns: ``<spark error>`` (Spark fails), ``<error>`` (we fail), ``<columns>`` (names
    differ), ``<row count>`` (rows missing or extra: then every column would differ).
    """
    if isinstance(answer, Exception):
        return {"<spark error>": str(answer).splitlines()[0][:300]}
    s_names, s_types, s_nulls, s_rows = answer
    try:
        o_names, o_types, o_rows = _ours(session, our_sql)
    except Exception as err:  # noqa: BLE001 - our failure is a difference to report
        return {"<error>": f"{type(err).__name__}: {err}"}
    if o_names != s_names:
        return {"<columns>": f"columns {o_names} != Spark's {s_names}"}
    if len(o_rows) != len(s_rows):
        got, want = Counter(canonical_rows(o_rows)), Counter(canonical_rows(s_rows))
        return {"<row count>": f"{len(o_rows)} rows, Spark {len(s_rows)}: " + _diff_text(got, want)}
    diffs: dict[str, str] = {}
    nullable = _nullability(session, key, systable, our_sql)
    for i, name in enumerate(s_names):
        problems = []
        if not _types_match(o_types[i], s_types[i]):
            problems.append(f"type {o_types[i]} != Spark's {s_types[i]}")
        if nullable is not None and nullable[i] != s_nulls[i]:
            problems.append(f"nullable={nullable[i]}, Spark's nullable={s_nulls[i]}")
        got, want = _column(o_rows, name), _column(s_rows, name)
        if got != want:
            problems.append(f"values differ ({len(o_rows)} rows, Spark {len(s_rows)}): ")
            problems[-1] += _diff_text(got, want)
        if problems:
            diffs[name] = "; ".join(problems)
    # the columns that agree one by one must also agree row by row
    same = [n for n in s_names if n not in diffs and not _known(key, systable, n)]
    got = Counter(canonical_rows([{n: r[n] for n in same} for r in o_rows]))
    want = Counter(canonical_rows([{n: r[n] for n in same} for r in s_rows]))
    if got != want:
        diffs["<rows>"] = "rows differ over the matching columns: " + _diff_text(got, want)
    return diffs


def _nullability(session, key: str, systable: str, our_sql: str) -> list[bool] | None:
    """Our Arrow schema's nullability for a per-table system table (None: not one of those)."""
    if systable.startswith("sys.") or "VERSION AS OF" in our_sql:
        return None
    table = session.table(Identifier("db", key.split(":")[-1]))
    return [f.nullable for f in system_table(table, systable, read_data=read_data_table).schema]


def _known(key: str, systable: str, column: str) -> bool:
    return (key, systable, column) in KNOWN_DIFFERENCES


def spark_select(table: str, name: str, clause: str = "", columns: str = "*") -> str:
    """Spark's spelling: ``SELECT * FROM db.`t$files` VERSION AS OF 3``."""
    return f"SELECT {columns} FROM db.`{table}${name}`{clause}"  # noqa: S608 - test SQL, our names


def our_select(table: str, name: str, clause: str = "") -> str:
    """paimon-sql's spelling of the same query: ``SELECT * FROM "db"."t$files" VERSION AS OF 3``."""
    return f'SELECT * FROM "db"."{table}${name}"{clause}'  # noqa: S608 - test SQL, our names


def _travel(v: int | str) -> str:
    return f" VERSION AS OF {v}" if isinstance(v, int) else f" VERSION AS OF '{v}'"


def _some(ids: list[int]) -> list[int]:
    """The oldest live snapshot only (tags add other versions): the time budget of the suite.

    The oldest is the most different from the latest: one APPEND, level-0 files only (which a
    deletion-vector or first-row table hides), often an older schema.
    """
    return ids[:1]


def _queries(table: str, entry: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """(label, system table, Spark SQL, paimon-sql SQL) for one table."""
    out = []
    for name in COMPARED:
        spark_sql, our_sql = spark_select(table, name), our_select(table, name)
        out.append((name, name, spark_sql, our_sql))
    live = [s["id"] for s in entry["snapshots"]]
    versions: list[int | str] = [*_some(live[:-1]), *entry["tags"]]
    for v in versions:
        clause = _travel(v)
        for name in PER_SNAPSHOT:
            our_sql, spark_sql = our_select(table, name, clause), spark_select(table, name, clause)
            if name == "manifests" and isinstance(v, str):
                # Spark 0.9's $manifests ignores a tag: ask for the tagged snapshot's id instead
                tagged = entry["tags"][v]
                if tagged not in live:
                    continue
                spark_sql = spark_select(table, name, _travel(tagged))
            out.append((name + clause, name, spark_sql, our_sql))
        # our DuckDB and Flink spellings of the same travel, against the same Spark answer
        duck = f" AT (VERSION => {v})" if isinstance(v, int) else f" AT (VERSION => '{v}')"
        key = "scan.snapshot-id" if isinstance(v, int) else "scan.tag-name"
        flink = f" /*+ OPTIONS('{key}'='{v}') */"
        for form in (duck, flink):
            out.append(
                (
                    "files" + form,
                    "files",
                    spark_select(table, "files", clause),
                    our_select(table, "files", form),
                )
            )
    return out


def _run_all(
    answers: Mapping[str, SparkAnswer | Exception], session, key: str, entry: dict[str, Any]
) -> dict[tuple[str, str, str], str]:
    table = key.split(":")[-1]
    found: dict[tuple[str, str, str], str] = {}
    for label, systable, spark_sql, our_sql in _queries(table, entry):
        diffs = compare(answers[spark_sql], session, key, systable, our_sql)
        for column, text in diffs.items():
            found.setdefault((key, systable, column), f"{key} {label}: {text}")
    return found


def _judge(found: dict[tuple[str, str, str], str], keys: list[str]) -> list[str]:
    """Unlisted differences, and listed ones (for these tables) that no longer differ."""
    failures = [text for k, text in found.items() if not _known(*k)]
    for entry in KNOWN_DIFFERENCES:
        if entry[0] in keys and entry not in found:
            failures.append(f"KNOWN_DIFFERENCES {entry} no longer differs: remove it")
    return failures


def test_known_differences_name_compared_tables():
    """Each entry names a compared table and system table, so its strictness is really checked."""
    for table, systable, _column in KNOWN_DIFFERENCES:
        assert table in CORPUS_TABLES or table.startswith("java:"), table
        assert systable in COMPARED, systable


# --- tests ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def answers(corpus, spark) -> dict[str, SparkAnswer | Exception]:
    """Spark's answers to every query of every compared corpus table, batched."""
    queries = [q[2] for t in CORPUS_TABLES for q in _queries(t, corpus.tables[t])]
    return spark_batch(spark, queries)


@pytest.fixture(scope="module")
def ours(corpus):
    session = paimon_sql.connect(corpus.warehouse)
    yield session
    session.close()


def test_spark_09_system_tables(corpus, spark):
    """Spark 0.9 has exactly the system tables this module says (so a version bump is noticed)."""
    asked = sorted(set(SPARK_09) | set(NOT_IN_SPARK_09) | set(SYSTEM_TABLES))
    exists, refusals = [], []
    for name in asked:
        try:
            spark.sql(spark_select("append_basic", name)).schema  # noqa: B018
        except Exception as err:  # noqa: BLE001 - Py4J wraps Spark's failure: checked below
            refusals.append(err)
        else:
            exists.append(name)
    for err in refusals:
        assert "TABLE_OR_VIEW_NOT_FOUND" in str(err), err
    assert sorted(exists) == sorted(SPARK_09)
    assert not set(NOT_IMPLEMENTED) & set(SYSTEM_TABLES), "implemented now: compare it"
    assert set(COMPARED) <= set(SYSTEM_TABLES)
    global_tables = {r[1] for r in spark.sql("SHOW TABLES IN sys").collect()}
    assert global_tables == {"all_table_options", *NOT_IMPLEMENTED_GLOBAL}, global_tables
    assert "all_table_options" in CATALOG_TABLES
    assert not set(NOT_IMPLEMENTED_GLOBAL) & set(CATALOG_TABLES), "implemented now: compare it"


def test_spark_09_time_travel_on_system_tables(corpus, spark):
    """What Spark 0.9 time-travels: ``$partitions`` never, ``$manifests`` by id, ``$files`` both.

    This pins the limits `PER_SNAPSHOT` works around: a Paimon upgrade that lifts them fails here.
    """
    table, snapshot_id, tag = "pk_fixed", 1, "before_dml"
    assert corpus.tables[table]["tags"][tag] != corpus.tables[table]["snapshots"][-1]["id"]

    def rows(name: str, clause: str = "") -> list[str]:
        sql = spark_select(table, name, clause)
        answer = spark_batch(spark, [sql])[sql]
        assert not isinstance(answer, Exception), answer
        return canonical_rows(answer[3])

    latest = {n: rows(n) for n in ("partitions", "manifests", "files")}
    assert rows("partitions", _travel(snapshot_id)) == latest["partitions"]
    assert rows("partitions", _travel(tag)) == latest["partitions"]
    assert rows("manifests", _travel(tag)) == latest["manifests"]
    assert rows("manifests", _travel(snapshot_id)) != latest["manifests"]
    assert rows("files", _travel(snapshot_id)) != latest["files"]
    assert rows("files", _travel(tag)) != latest["files"]


@pytest.mark.parametrize("table", sorted(CORPUS_TABLES))
def test_system_tables_like_spark(corpus, answers, ours, table):
    found = _run_all(answers, ours, table, corpus.tables[table])
    failures = _judge(found, [table])
    if failures:
        pytest.fail(f"db.{table} ({CORPUS_TABLES[table]}):\n" + "\n".join(failures), pytrace=False)


def test_global_all_table_options_like_spark(corpus, spark, ours):
    spark_sql = "SELECT * FROM sys.all_table_options"
    answer = spark_batch(spark, [spark_sql])[spark_sql]
    diffs = compare(
        answer, ours, "sys", "sys.all_table_options", 'SELECT * FROM "sys"."all_table_options"'
    )
    assert not diffs, diffs


#: A table of our own for what the corpus lacks: branches (from a tag and from nothing) and the
#: statistics of ANALYZE TABLE (on an older snapshot than the latest, which has none).
_BRANCHES_AND_STATS = (
    "CREATE DATABASE db",
    "CREATE TABLE db.stats (id INT, v STRING, d DOUBLE, p STRING) USING paimon "
    "PARTITIONED BY (p) TBLPROPERTIES ('primary-key' = 'p,id', 'bucket' = '1')",
    "INSERT INTO db.stats VALUES (1, 'a', 1.5, 'x'), (2, NULL, NULL, 'y')",
    "CALL sys.create_tag(table => 'db.stats', tag => 'first', snapshot => 1)",
    "ANALYZE TABLE db.stats COMPUTE STATISTICS FOR ALL COLUMNS",
    "CALL sys.create_branch(table => 'db.stats', branch => 'from_tag', tag => 'first')",
    "CALL sys.create_branch(table => 'db.stats', branch => 'empty')",
    "INSERT INTO db.stats VALUES (3, 'c', -0.5, 'x')",
    "CALL sys.create_tag(table => 'db.stats', tag => 'analyzed', snapshot => 2)",
)


def test_branches_and_statistics_like_spark(tmp_path, corpus):
    warehouse = tmp_path / "warehouse"
    spark = spark_session(warehouse)
    for statement in _BRANCHES_AND_STATS:
        spark.sql(statement).collect()
    session = paimon_sql.connect(warehouse)
    try:
        history = _history(spark, "stats")
        answers = spark_batch(spark, [q[2] for q in _queries("stats", history)])
        found = _run_all(answers, session, "own:stats", history)
    finally:
        session.close()
    assert not isinstance(answers[spark_select("stats", "branches")], Exception)
    assert len(answers[spark_select("stats", "branches")][3]) == 2
    # Spark 0.9 time-travels $statistics no further than the ANALYZE: statistics at snapshot 1 too
    before = spark_batch(spark, [spark_select("stats", "statistics", _travel(1))])
    assert len(next(iter(before.values()))[3]) == 1  # the limit PER_SNAPSHOT works around
    failures = _judge(found, ["own:stats"])
    if failures:
        pytest.fail("\n".join(failures), pytrace=False)


@pytest.fixture(scope="module")
def java_warehouse(tmp_path_factory):
    """A copy of the Java-written 0.9 fixtures (Spark may write hints; the originals stay put)."""
    target = tmp_path_factory.mktemp("java09") / "warehouse"
    shutil.copytree(JAVA_FIXTURES, target)
    return target


def _history(spark, table: str, *, versions: bool = True) -> dict[str, Any]:
    """Live snapshots and tags, as `_queries` wants them (without `versions`: the latest only)."""
    snaps = spark.sql(spark_select(table, "snapshots", " ORDER BY 1", "snapshot_id")).collect()
    tags = spark.sql(spark_select(table, "tags", "", "tag_name, snapshot_id")).collect()
    if not versions:
        return {"snapshots": [{"id": r[0]} for r in snaps[-1:]], "tags": {}}
    return {"snapshots": [{"id": r[0]} for r in snaps], "tags": {r[0]: r[1] for r in tags}}


def test_java_fixtures_system_tables_like_spark(corpus, java_warehouse):
    spark = spark_session(java_warehouse)
    session = paimon_sql.connect(java_warehouse)
    try:
        names = sorted(p.name for p in (java_warehouse / "db.db").iterdir() if p.is_dir())
        assert "append_tags" in names
        histories = {t: _history(spark, t, versions=t in JAVA_VERSIONED) for t in names}
        queries = [q[2] for t in names for q in _queries(t, histories[t])]
        answers = spark_batch(spark, queries)
        found: dict[tuple[str, str, str], str] = {}
        for table in names:
            found.update(_run_all(answers, session, f"java:{table}", histories[table]))
    finally:
        session.close()
    failures = _judge(found, [f"java:{n}" for n in names])
    if failures:
        pytest.fail("Java 0.9 fixtures:\n" + "\n".join(failures), pytrace=False)
