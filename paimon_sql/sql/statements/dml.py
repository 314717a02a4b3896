"""INSERT [OVERWRITE], DELETE and UPDATE on Paimon tables.

A DuckDB query feeds `TableWriter`, `Committer` commits.

* INSERT INTO t [(cols) | BY NAME] <query | VALUES>: columns by position, or by name when listed
  or with BY NAME (others NULL); each value cast to the column type, a value that does not fit is
  an error naming the column; a value count that does not match is DuckDB's error, in its words.
* ... ON CONFLICT [(pk)] DO NOTHING | DO UPDATE SET … [WHERE …] (and INSERT OR IGNORE / OR
  REPLACE) on primary-key tables, with DuckDB's meaning (`_Conflict`); refused on append tables.
  The existing keys are those of the latest snapshot when the statement starts (a concurrent
  writer committing the same key before this statement commits is not detected).
* ... RETURNING <expressions>: the rows written (computed before the commit: an error in it
  writes nothing). UPDATE/DELETE … RETURNING are refused.
* UPDATE t SET … FROM s WHERE … is the MERGE it means (`update_from_as_merge`): a target row
  several source rows match is refused, where DuckDB would take one of them at random. DELETE FROM
  t USING s … WHERE … is DELETE FROM t WHERE EXISTS (SELECT 1 FROM s … WHERE …)
  (`delete_using_as_exists`), DuckDB's meaning.
* A write inside an explicit transaction is refused before it starts (`refuse_in_transaction`).
* INSERT OVERWRITE t [PARTITION (k = v, ...)] <query>: the whole table, the static partition, or
  (partitioned table, no PARTITION clause) the partitions the query writes (Spark's dynamic
  overwrite).
* DELETE FROM t WHERE …: primary-key tables get ``-D`` records of the matching rows; append tables
  are rewritten copy-on-write per partition, or with ``deletion-vectors.enabled`` get the rows
  marked in deletion vectors (`paimon_sql.sql.statements.append_dv`).
* UPDATE t SET … WHERE …: primary-key tables get the updated rows as ``+U``; append tables
  copy-on-write, or (with deletion vectors) the old rows marked and the new ones appended.
* A DELETE (or MERGE … THEN DELETE) on a primary-key table with ``ignore-delete`` is refused: Java's
  writer drops its ``-D`` records, so it would delete nothing.
* Merge engines that cannot apply those records refuse the statement before writing, as Java's Flink
  sink does (``PrimaryKeyTableUtils.validatePKUpsertDeletable``, ``applyRowLevelUpdate``): DELETE
  needs deduplicate, partial-update with ``partial-update.remove-record-on-delete`` (or
  ``.remove-record-on-sequence-group``), or aggregation with
  ``aggregation.remove-record-on-delete``; UPDATE needs deduplicate or partial-update.

Every statement commits one snapshot or none: on any failure its data files are deleted.
"""

from __future__ import annotations

import contextlib
import math
from typing import TYPE_CHECKING, Any

import duckdb
import pyarrow as pa
from sqlglot import exp

from paimon_sql.catalog import Identifier
from paimon_sql.catalog.names import duckdb_matches
from paimon_sql.commit.plan import ReadAt, fold, refuse_row_rewrite
from paimon_sql.commit.publish import Committer
from paimon_sql.commit.retry import on_latest
from paimon_sql.compact.after_write import check_writable, compact_after_write
from paimon_sql.errors import (
    CommitConflictError,
    ExecutionError,
    SchemaError,
    SqlError,
    UnsupportedFeatureError,
)
from paimon_sql.format.binary_row import decode_row, encode_row
from paimon_sql.format.options import CoreOptions, MergeEngine
from paimon_sql.format.snapshot import CommitKind
from paimon_sql.read.build import ReadRequest, literal
from paimon_sql.sql.statements.append_dv import mark_rows, uses_vectors
from paimon_sql.sql.statements.target import (
    assignments,
    drop_alias,
    refuse_defaults,
    with_ctes,
    write_table,
)
from paimon_sql.sqlnodes import table_node
from paimon_sql.types import RowKind, duckdb_type_node, fit_length, type_sql
from paimon_sql.write.global_index import is_cross_partition
from paimon_sql.write.writer import RepeatedKeys, TableWriter, fitted_value, length_refusal

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping, Sequence

    from paimon_sql.catalog import Table
    from paimon_sql.commit.plan import CommitMessage
    from paimon_sql.engine.reader import SplitReader
    from paimon_sql.engine.relation import Relation
    from paimon_sql.format.manifest import ManifestEntry
    from paimon_sql.format.schema import TableSchema
    from paimon_sql.format.snapshot import Snapshot
    from paimon_sql.plan.predicate import Predicate
    from paimon_sql.plan.scan import ScanPlan
    from paimon_sql.sql._context import Context
    from paimon_sql.write.global_index import KeyReader

ADD, UPDATE_AFTER, DELETE = RowKind.INSERT, RowKind.UPDATE_AFTER, RowKind.DELETE


def count(ctx: Context, n: int) -> Relation:
    """The one-row result of a DML statement: ``count``, the number of rows it changed."""
    return ctx.engine.rows(pa.table({"count": pa.array([n], pa.int64())}))


def typed_select(table: Table, source: exp.Expression, columns: list[str] | None) -> exp.Select:
    """The input query with the table's columns, in order, cast to their types.

    The source's columns are taken by position: onto every table column, or onto the listed
    `columns` (the others are NULL).
    """
    schema = table.latest_schema
    targets = list(schema.field_names)
    if columns is not None:
        found = [_field_or_none(table, c) for c in columns]
        unknown = [c for c, known in zip(columns, found, strict=True) if known is None]
        if unknown:
            raise SchemaError(
                f"unknown column(s) {', '.join(unknown)} for table {table.name}; "
                f"columns: {', '.join(schema.field_names)}"
            )
        targets = [known for known in found if known is not None]
        for i, (c, target) in enumerate(zip(columns, targets, strict=True)):
            if target in targets[:i]:
                raise SqlError(
                    f'Duplicate column name "{c}" in INSERT into {table.name}: '
                    "name each column once"
                )
    alias = exp.TableAlias(
        this=exp.to_identifier("__paimon_src"),
        columns=[exp.to_identifier(f"__c_{c}", quoted=True) for c in targets],
    )
    outputs = []
    for f in schema.fields:
        raw: exp.Expression = (
            exp.column(f"__c_{f.name}", quoted=True) if f.name in targets else exp.null()
        )
        value: exp.Expression = exp.cast(raw, duckdb_type_node(f.type))
        if not isinstance(raw, exp.Null):  # as stored: ON CONFLICT and RETURNING see the key
            value = fitted_value(value, f, table.name)
        outputs.append(exp.alias_(value, f.name, quoted=True))
    return exp.select(*outputs).from_(exp.Subquery(this=source, alias=alias))


def _diagnose(ctx: Context, table: Table, typed: exp.Select, err: Exception) -> SchemaError:
    """Which column a value did not fit, and the value (DuckDB's conversion error names neither)."""
    refused = length_refusal(err)
    if refused is not None:
        return refused
    for output in typed.expressions:
        raw_name = f"__c_{output.alias}"
        cast_node = next(
            (
                c
                for c in output.find_all(exp.Cast)
                if isinstance(c.this, exp.Column) and c.this.name == raw_name
            ),
            None,
        )
        if cast_node is None:
            continue
        raw = cast_node.this
        bad_value = exp.and_(
            exp.not_(exp.Is(this=raw.copy(), expression=exp.null())),
            exp.Is(
                this=exp.TryCast(this=raw.copy(), to=cast_node.to.copy()), expression=exp.null()
            ),
        )
        probe = (
            exp.select(raw.copy()).from_(typed.find(exp.From).this.copy()).where(bad_value).limit(1)
        )
        try:
            bad = ctx.engine.con.sql(probe.sql("duckdb")).fetchall()
        except Exception:  # noqa: BLE001 - a best-effort probe for a better message; none if it fails
            continue
        if bad:
            name = output.alias
            column_type = table.latest_schema.field(name).type
            return SchemaError(
                f"value {bad[0][0]!r} does not fit column {name!r} ({type_sql(column_type)}) of "
                "table "
                f"{table.name}; cast it or fix the data"
            )
    return SchemaError(f"cannot write to table {table.name}: {str(err).splitlines()[0]}")


def write_rows(
    ctx: Context,
    table: Table,
    typed: exp.Select,
    *,
    kind: RowKind | exp.Expression = ADD,
    overwrite: Any = None,
    read_at: ReadAt | None = None,
) -> int:
    """Write the rows of `typed` (the table's columns) and commit; the number of rows written.

    `kind`: the rows' `RowKind`, or an expression over `typed`'s columns giving each row's.
    `read_at`: the snapshot of the table the rows were computed from (`read_before`); the commit
    fails when a commit since wrote one of their keys.
    """
    check_writable(table)
    writer = TableWriter(
        ctx.engine.con, table, key_reader=key_reader(ctx), overwrite=overwrite is not None
    )
    committer = Committer(table)
    try:
        messages, rows = _write_files(writer, typed, kind)
        if overwrite is not None:
            overwrite = overwrite(messages)
        written = committer.commit(
            messages,
            kind=CommitKind.APPEND,
            overwrite=overwrite,
            assigned_on=writer.assigned_on,
            read_at=read_at,
        )
    except BAD_VALUE as err:
        writer.abort()
        raise _diagnose(ctx, table, typed, err) from err
    except BaseException:
        # once snapshot-N exists its files stay, whatever happened after it
        if committer.landed is None:
            writer.abort()
        raise
    ctx.changed(table)
    if written is not None:  # the write is committed: a failure from here on never undoes it
        read = ctx.engine.bucket_reader()
        compact_after_write(table, messages, written, read, refresh=lambda: ctx.changed(table))
    return rows


def read_before(table: Table) -> ReadAt | None:
    """For a statement about to read a primary-key table to compute rows it writes back to it.

    The latest snapshot now: every read the statement binds after this is at it or later, so a
    commit after it that wrote one of the statement's keys may have changed a value the statement
    read, and its commit refuses to undo that change (`Committer._check_read`). None for a table
    without a primary key, whose rewrites pin the files they read instead (`pinned_overwrite`,
    deletion-vector conflicts).
    """
    if not table.latest_schema.primary_keys:
        return None
    return ReadAt.of(table.latest_snapshot())


def key_reader(ctx: Context) -> KeyReader:
    """How a writer reads a table's live keys (cross-partition tables bootstrap their key index).

    Through the engine's split reader (its private database, not the statement's connection).
    """
    return _KeyReader(ctx.engine.reader)


class _KeyReader:
    """`global_index.KeyReader` on the engine's split reader."""

    def __init__(self, reader: SplitReader) -> None:
        self.reader = reader

    def __call__(
        self, plan: ScanPlan, columns: Sequence[str], filters: Sequence[Predicate] = ()
    ) -> Iterator[pa.RecordBatch]:
        """The merged rows of `plan`'s splits, split after split."""
        request = ReadRequest(columns=tuple(columns), filters=tuple(filters))
        return self.reader.batches(plan, request)

    def holding(self, plan: ScanPlan, predicate: Predicate) -> frozenset[str]:
        """The data files of `plan` that may hold a row matching `predicate`."""
        return self.reader.holding(plan, predicate)


#: DuckDB's errors for a value that does not fit its column (`_diagnose` names the column).
BAD_VALUE = (duckdb.ConversionException, duckdb.InvalidInputException, duckdb.OutOfRangeException)


def _write_files(
    writer: TableWriter, source: exp.Expression, kind: RowKind | exp.Expression
) -> tuple[list[CommitMessage], int]:
    """The data files of the rows of `source`.

    Streamed straight from the query where the table allows it, else (and when a key occurs twice in
    the statement) staged once first.
    """
    if writer.streams():
        try:
            return writer.write_stream(source, kind)
        except RepeatedKeys:
            pass  # the staged path numbers arrivals to pick the surviving version
    staged = writer.stage(source, kind)
    try:
        return writer.write(staged)
    finally:
        writer.drop(staged)


def insert(ctx: Context, ident: Identifier, statement: exp.Insert) -> Relation:
    """INSERT INTO / INSERT OVERWRITE [BY NAME] [ON CONFLICT …] [RETURNING …]."""
    table = write_table(
        ctx, ident, statement, "INSERT OVERWRITE" if statement.args.get("overwrite") else "INSERT"
    )
    target = statement.this
    columns = None
    if isinstance(target, exp.Schema):
        columns = [c.name for c in target.expressions]
    refuse_defaults(statement, table.name)
    source = with_ctes(statement)
    if source is None:
        raise SqlError(f"no rows to write to {table.name}: add VALUES (…) or a SELECT query")
    conflict = _conflict(table, statement)
    returning = statement.args.get("returning")
    # rows computed from the table itself: ON CONFLICT reads its keys, a source may read it
    read_at = read_before(table) if conflict is not None or _reads(source, table) else None
    ctx.bind(source)
    if statement.args.get("by_name"):
        if columns is not None:
            raise SqlError("INSERT … BY NAME cannot be combined with an explicit column list")
        columns = _by_name(ctx, table, source)
    static = _static_partition(table, statement)
    check_static = False
    if static:
        source, columns, check_static = _with_static(ctx, table, source, columns, static)
    else:
        _check_width(ctx, table, source, columns)
    typed = typed_select(table, source, columns)
    if check_static:
        _check_static_rows(ctx, table, typed, static)
    overwrite = None
    if statement.args.get("overwrite"):
        if conflict is not None:
            raise SqlError("INSERT OVERWRITE replaces rows: it cannot have ON CONFLICT")
        overwrite = _overwrite_filter(ctx, table, statement)
    if conflict is None and returning is None:
        return count(ctx, write_rows(ctx, table, typed, overwrite=overwrite, read_at=read_at))
    scratch: list[str] = []  # the rows registered for this statement, dropped after it
    try:
        rows = _materialise(ctx, table, typed)
        if conflict is not None:
            rows = conflict.resolve(ctx, table, rows, scratch)
        # RETURNING is computed before the write: an error in it leaves the table untouched
        returned = None if returning is None else _returning(ctx, table, rows, returning, scratch)
        select = _select_rows(ctx, table, rows, scratch)
        written = write_rows(ctx, table, select, overwrite=overwrite, read_at=read_at)
    finally:
        ctx.engine.release(scratch)
    return count(ctx, written) if returned is None else ctx.engine.rows(returned)


def _reads(source: exp.Expression, table: Table) -> bool:
    """Whether `source` names a table called as `table` (in any database: a cheap superset).

    >>> from types import SimpleNamespace
    >>> t = SimpleNamespace(name="db.t")
    >>> _reads(exp.maybe_parse("SELECT k, v + 1 FROM db.t"), t), _reads(exp.Values(), t)
    (True, False)
    """
    name = table.name.rsplit(".", 1)[-1].lower()
    return any(node.name.lower() == name for node in source.find_all(exp.Table))


def _materialise(ctx: Context, table: Table, typed: exp.Select) -> pa.Table:
    """The rows of `typed` as Arrow (ON CONFLICT and RETURNING work on the rows to write)."""
    try:
        rows: pa.Table = ctx.engine.con.sql(typed.sql("duckdb")).to_arrow_table()
    except BAD_VALUE as err:
        raise _diagnose(ctx, table, typed, err) from err
    return rows


def _rows_node(
    ctx: Context, table: Table, rows: pa.Table, alias: str, scratch: list[str]
) -> exp.Table:
    """`rows` registered on the connection, as a table node aliased `alias`.

    The registered name is added to `scratch`.
    """
    hidden = ctx.engine.register_arrow(rows, table.name)
    scratch.append(hidden)
    node = exp.Table(this=exp.to_identifier(hidden, quoted=True))
    node.set("alias", exp.TableAlias(this=exp.to_identifier(alias, quoted=True)))
    return node


def _select_rows(ctx: Context, table: Table, rows: pa.Table, scratch: list[str]) -> exp.Select:
    """A query over materialised `rows` with the table's columns."""
    names = table.latest_schema.field_names
    node = _rows_node(ctx, table, rows, "rows", scratch)
    return exp.select(*[exp.column(n, quoted=True) for n in names]).from_(node)


def _returning(
    ctx: Context, table: Table, rows: pa.Table, returning: exp.Returning, scratch: list[str]
) -> pa.Table:
    """``RETURNING <expressions>`` over the rows the statement wrote (named as the table)."""
    if returning.args.get("into"):
        raise UnsupportedFeatureError("RETURNING … INTO is not supported")
    name = Identifier.parse(table.name).table
    node = _rows_node(ctx, table, rows, name, scratch)
    query = exp.select(*[e.copy() for e in returning.expressions]).from_(node)
    try:
        result: pa.Table = ctx.engine.con.sql(query.sql("duckdb")).to_arrow_table()
    except duckdb.Error as err:
        raise ctx.engine.translate(err) from err
    return result


def _by_name(ctx: Context, table: Table, source: exp.Expression) -> list[str]:
    """``INSERT … BY NAME``: the source's column names are the target columns.

    DuckDB's rule: each must be a column of the table; the others are NULL.
    """
    names = _columns_of(ctx, source)
    fields = list(table.latest_schema.field_names)
    by_lower = {f.lower(): f for f in fields}
    out = []
    for name in names:
        column = by_lower.get(name.lower())
        if column is None:
            raise ExecutionError(
                f'Binder Error: Table "{table.name}" does not have a column with name "{name}"'
            )
        if column in out:
            raise ExecutionError(
                f'Binder Error: Column "{name}" is specified more than once in the BY NAME insert'
            )
        out.append(column)
    return out


class _Conflict:
    """``ON CONFLICT [(keys)] DO NOTHING | DO UPDATE SET … [WHERE …]`` on a primary-key table.

    Also ``INSERT OR IGNORE`` / ``INSERT OR REPLACE``; applied to the rows before they are written.

    DO NOTHING keeps the existing row of every key that exists (and the first row of a key the
    statement repeats); DO UPDATE writes the existing row with the SET expressions applied
    (``excluded.c`` is the proposed value, a bare ``c`` the existing one) where the WHERE holds,
    and the proposed row for a new key. The existing keys are read at the latest snapshot when the
    statement starts.
    """

    def __init__(
        self,
        table: Table,
        sets: dict[str, exp.Expression] | None,
        where: exp.Expression | None,
    ) -> None:
        self.keys = list(table.latest_schema.primary_keys)
        self.sets = sets
        self.where = where

    def resolve(self, ctx: Context, table: Table, rows: pa.Table, scratch: list[str]) -> pa.Table:
        """The rows to write instead of `rows`."""
        schema = table.latest_schema
        ident = Identifier.parse(table.name)
        old_name = ident.table
        keys = [exp.column(k, table="excluded", quoted=True) for k in self.keys]
        outputs: list[exp.Expr]
        if self.sets is None:
            rows = rows.append_column("__arrival", pa.array(range(rows.num_rows), pa.int64()))
        new = _rows_node(ctx, table, rows, "excluded", scratch)
        old = table_node(ident.database, ident.table, alias=old_name)
        on = exp.and_(
            *[
                exp.EQ(
                    this=exp.column(k, table=old_name, quoted=True),
                    expression=exp.column(k, table="excluded", quoted=True),
                )
                for k in self.keys
            ]
        )
        missing = exp.Is(
            this=exp.column(self.keys[0], table=old_name, quoted=True), expression=exp.null()
        )
        if self.sets is None:
            first = exp.EQ(
                this=exp.Window(
                    this=exp.func("row_number"),
                    partition_by=[k.copy() for k in keys],
                    order=exp.Order(
                        expressions=[exp.Ordered(this=exp.column("__arrival", table="excluded"))]
                    ),
                ),
                expression=exp.Literal.number(1),
            )
            outputs = [exp.column(f, table="excluded", quoted=True) for f in schema.field_names]
            query = (
                exp.select(*outputs)
                .from_(new)
                .join(old, on=on, join_type="LEFT")
                .where(missing)
                .qualify(first)
            )
        else:
            self._check_repeats(ctx, table, rows, scratch)
            outputs = []
            for f in schema.fields:
                proposed = exp.column(f.name, table="excluded", quoted=True)
                kept: exp.Expression = exp.column(f.name, table=old_name, quoted=True)
                if f.name in self.sets:
                    kept = exp.cast(
                        _existing(self.sets[f.name], old_name), duckdb_type_node(f.type)
                    )
                outputs.append(
                    exp.alias_(
                        exp.If(this=missing.copy(), true=proposed, false=kept), f.name, quoted=True
                    )
                )
            query = exp.select(*outputs).from_(new).join(old, on=on, join_type="LEFT")
            if self.where is not None:
                query = query.where(exp.or_(missing.copy(), _existing(self.where, old_name)))
        ctx.bind(query)
        result: pa.Table = ctx.engine.con.sql(query.sql("duckdb")).to_arrow_table()
        return result.select(list(schema.field_names))

    def _check_repeats(
        self, ctx: Context, table: Table, rows: pa.Table, scratch: list[str]
    ) -> None:
        node = _rows_node(ctx, table, rows, "rows", scratch)
        keys = [exp.column(k, quoted=True) for k in self.keys]
        probe = (
            exp.select(exp.Literal.number(1))
            .from_(node)
            .group_by(*keys)
            .having(exp.GT(this=exp.Count(this=exp.Star()), expression=exp.Literal.number(1)))
            .limit(1)
        )
        if ctx.engine.con.sql(probe.sql("duckdb")).fetchall():
            raise ExecutionError(
                "Invalid Input Error: ON CONFLICT DO UPDATE can not update the same row twice in "
                "the same command. Ensure that no rows proposed for insertion within the same "
                "command have duplicate constrained values"
            )


def _existing(expression: exp.Expression, old_name: str) -> exp.Expression:
    """A SET/WHERE expression of DO UPDATE with its columns naming the existing row.

    Bare (or table-qualified) columns name the existing row; ``excluded.c`` stays the proposed
    row, and subqueries keep their own columns.
    """
    copied = expression.copy()
    for column in list(copied.find_all(exp.Column)):
        if column.find_ancestor(exp.Query) is not None:
            continue  # a column of a subquery
        if column.table.lower() == "excluded":
            continue
        column.replace(exp.column(column.name, table=old_name, quoted=True))
    return copied


def _conflict(table: Table, statement: exp.Insert) -> _Conflict | None:
    """The ON CONFLICT clause (or ``INSERT OR IGNORE/REPLACE``) of `statement`.

    Refused on tables without a primary key and on merge engines where it would not mean what it
    says.
    """
    clause = statement.args.get("conflict")
    alternative = str(statement.args.get("alternative") or "").upper()
    if clause is None and alternative not in ("IGNORE", "REPLACE"):
        if alternative:
            raise UnsupportedFeatureError(f"INSERT OR {alternative} is not supported")
        return None
    schema = table.latest_schema
    if not schema.primary_keys:
        raise ExecutionError(
            f"Binder Error: There are no UNIQUE/PRIMARY KEY constraints on table {table.name} "
            f"(a Paimon append table): "
            f"{'ON CONFLICT' if clause is not None else 'INSERT OR ' + alternative} is a no-op; "
            "define a primary key or leave it out"
        )
    engine = CoreOptions(schema.options).merge_engine
    if clause is None:
        return _or_ignore_replace(table, alternative, engine)
    if clause.args.get("duplicate"):
        raise UnsupportedFeatureError("ON DUPLICATE KEY UPDATE is not supported; write ON CONFLICT")
    if clause.args.get("constraint") is not None:
        raise UnsupportedFeatureError("ON CONFLICT ON CONSTRAINT is not supported")
    named = [c.name for c in clause.args.get("conflict_keys") or ()]
    if named and {n.lower() for n in named} != {k.lower() for k in schema.primary_keys}:
        raise ExecutionError(
            "Binder Error: The specified columns as conflict target are not referenced by a "
            f"UNIQUE/PRIMARY KEY CONSTRAINT or INDEX (the primary key of {table.name} is "
            f"{', '.join(schema.primary_keys)})"
        )
    action = clause.args.get("action")
    action_text = action.name.upper() if action is not None else ""
    if action_text == "DO NOTHING":
        return _Conflict(table, None, None)
    if action_text != "DO UPDATE":
        raise SqlError("ON CONFLICT needs DO NOTHING or DO UPDATE SET …")
    if engine is not MergeEngine.DEDUPLICATE:
        raise UnsupportedFeatureError(
            f"ON CONFLICT DO UPDATE on {table.name}: merge engine {engine.value} would merge the "
            "updated row instead of replacing it; only deduplicate tables support it"
        )
    return _Conflict(table, *_do_update(table, clause))


def _or_ignore_replace(table: Table, alternative: str, engine: MergeEngine) -> _Conflict | None:
    """``INSERT OR IGNORE`` (DO NOTHING) and ``INSERT OR REPLACE`` (a deduplicate upsert)."""
    if alternative == "IGNORE":
        return _Conflict(table, None, None)
    if engine is not MergeEngine.DEDUPLICATE:
        raise UnsupportedFeatureError(
            f"INSERT OR REPLACE into {table.name}: merge engine {engine.value} merges the "
            "new row into the existing one instead of replacing it; write a plain INSERT"
        )
    return None  # a deduplicate primary-key table upserts anyway


def _do_update(
    table: Table, clause: exp.OnConflict
) -> tuple[dict[str, exp.Expression], exp.Expression | None]:
    """The SET assignments and WHERE condition of ``ON CONFLICT DO UPDATE``."""
    schema = table.latest_schema
    sets: dict[str, exp.Expression] = {}
    for eq in clause.expressions:
        if not isinstance(eq, exp.EQ) or not isinstance(eq.this, exp.Column):
            raise SqlError(f"ON CONFLICT DO UPDATE SET expects column = value, got {eq.sql()!r}")
        name = field_named(table, eq.this.name)
        if name in schema.primary_keys:
            raise SchemaError(
                f"ON CONFLICT DO UPDATE cannot change primary-key column {name!r} of {table.name}"
            )
        sets[name] = eq.expression
    if not sets:
        raise SqlError("ON CONFLICT DO UPDATE needs SET column = value")
    where = clause.args.get("where")
    return sets, where.this if isinstance(where, exp.Where) else where


def field_named(table: Table, name: str, statement: str | None = None) -> str:
    """The column of `table` called `name`; a `SchemaError` naming `statement` when it has none.

    `statement` is the words before the table's name in the message (``"MERGE INTO"``).

    As DuckDB resolves names in the rest of the statement: case-insensitively. An exact match
    wins where a table (written by a case-sensitive engine) has columns differing only in case;
    a name that matches several of them only case-insensitively is refused as ambiguous.
    """
    found = _field_or_none(table, name)
    if found is None:
        raise SchemaError(
            f"unknown column {name!r} {'in ' + statement if statement else 'of'} {table.name}; "
            "columns: "
            f"{', '.join(table.latest_schema.field_names)}"
        )
    return found


def _field_or_none(table: Table, name: str) -> str | None:
    """`field_named` without the error: None when `table` has no such column."""
    matches = duckdb_matches(name, table.latest_schema.field_names)
    if len(matches) > 1:
        raise SchemaError(
            f"column name {name!r} is ambiguous in {table.name}: it has columns "
            f"{', '.join(matches)}; quote the one you mean exactly"
        )
    return matches[0] if matches else None


def _partition_value(node: exp.Expression) -> Any:
    """The constant of ``PARTITION (k = <constant>)``; a `SqlError` for anything else."""
    if isinstance(node, (exp.Column, exp.Identifier)):
        return node.name
    if not isinstance(node, (exp.Literal, exp.Boolean, exp.Null, exp.Neg)):
        raise _not_constant(node)
    try:
        return node.to_py()
    except ValueError as err:
        raise _not_constant(node) from err


def _not_constant(node: exp.Expression) -> SqlError:
    return SqlError(f"PARTITION value {node.sql('duckdb')} is not a constant; write k = 'value'")


def _columns_of(ctx: Context, source: exp.Expression) -> list[str]:
    """The column names the query gives (bound, not run)."""
    alias = exp.TableAlias(this=exp.to_identifier("__paimon_w"))
    subquery = exp.Subquery(this=source.copy(), alias=alias)
    probe = exp.select(exp.Star()).from_(subquery, copy=False).limit(0, copy=False)
    return list(ctx.engine.con.sql(probe.sql("duckdb", copy=False)).columns)


def _width(ctx: Context, source: exp.Expression) -> int:
    """How many columns the query gives (bound, not run).

    A ``VALUES`` list whose rows are all as long is read off the statement: binding a copy of a
    long one cost more than the write of its rows.

    >>> import sqlglot
    >>> _width(None, sqlglot.parse_one("VALUES (1, 'a'), (2, 'b')", read="duckdb"))
    2
    """
    if isinstance(source, exp.Values) and source.expressions:
        widths = {
            len(row.expressions) if isinstance(row, exp.Tuple) else 1 for row in source.expressions
        }
        if len(widths) == 1:
            return widths.pop()
    return len(_columns_of(ctx, source))


def _check_width(
    ctx: Context, table: Table, source: exp.Expression, columns: list[str] | None
) -> None:
    """The query must give exactly one value per target column (DuckDB's check and wording).

    DuckDB would silently drop extra ones (and an extra value once landed in the partition column
    of a static PARTITION insert).
    """
    targets = columns if columns is not None else list(table.latest_schema.field_names)
    width = _width(ctx, source)
    if width == len(targets):
        return
    if columns is None:
        raise ExecutionError(
            f'Binder Error: table "{table.name}" has {len(targets)} columns but {width} values '
            "were supplied"
        )
    raise ExecutionError(
        f'Binder Error: Column name/value mismatch for insert on "{table.name}": expected '  # noqa: S608 - a message
        f"{len(targets)} columns but {width} values were supplied"
    )


def _with_static(
    ctx: Context,
    table: Table,
    source: exp.Expression,
    columns: list[str] | None,
    static: dict[str, exp.Expression],
) -> tuple[exp.Expression, list[str] | None, bool]:
    """The query and target columns of ``INSERT [OVERWRITE] t PARTITION (k = v) <query>``.

    Spark's and Flink's form: the query gives every column but the static keys, which take the
    PARTITION values. Also accepted: the query gives every column, the keys included; then each
    row must lie in the named partition (the third value asks the caller to check that).
    """
    targets = columns if columns is not None else list(table.latest_schema.field_names)
    rest = [n for n in targets if n not in static]
    width = _width(ctx, source)
    if width == len(targets) and set(static) <= set(targets):
        return source, columns, True
    if width != len(rest):
        raise SqlError(
            f"INSERT into {table.name} PARTITION ({', '.join(static)}): the query gives {width} "
            f"column(s); it must give {len(rest)} ({', '.join(rest)}), the static PARTITION "
            f"column(s) left out"
        )
    values = [
        exp.alias_(v.copy(), f"__paimon_static_{i}", quoted=True)
        for i, v in enumerate(static.values())
    ]
    query = exp.TableAlias(this=exp.to_identifier("__paimon_q"))
    wrapped = exp.select(exp.Star(), *values).from_(exp.Subquery(this=source, alias=query))
    return wrapped, [*rest, *static], False


def _check_static_rows(
    ctx: Context, table: Table, typed: exp.Select, static: dict[str, exp.Expression]
) -> None:
    """Every row of a full-width query of ``INSERT ... PARTITION (k = v)`` must have k = v."""
    schema = table.latest_schema
    outside = exp.or_(
        *[
            exp.not_(
                exp.NullSafeEQ(
                    this=exp.column(k, quoted=True),
                    expression=fitted_value(
                        exp.cast(v.copy(), duckdb_type_node(schema.field(k).type)),
                        schema.field(k),
                        table.name,
                    ),
                )
            )
            for k, v in static.items()
        ]
    )
    alias = exp.TableAlias(this=exp.to_identifier("__paimon_chk"))
    probe = exp.select(exp.func("count", exp.Star())).from_(
        exp.Subquery(this=typed.copy(), alias=alias)
    )
    ((n,),) = ctx.engine.con.sql(probe.where(outside).sql("duckdb")).fetchall()
    if n:
        spec = ", ".join(f"{k} = {v.sql('duckdb')}" for k, v in static.items())
        raise SqlError(
            f"INSERT into {table.name} PARTITION ({spec}): {n} row(s) of the query lie in another "
            f"partition; leave the PARTITION column(s) out of the query (Spark's and Flink's form) "
            f"or give only rows of that partition"
        )


def _static_partition(table: Table, statement: exp.Insert) -> dict[str, exp.Expression]:
    """The ``PARTITION (k = v, ...)`` clause's static keys and their value expressions (in order).

    A key listed without a value (``PARTITION (dt = 'a', hr)``) is dynamic: the query gives it.
    """
    partition = statement.find(exp.Partition)
    if partition is None:
        return {}
    keys = set(table.latest_schema.partition_keys)
    named = [e.this.name if isinstance(e, exp.EQ) else e.name for e in partition.expressions]
    unknown = sorted(set(named) - keys)
    if unknown:
        raise SqlError(
            f"PARTITION names non-partition column(s) {unknown} of table {table.name}; "
            f"partition keys: {sorted(keys)}"
        )
    return {e.this.name: e.expression for e in partition.expressions if isinstance(e, exp.EQ)}


def partition_spec(
    ctx: Context, table: Table, partition: exp.Partition, what: str
) -> dict[str, Any]:
    """The static keys of ``PARTITION (k = v, ...)`` and their values, typed as their columns.

    Each value is cast to its column's type as DuckDB casts it (``1`` for a DOUBLE is ``1.0``,
    ``'2024-1-1'`` for a DATE is that date, ``'true'`` for a BOOLEAN is true), the way Java's
    partition predicate parses the spec's strings, so that it compares with the stored partition
    values by value, not by spelling. A key listed without a value (``PARTITION (dt = 'a', hr)``)
    is dynamic and left out. A name that is no partition key, or any PARTITION of a table without
    partition keys, is a `SqlError` naming `what` (the statement) and the table's keys.
    """
    schema = table.latest_schema
    keys = schema.partition_keys
    named = [e.this.name if isinstance(e, exp.EQ) else e.name for e in partition.expressions]
    if not keys:
        raise SqlError(
            f"{what} {table.name} PARTITION ({', '.join(named)}): the table has no partition "
            "keys; leave the PARTITION clause out"
        )
    unknown = [n for n in named if n not in keys]
    if unknown:
        raise SqlError(
            f"{what} {table.name}: PARTITION names non-partition column(s) {unknown}; partition "
            f"keys: {list(keys)}"
        )
    return {
        e.this.name: _typed_partition_value(ctx, table, e.this.name, e.expression)
        for e in partition.expressions
        if isinstance(e, exp.EQ)
    }


def _typed_partition_value(ctx: Context, table: Table, key: str, node: exp.Expression) -> Any:
    """The value of ``PARTITION (key = node)`` as a value of the column (see `partition_spec`).

    The table's default partition name (``__DEFAULT_PARTITION__``) names the NULL partition, as
    Java reads a partition spec.
    """
    if _partition_value(node) == CoreOptions(table.latest_schema.options).partition_default_name:
        return None
    value_node = (
        exp.Literal.string(node.name)
        if isinstance(node, (exp.Column, exp.Identifier))
        else node.copy()
    )
    t = table.latest_schema.field(key).type
    probe = exp.select(exp.cast(value_node, duckdb_type_node(t)))
    try:
        ((value,),) = ctx.engine.con.sql(probe.sql("duckdb")).fetchall()
    except duckdb.Error as err:
        raise SqlError(
            f"PARTITION value {key} = {node.sql('duckdb')} is not a "
            f"{type_sql(t.with_nullable(True))} (the type of partition column {key!r} of "
            f"{table.name}): {str(err).splitlines()[0]}"
        ) from err
    # CHAR(n) and BINARY(n) partition values are stored padded; one too long matches nothing
    with contextlib.suppress(ValueError):
        value = fit_length(value, t)
    return value


def partition_filter(schema: TableSchema, spec: Mapping[str, Any]) -> Callable[[bytes], bool]:
    """Whether a serialized partition lies in the static `spec` (`partition_spec`'s values).

    The one test of "the files a ``PARTITION (…)`` clause names": INSERT OVERWRITE … PARTITION
    replaces them, TRUNCATE TABLE … PARTITION empties them.
    """
    keys = list(schema.partition_keys)
    types = [schema.field(k).type for k in keys]
    seen: dict[bytes, bool] = {}

    def inside(partition: bytes) -> bool:
        if partition not in seen:
            values = dict(zip(keys, decode_row(partition, types), strict=True))
            seen[partition] = all(_same_value(values[k], v) for k, v in spec.items())
        return seen[partition]

    return inside


def _same_value(stored: Any, given: Any) -> bool:
    """Java's equality of partition values: a NaN equals a NaN, ``0.0`` is not ``-0.0``.

    >>> _same_value(float("nan"), float("nan")), _same_value(0.0, -0.0), _same_value(None, None)
    (True, False, True)
    """
    if isinstance(stored, float) and isinstance(given, float):
        if math.isnan(stored) or math.isnan(given):
            return math.isnan(stored) and math.isnan(given)
        return stored == given and math.copysign(1.0, stored) == math.copysign(1.0, given)
    return bool(stored == given)


def _overwrite_filter(ctx: Context, table: Table, statement: exp.Insert) -> Any:
    schema = table.latest_schema
    partition = statement.find(exp.Partition)
    if partition is not None:
        inside = partition_filter(schema, partition_spec(ctx, table, partition, "INSERT OVERWRITE"))

        def static(messages: list[CommitMessage]) -> Any:
            # A cross-partition table's write also retracts moved keys in their old partitions:
            # Java's commit replaces every partition it adds files to (checked against Flink 1.3).
            retracted = (
                {m.partition for m in messages if m.new_files}
                if is_cross_partition(schema)
                else set()
            )
            return lambda e: e.partition in retracted or inside(e.partition)

        return static
    if not schema.partition_keys or not CoreOptions(schema.options).flag(
        "dynamic-partition-overwrite"
    ):
        # 'dynamic-partition-overwrite' = 'false' (a table option or a write hint): Java's commit
        # then replaces the whole table when no PARTITION clause names one
        return lambda _messages: lambda _e: True

    def dynamic(messages: list[CommitMessage]) -> Any:
        written = {m.partition for m in messages}
        return lambda e: e.partition in written

    return dynamic


def row_level_supported(table: Table, operation: str) -> None:
    """Refuse DELETE/UPDATE where the merge engine cannot apply ``-D``/``+U`` records.

    These are Flink's checks.

    Without it a DELETE on partial-update or aggregation (``max``...) commits a retraction that
    every later read and compaction fails on, and one on first-row is reported but has no effect.
    """
    options = CoreOptions(table.latest_schema.options)
    if operation == "DELETE" and options.ignore_delete:
        # Java's writer drops the -D records (RowKindFilter): the rows would stay, reported gone
        raise UnsupportedFeatureError(
            f"DELETE on {table.name}: the table option 'ignore-delete' = 'true' drops delete "
            "records, so no row would be deleted; reset it (ALTER TABLE … RESET "
            "('ignore-delete')) to delete rows"
        )
    engine = options.merge_engine
    if engine is MergeEngine.DEDUPLICATE:
        return
    if operation == "UPDATE":
        if engine is MergeEngine.PARTIAL_UPDATE:
            return
        hint = "only deduplicate and partial-update tables support UPDATE"
    elif engine is MergeEngine.PARTIAL_UPDATE:
        if options.flag("partial-update.remove-record-on-delete") or options.text(
            "partial-update.remove-record-on-sequence-group"
        ):
            return
        hint = "set 'partial-update.remove-record-on-delete' = 'true' to let DELETE remove rows"
    elif engine is MergeEngine.AGGREGATE:
        if options.flag("aggregation.remove-record-on-delete"):
            return
        hint = "set 'aggregation.remove-record-on-delete' = 'true' to let DELETE remove rows"
    else:
        hint = "first-row tables keep the first row of each key"
    raise UnsupportedFeatureError(
        f"{operation} on {table.name}: merge engine {engine.value} cannot apply it ({hint}); Java "
        "refuses it too"
    )


def delete(ctx: Context, ident: Identifier, statement: exp.Delete) -> Relation:
    """DELETE FROM t [WHERE …]."""
    refuse_returning(statement, "DELETE")
    table = write_table(ctx, ident, statement, "DELETE")
    drop_alias(statement, ident.table)
    schema = table.latest_schema
    where = statement.args.get("where")
    if not schema.primary_keys:
        if uses_vectors(table) and where is not None:  # without WHERE: Java truncates the table
            check_writable(table)
            if not _partitions_only(schema.partition_keys, where.this):
                return count(ctx, mark_rows(ctx, ident, table, where, None))
            # Java (Spark's DELETE) drops the partitions such a condition selects: their files
            # and vectors leave in one OVERWRITE snapshot, no vector marks every row of them
        return count(ctx, _copy_on_write(ctx, ident, table, where, None))
    row_level_supported(table, "DELETE")
    select = exp.select(*[exp.column(f.name, quoted=True) for f in schema.fields]).from_(
        table_node(ident.database, ident.table)
    )
    if where is not None:
        select = select.where(where.this)
    read_at = read_before(table)
    ctx.bind(select)
    return count(ctx, write_rows(ctx, table, select, kind=DELETE, read_at=read_at))


#: Nodes of a condition that selects whole partitions: comparisons and logic over columns and
#: constants, nothing that reads other rows or varies between evaluations.
_PARTITION_CONDITION = (
    exp.Column,
    exp.Identifier,
    exp.Literal,
    exp.Boolean,
    exp.Null,
    exp.Paren,
    exp.Not,
    exp.And,
    exp.Or,
    exp.EQ,
    exp.NEQ,
    exp.GT,
    exp.GTE,
    exp.LT,
    exp.LTE,
    exp.NullSafeEQ,
    exp.NullSafeNEQ,
    exp.In,
    exp.Between,
    exp.Is,
    exp.Cast,
    exp.DataType,
    exp.Tuple,
    exp.Neg,
)


def _partitions_only(partition_keys: Sequence[str], condition: exp.Expression) -> bool:
    """Whether `condition` names partition columns only (so it keeps or drops whole partitions).

    >>> _partitions_only(["dt"], exp.condition("dt = 'a' OR dt IN ('b', 'c')"))
    True
    >>> _partitions_only(["dt"], exp.condition("dt = 'a' AND v > 1"))
    False
    >>> _partitions_only(["dt"], exp.condition("dt = (SELECT max(dt) FROM t)"))
    False
    """
    parts = {p.lower() for p in partition_keys}
    if not parts:
        return False
    columns = list(condition.find_all(exp.Column))
    if not columns or any(c.table or c.name.lower() not in parts for c in columns):
        return False
    return all(isinstance(node, _PARTITION_CONDITION) for node in condition.walk())


def update(ctx: Context, ident: Identifier, statement: exp.Update) -> Relation:
    """UPDATE t SET c = expr, … [WHERE …]."""
    table = write_table(ctx, ident, statement, "UPDATE")
    drop_alias(statement, ident.table)
    schema = table.latest_schema
    if not statement.expressions:
        raise SqlError(f"syntax error: {table.name} is updated without SET column = value")
    refuse_returning(statement, "UPDATE")
    sets = {}
    for eq in assignments(statement.expressions, table.name, "UPDATE"):
        name = field_named(table, eq.this.name, "UPDATE of")
        if name in sets:
            raise SqlError(
                f'Multiple assignments to same column "{eq.this.name}" in UPDATE of '
                f"{table.name}: assign each column once"
            )
        value = eq.expression
        if (
            name in schema.primary_keys
            and isinstance(value, exp.Column)
            and _field_or_none(table, value.name) == name
            and value.table.lower() in ("", ident.table.lower())
        ):
            continue  # SET k = k: the key keeps its value (Java allows it)
        if name in schema.primary_keys:
            # as Java's: a partition column outside the key may change (the row moves partition)
            raise SchemaError(f"UPDATE cannot change primary-key column {name!r} of {table.name}")
        if eq.expression is None:  # UPDATE t SET v (cut short): sqlglot leaves the value out
            raise SqlError(f"the new value of column {name!r} is missing: SET {name} = <value>")
        sets[name] = eq.expression
    where = statement.args.get("where")
    if not schema.primary_keys:
        if uses_vectors(table):
            check_writable(table)
            refuse_row_rewrite(schema.options, table.name, "UPDATE")
            try:
                return count(ctx, mark_rows(ctx, ident, table, where, sets))
            except BAD_VALUE as err:  # as `write_rows` reports a value that does not fit
                first = str(err).splitlines()[0]
                raise SchemaError(f"cannot write to table {table.name}: {first}") from err
        return count(ctx, _copy_on_write(ctx, ident, table, where, sets))
    row_level_supported(table, "UPDATE")
    outputs = [
        exp.alias_(exp.cast(sets[f.name].copy(), duckdb_type_node(f.type)), f.name, quoted=True)
        if f.name in sets
        else exp.column(f.name, quoted=True)
        for f in schema.fields
    ]
    select = exp.select(*outputs).from_(table_node(ident.database, ident.table))
    if where is not None:
        select = select.where(where.this)
    read_at = read_before(table)
    ctx.bind(select)
    return count(ctx, write_rows(ctx, table, select, kind=UPDATE_AFTER, read_at=read_at))


def refuse_returning(statement: exp.Expression, what: str) -> None:
    """``UPDATE`` / ``DELETE … RETURNING`` (`what`) on a Paimon table: refused by name."""
    if statement.args.get("returning") is not None:
        raise UnsupportedFeatureError(
            f"{what} … RETURNING on a Paimon table is not supported (INSERT … RETURNING is); "
            f"run a SELECT of the rows before the {what}"
        )


#: The `exp.Merge.meta` key `update_from_as_merge` sets (its errors name the UPDATE).
UPDATE_FROM = "paimon_sql.update_from"


def update_from_as_merge(statement: exp.Update) -> exp.Merge:
    """``UPDATE t SET … FROM s WHERE c`` as ``MERGE INTO t USING s ON c WHEN MATCHED THEN UPDATE``.

    One source (a table or an aliased subquery); several are refused, naming the way to join
    them first. Without WHERE every target row matches every source row.

    >>> import sqlglot
    >>> text = "UPDATE d.t SET v = s.v FROM d.s AS s WHERE t.k = s.k"
    >>> update_from_as_merge(sqlglot.parse_one(text, read="duckdb")).sql("duckdb")
    'MERGE INTO d.t USING d.s AS s ON t.k = s.k WHEN MATCHED THEN UPDATE SET v = s.v'
    """
    refuse_returning(statement, "UPDATE")
    source = statement.args["from_"].this
    if source.args.get("joins") or len(statement.args["from_"].expressions) > 0:
        raise UnsupportedFeatureError(
            "UPDATE … FROM of several tables on a Paimon table is not supported; join them in "
            "one subquery: UPDATE t SET … FROM (SELECT … FROM a JOIN b ON …) AS s WHERE …"
        )
    where = statement.args.get("where")
    merge = exp.Merge(
        this=statement.this,
        using=source,
        on=where.this if where is not None else exp.true(),
        whens=exp.Whens(
            expressions=[exp.When(matched=True, then=exp.Update(expressions=statement.expressions))]
        ),
    )
    merge.meta[UPDATE_FROM] = True
    return merge


def delete_using_as_exists(statement: exp.Delete) -> exp.Delete:
    """``DELETE FROM t USING s … WHERE c`` as ``DELETE FROM t WHERE EXISTS (SELECT 1 FROM s …)``.

    A target row goes when any combination of the USING tables meets the condition `c`, which
    becomes the subquery's WHERE: DuckDB's meaning, several matches included.

    >>> import sqlglot
    >>> text = "DELETE FROM d.t USING d.s, d.u WHERE t.k = s.k AND s.k = u.k"
    >>> delete_using_as_exists(sqlglot.parse_one(text, read="duckdb")).sql("duckdb")
    'DELETE FROM d.t WHERE EXISTS(SELECT 1 FROM d.s, d.u WHERE t.k = s.k AND s.k = u.k)'
    """
    refuse_returning(statement, "DELETE")
    first, *rest = statement.args["using"]
    query = exp.select("1").from_(first)
    for other in rest:
        query = query.join(other)
    where = statement.args.get("where")
    if where is not None:
        query = query.where(where.this)
    return exp.Delete(this=statement.this, where=exp.Where(this=exp.Exists(this=query)))


def _copy_on_write(
    ctx: Context,
    ident: Identifier,
    table: Table,
    where: exp.Where | None,
    sets: dict[str, exp.Expression] | None,
) -> int:
    """Append tables: rewrite the affected partitions without the deleted or with updated rows.

    The files live before the statement reads are pinned: if a concurrent commit adds or replaces a
    file in a partition this statement rewrites, the commit fails (Java's conflict on files it did
    not read) instead of overwriting rows it never saw.
    """
    schema = table.latest_schema
    refuse_row_rewrite(schema.options, table.name, "DELETE" if sets is None else "UPDATE")
    pinned = live_files(table)
    name = table_node(ident.database, ident.table)
    cond = where.this if where is not None else exp.true()
    affected = exp.select(exp.Count(this=exp.Star())).from_(name.copy()).where(cond.copy())
    ctx.bind(affected)
    (count,) = ctx.engine.con.sql(affected.sql("duckdb")).fetchall()[0]
    if not count:
        return 0
    parts = list(schema.partition_keys)
    if sets is None:
        kept = (
            exp.select(*[exp.column(f.name, quoted=True) for f in schema.fields])
            .from_(name.copy())
            .where(exp.not_(exp.func("COALESCE", cond.copy(), exp.false())))
        )
    else:
        outputs = [
            exp.alias_(
                exp.If(
                    this=exp.func("COALESCE", cond.copy(), exp.false()),
                    true=exp.cast(sets[f.name].copy(), duckdb_type_node(f.type)),
                    false=exp.column(f.name, quoted=True),
                ),
                f.name,
                quoted=True,
            )
            if f.name in sets
            else exp.column(f.name, quoted=True)
            for f in schema.fields
        ]
        kept = exp.select(*outputs).from_(name.copy())
    touched: set[bytes] | None = None
    if parts:
        part_types = [schema.field(p).type for p in parts]
        query = (
            exp.select(*[exp.column(p, quoted=True) for p in parts])
            .from_(name.copy())
            .where(cond.copy())
            .distinct()
        )
        ctx.bind(query)
        touched = {
            encode_row(row, part_types)
            for row in ctx.engine.con.sql(query.sql("duckdb")).fetchall()
        }
        in_touched = (
            exp.Tuple(expressions=[exp.column(p, quoted=True) for p in parts])
            if len(parts) > 1
            else exp.column(parts[0], quoted=True)
        )
        values = ctx.engine.con.sql(query.sql("duckdb")).fetchall()
        options = [
            exp.Tuple(expressions=[lit(v) for v in row]) if len(parts) > 1 else lit(row[0])
            for row in values
        ]
        kept = kept.where(exp.In(this=in_touched, expressions=options))
    ctx.bind(kept)
    write_rows(ctx, table, kept, overwrite=lambda _m: pinned_overwrite(table, pinned, touched))
    return int(count)


def live_files(table: Table) -> set[tuple[Any, ...]]:
    """Identifiers of the latest snapshot's live data files."""

    def live(snapshot: Snapshot | None) -> set[tuple[Any, ...]]:
        metas = table.data_manifests(snapshot)
        return set(fold(e for m in metas for e in table.manifest(m.file_name)))

    return on_latest(table, live)


def live_partitions(table: Table) -> set[bytes]:
    """The serialized partitions holding live data files in the latest snapshot."""

    def live(snapshot: Snapshot | None) -> set[bytes]:
        metas = table.data_manifests(snapshot)
        return {
            e.partition
            for e in fold(e for m in metas for e in table.manifest(m.file_name)).values()
        }

    return on_latest(table, live)


def pinned_overwrite(
    table: Table, pinned: set[tuple[Any, ...]], touched: set[bytes] | None
) -> Callable[[ManifestEntry], bool]:
    """Select the live files of the touched partitions at commit time.

    A file there that the statement did not read means a concurrent commit changed that partition.
    """

    def replaced(entry: ManifestEntry) -> bool:
        hit = touched is None or entry.partition in touched
        if hit and entry.identifier not in pinned:
            raise CommitConflictError(
                f"a concurrent commit changed {table.name} (file {entry.file.file_name}) while "
                "this "
                "DELETE/UPDATE rewrote its partition; no snapshot was made, run the statement again"
            )
        return hit

    return replaced


def lit(value: Any) -> exp.Expression:
    """A SQL constant for a partition value."""
    return literal(value)
