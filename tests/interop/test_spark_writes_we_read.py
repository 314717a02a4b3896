"""Apache Paimon writes (Spark SQL), paimon-sql reads: every corpus table, at every version.

For each table of the Spark-written corpus (tests/interop/corpus.py) paimon-sql's read is compared
with Spark's own read of the same version, row for row: the latest snapshot, every live snapshot id
and every tag. Spark is the only source of truth; nothing here states an expected value.
"""

from __future__ import annotations

from typing import Any

import pytest
from sqlglot import exp

import paimon_sql
from tests.interop.corpus import TABLES
from tests.interop.harness import assert_rows_equal, spark_columns, spark_rows

pytestmark = pytest.mark.interop

# Tables paimon-sql does not read like Spark yet. xfail is strict: a table that starts passing
# fails the run until it is removed from here.
KNOWN_FAILURES: dict[str, str] = {}


def _collapse_all_null_structs(value: Any) -> Any:
    """Paimon 0.9's Parquet reader: a struct of all-NULL fields (inner ones first) is NULL."""
    if isinstance(value, dict):
        inner = {k: _collapse_all_null_structs(v) for k, v in value.items()}
        return None if all(v is None for v in inner.values()) else inner
    if isinstance(value, list):
        return [_collapse_all_null_structs(v) for v in value]
    return value


# Known 0.9 differences: paimon-sql follows current Paimon (1.3.1, the Flink oracle) where Paimon
# 0.9 reads differently. Such a table is compared through the view of 0.9's behaviour (which must
# then match Spark) and must still differ without it (or the entry goes). tests/interop/README.md
# lists them. Only struct columns are rewritten (the tables named here hold no MAP columns, which
# DuckDB also returns as dicts).
KNOWN_09_DIFFERENCES: dict[str, tuple[str, Any]] = {
    "parquet_null_structs": (
        "Paimon 0.9's Parquet reader returns a ROW whose fields are all NULL as a NULL ROW; the "
        "file's definition levels say ROW(NULL, NULL), and Paimon 1.3.1 (tests/interop/flink "
        "nullrow_parquet) and paimon-sql read that",
        _collapse_all_null_structs,
    ),
}


def _params() -> list[Any]:
    params = []
    for table in TABLES:
        reason = KNOWN_FAILURES.get(table.name)
        # raises=: only a row/column mismatch or a paimon-sql error counts, never a Spark crash
        xfail = pytest.mark.xfail(reason=reason, strict=True, raises=pytest.fail.Exception)
        marks = [xfail] if reason else []
        params.append(pytest.param(table.name, marks=marks, id=table.name))
    return params


@pytest.fixture(scope="module")
def ours(corpus):
    session = paimon_sql.connect(corpus.warehouse)
    yield session
    session.close()


def _versions(entry: dict[str, Any]) -> list[tuple[str, int | str | None]]:
    versions: list[tuple[str, int | str | None]] = [("latest", None)]
    versions += [(f"snapshot {s['id']}", s["id"]) for s in entry["snapshots"]]
    versions += [(f"tag {name!r}", name) for name in entry["tags"]]
    return versions


def _read(session: paimon_sql.Session, ident: str, version: int | str | None):
    if version is None:
        database, table = ident.split(".")
        query = exp.select("*").from_(exp.table_(table, db=database, quoted=True))
        rel = session.sql(query.sql("duckdb"))
    elif isinstance(version, int):
        rel = session.scan(ident, snapshot=version)
    else:
        rel = session.scan(ident, tag=version)
    columns = list(rel.columns)
    return columns, [dict(zip(columns, row, strict=True)) for row in rel.fetchall()]


def _compare(
    spark, ours, ident: str, label: str, version: int | str | None, view: Any = None
) -> str | None:
    """None when paimon-sql reads `version` as Spark; `view` maps our values first (0.9 views)."""
    expected_columns = spark_columns(spark, ident, version=version)
    expected = spark_rows(spark, ident, version=version)
    try:
        columns, actual = _read(ours, ident, version)
    except Exception as err:  # noqa: BLE001 - report every version, not just the first failure
        return f"{label}: paimon-sql raised {type(err).__name__}: {err}"
    if columns != expected_columns:
        return f"{label}: columns {columns} != Spark's {expected_columns}"
    if view is not None:
        actual = [{k: view(v) for k, v in row.items()} for row in actual]
    try:
        assert_rows_equal(actual, expected, context=f"{label} (paimon-sql vs Spark)")
    except AssertionError as err:
        return str(err)
    return None


@pytest.mark.parametrize("table", _params())
def test_reads_like_spark(corpus, spark, ours, table):
    entry = corpus.tables[table]
    ident = entry["identifier"]
    versions = _versions(entry)
    difference = KNOWN_09_DIFFERENCES.get(table)
    view = difference[1] if difference else None
    failures = [f for label, v in versions if (f := _compare(spark, ours, ident, label, v, view))]
    if difference and not failures:
        unviewed = [f for label, v in versions if _compare(spark, ours, ident, label, v)]
        if not unviewed:
            failures.append(f"known 0.9 difference no longer seen, remove it: {difference[0]}")
    if failures:
        pytest.fail(
            f"{ident} ({' '.join(entry['features'])}):\n" + "\n".join(failures), pytrace=False
        )


def test_expired_snapshots_are_gone_for_both(corpus, spark, ours):
    """Expired snapshot ids fail in Spark and in paimon-sql alike (the tags still read)."""
    checked = 0
    for entry in corpus.tables.values():
        for snapshot_id in entry["expired_snapshots"][-1:]:
            with pytest.raises(Exception):  # noqa: B017, PT011 - Spark's error is a Py4J wrapper
                spark_rows(spark, entry["identifier"], version=snapshot_id)
            with pytest.raises(paimon_sql.errors.PaimonSqlError):
                _read(ours, entry["identifier"], snapshot_id)
            checked += 1
    assert checked >= 2, "the corpus must hold tables with expired snapshots"


# Issue 18: files that need no merge are read by one multi-file ``read_parquet`` per column layout
# across every partition, the partition columns taken from the files. The partitioned Parquet
# tables of the corpus (NULL, '', date and escaped partition values; schema changes; PK files and
# deletions across partitions) read through that inlined SQL at every live snapshot, as Spark reads.
ONE_SCAN_TABLES = [
    t.name
    for t in TABLES
    if "partitioned" in t.features and not {"format-orc", "format-avro"} & set(t.features)
]


def _inlined(session: paimon_sql.Session, ident: str, snapshot: int) -> tuple[int, int]:
    """(multi-file read_parquet calls, column layouts of the files read unmerged) of the scan."""
    from paimon_sql.plan.scan import plan_scan

    table = session.catalog.load_table(ident)
    version = table.snapshot(snapshot)
    plan = plan_scan(table, version, None, table.schema(version.schema_id))
    inlined = session._engine.reader.inline(session._engine.con, plan)
    assert inlined is not None, f"{ident} snapshot {snapshot}: not inlined"
    query, registered = inlined
    for name in registered:
        session._engine.con.unregister(name)
    # multi-file scans take a list of paths; a merged file is read alone (``read_parquet(path)``)
    calls = sum(
        1
        for node in query.find_all(exp.Anonymous)
        if node.name.lower() == "read_parquet" and isinstance(node.expressions[0], exp.Array)
    )
    plain = {
        tuple((f.id, f.name, f.type) for f in table.schema(meta.schema_id).fields)
        for split in plan.splits
        for section in split.sections
        if not section.merge
        for meta in section.files
    }
    return calls, len(plain)


@pytest.mark.parametrize("table", ONE_SCAN_TABLES)
def test_partitioned_tables_read_as_one_scan_like_spark(corpus, spark, ours, table):
    entry = corpus.tables[table]
    ident = entry["identifier"]
    database, name = ident.split(".")
    partitions_seen = 0
    for snapshot in entry["snapshots"]:
        sid = snapshot["id"]
        query = exp.select("*").from_(exp.table_(name, db=database, quoted=True))
        text = query.sql("duckdb") + f" VERSION AS OF {int(sid)}"
        rel = ours.sql(text)
        columns = list(rel.columns)
        actual = [dict(zip(columns, row, strict=True)) for row in rel.fetchall()]
        assert columns == spark_columns(spark, ident, version=sid)
        assert_rows_equal(actual, spark_rows(spark, ident, version=sid), context=f"{ident}@{sid}")
        calls, layouts = _inlined(ours, ident, sid)
        assert calls == layouts, f"{ident}@{sid}: {calls} read_parquet calls for {layouts} layouts"
        keys = ours.catalog.load_table(ident).schema(0).partition_keys
        partitions_seen = max(partitions_seen, len({tuple(r[k] for k in keys) for r in actual}))
    assert partitions_seen >= 2, f"{ident}: never more than one partition read"
