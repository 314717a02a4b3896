"""Apache Paimon 1.3.1 writes (Flink SQL), paimon-sql reads: every corpus table, at every version.

For each table of the Flink-written corpus (corpus.py) paimon-sql's read is compared with Flink's
own read of the same version: the latest state, every snapshot (``scan.snapshot-id``) and every
tag (``scan.tag-name``). Values are compared losslessly (nanoseconds, CHAR padding, a ROW of NULLs
versus a NULL ROW). Flink is the only source of truth; nothing here states an expected value.
"""

from __future__ import annotations

from typing import Any

import pytest
from sqlglot import exp

import paimon_sql
from tests.interop.flink.corpus import TABLES
from tests.interop.flink.harness import arrow_rows, assert_same_rows

pytestmark = [pytest.mark.interop, pytest.mark.slow]

# Tables paimon-sql does not read like Flink yet (issue 14). xfail is strict: a table that starts
# passing fails the run until it is removed from here.
KNOWN_FAILURES: dict[str, str] = {
}


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
    """paimon-sql's read of `ident` (latest through SQL, else `scan`): columns and canonical rows."""
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
    except Exception as err:  # report every version, not just the first failure
        return f"{label}: paimon-sql raised {type(err).__name__}: {err}"
    if columns != read["columns"]:
        return f"{label}: columns {columns} != Flink's {read['columns']}"
    try:
        assert_same_rows(rows, read["rows"], context=f"{label} (paimon-sql vs Flink)")
    except AssertionError as err:
        return str(err)
    return None


@pytest.mark.parametrize("table", _params())
def test_reads_like_flink(flink_corpus, ours, table):
    entry = flink_corpus.tables[table]
    ident = entry["identifier"]
    failures = [f for read in entry["reads"] if (f := compare(ours, ident, read))]
    if failures:
        pytest.fail(f"{ident} ({' '.join(entry['features'])}):\n" + "\n".join(failures), pytrace=False)


def test_corpus_covers_time_travel(flink_corpus):
    """The corpus holds several snapshots per table and tags, so the comparison above is not thin."""
    reads = [r for e in flink_corpus.tables.values() for r in e["reads"]]
    assert sum(r["snapshot"] is not None for r in reads) >= 2 * len(flink_corpus.tables)
    assert sum(r["tag"] is not None for r in reads) >= 2
