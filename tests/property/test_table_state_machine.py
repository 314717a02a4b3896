"""A hypothesis state machine per table kind, against a Python dict oracle.

Each machine runs random INSERT batches (keys from a small domain, so they collide; NULLs in every
value column), DELETE and UPDATE by predicate, INSERT OVERWRITE (of one partition where the table
is partitioned), ``sys.compact``, ``sys.create_tag``, ``sys.rollback`` (to a snapshot or a tag),
``sys.expire_snapshots`` and time-travel reads. The oracle keeps the table's state at every snapshot
and tag, and after each step the machine checks that the latest read equals the oracle, that the
snapshot ids run without a gap from EARLIEST to LATEST, and that ``$snapshots`` and the tag list
agree.
The states of every retained snapshot and tag are read back after expirations and rollbacks, and at
the end of each run.

Semantics modelled (seed 000; Apache Paimon's merge functions and row-level operation checks):

* deduplicate: the last write of a key wins; DELETE removes it.
* first-row: the first write wins; DELETE and UPDATE are refused (Flink
  ``validatePKUpsertDeletable``, Spark ``RowLevelOp.Update``).
* partial-update: non-null fields overwrite; UPDATE writes the whole row (so ``SET x = NULL``
  changes nothing); DELETE is refused without ``partial-update.remove-record-on-delete``.
* aggregation: ``sum``, ``max`` and the default ``last_non_null_value`` fold each write; DELETE
  (without ``aggregation.remove-record-on-delete``) and UPDATE are refused.
* deletion vectors and first-row: batch reads hide level-0 files (Java's ``DataTableBatchScan``), so
  each write (as Java's) commits its APPEND/OVERWRITE snapshot, whose reads still show the rows
  before it, and then a COMPACT snapshot of the buckets it wrote, which shows them
  (``sql/_auto_compact``); rows in other buckets stay as they were.
* append: a multiset; DELETE and UPDATE rewrite the affected partitions.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

import paimon_sql
from paimon_sql.errors import UnsupportedFeatureError
from paimon_sql.format.bucket import bucket_of
from paimon_sql.types import parse_type

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

pytestmark = pytest.mark.slow

Row = tuple[Any, ...]
INT = parse_type("INT")

# --- table kinds -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Kind:
    """One table layout and merge engine, and how the oracle models it."""

    name: str
    columns: tuple[str, ...]
    with_: str
    engine: str | None = "deduplicate"  # None: append table
    partitioned: bool = False
    hide_level0: bool = False  # batch reads skip level-0 files until compaction
    deletable: bool = True
    updatable: bool = True
    buckets: int = 2  # the fixed 'bucket' of the level-0-hiding kinds

    def ddl(self, table: str) -> str:
        types = {"id": "INT", "p": "STRING", "a": "STRING", "b": "BIGINT", "c": "INT"}
        cols = ", ".join(f"{c} {types[c]}" for c in self.columns)
        if self.engine is not None:
            keys = "id, p" if self.partitioned else "id"
            cols += f", PRIMARY KEY ({keys}) NOT ENFORCED"
        part = " PARTITIONED BY (p)" if self.partitioned else ""
        return f"CREATE TABLE {table} ({cols}){part} WITH ({self.with_})"

    def key(self, row: Row) -> Row:
        return (row[0], row[1]) if self.partitioned else (row[0],)

    def merge(self, old: Row | None, new: Row) -> Row:
        """The merge engine folding `new` onto the stored row `old` of the same key."""
        if old is None or self.engine == "deduplicate":
            return new
        if self.engine == "first-row":
            return old
        if self.engine == "partial-update":
            return tuple(n if n is not None else o for o, n in zip(old, new, strict=True))
        # aggregation: a last_non_null_value (default), b sum, c max
        out = list(old)
        for i, name in enumerate(self.columns):
            o, n = old[i], new[i]
            if n is None or name in ("id", "p"):
                continue
            if o is None or name == "a":
                out[i] = n
            elif name == "b":
                out[i] = o + n
            elif name == "c":
                out[i] = max(o, n)
        return tuple(out)


_FLAT = ("id", "a", "b", "c")
KINDS = [
    Kind("dedup_fixed_bucket", _FLAT, "'bucket' = '2'"),
    Kind(
        "dedup_partitioned_dynamic_bucket",
        ("id", "p", "a", "b", "c"),
        # small buckets and two assigners: the keys fill buckets and open new ones
        "'bucket' = '-1', 'dynamic-bucket.target-row-num' = '3', "
        "'dynamic-bucket.initial-buckets' = '2'",
        partitioned=True,
    ),
    Kind(
        "dedup_deletion_vectors",
        _FLAT,
        "'bucket' = '2', 'deletion-vectors.enabled' = 'true'",
        hide_level0=True,
    ),
    Kind(
        "first_row",
        _FLAT,
        "'bucket' = '2', 'merge-engine' = 'first-row'",
        engine="first-row",
        hide_level0=True,
        deletable=False,
        updatable=False,
    ),
    Kind(
        "partial_update",
        _FLAT,
        "'bucket' = '2', 'merge-engine' = 'partial-update'",
        engine="partial-update",
        deletable=False,
    ),
    Kind(
        "aggregation",
        _FLAT,
        "'bucket' = '2', 'merge-engine' = 'aggregation', 'fields.b.aggregate-function' = 'sum', "
        "'fields.c.aggregate-function' = 'max'",
        engine="aggregation",
        deletable=False,
        updatable=False,
    ),
    Kind("append", ("id", "p", "a", "b", "c"), "'bucket' = '-1'", engine=None, partitioned=True),
]

# --- SQL text helpers ------------------------------------------------------------------------


def lit(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    return str(value)


def values_sql(rows: list[Row]) -> str:
    return ", ".join("(" + ", ".join(lit(v) for v in row) + ")" for row in rows)


@dataclass(frozen=True)
class Pred:
    """A WHERE condition: its SQL and the same test in Python (SQL NULL semantics)."""

    sql: str
    test: Callable[[Row], bool]

    def __repr__(self) -> str:
        return self.sql


@dataclass(frozen=True)
class Assign:
    """An UPDATE ... SET assignment: its SQL and the new row in Python."""

    sql: str
    column: str
    apply: Callable[[Any], Any]

    def __repr__(self) -> str:
        return self.sql


STRINGS = [None, "x", "yy", "it's", "é", "exactly8", "a string longer than seven bytes"]
IDS = st.integers(0, 5)
PARTS = ("x", "y")


def _value(name: str) -> st.SearchStrategy[Any]:
    if name == "a":
        return st.sampled_from(STRINGS)
    if name == "b":
        return st.one_of(st.none(), st.integers(-5, 5), st.sampled_from([2**40, -(2**33)]))
    return st.one_of(st.none(), st.integers(-3, 3))


def rows(
    kind: Kind, partition: str | None = None, min_size: int = 1
) -> st.SearchStrategy[list[Row]]:
    fields = []
    for name in kind.columns:
        if name == "id":
            fields.append(IDS)
        elif name == "p":
            fields.append(st.just(partition) if partition else st.sampled_from(PARTS))
        else:
            fields.append(_value(name))
    return st.lists(st.tuples(*fields), min_size=min_size, max_size=5)


def preds(kind: Kind) -> st.SearchStrategy[Pred]:
    ia, ib, ic = (kind.columns.index(c) for c in ("a", "b", "c"))
    options = [
        IDS.map(lambda k: Pred(f"id = {k}", lambda r: r[0] == k)),
        st.lists(IDS, min_size=1, max_size=3).map(
            lambda ks: Pred(f"id IN ({', '.join(map(str, ks))})", lambda r: r[0] in ks)
        ),
        st.integers(-4, 4).map(
            lambda v: Pred(f"b > {v}", lambda r: r[ib] is not None and r[ib] > v)
        ),
        st.integers(-2, 2).map(
            lambda v: Pred(f"c <= {v}", lambda r: r[ic] is not None and r[ic] <= v)
        ),
        st.just(Pred("a IS NOT NULL", lambda r: r[ia] is not None)),
        st.sampled_from([v for v in STRINGS if v]).map(
            lambda v: Pred(f"a = {lit(v)}", lambda r: r[ia] == v)
        ),
    ]
    # a IS NULL found DuckDB 2.0.0 misreading PLAIN string columns with min == max statistics
    # (test_regressions.py); our writer keeps dictionaries for those since 2ce4ff7.
    options.append(st.just(Pred("a IS NULL", lambda r: r[ia] is None)))
    if kind.partitioned:
        options.append(
            st.sampled_from(PARTS).map(lambda p: Pred(f"p = '{p}'", lambda r: r[1] == p))
        )
    return st.one_of(options)


ASSIGNS = st.one_of(
    st.one_of(st.none(), st.integers(-5, 5)).map(
        lambda v: Assign(f"b = {lit(v)}", "b", lambda _o: v)
    ),
    st.sampled_from(STRINGS).map(lambda v: Assign(f"a = {lit(v)}", "a", lambda _o: v)),
    st.just(Assign("b = b + 1", "b", lambda o: None if o is None else o + 1)),
    st.one_of(st.none(), st.integers(-3, 3)).map(
        lambda v: Assign(f"c = {lit(v)}", "c", lambda _o: v)
    ),
)

# --- the oracle's state of one version -------------------------------------------------------


@dataclass(frozen=True)
class Version:
    """What a snapshot holds: `full` is every write merged (what a compaction produces), `visible`
    what a batch read shows (differs only where level-0 files are hidden). Primary-key tables keep
    ``{key: row}``, append tables a tuple of rows. `kind`: the snapshot's commit kind."""

    visible: Any
    full: Any
    kind: str = ""

    def rows(self) -> list[Row]:
        data = self.visible.values() if isinstance(self.visible, dict) else self.visible
        return sorted(data, key=repr)


def _sorted(result: list[Row]) -> list[Row]:
    return sorted((tuple(r) for r in result), key=repr)


class TableMachine(RuleBasedStateMachine):
    """Statements on one table of `KIND`, checked against the oracle after every step."""

    KIND: Kind
    TABLE = "db.t"

    def __init__(self) -> None:
        super().__init__()
        self.dir = tempfile.mkdtemp(prefix="paimon-sql-property-")
        self.session = paimon_sql.connect(self.dir, create=True)
        self.session.sql("CREATE DATABASE db")
        self.session.sql(self.KIND.ddl(self.TABLE))
        self.table = self.session.table(self.TABLE)
        self.snapshots: dict[int, Version] = {}
        self.tags: dict[str, tuple[int, Version]] = {}
        self.tag_counter = 0
        empty: Any = {} if self.KIND.engine else ()
        self.empty = Version(visible=empty, full=empty)

    def teardown(self) -> None:
        try:
            if hasattr(self, "session"):
                self.check_history()
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)

    # --- helpers -------------------------------------------------------------------------

    @property
    def latest_id(self) -> int | None:
        return max(self.snapshots) if self.snapshots else None

    @property
    def current(self) -> Version:
        return self.snapshots[self.latest_id] if self.snapshots else self.empty

    def sql(self, text: str) -> list[Row]:
        return self.session.sql(text).fetchall()

    def read(self, version: int | str | None = None) -> list[Row]:
        query = f"SELECT * FROM {self.TABLE}"  # noqa: S608 - test SQL
        if version is not None:
            query += f" VERSION AS OF {lit(version)}"
        return _sorted(self.sql(query))

    def commit(
        self,
        version: Version,
        kind: str,
        *,
        created: bool | None,
        compacts: bool = True,
        written: Iterable[Row] = (),
    ) -> None:
        """Record `version` as the new latest snapshot (a `kind` commit) if the statement made one.
        `created`: whether it must have (None: either, but only if the state changed must it have).
        `compacts`: whether the write wrote files (a COMPACT follows where level 0 is hidden).
        `written`: the keys the write wrote; that COMPACT covers only their buckets.
        """
        before = self.latest_id
        after = self.table.latest_snapshot_id()
        made = after != before
        # hidden level 0: the write's snapshot is followed by a COMPACT one (sql/_auto_compact)
        compacted = made and compacts and self.KIND.hide_level0 and kind in ("APPEND", "OVERWRITE")
        if made:
            assert after == (before or 0) + 1 + compacted, f"snapshot {after} after {before}"
        if created is not None:
            assert made == created, f"statement made a snapshot: {made}, expected {created}"
        elif not made:
            assert version.rows() == self.current.rows(), "state changed without a snapshot"
            return
        if compacted:
            self.snapshots[after - 1] = replace(version, kind=kind)
            touched = {self.bucket(k) for k in written}
            visible = {k: r for k, r in version.visible.items() if self.bucket(k) not in touched}
            visible.update((k, r) for k, r in version.full.items() if self.bucket(k) in touched)
            self.snapshots[after] = Version(visible=visible, full=version.full, kind="COMPACT")
        elif made:
            self.snapshots[after] = replace(version, kind=kind)

    @property
    def row_level_kind(self) -> str:
        """DELETE/UPDATE: records appended, or (append tables) files rewritten, which Java commits
        as OVERWRITE (``FileStoreCommitImpl``: a commit that deletes files)."""
        return "APPEND" if self.KIND.engine else "OVERWRITE"

    def fold(self, base: dict[Row, Row], batch: list[Row]) -> dict[Row, Row]:
        out = dict(base)
        for row in batch:
            key = self.KIND.key(row)
            out[key] = self.KIND.merge(out.get(key), row)
        return out

    def bucket(self, key: Row) -> int:
        """The fixed bucket of a key of the (unpartitioned) level-0-hiding kinds."""
        return bucket_of(key, [INT], self.KIND.buckets)

    def after_write(self, full: Any) -> Version:
        """A write's new version: hidden kinds see nothing new until the next compaction."""
        visible = self.current.visible if self.KIND.hide_level0 else full
        return Version(visible=visible, full=full)

    # --- rules ----------------------------------------------------------------------------

    @initialize(batch=st.data())
    def first_insert(self, batch: st.DataObject) -> None:
        self.insert(batch.draw(rows(self.KIND)))

    @rule(batch=st.data())
    def insert_batch(self, batch: st.DataObject) -> None:
        self.insert(batch.draw(rows(self.KIND)))

    def insert(self, batch: list[Row]) -> None:
        written = self.sql(f"INSERT INTO {self.TABLE} VALUES {values_sql(batch)}")  # noqa: S608 - test SQL
        if self.KIND.engine is None:  # (primary-key tables count the rows left after merging)
            assert written == [(len(batch),)]
            full: Any = (*self.current.full, *batch)
        else:
            full = self.fold(self.current.full, batch)
        keys = [self.KIND.key(r) for r in batch]
        self.commit(self.after_write(full), "APPEND", created=True, written=keys)

    @rule(data=st.data())
    def delete(self, data: st.DataObject) -> None:
        pred = data.draw(preds(self.KIND))
        statement = f"DELETE FROM {self.TABLE} WHERE {pred.sql}"  # noqa: S608 - test SQL
        cur = self.current
        if not self.KIND.deletable:
            with pytest.raises(UnsupportedFeatureError, match="DELETE"):
                self.sql(statement)
            self.commit(cur, "", created=False)
            return
        keys: list[Row] = []
        if self.KIND.engine is None:
            kept = tuple(r for r in cur.full if not pred.test(r))
            count, full = len(cur.full) - len(kept), kept
        else:
            gone = [k for k, r in cur.visible.items() if pred.test(r)]
            keys = gone
            count = len(gone)
            full = {k: r for k, r in cur.full.items() if k not in gone}
        assert self.sql(statement) == [(count,)]
        self.commit(self.after_write(full), self.row_level_kind, created=count > 0, written=keys)

    @rule(data=st.data())
    def update(self, data: st.DataObject) -> None:
        assign = data.draw(ASSIGNS)
        pred = data.draw(preds(self.KIND))
        statement = f"UPDATE {self.TABLE} SET {assign.sql} WHERE {pred.sql}"  # noqa: S608 - test SQL
        cur = self.current
        if not self.KIND.updatable:
            with pytest.raises(UnsupportedFeatureError, match="UPDATE"):
                self.sql(statement)
            self.commit(cur, "", created=False)
            return
        i = self.KIND.columns.index(assign.column)

        def changed(row: Row) -> Row:
            return (*row[:i], assign.apply(row[i]), *row[i + 1 :])

        keys: list[Row] = []
        if self.KIND.engine is None:
            count = sum(1 for r in cur.full if pred.test(r))
            full: Any = tuple(changed(r) if pred.test(r) else r for r in cur.full)
        else:
            hits = [changed(r) for r in cur.visible.values() if pred.test(r)]
            count = len(hits)
            full = self.fold(cur.full, hits)
            keys = [self.KIND.key(r) for r in hits]
        assert self.sql(statement) == [(count,)]
        self.commit(self.after_write(full), self.row_level_kind, created=count > 0, written=keys)

    @rule(data=st.data())
    def insert_overwrite(self, data: st.DataObject) -> None:
        """The whole table; or, partitioned, one static partition or (dynamic: no PARTITION
        clause) the partitions the rows fall in."""
        cur = self.current
        partition = None
        if self.KIND.partitioned and data.draw(st.booleans(), label="static partition"):
            partition = data.draw(st.sampled_from(PARTS))
        batch = data.draw(rows(self.KIND, partition, min_size=0))
        target = self.TABLE
        if partition is not None:
            target += f" PARTITION (p = '{partition}')"
        source = f"VALUES {values_sql(batch)}"
        if not batch:  # an empty source: a typed SELECT of no rows
            placeholder = ", ".join(
                "NULL" if c not in ("id", "p") else "'x'" if c == "p" else "0"
                for c in self.KIND.columns
            )
            source = f"SELECT {placeholder} WHERE false"
        written = self.sql(f"INSERT OVERWRITE {target} {source}")
        assert self.KIND.engine is not None or written == [(len(batch),)]
        parts = {partition} if partition is not None else {r[1] for r in batch}

        def replaced(row: Row) -> bool:
            return not self.KIND.partitioned or row[1] in parts

        if self.KIND.engine is None:
            kept = tuple(r for r in cur.full if not replaced(r))
            version = Version(visible=(*kept, *batch), full=(*kept, *batch))
        else:
            full = self.fold({k: r for k, r in cur.full.items() if not replaced(r)}, batch)
            visible = full
            if self.KIND.hide_level0:  # the new files are level 0
                visible = {k: r for k, r in cur.visible.items() if not replaced(r)}
            version = Version(visible=visible, full=full)
        keys = [self.KIND.key(r) for r in batch]
        self.commit(version, "OVERWRITE", created=True, compacts=bool(batch), written=keys)

    @rule()
    def compact(self) -> None:
        assert self.sql(f"CALL sys.compact(table => '{self.TABLE}')") == [(True,)]
        cur = self.current
        self.commit(Version(visible=cur.full, full=cur.full), "COMPACT", created=None)

    @precondition(lambda self: self.snapshots)
    @rule(data=st.data(), older=st.booleans())
    def create_tag(self, data: st.DataObject, older: bool) -> None:
        name = f"tag{self.tag_counter}"
        self.tag_counter += 1
        snapshot = data.draw(st.sampled_from(sorted(self.snapshots))) if older else self.latest_id
        args = f"table => '{self.TABLE}', tag => '{name}'"
        if older:
            args += f", snapshot => {snapshot}"
        assert self.sql(f"CALL sys.create_tag({args})") == [(True,)]
        self.tags[name] = (snapshot, self.snapshots[snapshot])

    @precondition(lambda self: self.snapshots)
    @rule(retain_max=st.integers(1, 3))
    def expire_snapshots(self, retain_max: int) -> None:
        ids = sorted(self.snapshots)
        expired = ids[: max(0, len(ids) - retain_max)]
        result = self.sql(
            f"CALL sys.expire_snapshots(table => '{self.TABLE}', retain_max => {retain_max})"
        )
        assert result == [(len(expired),)]
        for i in expired:
            del self.snapshots[i]
        self.check_history()

    @precondition(lambda self: self.snapshots or self.tags)
    @rule(data=st.data())
    def rollback(self, data: st.DataObject) -> None:
        targets: list[int | str] = [*sorted(self.snapshots), *sorted(self.tags)]
        target = data.draw(st.sampled_from(targets))
        assert self.sql(f"CALL sys.rollback(table => '{self.TABLE}', version => '{target}')") == [
            (True,)
        ]
        if isinstance(target, str):
            sid, version = self.tags[target]
            if sid not in self.snapshots:  # the tag's snapshot had expired: it comes back alone
                self.snapshots = {sid: version}
        else:
            sid = target
        self.snapshots = {i: v for i, v in self.snapshots.items() if i <= sid}
        self.tags = {n: t for n, t in self.tags.items() if t[0] <= sid}
        self.check_history()

    @precondition(lambda self: self.snapshots or self.tags)
    @rule(data=st.data())
    def time_travel(self, data: st.DataObject) -> None:
        targets: list[int | str] = [*sorted(self.snapshots), *sorted(self.tags)]
        target = data.draw(st.sampled_from(targets))
        expected = self.tags[target][1] if isinstance(target, str) else self.snapshots[target]
        assert self.read(target) == expected.rows()

    # --- invariants ------------------------------------------------------------------------

    @invariant()
    def latest_read_and_metadata_agree(self) -> None:
        assert self.read() == self.current.rows()
        ids = sorted(self.snapshots)
        assert self.table.snapshot_ids() == ids
        if ids:
            assert ids == list(range(ids[0], ids[-1] + 1))
            assert self.table.earliest_snapshot_id() == ids[0]
            assert self.table.latest_snapshot_id() == ids[-1]
        listed = self.sql('SELECT snapshot_id, commit_kind FROM "db"."t$snapshots" ORDER BY 1')
        assert listed == [(i, self.snapshots[i].kind) for i in ids]
        assert sorted(self.table.tag_names()) == sorted(self.tags)

    def check_history(self) -> None:
        for sid, version in self.snapshots.items():
            assert self.read(sid) == version.rows(), f"snapshot {sid}"
        for name, (_sid, version) in self.tags.items():
            assert self.read(name) == version.rows(), f"tag {name}"


def _machine(kind: Kind) -> type[RuleBasedStateMachine]:
    return type(f"Machine_{kind.name}", (TableMachine,), {"KIND": kind})


for _kind in KINDS:
    _case = _machine(_kind).TestCase
    _case.__name__ = _case.__qualname__ = f"Test_{_kind.name}"
    globals()[_case.__name__] = _case
del _kind, _case
