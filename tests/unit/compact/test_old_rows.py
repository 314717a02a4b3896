"""Lookup compaction reads, of the kept files, only the old rows of the keys it merges.

Tables whose merge needs the kept record's values (``changelog-producer`` = lookup; deletion
vectors with partial-update) read, of each kept Parquet file holding a touched key, only the row
groups holding the found positions (`KeyLookup.rows`), and merge those rows as the whole file
would be merged. Each case runs the same statements twice: with that read, and with every kept
file read whole (the semi-join path the rows read replaces); after every statement both
warehouses hold the same rows in every file (sequence numbers and row kinds included), the same
changelog files and the same deletion-vector marks, and reads equal a model of the merge engine
on dicts (independent of paimon-sql). Java's (Flink, Paimon 1.3.1) reads of the same layouts:
tests/interop/flink/test_old_rows_flink.py. The scenario: `tests.old_rows_cases`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from paimon_sql.catalog import Identifier
from paimon_sql.compact.full import _plan
from paimon_sql.engine.reader import BucketRead
from paimon_sql.plan.scan import read_vector
from tests.old_rows_cases import KINDS, STEPS, apply, base_rows, create


def _state(session):
    """Every live data file's rows (all columns, by level), the keys its vector marks, and every
    changelog file's rows: what the two read paths must agree on (file names aside)."""
    table = session.catalog.load_table(Identifier("db", "t"))
    snapshot = table.latest_snapshot()
    plan = _plan(table, snapshot, table.latest_schema)
    files: list[Any] = []
    blobs: dict[str, bytes] = {}
    for split in plan.splits:
        vectors = dict(split.deletion_vectors)
        for f in split.files:
            rows = pq.read_table(table.sub("bucket-0", f.file_name))
            ref = vectors.get(f.file_name)
            marked = sorted(read_vector(table, ref, blobs)) if ref is not None else []
            keys = rows.column("a").to_pylist()
            files.append((f.level, sorted(rows.to_pylist(), key=str), [keys[p] for p in marked]))
    folder = table.sub("bucket-0")
    logs = sorted(
        (sorted(pq.read_table(p).to_pylist(), key=str) for p in Path(folder).glob("changelog-*")),
        key=str,
    )
    return sorted(files, key=str), logs


def _groups(session, keys):
    """The row groups of the base file holding `keys`, how many it has, and how many other
    files are live (small files of earlier writes: one row group each)."""
    table = session.catalog.load_table(Identifier("db", "t"))
    plan = _plan(table, table.latest_snapshot(), table.latest_schema)
    live = [f for s in plan.splits for f in s.files]
    base = max(live, key=lambda f: f.row_count)
    meta = pq.ParquetFile(table.sub("bucket-0", base.file_name)).metadata
    start, held = 0, set()
    for g in range(meta.num_row_groups):
        rows = meta.row_group(g).num_rows
        held |= {g for k in keys if start <= k < start + rows}
        start += rows
    return held, meta.num_row_groups, len(live) - 1


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_old_rows_only_and_same_as_whole_files(tmp_path, monkeypatch, kind):
    ours = create(tmp_path / "rows", kind)
    whole = create(tmp_path / "whole", kind)
    rows = base_rows()
    lookup = ours.engine.key_lookup
    written: set[int] = set()
    for statement, change in STEPS[kind]:
        # a picked run above level 0 brings its keys along: their old rows are read too
        written |= {c[0] for c in change}
        groups, total, others = _groups(ours, sorted(written))
        before = lookup.stats()
        ours.sql(statement)
        after = lookup.stats()
        with monkeypatch.context() as m:  # the same statement, kept files read whole
            m.setattr(BucketRead, "_file_rows", lambda self, plan, request, rows: {})
            whole.sql(statement)
        assert whole.engine.key_lookup.stats()["value_row_groups_read"] == 0
        apply(kind, rows, change)
        read = after["value_row_groups_read"] - before["value_row_groups_read"]
        if groups:  # only those groups, once (the lookup changelog's before and after and the
            # rewrite read the same rows: `KeyLookup.rows` answers again)
            assert total >= 15
            assert 0 < read <= len(groups) + others, (statement, read, groups, others)
            rows_read = after["value_rows_read"] - before["value_rows_read"]
            assert rows_read <= len(written) * (1 + others)  # a key: a row per file
        assert _state(ours) == _state(whole), statement
        expected = sorted((a, *v) for a, v in rows.items())
        assert sorted(ours.sql("SELECT * FROM db.t").fetchall()) == expected
    assert lookup.stats()["value_row_groups_read"] > 0
