"""INSERT [OVERWRITE], DELETE and UPDATE on Paimon tables: a DuckDB query feeds `TableWriter`, `Committer` commits.

* INSERT INTO t [(cols)] <query | VALUES>: columns by position, or by name when listed (others NULL);
  each value cast to the column type, a value that does not fit is an error naming the column.
* INSERT OVERWRITE t [PARTITION (k = v, ...)] <query>: the whole table, the static partition, or (partitioned
  table, no PARTITION clause) the partitions the query writes (Spark's dynamic overwrite).
* DELETE FROM t WHERE …: primary-key tables get ``-D`` records of the matching rows; append tables are rewritten
  copy-on-write per partition.
* UPDATE t SET … WHERE …: primary-key tables get the updated rows as ``+U``; append tables copy-on-write.

Every statement commits one snapshot or none: on any failure its data files are deleted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pyarrow as pa
from sqlglot import exp

from paimon_sql.commit.publish import Committer
from paimon_sql.errors import SchemaError, SqlError
from paimon_sql.format.binary_row import encode_row
from paimon_sql.format.snapshot import CommitKind
from paimon_sql.read.build import literal
from paimon_sql.types import duckdb_type
from paimon_sql.write.writer import TableWriter

if TYPE_CHECKING:
    from paimon_sql.catalog import Identifier, Table
    from paimon_sql.commit.plan import CommitMessage
    from paimon_sql.format.manifest import ManifestEntry
    from paimon_sql.sql.relation import Relation
    from paimon_sql.sql.session import Session

ADD, UPDATE_AFTER, DELETE = 0, 2, 3


def _count(session: Session, n: int) -> Relation:
    return session.relation(lambda con: con.from_arrow(pa.table({"count": pa.array([n], pa.int64())})))


def _typed_select(table: Table, source: exp.Expression, columns: list[str] | None) -> exp.Select:
    """The input query with the table's columns, in order, cast to their types."""
    schema = table.latest_schema
    inner = "__paimon_src"
    names = columns
    src = exp.Subquery(this=source, alias=exp.TableAlias(this=exp.to_identifier(inner)))
    select = exp.select().from_(src)
    if names is None:
        return _positional(schema, source, select)
    unknown = [c for c in names if c not in schema.field_names]
    if unknown:
        raise SchemaError(
            f"unknown column(s) {', '.join(unknown)} for table {table.name}; columns: {', '.join(schema.field_names)}"
        )
    outputs = []
    for f in schema.fields:
        value: exp.Expression = exp.column(f.name, quoted=True) if f.name in names else exp.null()
        outputs.append(exp.alias_(exp.cast(value, duckdb_type(f.type)), f.name, quoted=True))
    return select.select(*outputs)


def _positional(schema: Any, source: exp.Expression, select: exp.Select) -> exp.Select:
    # Positional: rename the source's columns to #1..#n by wrapping in a VALUES-like alias list.
    n = len(schema.fields)
    alias = exp.TableAlias(
        this=exp.to_identifier("__paimon_src"),
        columns=[exp.to_identifier(f"__c{i}", quoted=True) for i in range(n)],
    )
    src = exp.Subquery(this=source, alias=alias)
    outputs = [
        exp.alias_(exp.cast(exp.column(f"__c{i}", quoted=True), duckdb_type(f.type)), f.name, quoted=True)
        for i, f in enumerate(schema.fields)
    ]
    return exp.select(*outputs).from_(src)


def _check_types(session: Session, table: Table, typed: exp.Select) -> None:
    """A value that does not fit its column is an error naming the column (before anything is written)."""
    try:
        session.con.sql(exp.select(exp.Count(this=exp.Star())).from_(typed.subquery()).sql("duckdb")).fetchall()
    except Exception as err:  # noqa: BLE001 - DuckDB's conversion error, re-raised with the column
        text = str(err)
        column = next((f.name for f in table.latest_schema.fields if f'"{f.name}"' in text or f" {f.name}" in text), None)
        hint = f" (column {column!r})" if column else ""
        raise SchemaError(f"cannot write to table {table.name}{hint}: {text.splitlines()[0]}") from err


def write_rows(
    session: Session,
    table: Table,
    typed: exp.Select,
    *,
    kind: int = ADD,
    overwrite: Any = None,
) -> int:
    """Write the rows of `typed` (the table's columns) and commit; the number of rows written."""
    writer = TableWriter(session.con, table)
    staged = writer.stage(typed.sql("duckdb"), kind)
    try:
        (rows,) = session.con.sql(
            exp.select(exp.Count(this=exp.Star())).from_(exp.to_table(exp.to_identifier(staged, quoted=True).sql("duckdb"))).sql("duckdb")
        ).fetchall()[0]
        messages = writer.write(staged)
        if overwrite is not None:
            overwrite = overwrite(messages)
        Committer(table).commit(messages, kind=CommitKind.APPEND, overwrite=overwrite)
    except BaseException:
        writer.abort()
        raise
    finally:
        writer.drop(staged)
    session.invalidate(table)
    return int(rows)


def insert(session: Session, ident: Identifier, statement: exp.Insert) -> Relation:
    """INSERT INTO / INSERT OVERWRITE."""
    table = session.table(ident)
    target = statement.this
    columns = None
    if isinstance(target, exp.Schema):
        columns = [c.name for c in target.expressions]
    source = statement.expression
    session.rewrite_sources(source)
    typed = _typed_select(table, source, columns)
    _check_types(session, table, typed)
    overwrite = None
    if statement.args.get("overwrite"):
        overwrite = _overwrite_filter(table, statement)
    return _count(session, write_rows(session, table, typed, overwrite=overwrite))


def _overwrite_filter(table: Table, statement: exp.Insert) -> Any:
    schema = table.latest_schema
    part_types = [schema.field(p).type for p in schema.partition_keys]
    partition = statement.find(exp.Partition)
    if partition is not None:
        fixed = {}
        for eq in partition.expressions:
            if isinstance(eq, exp.EQ):
                fixed[eq.this.name] = eq.expression.to_py() if hasattr(eq.expression, "to_py") else eq.expression.name
        unknown = set(fixed) - set(schema.partition_keys)
        if unknown:
            raise SqlError(f"PARTITION names non-partition column(s) {sorted(unknown)} of table {table.name}")

        def static(_: list[CommitMessage]) -> Any:
            from paimon_sql.format.binary_row import decode_row

            def replaced(e: ManifestEntry) -> bool:
                values = dict(zip(schema.partition_keys, decode_row(e.partition, part_types), strict=True))
                return all(str(values[k]) == str(v) for k, v in fixed.items())

            return replaced

        return static
    if not schema.partition_keys:
        return lambda _messages: (lambda _e: True)

    def dynamic(messages: list[CommitMessage]) -> Any:
        written = {m.partition for m in messages}
        return lambda e: e.partition in written

    return dynamic


def delete(session: Session, ident: Identifier, statement: exp.Delete) -> Relation:
    """DELETE FROM t [WHERE …]."""
    table = session.table(ident)
    schema = table.latest_schema
    where = statement.args.get("where")
    if not schema.primary_keys:
        return _count(session, _copy_on_write(session, table, where, None))
    select = exp.select(*[exp.column(f.name, quoted=True) for f in schema.fields]).from_(
        exp.to_table(f"{ident.database}.{ident.table}")
    )
    if where is not None:
        select = select.where(where.this)
    session.rewrite_sources(select)
    return _count(session, write_rows(session, table, select, kind=DELETE))


def update(session: Session, ident: Identifier, statement: exp.Update) -> Relation:
    """UPDATE t SET c = expr, … [WHERE …]."""
    table = session.table(ident)
    schema = table.latest_schema
    sets = {}
    for eq in statement.expressions:
        name = eq.this.name
        if name not in schema.field_names:
            raise SchemaError(f"unknown column {name!r} in UPDATE of {table.name}; columns: {', '.join(schema.field_names)}")
        if name in schema.primary_keys or name in schema.partition_keys:
            raise SchemaError(f"UPDATE cannot change primary-key or partition column {name!r} of {table.name}")
        sets[name] = eq.expression
    where = statement.args.get("where")
    if not schema.primary_keys:
        return _count(session, _copy_on_write(session, table, where, sets))
    outputs = [
        exp.alias_(exp.cast(sets[f.name].copy(), duckdb_type(f.type)), f.name, quoted=True)
        if f.name in sets
        else exp.column(f.name, quoted=True)
        for f in schema.fields
    ]
    select = exp.select(*outputs).from_(exp.to_table(f"{ident.database}.{ident.table}"))
    if where is not None:
        select = select.where(where.this)
    session.rewrite_sources(select)
    _check_types(session, table, select)
    return _count(session, write_rows(session, table, select, kind=UPDATE_AFTER))


def _copy_on_write(session: Session, table: Table, where: exp.Where | None, sets: dict[str, exp.Expression] | None) -> int:
    """Append tables: rewrite the affected partitions without (DELETE) or with changed (UPDATE) rows."""
    schema = table.latest_schema
    name = exp.to_table(table.name)
    cond = where.this if where is not None else exp.true()
    affected = exp.select(exp.Count(this=exp.Star())).from_(name.copy()).where(cond.copy())
    session.rewrite_sources(affected)
    (count,) = session.con.sql(affected.sql("duckdb")).fetchall()[0]
    if not count:
        return 0
    parts = list(schema.partition_keys)
    if sets is None:
        kept = exp.select(*[exp.column(f.name, quoted=True) for f in schema.fields]).from_(name.copy()).where(
            exp.not_(exp.func("COALESCE", cond.copy(), exp.false()))
        )
    else:
        outputs = [
            exp.alias_(
                exp.If(this=exp.func("COALESCE", cond.copy(), exp.false()), true=exp.cast(sets[f.name].copy(), duckdb_type(f.type)), false=exp.column(f.name, quoted=True)),
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
        query = exp.select(*[exp.column(p, quoted=True) for p in parts]).from_(name.copy()).where(cond.copy()).distinct()
        session.rewrite_sources(query)
        touched = {encode_row(row, part_types) for row in session.con.sql(query.sql("duckdb")).fetchall()}
        in_touched = exp.Tuple(expressions=[exp.column(p, quoted=True) for p in parts]) if len(parts) > 1 else exp.column(parts[0], quoted=True)
        values = session.con.sql(query.sql("duckdb")).fetchall()
        options = [exp.Tuple(expressions=[_lit(v) for v in row]) if len(parts) > 1 else _lit(row[0]) for row in values]
        kept = kept.where(exp.In(this=in_touched, expressions=options))
    session.rewrite_sources(kept)
    replaced = (lambda _m: (lambda e: True)) if touched is None else (lambda _m: (lambda e: e.partition in touched))
    write_rows(session, table, kept, overwrite=replaced)
    return int(count)


def _lit(value: Any) -> exp.Expression:
    return literal(value)
