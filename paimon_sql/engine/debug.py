"""Lake debugging on DuckDB: what changed between two versions of a table (`diff`).

`diff` reads both versions as a reader of the table would (merged, deletion vectors applied) and
compares them in DuckDB:

* a **primary-key table** is compared per key: a key only in the newer version was ``added``, one
  only in the older was ``removed``, one in both with different values ``changed`` (with the names
  of the columns that differ);
* a table **without a key** is compared as multisets of rows: ``added`` / ``removed`` rows, as many
  times as the count changed.

The result has ``change``, the key columns (none without a key), ``changed_columns`` and the two
images ``before`` / ``after`` as STRUCTs. The newer version's schema names the columns; a column the
older version lacks reads as NULL there (matched by field id across renames).

>>> session = paimon_sql.connect(tmp_warehouse)
>>> for statement in (
...     "CREATE DATABASE db",
...     "CREATE TABLE db.t (id INT NOT NULL, v STRING, PRIMARY KEY (id) NOT ENFORCED)"
...     " WITH ('bucket' = '1')",
...     "INSERT INTO db.t VALUES (1, 'a'), (2, 'b')",
...     "INSERT INTO db.t VALUES (2, 'B'), (3, 'c')",
...     "DELETE FROM db.t WHERE id = 1",
... ):
...     _ = session.sql(statement)
>>> table = session.table("db.t")
>>> rows = diff(table, table.snapshot(1), table.snapshot(3)).to_pylist()
>>> [(r["change"], r["id"], r["changed_columns"]) for r in rows]
[('removed', 1, None), ('changed', 2, ['v']), ('added', 3, None)]
>>> rows[1]["before"], rows[1]["after"]
({'id': 2, 'v': 'b'}, {'id': 2, 'v': 'B'})
"""

from __future__ import annotations

import contextlib
import datetime
import decimal
import json
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import pyarrow as pa
from sqlglot import exp

from paimon_sql import sqlnodes
from paimon_sql.catalog.system_tables import snapshot_schema
from paimon_sql.engine.context import private_duckdb
from paimon_sql.engine.reader import SplitReader
from paimon_sql.engine.source import FROM, KEY, TABLE, TO, TableFunction
from paimon_sql.errors import ArgumentError
from paimon_sql.format.manifest import FileKind
from paimon_sql.format.options import CoreOptions, MergeEngine
from paimon_sql.plan.predicate import Compare, and_all
from paimon_sql.plan.scan import ReadMode, Section, plan_scan
from paimon_sql.read.build import KIND, SEQ, ReadRequest
from paimon_sql.types import RowKind, arrow_type, type_sql

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from paimon_sql.catalog import Table
    from paimon_sql.engine.source import Engine
    from paimon_sql.format.manifest import DataFileMeta
    from paimon_sql.format.schema import TableSchema
    from paimon_sql.format.snapshot import Snapshot
    from paimon_sql.plan.predicate import Predicate
    from paimon_sql.plan.scan import ScanPlan, Split
    from paimon_sql.types import DataField

    #: Runs a plan: `SplitReader.batches` (the engine's, or one on a private DuckDB).
    Read = Callable[[ScanPlan, ReadRequest], Iterator[pa.RecordBatch]]

__all__ = [
    "FUNCTIONS",
    "diff",
    "diff_schema",
    "explain_key",
    "explain_key_schema",
    "key_from_json",
    "key_values",
    "resolve_version",
]

_BEFORE, _AFTER = "__paimon_before", "__paimon_after"


def resolve_version(table: Table, version: str | int | None, what: str) -> Snapshot | None:
    """A snapshot id (digits) or a tag name as the snapshot it names; None: the latest."""
    if version is None:
        return table.latest_snapshot()
    text = str(version).strip()
    if not text:
        raise ArgumentError(f"{what}: give a snapshot id or a tag name, not an empty string")
    if text.isdigit():
        return table.snapshot(int(text))
    return table.tag(text)


def _fields(schema: TableSchema) -> list[DataField]:
    return list(schema.fields)


def diff_schema(table: Table, end: Snapshot | None) -> pa.Schema:
    """The columns of `diff`'s result for a diff ending at `end`."""
    schema = snapshot_schema(table, end)
    row = pa.struct([pa.field(f.name, arrow_type(f.type)) for f in schema.fields])
    keys = [
        pa.field(k, arrow_type(schema.field(k).type), schema.field(k).type.nullable)
        for k in schema.primary_keys
    ]
    return pa.schema(
        [
            pa.field("change", pa.string(), False),
            *keys,
            pa.field("changed_columns", pa.list_(pa.string())),
            pa.field("before", row),
            pa.field("after", row),
        ]
    )


@contextlib.contextmanager
def _reading(read: Read | None) -> Iterator[Read]:
    """`read`, or a reader on a private DuckDB closed afterwards."""
    if read is not None:
        yield read
        return
    con = private_duckdb()
    try:
        yield SplitReader(con).batches
    finally:
        con.close()


def _read(table: Table, snapshot: Snapshot | None, end_schema: TableSchema, read: Read) -> pa.Table:
    """`snapshot`'s rows in `end_schema`'s columns (by field id; absent ones NULL)."""
    own = snapshot_schema(table, snapshot)
    by_id = {f.id: f for f in own.fields}
    columns = [by_id[f.id].name for f in end_schema.fields if f.id in by_id]
    schema = pa.schema([pa.field(f.name, arrow_type(f.type)) for f in end_schema.fields])
    if snapshot is None:
        return schema.empty_table()
    plan = plan_scan(table, snapshot, None, own)
    batches = list(read(plan, ReadRequest(columns=tuple(columns))))
    data = (
        pa.Table.from_batches(batches)
        if batches
        else pa.schema([pa.field(n, arrow_type(own.field(n).type)) for n in columns]).empty_table()
    )
    out: list[Any] = []
    for field in end_schema.fields:
        old = by_id.get(field.id)
        if old is None:
            out.append(pa.array([None] * data.num_rows, type=arrow_type(field.type)))
        else:
            out.append(data.column(old.name).cast(arrow_type(field.type)))
    return pa.Table.from_arrays(out, schema=schema)


def _col(table: str, name: str) -> exp.Column:
    return exp.column(sqlnodes.ident(name), table=sqlnodes.ident(table))


def _row(table: str, names: list[str]) -> exp.Expression:
    """``{'a': t.a, ...}``, NULL when the side is absent (``t.__present IS NULL``)."""
    pack = exp.Struct(
        expressions=[
            exp.PropertyEQ(this=sqlnodes.ident(n), expression=_col(table, n)) for n in names
        ]
    )
    absent = exp.Is(this=_col(table, "__present"), expression=exp.Null())
    return exp.If(this=absent, true=exp.Null(), false=pack)


def _keyed(names: list[str], keys: list[str]) -> exp.Select:
    before, after = "b", "a"
    on = exp.and_(*[exp.NullSafeEQ(this=_col(before, k), expression=_col(after, k)) for k in keys])
    b_absent = exp.Is(this=_col(before, "__present"), expression=exp.Null())
    a_absent = exp.Is(this=_col(after, "__present"), expression=exp.Null())
    change = exp.Case(
        ifs=[
            exp.If(this=b_absent, true=exp.Literal.string("added")),
            exp.If(this=a_absent, true=exp.Literal.string("removed")),
        ],
        default=exp.Literal.string("changed"),
    )
    differs = [
        exp.If(
            this=exp.NullSafeNEQ(this=_col(before, n), expression=_col(after, n)),
            true=exp.Literal.string(n),
        )
        for n in names
        if n not in keys
    ]
    changed_list = exp.Anonymous(
        this="list_filter",
        expressions=[
            exp.Array(expressions=[exp.Case(ifs=[d]) for d in differs]),
            exp.Lambda(
                this=exp.Not(this=exp.Is(this=exp.column("x"), expression=exp.Null())),
                expressions=[sqlnodes.ident("x")],
            ),
        ],
    )
    both = exp.and_(exp.Not(this=b_absent), exp.Not(this=a_absent))
    changed_columns = exp.Case(ifs=[exp.If(this=both, true=changed_list)], default=exp.Null())
    key_out = [
        exp.alias_(exp.Coalesce(this=_col(after, k), expressions=[_col(before, k)]), k, quoted=True)
        for k in keys
    ]
    select = exp.select(
        exp.alias_(change, "change"),
        *key_out,
        exp.alias_(changed_columns, "changed_columns"),
        exp.alias_(_row(before, names), "before"),
        exp.alias_(_row(after, names), "after"),
    )
    join = exp.Join(this=_side(_AFTER, after), on=on, kind="FULL", side="")
    join.set("side", "FULL")
    join.set("kind", None)
    query = select.from_(_side(_BEFORE, before)).join(join)
    distinct = exp.NullSafeNEQ(this=_row(before, names), expression=_row(after, names))
    order = [exp.Ordered(this=exp.column(sqlnodes.ident(k)), nulls_first=True) for k in keys]
    return query.where(distinct).order_by(*order)


def _side(source: str, alias: str) -> exp.Expression:
    """``(SELECT *, true AS __present FROM source) AS alias``."""
    inner = exp.select(exp.Star(), exp.alias_(exp.true(), "__present")).from_(
        sqlnodes.table_node(source)
    )
    return exp.Subquery(this=inner, alias=exp.TableAlias(this=sqlnodes.ident(alias)))


def _unkeyed(names: list[str]) -> exp.Expression:
    """Rows of one side not matched (as many times as the multiplicity changed) by the other."""

    def minus(left: str, right: str, change: str) -> exp.Select:
        columns = [exp.column(sqlnodes.ident(n)) for n in names]
        pack = exp.Struct(
            expressions=[
                exp.PropertyEQ(this=sqlnodes.ident(n), expression=exp.column(sqlnodes.ident(n)))
                for n in names
            ]
        )
        difference = exp.Except(
            this=exp.select(*columns).from_(sqlnodes.table_node(left)),
            expression=exp.select(*columns).from_(sqlnodes.table_node(right)),
            distinct=False,
        )
        empty = exp.Cast(this=exp.Null(), to=exp.DataType.build("VARCHAR[]"))
        image = exp.alias_(pack, "after" if change == "added" else "before")
        other = exp.alias_(exp.Null(), "before" if change == "added" else "after")
        ordered = [image, other] if change == "removed" else [other, image]
        return exp.select(
            exp.alias_(exp.Literal.string(change), "change"),
            exp.alias_(empty, "changed_columns"),
            *ordered,
        ).from_(exp.Subquery(this=difference, alias=exp.TableAlias(this=sqlnodes.ident("d"))))

    return exp.union(
        minus(_BEFORE, _AFTER, "removed"), minus(_AFTER, _BEFORE, "added"), distinct=False
    )


def diff(
    table: Table, start: Snapshot | None, end: Snapshot | None, *, read: Read | None = None
) -> pa.Table:
    """What changed in `table` from `start` (None: the empty table) to `end` (None: the latest).

    Raises:
        ArgumentError: when `start` is newer than `end`.

    Examples:
        >>> session = paimon_sql.connect(tmp_warehouse)
        >>> for statement in (
        ...     "CREATE DATABASE db",
        ...     "CREATE TABLE db.log (v INT)",
        ...     "INSERT INTO db.log VALUES (1), (1), (2)",
        ...     "DELETE FROM db.log WHERE v = 2",
        ...     "INSERT INTO db.log VALUES (1), (3)",
        ... ):
        ...     _ = session.sql(statement)
        >>> table = session.table("db.log")
        >>> [(r["change"], r["before"], r["after"]) for r in diff(
        ...     table, table.snapshot(1), table.snapshot(3)).to_pylist()]
        [('removed', {'v': 2}, None), ('added', None, {'v': 1}), ('added', None, {'v': 3})]
    """
    if start is not None and end is not None and start.id > end.id:
        raise ArgumentError(
            f"diff of {table.name}: the start (snapshot {start.id}) is newer than the end "
            f"(snapshot {end.id}); swap them"
        )
    end = table.latest_snapshot() if end is None else end
    end_schema = snapshot_schema(table, end)
    names = list(end_schema.field_names)
    keys = [k for k in end_schema.primary_keys if k in names]
    with _reading(read) as reading:
        before = _read(table, start, end_schema, reading)
        after = _read(table, end, end_schema, reading)
    con = private_duckdb()
    try:
        con.register(_BEFORE, before)
        con.register(_AFTER, after)
        query = _keyed(names, keys) if keys else _unkeyed(names)
        if not keys:
            query = (
                exp.select(exp.Star())
                .from_(exp.Subquery(this=query, alias=exp.TableAlias(this=sqlnodes.ident("u"))))
                .order_by(exp.column("change").desc(), exp.column("before"), exp.column("after"))
            )
        result: pa.Table = con.sql(query.sql("duckdb")).to_arrow_table()
    finally:
        con.close()
    return result.select(diff_schema(table, end).names).cast(diff_schema(table, end))


# --- paimon_explain_key ---------------------------------------------------------------------------


def explain_key_schema(table: Table) -> pa.Schema:
    """The columns of `explain_key`'s result for `table` (its latest schema's row)."""
    schema = table.latest_schema
    row = pa.struct([pa.field(f.name, arrow_type(f.type)) for f in schema.fields])
    return pa.schema(
        [
            pa.field("verdict", pa.string(), False),
            pa.field("reason", pa.string(), False),
            pa.field("row", row),
            pa.field("rowkind", pa.string()),
            pa.field("sequence_number", pa.int64()),
            pa.field("partition", pa.string()),
            pa.field("bucket", pa.int32()),
            pa.field("level", pa.int32()),
            pa.field("file", pa.string()),
            pa.field("added_by_snapshot", pa.int64()),
            pa.field("deleted_by_dv", pa.bool_()),
        ]
    )


def key_values(table: Table, key: Any) -> dict[str, Any]:
    """The primary-key values `key` gives: a scalar for a one-column key, else a mapping by name.

    Raises:
        ArgumentError: for a table without a primary key, or a key that does not match it.
    """
    schema = table.latest_schema
    keys = list(schema.primary_keys)
    if not keys:
        raise ArgumentError(
            f"paimon_explain_key: {table.name} has no primary key; filter the table with a "
            "WHERE clause instead"
        )
    if isinstance(key, Mapping):
        given = {str(k): v for k, v in key.items()}
        if set(given) != set(keys):
            raise ArgumentError(
                f"paimon_explain_key: {table.name}'s primary key is ({', '.join(keys)}); the key "
                f"given names ({', '.join(given)}). Pass {_struct_hint(keys)}"
            )
        return _checked(table, {k: given[k] for k in keys})
    if len(keys) != 1:
        raise ArgumentError(
            f"paimon_explain_key: {table.name}'s primary key has {len(keys)} columns "
            f"({', '.join(keys)}); pass them as a struct, e.g. {_struct_hint(keys)}"
        )
    return _checked(table, {keys[0]: key})


def _checked(table: Table, values: dict[str, Any]) -> dict[str, Any]:
    """`values` cast to their key columns' types (else an `ArgumentError` naming the column).

    Cast, not only checked: the key ``2`` of a STRING key is the string ``'2'``, whose bucket
    hash and statistics find its files (the number's hash finds another bucket).
    """
    schema = table.latest_schema
    cast: dict[str, Any] = {}
    for name, value in values.items():
        field = schema.field(name)
        try:
            cast[name] = pa.array([value]).cast(arrow_type(field.type))[0].as_py()
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as err:
            raise ArgumentError(
                f"paimon_explain_key: {value!r} is not a value of key column {name!r} "
                f"({type_sql(field.type)}) of {table.name}"
            ) from err
    return cast


def _struct_hint(keys: list[str]) -> str:
    return "{" + ", ".join(f"'{k}': …" for k in keys) + "}"


def _key_predicate(values: Mapping[str, Any]) -> Predicate | None:
    return and_all([Compare((name,), "=", value) for name, value in values.items()])


def _added_by(table: Table, until: Snapshot) -> dict[tuple[bytes, int, str], int]:
    """(partition, bucket, file) → the snapshot whose delta added it, for the listed history."""
    added: dict[tuple[bytes, int, str], int] = {}
    first = table.earliest_snapshot_id() or until.id
    for snapshot_id in range(first, until.id + 1):
        snapshot = table.snapshot(snapshot_id)
        for meta in table.manifest_list(snapshot.delta_manifest_list):
            for entry in table.manifest(meta.file_name):
                if entry.kind is FileKind.ADD:
                    added.setdefault(
                        (entry.partition, entry.bucket, entry.file.file_name), snapshot_id
                    )
    return added


def _one_file_plan(plan: ScanPlan, split: Split, f: DataFileMeta, with_dv: bool) -> ScanPlan:
    vectors = tuple(dv for dv in split.deletion_vectors if dv[0] == f.file_name) if with_dv else ()
    one = replace(split, sections=(Section(files=(f,), merge=False),), deletion_vectors=vectors)
    return replace(plan, mode=ReadMode.MERGE, splits=(one,))


def explain_key(
    table: Table, key: Any, snapshot: Snapshot | None = None, *, read: Read | None = None
) -> pa.Table:
    """Every version of one key that `snapshot` (default: the latest) holds, and which one wins.

    The first row (``verdict = 'result'``) is what a read returns for the key; then one row per
    stored version: its file, level, bucket, sequence number, row kind, whether a deletion vector
    deletes it, the snapshot that added its file, and its verdict (``wins``, ``superseded``,
    ``merged``, ``deleted by deletion vector``, ``not visible yet``) with the reason.

    Examples:
        >>> session = paimon_sql.connect(tmp_warehouse)
        >>> for statement in (
        ...     "CREATE DATABASE db",
        ...     "CREATE TABLE db.t (id INT NOT NULL, v STRING, PRIMARY KEY (id) NOT ENFORCED)"
        ...     " WITH ('bucket' = '1')",
        ...     "INSERT INTO db.t VALUES (1, 'a'), (2, 'b')",
        ...     "INSERT INTO db.t VALUES (2, 'B')",
        ... ):
        ...     _ = session.sql(statement)
        >>> rows = explain_key(session.table("db.t"), 2).to_pylist()
        >>> [(r["verdict"], r["row"], r["sequence_number"], r["added_by_snapshot"]) for r in rows]
        ... # doctest: +NORMALIZE_WHITESPACE
        [('result', {'id': 2, 'v': 'B'}, 2, None), ('wins', {'id': 2, 'v': 'B'}, 2, 2),
         ('superseded', {'id': 2, 'v': 'b'}, 1, 1)]
    """
    values = key_values(table, key)
    snapshot = table.latest_snapshot() if snapshot is None else snapshot
    schema = snapshot_schema(table, snapshot)
    out_schema = explain_key_schema(table)
    if snapshot is None:
        return out_schema.empty_table()
    predicate = _key_predicate(values)
    names = tuple(schema.field_names)
    request = ReadRequest(
        columns=names,
        filters=(predicate,) if predicate else (),
        system_columns=True,
        keep_retractions=True,
    )
    options = CoreOptions(schema.options)
    plan = plan_scan(table, snapshot, predicate, schema)
    every = plan_scan(table, snapshot, predicate, schema, include_level0=True)
    added = _added_by(table, snapshot)
    rows: list[dict[str, Any]] = []
    with _reading(read) as reader:
        result = [r for b in reader(plan, request) for r in b.to_pylist()]
        visible = {(s.partition_bytes, s.bucket, f.file_name) for s in plan.splits for f in s.files}
        grouped = options.merge_engine in (MergeEngine.PARTIAL_UPDATE, MergeEngine.AGGREGATE)
        winner_seq = result[0][SEQ] if result and not grouped else None
        for r in result:
            kind = RowKind(r[KIND])
            rows.append(
                {
                    "verdict": "result",
                    "reason": _result_reason(kind, options),
                    "row": {n: r[n] for n in names},
                    "rowkind": kind.short,
                    "sequence_number": winner_seq,  # the winning version's (none when merged)
                }
            )
        if not result:
            rows.append({"verdict": "result", "reason": "no row: a read does not return this key"})
        for split in every.splits:
            for f in split.files:
                raw = _versions(reader, every, split, f, request, with_dv=False)
                kept = None
                if any(dv[0] == f.file_name for dv in split.deletion_vectors):
                    kept = {
                        (r[SEQ], r[KIND])
                        for r in _versions(reader, every, split, f, request, with_dv=True)
                    }
                for r in raw:
                    kind = RowKind(r[KIND])
                    file_key = (split.partition_bytes, split.bucket, f.file_name)
                    deleted = kept is not None and (r[SEQ], r[KIND]) not in kept
                    verdict, reason = _verdict(
                        deleted=deleted,
                        visible=file_key in visible,
                        grouped=grouped,
                        wins=winner_seq is not None and r[SEQ] == winner_seq and not deleted,
                        kind=kind,
                        options=options,
                        winner_seq=winner_seq,
                    )
                    rows.append(
                        {
                            "verdict": verdict,
                            "reason": reason,
                            "row": {n: r[n] for n in names},
                            "rowkind": kind.short,
                            "sequence_number": r[SEQ],
                            "partition": _partition_text(schema, split.partition),
                            "bucket": split.bucket,
                            "level": f.level,
                            "file": f.file_name,
                            "added_by_snapshot": added.get(file_key),
                            "deleted_by_dv": deleted,
                        }
                    )
    head = [r for r in rows if r["verdict"] == "result"]
    rest = sorted(
        (r for r in rows if r["verdict"] != "result"),
        key=lambda r: (_ORDER.get(r["verdict"], 9), -(r["sequence_number"] or 0)),
    )
    return pa.Table.from_pylist(head + rest, schema=out_schema)


_ORDER = {"wins": 0, "merged": 1, "superseded": 2, "deleted by deletion vector": 3}


def _versions(
    reader: Read,
    plan: ScanPlan,
    split: Split,
    f: DataFileMeta,
    request: ReadRequest,
    *,
    with_dv: bool,
) -> list[dict[str, Any]]:
    one = _one_file_plan(plan, split, f, with_dv)
    return [r for b in reader(one, request) for r in b.to_pylist()]


def _partition_text(schema: TableSchema, values: tuple[Any, ...]) -> str | None:
    if not schema.partition_keys:
        return None
    return "/".join(f"{k}={v}" for k, v in zip(schema.partition_keys, values, strict=False))


def _result_reason(kind: RowKind, options: CoreOptions) -> str:
    engine = options.merge_engine.value
    if not kind.is_add:
        return f"the newest version is a retraction ({kind.short}): a read drops the key"
    return f"what a read returns (merge engine {engine})"


def _verdict(
    *,
    deleted: bool,
    visible: bool,
    grouped: bool,
    wins: bool,
    kind: RowKind,
    options: CoreOptions,
    winner_seq: int | None,
) -> tuple[str, str]:
    if deleted:
        return "deleted by deletion vector", "a deletion vector of its file marks this row deleted"
    if not visible:
        return (
            "not visible yet",
            "its level-0 file is not read until a compaction moves it up (deletion-vector and "
            "first-row tables read only compacted files)",
        )
    engine = options.merge_engine
    if grouped:
        how = "partial-update" if engine is MergeEngine.PARTIAL_UPDATE else "aggregation"
        return "merged", f"{how}: every version contributes, in sequence order ({kind.short})"
    if wins:
        if engine is MergeEngine.FIRST_ROW:
            return "wins", "first-row: the lowest sequence number is kept"
        return "wins", "the highest sequence number (then sequence fields) is the key's value"
    if winner_seq is None:
        return "superseded", "no version of this key is read"
    if engine is MergeEngine.FIRST_ROW:
        return "superseded", f"first-row keeps sequence number {winner_seq}, which came first"
    return "superseded", f"a newer version (sequence number {winner_seq}) replaces it"


# --- as SQL functions (functions/debug.sql) -------------------------------------------------------


def _typed(value: Any, field: DataField) -> Any:
    """A JSON value (DuckDB's ``to_json`` of the argument) as the key column's Python value."""
    root = field.type.root
    if value is None or not isinstance(value, str):
        return decimal.Decimal(str(value)) if root == "DECIMAL" and value is not None else value
    if root == "DATE":
        return datetime.date.fromisoformat(value)
    if root.startswith("TIMESTAMP"):
        return datetime.datetime.fromisoformat(value)
    if root == "DECIMAL":
        return decimal.Decimal(value)
    return value


def key_from_json(table: Table, text: str | None) -> Any:
    """The key argument of ``paimon_explain_key`` (JSON text) as `explain_key` takes it."""
    if text is None:
        raise ArgumentError("paimon_explain_key: give the key, e.g. paimon_explain_key('db.t', 42)")
    value = json.loads(text)
    schema = table.latest_schema
    if isinstance(value, dict):
        return {
            k: _typed(v, schema.field(k)) if k in schema.field_names else v
            for k, v in value.items()
        }
    keys = schema.primary_keys
    return _typed(value, schema.field(keys[0])) if len(keys) == 1 else value


def _diff_schema(engine: Engine, routing: Mapping[str, Any]) -> pa.Schema:
    table = engine.table(routing[TABLE])
    return diff_schema(table, resolve_version(table, routing.get(TO), "paimon_diff"))


def _diff_rows(engine: Engine, routing: Mapping[str, Any]) -> pa.Table:
    table = engine.table(routing[TABLE])
    start = routing.get(FROM)
    begin = None if start is None else resolve_version(table, start, "paimon_diff")
    end = resolve_version(table, routing.get(TO), "paimon_diff")
    return diff(table, begin, end, read=engine.reader.batches)


def _explain_schema(engine: Engine, routing: Mapping[str, Any]) -> pa.Schema:
    return explain_key_schema(engine.table(routing[TABLE]))


def _explain_rows(engine: Engine, routing: Mapping[str, Any]) -> pa.Table:
    table = engine.table(routing[TABLE])
    at = resolve_version(table, routing.get(TO), "paimon_explain_key")
    return explain_key(
        table, key_from_json(table, routing.get(KEY)), at, read=engine.reader.batches
    )


FUNCTIONS = (
    TableFunction(name="diff", hidden=(TABLE, FROM, TO), schema=_diff_schema, content=_diff_rows),
    TableFunction(
        name="explain_key",
        hidden=(TABLE, KEY, TO),
        schema=_explain_schema,
        content=_explain_rows,
    ),
)
"""The debugging table functions ``install`` registers (macros in ``functions/debug.sql``)."""
