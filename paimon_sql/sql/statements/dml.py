"""INSERT [OVERWRITE], DELETE and UPDATE on Paimon tables.

A DuckDB query feeds `TableWriter`, `Committer` commits.

* INSERT INTO t [(cols)] <query | VALUES>: columns by position, or by name when listed (others
  NULL); each value cast to the column type, a value that does not fit is an error naming the
  column.
* INSERT OVERWRITE t [PARTITION (k = v, ...)] <query>: the whole table, the static partition, or
  (partitioned table, no PARTITION clause) the partitions the query writes (Spark's dynamic
  overwrite).
* DELETE FROM t WHERE …: primary-key tables get ``-D`` records of the matching rows; append tables
  are rewritten copy-on-write per partition.
* UPDATE t SET … WHERE …: primary-key tables get the updated rows as ``+U``; append tables
  copy-on-write.
* Merge engines that cannot apply those records refuse the statement before writing, as Java's Flink
  sink does (``PrimaryKeyTableUtils.validatePKUpsertDeletable``, ``applyRowLevelUpdate``): DELETE
  needs deduplicate, partial-update with ``partial-update.remove-record-on-delete`` (or
  ``.remove-record-on-sequence-group``), or aggregation with
  ``aggregation.remove-record-on-delete``; UPDATE needs deduplicate or partial-update.

Every statement commits one snapshot or none: on any failure its data files are deleted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import duckdb
import pyarrow as pa
from sqlglot import exp

from paimon_sql.commit.plan import fold
from paimon_sql.commit.publish import Committer
from paimon_sql.commit.retry import on_latest
from paimon_sql.compact.after_write import check_writable, compact_after_write
from paimon_sql.errors import CommitConflictError, SchemaError, SqlError, UnsupportedFeatureError
from paimon_sql.format.binary_row import encode_row
from paimon_sql.format.options import CoreOptions, MergeEngine
from paimon_sql.format.snapshot import CommitKind
from paimon_sql.read.build import literal
from paimon_sql.sqlnodes import table_node
from paimon_sql.types import RowKind, duckdb_type_node, type_sql
from paimon_sql.write.writer import RepeatedKeys, TableWriter

if TYPE_CHECKING:
    from collections.abc import Callable

    from paimon_sql.catalog import Identifier, Table
    from paimon_sql.commit.plan import CommitMessage
    from paimon_sql.engine.relation import Relation
    from paimon_sql.format.manifest import ManifestEntry
    from paimon_sql.format.snapshot import Snapshot
    from paimon_sql.sql._context import Context

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
    targets = columns if columns is not None else list(schema.field_names)
    unknown = [c for c in targets if c not in schema.field_names]
    if unknown:
        raise SchemaError(
            f"unknown column(s) {', '.join(unknown)} for table {table.name}; "
            f"columns: {', '.join(schema.field_names)}"
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
        outputs.append(exp.alias_(exp.cast(raw, duckdb_type_node(f.type)), f.name, quoted=True))
    return exp.select(*outputs).from_(exp.Subquery(this=source, alias=alias))


def _diagnose(ctx: Context, table: Table, typed: exp.Select, err: Exception) -> SchemaError:
    """Which column a value did not fit, and the value (DuckDB's conversion error names neither)."""
    for output in typed.expressions:
        cast_node = output.this
        if not isinstance(cast_node, exp.Cast) or isinstance(cast_node.this, exp.Null):
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
    kind: RowKind = ADD,
    overwrite: Any = None,
) -> int:
    """Write the rows of `typed` (the table's columns) and commit; the number of rows written."""
    check_writable(table)
    writer = TableWriter(ctx.engine.con, table)
    committer = Committer(table)
    try:
        messages, rows = _write_files(writer, typed, kind)
        if overwrite is not None:
            overwrite = overwrite(messages)
        written = committer.commit(messages, kind=CommitKind.APPEND, overwrite=overwrite)
    except _BAD_VALUE as err:
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


#: DuckDB's errors for a value that does not fit its column (`_diagnose` names the column).
_BAD_VALUE = (duckdb.ConversionException, duckdb.InvalidInputException, duckdb.OutOfRangeException)


def _write_files(
    writer: TableWriter, source: exp.Expression, kind: RowKind
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
    """INSERT INTO / INSERT OVERWRITE."""
    table = ctx.table(ident)
    target = statement.this
    columns = None
    if isinstance(target, exp.Schema):
        columns = [c.name for c in target.expressions]
    source = statement.expression
    if source is None:
        raise SqlError(f"no rows to write to {table.name}: add VALUES (…) or a SELECT query")
    ctx.bind(source)
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
        overwrite = _overwrite_filter(table, statement)
    return count(ctx, write_rows(ctx, table, typed, overwrite=overwrite))


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


def _width(ctx: Context, source: exp.Expression) -> int:
    """How many columns the query gives (bound, not run)."""
    alias = exp.TableAlias(this=exp.to_identifier("__paimon_w"))
    probe = exp.select(exp.Star()).from_(exp.Subquery(this=source.copy(), alias=alias)).limit(0)
    return len(ctx.engine.con.sql(probe.sql("duckdb")).columns)


def _check_width(
    ctx: Context, table: Table, source: exp.Expression, columns: list[str] | None
) -> None:
    """The query must give exactly one value per target column.

    DuckDB would silently drop extra ones (and an extra value once landed in the partition column of
    a static PARTITION insert).
    """
    targets = columns if columns is not None else list(table.latest_schema.field_names)
    width = _width(ctx, source)
    if width != len(targets):
        raise SqlError(
            f"INSERT into {table.name}: the query gives {width} column(s), the table takes "
            f"{len(targets)} ({', '.join(targets)})"
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
                    expression=exp.cast(v.copy(), duckdb_type_node(schema.field(k).type)),
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


def _overwrite_filter(table: Table, statement: exp.Insert) -> Any:
    schema = table.latest_schema
    part_types = [schema.field(p).type for p in schema.partition_keys]
    partition = statement.find(exp.Partition)
    if partition is not None:
        fixed = {}
        for eq in partition.expressions:
            if isinstance(eq, exp.EQ):
                fixed[eq.this.name] = _partition_value(eq.expression)
        unknown = set(fixed) - set(schema.partition_keys)
        if unknown:
            raise SqlError(
                f"PARTITION names non-partition column(s) {sorted(unknown)} of table {table.name}"
            )

        def static(_: list[CommitMessage]) -> Any:
            from paimon_sql.format.binary_row import decode_row

            def replaced(e: ManifestEntry) -> bool:
                values = dict(
                    zip(schema.partition_keys, decode_row(e.partition, part_types), strict=True)
                )
                return all(str(values[k]) == str(v) for k, v in fixed.items())

            return replaced

        return static
    if not schema.partition_keys:
        return lambda _messages: lambda _e: True

    def dynamic(messages: list[CommitMessage]) -> Any:
        written = {m.partition for m in messages}
        return lambda e: e.partition in written

    return dynamic


def _row_level_supported(table: Table, operation: str) -> None:
    """Refuse DELETE/UPDATE where the merge engine cannot apply ``-D``/``+U`` records.

    These are Flink's checks.

    Without it a DELETE on partial-update or aggregation (``max``...) commits a retraction that
    every later read and compaction fails on, and one on first-row is reported but has no effect.
    """
    options = CoreOptions(table.latest_schema.options)
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
    table = ctx.table(ident)
    schema = table.latest_schema
    where = statement.args.get("where")
    if not schema.primary_keys:
        return count(ctx, _copy_on_write(ctx, ident, table, where, None))
    _row_level_supported(table, "DELETE")
    select = exp.select(*[exp.column(f.name, quoted=True) for f in schema.fields]).from_(
        table_node(ident.database, ident.table)
    )
    if where is not None:
        select = select.where(where.this)
    ctx.bind(select)
    return count(ctx, write_rows(ctx, table, select, kind=DELETE))


def update(ctx: Context, ident: Identifier, statement: exp.Update) -> Relation:
    """UPDATE t SET c = expr, … [WHERE …]."""
    table = ctx.table(ident)
    schema = table.latest_schema
    sets = {}
    for eq in statement.expressions:
        name = eq.this.name
        if name not in schema.field_names:
            raise SchemaError(
                f"unknown column {name!r} in UPDATE of {table.name}; columns: "
                f"{', '.join(schema.field_names)}"
            )
        if name in schema.primary_keys or name in schema.partition_keys:
            raise SchemaError(
                f"UPDATE cannot change primary-key or partition column {name!r} of {table.name}"
            )
        sets[name] = eq.expression
    where = statement.args.get("where")
    if not schema.primary_keys:
        return count(ctx, _copy_on_write(ctx, ident, table, where, sets))
    _row_level_supported(table, "UPDATE")
    outputs = [
        exp.alias_(exp.cast(sets[f.name].copy(), duckdb_type_node(f.type)), f.name, quoted=True)
        if f.name in sets
        else exp.column(f.name, quoted=True)
        for f in schema.fields
    ]
    select = exp.select(*outputs).from_(table_node(ident.database, ident.table))
    if where is not None:
        select = select.where(where.this)
    ctx.bind(select)
    return count(ctx, write_rows(ctx, table, select, kind=UPDATE_AFTER))


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
    pinned = _live_files(table)
    schema = table.latest_schema
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
            exp.Tuple(expressions=[_lit(v) for v in row]) if len(parts) > 1 else _lit(row[0])
            for row in values
        ]
        kept = kept.where(exp.In(this=in_touched, expressions=options))
    ctx.bind(kept)
    write_rows(ctx, table, kept, overwrite=lambda _m: _pinned_overwrite(table, pinned, touched))
    return int(count)


def _live_files(table: Table) -> set[tuple[Any, ...]]:
    """Identifiers of the latest snapshot's live data files."""

    def live(snapshot: Snapshot | None) -> set[tuple[Any, ...]]:
        metas = table.data_manifests(snapshot)
        return set(fold(e for m in metas for e in table.manifest(m.file_name)))

    return on_latest(table, live)


def _pinned_overwrite(
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


def _lit(value: Any) -> exp.Expression:
    return literal(value)
