"""``paimon_changes`` (diff and delta modes) against a plain-Python dict model (issue 17).

Random statement sequences (INSERT batches over a small key domain so keys collide, DELETE and
UPDATE by key, ``sys.compact``) run on a table of each kind through a session; the model keeps the
table's state after every statement and the records each statement wrote. Then, on a plain DuckDB
after ``install()``, for every pair of statement boundaries (the latest snapshot after a statement):

* ``mode := 'diff'`` equals the model's diff of the two states: ``+I`` new key, ``-D`` removed
  key (old row), ``-U``/``+U`` changed key (old row, new row);
* ``mode := 'delta'`` equals the records the statements in between wrote, each with its kind
  (``+I`` inserted, ``-D`` deleted with the row it deleted, ``+U`` updated); the ``input``
  changelog (``mode := 'changelog'``) holds the same records;
* the ``lookup`` and ``full-compaction`` changelogs hold, per statement and key it wrote, the
  producer's rule applied to the state before and after it (``+I`` new, ``-D`` gone, ``-U``/``+U``
  otherwise, even when equal; first-row: ``+I`` for a new key only).

Tables whose batch reads hide level 0 (deletion vectors, first-row) give no delta rows: Paimon's
batch scan filters level-0 files (their compaction changelog files sit at the output level).

Merge semantics modelled: deduplicate (last wins), first-row (first wins; DELETE/UPDATE refused),
partial-update (non-null fields overwrite), aggregation (``b`` sum, ``a`` last non-null).
"""

from __future__ import annotations

import itertools
import shutil
import tempfile
from collections import Counter
from dataclasses import dataclass
from typing import Any

import duckdb
import pytest
from hypothesis import given
from hypothesis import strategies as st

import paimon_sql

pytestmark = pytest.mark.slow

Row = tuple[Any, ...]  # (id, a, b)


@dataclass(frozen=True)
class Kind:
    name: str
    with_: str
    engine: str = "deduplicate"
    hides_level0: bool = False
    changelog: str = "none"  # the changelog-producer

    @property
    def deletable(self) -> bool:
        return self.engine == "deduplicate"

    @property
    def updatable(self) -> bool:
        return self.engine in ("deduplicate", "partial-update")


KINDS = [
    Kind("dedup", "'bucket' = '2'"),
    Kind("dedup_input", "'bucket' = '1', 'changelog-producer' = 'input'", changelog="input"),
    Kind("dedup_lookup", "'bucket' = '2', 'changelog-producer' = 'lookup'", changelog="lookup"),
    Kind(
        "dv_lookup",
        "'bucket' = '1', 'changelog-producer' = 'lookup', 'deletion-vectors.enabled' = 'true'",
        hides_level0=True,
        changelog="lookup",
    ),
    Kind(
        "partial_lookup",
        "'bucket' = '1', 'merge-engine' = 'partial-update', 'changelog-producer' = 'lookup'",
        "partial-update",
        changelog="lookup",
    ),
    Kind(
        "agg_full",
        "'bucket' = '1', 'merge-engine' = 'aggregation', 'fields.b.aggregate-function' = 'sum', "
        "'changelog-producer' = 'full-compaction'",
        "aggregation",
        changelog="full-compaction",
    ),
    Kind(
        "agg",
        "'bucket' = '1', 'merge-engine' = 'aggregation', 'fields.b.aggregate-function' = 'sum'",
        "aggregation",
    ),
    Kind("dv", "'bucket' = '2', 'deletion-vectors.enabled' = 'true'", hides_level0=True),
    Kind("first", "'bucket' = '1', 'merge-engine' = 'first-row'", "first-row", hides_level0=True),
]

KEYS = st.integers(0, 5)
A = st.one_of(st.none(), st.sampled_from(["x", "y", "z"]))
B = st.one_of(st.none(), st.integers(-3, 3))
INSERT = st.tuples(st.just("insert"), st.lists(st.tuples(KEYS, A, B), min_size=1, max_size=4))
DELETE = st.tuples(st.just("delete"), st.sets(KEYS, min_size=1, max_size=3))
UPDATE = st.tuples(st.just("update"), st.tuples(st.sets(KEYS, min_size=1, max_size=3), A))
COMPACT = st.tuples(st.just("compact"), st.none())
STEPS = st.lists(st.one_of(INSERT, INSERT, DELETE, UPDATE, COMPACT), min_size=1, max_size=5)


def _merge(kind: Kind, old: Row | None, new: Row) -> Row:
    if old is None:
        return new
    if kind.engine == "first-row":
        return old
    if kind.engine == "partial-update":
        return tuple(n if n is not None else o for o, n in zip(old, new, strict=True))
    if kind.engine == "aggregation":
        a = new[1] if new[1] is not None else old[1]
        b = new[2] if old[2] is None else old[2] if new[2] is None else old[2] + new[2]
        return (new[0], a, b)
    return new


def _literal(v: Any) -> str:
    return "NULL" if v is None else f"'{v}'" if isinstance(v, str) else str(v)


class Model:
    """The table's state after each statement, and the records each statement wrote."""

    def __init__(self, kind: Kind) -> None:
        self.kind = kind
        self.state: dict[int, Row] = {}

    def apply(self, step: tuple[str, Any]) -> tuple[str | None, list[tuple[str, Row]]]:
        """The SQL of `step` (None: skipped) and the records it writes."""
        before = dict(self.state)
        sql, written = self._apply(step)
        self.changelog = self._changelog(before, written)
        return sql, written

    def _changelog(
        self, before: dict[int, Row], written: list[tuple[str, Row]]
    ) -> list[tuple[str, Row]]:
        """The statement's changelog file records (the producer's rule, per key it wrote)."""
        kind = self.kind
        if kind.changelog == "input":
            return written
        if kind.changelog == "none":
            return []
        out: list[tuple[str, Row]] = []
        for key in sorted({r[0] for _, r in written}):
            old, new = before.get(key), self.state.get(key)
            if old is None:
                if new is not None:
                    out.append(("+I", new))
            elif kind.engine == "first-row":
                continue
            elif new is None:
                out.append(("-D", old))
            else:  # -U/+U even when equal (no changelog-producer.row-deduplicate)
                out += [("-U", old), ("+U", new)]
        return out

    def _apply(self, step: tuple[str, Any]) -> tuple[str | None, list[tuple[str, Row]]]:
        op, arg = step
        kind = self.kind
        if op == "insert":
            rows = ", ".join(f"({k}, {_literal(a)}, {_literal(b)})" for k, a, b in arg)
            for k, a, b in arg:  # a key twice in one statement: later rows are later versions
                self.state[k] = _merge(kind, self.state.get(k), (k, a, b))
            records = [tuple(r) for r in arg]
            if kind.engine in ("deduplicate", "first-row"):
                # one version per key and statement survives the write (Java's write buffer
                # merges them too): the last, or the first for first-row
                chosen: dict[int, Row] = {}
                for r in records if kind.engine == "deduplicate" else reversed(records):
                    chosen[r[0]] = r
                records = list(chosen.values())
            return f"INSERT INTO db.t VALUES {rows}", [("+I", r) for r in records]  # noqa: S608
        if op == "delete":
            if not kind.deletable:
                return None, []
            gone = [self.state.pop(k) for k in sorted(arg) if k in self.state]
            keys = ", ".join(map(str, sorted(arg)))
            return f"DELETE FROM db.t WHERE id IN ({keys})", [("-D", r) for r in gone]  # noqa: S608
        if op == "update":
            keys, a = arg
            if not kind.updatable:
                return None, []
            written = []
            for k in sorted(keys):
                if k in self.state:
                    whole = (k, a, self.state[k][2])  # UPDATE writes the whole new row
                    self.state[k] = _merge(kind, self.state[k], whole)
                    written.append(("+U", whole))
            ids = ", ".join(map(str, sorted(keys)))
            return f"UPDATE db.t SET a = {_literal(a)} WHERE id IN ({ids})", written  # noqa: S608
        return "CALL sys.compact('db.t')", []


def _diff(old: dict[int, Row], new: dict[int, Row]) -> Counter[tuple[str, Row]]:
    out: Counter[tuple[str, Row]] = Counter()
    for k, row in new.items():
        if k not in old:
            out[("+I", row)] += 1
        elif old[k] != row:
            out[("-U", old[k])] += 1
            out[("+U", row)] += 1
    for k, row in old.items():
        if k not in new:
            out[("-D", row)] += 1
    return out


def _changes(con: duckdb.DuckDBPyConnection, start: int, end: int, mode: str) -> Counter[Any]:
    rows = con.sql(
        f"SELECT rowkind, id, a, b FROM paimon_changes('db.t', {start}, {end}, mode := '{mode}')"  # noqa: S608
    ).fetchall()
    return Counter((r[0], tuple(r[1:])) for r in rows)


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
@given(steps=STEPS)
def test_changes_match_the_model(kind: Kind, steps: list[tuple[str, Any]]):
    folder = tempfile.mkdtemp()
    try:
        session = paimon_sql.connect(folder)
        session.sql("CREATE DATABASE db")
        session.sql(
            f"CREATE TABLE db.t (id INT NOT NULL, a STRING, b BIGINT, PRIMARY KEY (id) "
            f"NOT ENFORCED) WITH ({kind.with_})"
        )
        model = Model(kind)
        # per statement boundary: (latest snapshot id, state, records written since the previous,
        # changelog records since the previous)
        bounds: list[tuple[int, dict[int, Row], list[Any], list[Any]]] = [(0, {}, [], [])]
        for step in steps:
            sql, written = model.apply(step)
            if sql is None:
                continue
            session.sql(sql)
            latest = session.catalog.load_table("db.t").latest_snapshot_id() or 0
            bounds.append((latest, dict(model.state), written, model.changelog))
        session.close()
        con = duckdb.connect()
        paimon_sql.install(con, folder)
        for (i, (start, old, _, _)), (j, (end, new, _, _)) in itertools.combinations(
            enumerate(bounds), 2
        ):
            if start == end:
                continue
            context = f"{kind.name} ({start}, {end}] after {steps}"
            assert _changes(con, start, end, "diff") == _diff(old, new), context
            records: Counter[Any] = Counter()
            logged: Counter[Any] = Counter()
            for _, _, w, c in bounds[i + 1 : j + 1]:
                records.update(w)
                logged.update(c)
            if kind.hides_level0:  # Java's batch scan filters level 0 (delta and input files;
                records = Counter()  # compaction changelog files sit at its output level)
            assert _changes(con, start, end, "delta") == records, context
            if kind.changelog != "none":
                assert _changes(con, start, end, "changelog") == logged, context
    finally:
        shutil.rmtree(folder, ignore_errors=True)
