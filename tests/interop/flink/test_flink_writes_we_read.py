"""Apache Paimon 1.3.1 writes (Flink SQL), paimon-sql reads: every corpus table, at every version.

For each table of the Flink-written corpus (corpus.py) paimon-sql's read is compared with Flink's
own read of the same version: the latest state, every snapshot (``scan.snapshot-id``) and every
tag (``scan.tag-name``). Values are compared losslessly (nanoseconds, CHAR padding, a ROW of NULLs
versus a NULL ROW). Flink is the only source of truth; nothing here states an expected value.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest
from sqlglot import exp

import paimon_sql
from tests.interop.flink.corpus import TABLES
from tests.interop.flink.harness import arrow_rows, assert_same_rows

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = [pytest.mark.interop, pytest.mark.slow]

# Tables paimon-sql does not read like Flink yet (issue 14). xfail is strict: a table that starts
# passing fails the run until it is removed from here.
KNOWN_FAILURES: dict[str, str] = {
    "agg_rbm32": "issue 14: the reader refuses the rbm32 aggregate function by name "
    "(UnsupportedFeatureError) once a key has two records to merge",
}

# Flink's `scan.snapshot-id` hint reads an old snapshot in the table's *latest* schema (columns
# renamed, added, dropped as now); paimon-sql's scan(snapshot=N), like Spark's VERSION AS OF, reads
# it in the snapshot's own schema, and paimon-sql's reading of Flink's hint in the latest schema, as
# Flink. test_old_snapshot_in_latest_schema compares those reads through the hint.


def _params() -> list[Any]:
    params = []
    for table in TABLES:
        reason = KNOWN_FAILURES.get(table.name)
        # raises=: only a row/column mismatch or a paimon-sql error counts, never a harness crash
        xfail = pytest.mark.xfail(reason=reason, strict=True, raises=pytest.fail.Exception)
        params.append(pytest.param(table.name, marks=[xfail] if reason else [], id=table.name))
    return params


@pytest.fixture(scope="module")
def ours(flink_corpus):
    session = paimon_sql.connect(flink_corpus.warehouse)
    yield session
    session.close()


def read_ours(session: paimon_sql.Session, ident: str, snapshot: int | None, tag: str | None):
    """paimon-sql's read of `ident` (latest through SQL, else `scan`): columns, canonical rows."""
    if snapshot is None and tag is None:
        database, table = ident.split(".")
        query = exp.select("*").from_(exp.table_(table, db=database, quoted=True))
        rel = session.sql(query.sql("duckdb"))
    else:
        rel = session.scan(ident, snapshot=snapshot, tag=tag)
    return arrow_rows(rel.to_arrow_table())


def compare(session: paimon_sql.Session, ident: str, read: dict[str, Any]) -> str | None:
    """None when paimon-sql reads `read`'s version as Flink did; else what differs."""
    label = read["label"]
    try:
        columns, rows = read_ours(session, ident, read["snapshot"], read["tag"])
    except Exception as err:  # noqa: BLE001 - report every version, not just the first failure
        return f"{label}: paimon-sql raised {type(err).__name__}: {err}"
    if columns != read["columns"]:
        return f"{label}: columns {columns} != Flink's {read['columns']}"
    try:
        assert_same_rows(rows, read["rows"], context=f"{label} (paimon-sql vs Flink)")
    except AssertionError as err:
        return str(err)
    return None


def _schema_id(warehouse: Path, table: str, snapshot: int | None) -> int:
    folder = warehouse / "db.db" / table / "snapshot"
    if snapshot is None:
        snapshot = max(int(p.name.split("-")[1]) for p in folder.glob("snapshot-*"))
    return json.loads((folder / f"snapshot-{snapshot}").read_text())["schemaId"]


def _old_schema(warehouse: Path, table: str, read: dict[str, Any]) -> bool:
    """A snapshot read of a snapshot written under an older schema than the latest."""
    if read["snapshot"] is None:
        return False
    return _schema_id(warehouse, table, read["snapshot"]) != _schema_id(warehouse, table, None)


@pytest.mark.parametrize("table", _params())
def test_reads_like_flink(flink_corpus, ours, table):
    entry = flink_corpus.tables[table]
    ident = entry["identifier"]
    reads = [r for r in entry["reads"] if not _old_schema(flink_corpus.warehouse, table, r)]
    failures = [f for read in reads if (f := compare(ours, ident, read))]
    if failures:
        pytest.fail(
            f"{ident} ({' '.join(entry['features'])}):\n" + "\n".join(failures), pytrace=False
        )


def _evolved() -> list[str]:
    return [t.name for t in TABLES if "schema-evolution" in t.features]


def _hinted(session: paimon_sql.Session, ident: str, read: dict[str, Any]) -> str | None:
    """None when paimon-sql reads Flink's spelling (``scan.snapshot-id``) as Flink did."""
    database, table = ident.split(".")
    query = exp.select("*").from_(exp.table_(table, db=database, quoted=True)).sql("duckdb")
    query += f" /*+ OPTIONS('scan.snapshot-id' = '{int(read['snapshot'])}') */"
    try:
        columns, rows = arrow_rows(session.sql(query).to_arrow_table())
    except Exception as err:  # noqa: BLE001 - report every version, not just the first failure
        return f"{read['label']}: paimon-sql raised {type(err).__name__}: {err}"
    if columns != read["columns"]:
        return f"{read['label']}: columns {columns} != Flink's {read['columns']}"
    try:
        assert_same_rows(rows, read["rows"], context=f"{read['label']} (paimon-sql vs Flink)")
    except AssertionError as err:
        return str(err)
    return None


@pytest.mark.parametrize("table", _evolved())
def test_old_snapshot_in_latest_schema(flink_corpus, ours, table):
    """Flink's ``scan.snapshot-id`` on a snapshot of an older schema: paimon-sql's read of the
    same hint gives the latest schema's columns and Flink's rows."""
    entry = flink_corpus.tables[table]
    reads = [r for r in entry["reads"] if _old_schema(flink_corpus.warehouse, table, r)]
    assert reads, f"{table} has no snapshot under an older schema"
    failures = [f for read in reads if (f := _hinted(ours, entry["identifier"], read))]
    if failures:
        pytest.fail("\n".join(failures), pytrace=False)


def test_corpus_covers_time_travel(flink_corpus):
    """The corpus holds several snapshots per table and tags: the comparison above is not thin."""
    reads = [r for e in flink_corpus.tables.values() for r in e["reads"]]
    assert sum(r["snapshot"] is not None for r in reads) >= 2 * len(flink_corpus.tables)
    assert sum(r["tag"] is not None for r in reads) >= 2
