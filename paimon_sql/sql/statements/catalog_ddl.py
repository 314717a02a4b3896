"""Catalog statements on Paimon objects.

CREATE/DROP DATABASE, CREATE TABLE [AS SELECT], DROP/TRUNCATE TABLE [… PARTITION], ALTER TABLE and
COMMENT ON (each change a new ``schema-N``; none when nothing changes), SHOW CREATE TABLE. IF [NOT]
EXISTS forms report what they did, also when they did nothing.

A statement is Paimon's when it names a database of the warehouse (``db.table``, or a bare
``table`` after ``USE db``): then CREATE TABLE makes a Paimon table with or without WITH options;
CREATE/DROP DATABASE and SCHEMA act on the warehouse (but ``CREATE SCHEMA other_catalog.s``).
Anything else (``memory.main.t``, a TEMP table, a bare name while DuckDB's ``main`` is current)
stays DuckDB's; a database neither has (``nope.t``) is named as missing. Options paimon-sql does
not implement, and primary keys needing cross-partition upserts, are refused at CREATE/ALTER; every
write is refused inside an explicit transaction.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import replace
from typing import TYPE_CHECKING

import pyarrow as pa
from sqlglot import exp

from paimon_sql.catalog import Identifier
from paimon_sql.catalog.schema_change import (
    AlterTable,
    RenameTable,
    SetOptions,
    UpdateColumnComment,
    UpdateComment,
    apply_alter,
)
from paimon_sql.commit.publish import Committer
from paimon_sql.errors import (
    AlreadyExistsError,
    DatabaseNotFoundError,
    OptionError,
    SqlError,
    UnsupportedFeatureError,
)
from paimon_sql.format import format_options
from paimon_sql.format.option_registry import refuse_unimplemented
from paimon_sql.format.partition import PartitionLayout
from paimon_sql.format.snapshot import CommitKind
from paimon_sql.sql.ddl import (
    parse_alter_table,
    parse_create_table,
    with_fields,
)
from paimon_sql.sql.dialect import (
    create_table_name,
    is_alter_table,
    is_create_table,
    names_paimon_options,
)
from paimon_sql.sql.names import (
    current_database,
    database_of,
    refuse_in_transaction,
    refuse_system_table,
    refuse_unknown_database,
    table_of,
)
from paimon_sql.sql.statements import dml
from paimon_sql.types import from_duckdb_field, type_sql
from paimon_sql.write.data_file import check_file_options

if TYPE_CHECKING:
    from collections.abc import Sequence

    from paimon_sql.catalog import Table
    from paimon_sql.catalog.schema_change import SchemaChange
    from paimon_sql.engine.relation import Relation
    from paimon_sql.format.schema import TableSchema
    from paimon_sql.sql._context import Context
    from paimon_sql.sql.ddl import (
        CreateTable,
    )


def _status(ctx: Context, text: str) -> Relation:
    return ctx.engine.rows(pa.table({"status": [text]}))


def _create_database(ctx: Context, text: str) -> tuple[str | None, bool]:
    """The Paimon database a CREATE TABLE is for, and whether the name left it out.

    The database is None for DuckDB's own table; a name leaves it out when it is a bare name after
    ``USE db``.
    """
    parts = create_table_name(text)
    if len(parts) == 3:
        if parts[0] != ctx.engine.home:
            return None, False
        parts = parts[1:]
    if len(parts) == 2:
        return ctx.engine.database_named(parts[0]), False  # matched as DuckDB matches it
    return current_database(ctx), True


def _refuse_unknown_database(ctx: Context, text: str) -> None:
    """CREATE TABLE nope.t …: the missing database named, before the rest is read.

    Before: an option error of the rest (``'bucket' = '1'`` without a bucket key) would hide it.
    """
    parts = create_table_name(text)
    if len(parts) in (2, 3):
        node = exp.Table(
            this=exp.to_identifier(parts[-1]),
            db=exp.to_identifier(parts[-2]),
            catalog=exp.to_identifier(parts[0]) if len(parts) == 3 else None,
        )
        refuse_unknown_database(ctx, node)


def create_table(ctx: Context, text: str) -> Relation | None:
    """CREATE TABLE db.t (...) [PARTITIONED BY] WITH (...) | USING paimon ... [AS SELECT].

    The USING form takes its options from ``TBLPROPERTIES (...)``.

    Inside a Paimon database (``db.t``, or ``t`` after ``USE db``) the table is a Paimon table
    with or without options; DuckDB's own tables are made elsewhere (``memory.main.t``,
    ``CREATE TEMP TABLE``).
    """
    if not is_create_table(text):
        return None
    database, bare = _create_database(ctx, text)
    if database is None:
        _refuse_unknown_database(ctx, text)
    try:
        create = parse_create_table(text)
    except SqlError:
        if database is not None:
            # a table in a Paimon database: our DDL's error (an unknown type ...), not DuckDB's
            raise
        if not names_paimon_options(text):
            return None  # DuckDB's own CREATE TABLE
        raise
    if database is None:
        if names_paimon_options(text):
            named = create.identifier[0]  # a valid name was refused before (`no_database`)
            raise SqlError(
                f"database {named!r} does not exist in the warehouse; CREATE DATABASE {named} first"
                if named
                else "name the Paimon table with its database: CREATE TABLE db.table ..."
            )
        return None
    if bare:
        create = replace(create, identifier=(database, create.identifier[1]))
    return _create_paimon_table(ctx, Identifier(database, create.identifier[1]), create)


def _create_schema(
    ctx: Context, ident: Identifier, create: CreateTable, schema: TableSchema
) -> Relation | None:
    """Create `ident` with `schema` and expose it; the IF NOT EXISTS report if it exists by now.

    Another session may create the table between the caller's existence check and this commit.
    """
    _refuse_unwritable_files(schema)
    try:
        ctx.catalog.create_table(ident, schema)
    except AlreadyExistsError:
        if not create.if_not_exists:
            raise
        return _exists(ctx, ident, create)  # made by another session meanwhile
    ctx.engine.reexpose(ident)
    return None


def _create_paimon_table(ctx: Context, ident: Identifier, create: CreateTable) -> Relation:
    """The Paimon table `ident` of a CREATE TABLE [AS SELECT] (see `create_table`)."""
    refuse_in_transaction(ctx, "CREATE TABLE", ident)
    _refuse_unwritable(create, ident)
    existing = _same_to_duckdb(ctx, ident.database, ident.table)
    if existing and create.if_not_exists:
        return _exists(ctx, Identifier(ident.database, existing[0]), create)
    if existing and existing != [ident.table]:
        raise AlreadyExistsError(
            f"table {ident.database}.{existing[0]} exists, and DuckDB's names ignore case: "
            f"{ident} would be the same name to it; choose another name"
        )
    if create.as_select is not None and not create.fields:
        return _create_as_select(ctx, ident, create)
    schema = create.to_schema(time_millis=int(time.time() * 1000))
    exists = _create_schema(ctx, ident, create, schema)
    if exists is not None:
        return exists
    if create.as_select is not None:
        table = ctx.table(ident)
        ctx.bind(create.as_select)
        rows = dml.write_rows(ctx, table, dml.typed_select(table, create.as_select, None))
        return dml.count(ctx, rows)
    return _status(ctx, f"created table {ident}")


def _exists(ctx: Context, ident: Identifier, create: CreateTable) -> Relation:
    """CREATE TABLE IF NOT EXISTS of a table that exists: nothing made, nothing written.

    As Spark's CREATE TABLE … AS SELECT: the query does not run.
    """
    done = "nothing written" if create.as_select is not None else "nothing created"
    return _status(ctx, f"table {ident} already exists; {done}")


def _refuse_unwritable(create: CreateTable, ident: Identifier) -> None:
    """Refuse, when the table is created, options and primary keys paimon-sql cannot write.

    Options paimon-sql does not implement, and primary keys it cannot write, are refused here
    rather than ignored, or failing at every INSERT (tables made by Flink or Spark with them stay
    readable).
    """
    keys = {"primary-key": ",".join(create.primary_keys)} if create.primary_keys else {}
    refuse_unimplemented(create.options, "CREATE TABLE", ident, merged={**keys, **create.options})


#: Option keys whose values decide how data files are written (`check_file_options`).
_FILE_KEYS = (
    "file.format", "file.compression", "file.block-size", "file-index.", "manifest.compression",
    *format_options.PREFIXES,
)  # fmt: skip


def _refuse_unwritable_files(schema: TableSchema) -> None:
    """Refuse a format / compression pair or file index options no write could honour.

    The writer's own check (`check_file_options`), so the table is refused when it is created or
    altered rather than at every INSERT; Java-written tables with such options stay readable.
    """
    check_file_options(schema)


def _refuse_renamed_partitions(table: Table, current: TableSchema, changed: TableSchema) -> None:
    """Refuse a change of how partition folders are named once the table has data.

    ``partition.default-name`` and ``partition.legacy-name`` name the folders of partitions
    already written: the files stay where they are, so readers (Java's too) would look in other
    folders and fail. Java accepts the change and then cannot read those partitions.
    """
    if not current.partition_keys or table.latest_snapshot_id() is None:
        return
    before, after = PartitionLayout.of(current), PartitionLayout.of(changed)
    if (before.default_name, before.legacy) == (after.default_name, after.legacy):
        return
    raise OptionError(
        f"ALTER TABLE {table.name}: 'partition.default-name' and 'partition.legacy-name' name the "
        "folders of the partitions already written, so they cannot change once the table has "
        "data; create a new table with the new value and copy the rows into it"
    )


def _create_as_select(ctx: Context, ident: Identifier, create: CreateTable) -> Relation:
    """CTAS without a column list.

    The columns and types come from the query (as values: the query's column names and the options
    never become SQL text).
    """
    assert create.as_select is not None
    query = create.as_select
    ctx.bind(query)
    relation = ctx.engine.con.sql(query.sql("duckdb"))  # binds the query, runs nothing
    ids = itertools.count()
    fields = []
    for name, kind in zip(relation.columns, relation.types, strict=True):
        try:
            fields.append(from_duckdb_field(name, kind, ids))
        except UnsupportedFeatureError as err:
            raise SqlError(
                f"CREATE TABLE {ident} AS SELECT: column {name!r}: {err} in the query "
                f"(CAST({name} AS <a Paimon type>); a UUID as STRING)"
            ) from err
    schema = with_fields(create, fields).to_schema(time_millis=int(time.time() * 1000))
    exists = _create_schema(ctx, ident, create, schema)
    if exists is not None:
        return exists
    table = ctx.table(ident)
    rows = dml.write_rows(ctx, table, dml.typed_select(table, query, None))
    return dml.count(ctx, rows)


def _sets_file_options(changes: Sequence[object]) -> bool:
    """Whether an ALTER TABLE sets an option of `_FILE_KEYS`.

    Only then are they checked: a table Java made with options paimon-sql cannot write may still
    be altered otherwise.
    """
    return any(
        key.startswith(_FILE_KEYS)
        for change in changes
        if isinstance(change, SetOptions)
        for key in change.options
    )


def alter_table(ctx: Context, text: str) -> Relation | None:
    """ALTER TABLE db.t …: one new schema file with every change (ids kept, never reused)."""
    if not is_alter_table(text):
        return None
    alter = parse_alter_table(text)
    written, name = alter.identifier
    node = exp.Table(
        this=exp.to_identifier(name), db=exp.to_identifier(written) if written else None
    )
    found = table_of(ctx, node)
    if found is None:
        return None  # DuckDB's own table, or a bare name of no Paimon table
    database, name = found
    refuse_system_table(database, name, "ALTER TABLE")
    alter = replace(alter, identifier=(database, name))
    return _alter(ctx, Identifier(database, name), alter)


def _alter(ctx: Context, ident: Identifier, alter: AlterTable) -> Relation:
    """Apply `alter` to the table's latest schema as its next schema (none when nothing changes)."""
    refuse_in_transaction(ctx, "ALTER TABLE", ident)
    if alter.if_exists and ident.table not in ctx.catalog.tables(ident.database):
        return _status(ctx, f"table {ident} does not exist; nothing altered")
    table = ctx.table(ident)
    for change in alter.changes:
        if isinstance(change, SetOptions):
            schema = table.latest_schema
            keys = {"primary-key": ",".join(schema.primary_keys)}
            merged = {**schema.options, **keys, **change.options}
            refuse_unimplemented(change.options, "ALTER TABLE", ident, merged=merged)
    renames = [c for c in alter.changes if isinstance(c, RenameTable)]
    targets = [_rename_target(ctx, ident, r) for r in renames]
    for _ in range(10):
        current = table.latest_schema
        changed = apply_alter(current, alter, time_millis=int(time.time() * 1000))
        if _sets_file_options(alter.changes):
            _refuse_unwritable_files(changed)
        _refuse_renamed_partitions(table, current, changed)
        if _same_schema(changed, current):
            if renames:
                break
            return _status(ctx, f"table {ident} is unchanged; no new schema (schema {current.id})")
        if table.commit_schema(changed):
            break
    else:
        raise SqlError(f"ALTER TABLE {ident}: other writers kept changing the schema; try again")
    for target in targets:
        ctx.catalog.rename_table(ident, target)
        ctx.engine.forget(ident)
        ctx.engine.reexpose(target)
        return _status(ctx, f"renamed {ident} to {target}")
    ctx.engine.reexpose(ident)
    return _status(ctx, f"altered table {ident} (schema {table.latest_schema.id})")


def _same_to_duckdb(ctx: Context, database: str, name: str) -> list[str]:
    """The tables of `database` DuckDB would take for `name`: equal to it but for case (or not)."""
    return [t for t in ctx.catalog.tables(database) if t.lower() == name.lower()]


def _rename_target(ctx: Context, ident: Identifier, rename: RenameTable) -> Identifier:
    """The new name of ``ALTER TABLE ident RENAME TO …``.

    Refused before anything changes when another table's name differs from it only in case
    (DuckDB would take them for one name).
    """
    written, name = rename.identifier
    database = (ctx.engine.database_named(written) or written) if written else ident.database
    target = Identifier(database, name)
    if ctx.catalog.has_database(database):
        same = _same_to_duckdb(ctx, database, name)
        twins = [t for t in same if t != name and Identifier(database, t) != ident]
        if twins:
            raise AlreadyExistsError(
                f"ALTER TABLE {ident} RENAME TO {target}: table {database}.{twins[0]} exists, and "
                "DuckDB's names ignore case; choose another name"
            )
    return target


def _same_schema(changed: TableSchema, current: TableSchema) -> bool:
    """Whether `changed` has what `current` has (only its id and time differ)."""
    return (
        changed.fields == current.fields
        and dict(changed.options) == dict(current.options)
        and changed.comment == current.comment
        and changed.primary_keys == current.primary_keys
        and changed.partition_keys == current.partition_keys
    )


def comment_on(ctx: Context, statement: exp.Comment) -> Relation | None:
    """COMMENT [IF EXISTS] ON TABLE db.t | COLUMN db.t.c IS '…': the table's or column's comment.

    Stored as Paimon stores them, in the next schema: the table's ``comment`` and the field's
    ``description`` (what Flink's and Spark's ALTER TABLE … COMMENT write).
    """
    kind = str(statement.args.get("kind") or "").upper()
    target = statement.this
    if kind == "COLUMN" and isinstance(target, exp.Column):
        node = exp.Table(this=target.args.get("table"), db=target.args.get("db"))
    elif isinstance(target, exp.Table):
        node = target
    else:
        return None
    found = table_of(ctx, node) if node.this is not None else None
    if found is None:
        return None  # DuckDB's own table or view
    database, name = found
    if kind not in ("TABLE", "COLUMN"):
        raise UnsupportedFeatureError(
            f"COMMENT ON {kind} {database}.{name}: a Paimon database holds only tables; "
            "write COMMENT ON TABLE or COMMENT ON COLUMN"
        )
    refuse_system_table(database, name, f"COMMENT ON {kind}")
    ident = Identifier(database, name)
    if statement.args.get("exists") and ident.table not in ctx.catalog.tables(database):
        return _status(ctx, f"table {ident} does not exist; no comment set")
    text = statement.expression
    comment = None if text is None or isinstance(text, exp.Null) else text.name
    change: SchemaChange = (
        UpdateColumnComment(target.name, comment) if kind == "COLUMN" else UpdateComment(comment)
    )
    return _alter(ctx, ident, AlterTable(identifier=(database, ident.table), changes=(change,)))


def _name(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _text(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def show_create_table(ctx: Context, ident: Identifier) -> Relation:
    """The Flink-form DDL of a table's latest schema.

    For reading, not re-parsed by us; names and values quoted so that it parses back as the same
    table.
    """
    schema = ctx.table(ident).latest_schema
    lines = [
        f"  {_name(f.name)} {type_sql(f.type)}"
        + ("" if f.description is None else f" COMMENT {_text(f.description)}")
        for f in schema.fields
    ]
    if schema.primary_keys:
        keys = ", ".join(_name(k) for k in schema.primary_keys)
        lines.append(f"  PRIMARY KEY ({keys}) NOT ENFORCED")
    columns = ",\n".join(lines)
    text = f"CREATE TABLE {_name(ident.database)}.{_name(ident.table)} (\n{columns}\n)"
    if schema.comment:
        text += f" COMMENT {_text(schema.comment)}"
    if schema.partition_keys:
        text += "\nPARTITIONED BY (" + ", ".join(_name(k) for k in schema.partition_keys) + ")"
    if schema.options:
        options = ",\n".join(f"  {_text(k)} = {_text(v)}" for k, v in schema.options.items())
        text += f"\nWITH (\n{options}\n)"
    return ctx.engine.rows(pa.table({"createtab_stmt": [text]}))


def database_statement(ctx: Context, statement: exp.Expression) -> Relation | None:
    """CREATE DATABASE/SCHEMA, DROP DATABASE/SCHEMA, DROP TABLE, TRUNCATE TABLE."""
    kind = str(statement.args.get("kind") or "").upper()
    if isinstance(statement, exp.Create) and kind in ("DATABASE", "SCHEMA"):
        return _create_database_statement(ctx, statement, kind)
    if isinstance(statement, exp.Drop) and kind in ("DATABASE", "SCHEMA"):
        node = statement.this or (statement.args.get("tables") or [None])[0]
        name = _database_name(ctx, node)
        if name is None or (name not in ctx.catalog.databases() and name in ("main", "temp")):
            return None
        refuse_in_transaction(ctx, "DROP DATABASE", name)
        try:
            ctx.catalog.drop_database(name, cascade=bool(statement.args.get("cascade")))
        except DatabaseNotFoundError:
            if not statement.args.get("exists"):
                raise
            return _status(ctx, f"database {name} does not exist; nothing dropped")
        ctx.engine.forget_database(name)
        return _status(ctx, f"dropped database {name}")
    if isinstance(statement, exp.Drop) and kind == "TABLE":
        return _drop_tables(ctx, statement)
    if isinstance(statement, exp.Create) and kind == "TABLE":
        _refuse_table_kind(ctx, statement)
    if isinstance(statement, exp.TruncateTable):
        return _truncate(ctx, statement)
    return None


def _database_name(ctx: Context, node: exp.Expression | None) -> str | None:
    """The database of CREATE/DROP DATABASE|SCHEMA; None for a schema of another DuckDB catalog.

    sqlglot keeps ``DATABASE x``'s name as the table part and ``SCHEMA x``'s as the db part.
    """
    if not isinstance(node, exp.Table):
        return None
    if node.catalog and node.catalog != ctx.engine.home:
        return None  # ``CREATE SCHEMA other.s``: DuckDB's
    return node.name or node.db or None


#: What ``CREATE DATABASE`` clauses would store, which Paimon's filesystem catalog cannot (Java's
#: ``FileSystemCatalog`` refuses a location and drops properties with a warning).
_DATABASE_CLAUSES = {
    exp.LocationProperty: "LOCATION: a database of the warehouse is its folder <name>.db there",
    exp.SchemaCommentProperty: "COMMENT: Paimon's filesystem catalog cannot store a database "
    "comment",
}


def _create_database_statement(ctx: Context, statement: exp.Create, kind: str) -> Relation | None:
    """CREATE DATABASE|SCHEMA [IF NOT EXISTS] name: the folder ``<name>.db`` in the warehouse."""
    name = _database_name(ctx, statement.this)
    if name is None:
        return None
    props = statement.args.get("properties")
    for prop in props.expressions if props else ():
        why = _DATABASE_CLAUSES.get(type(prop))
        if why is None:
            why = (
                f"properties ({prop.sql('duckdb')}): Paimon's filesystem catalog cannot store "
                "database properties"
            )
        raise UnsupportedFeatureError(
            f"CREATE {kind} {name} … {why}; write CREATE DATABASE {name} alone"
        )
    refuse_in_transaction(ctx, "CREATE DATABASE", name)
    try:
        ctx.catalog.create_database(name)
    except AlreadyExistsError:
        if not statement.args.get("exists"):
            raise
        return _status(ctx, f"database {name} already exists; nothing created")
    ctx.engine.expose_database(name)
    return _status(ctx, f"created database {name}")


#: CREATE <kind> TABLE forms (sqlglot's property) a Paimon database cannot hold, and why.
_TABLE_KINDS = {
    exp.TemporaryProperty: (
        "TEMPORARY",
        "a Paimon table is stored in the warehouse and outlives the session; create the "
        "temporary table in DuckDB (CREATE TEMP TABLE name …, without the Paimon database)",
    ),
    exp.ExternalProperty: (
        "EXTERNAL",
        "a Paimon table's files are always its own, in its folder of the warehouse; leave "
        "EXTERNAL out",
    ),
}


def _refuse_table_kind(ctx: Context, statement: exp.Create) -> None:
    """CREATE TEMPORARY | EXTERNAL TABLE db.t in a Paimon database: refused, naming the word."""
    target = statement.this.this if isinstance(statement.this, exp.Schema) else statement.this
    if not isinstance(target, exp.Table) or not target.db:
        return  # a bare name: DuckDB's TEMP table
    database = database_of(ctx, target)
    props = statement.args.get("properties")
    for prop in props.expressions if props is not None and database is not None else ():
        if type(prop) in _TABLE_KINDS:
            word, why = _TABLE_KINDS[type(prop)]
            raise UnsupportedFeatureError(
                f"CREATE {word} TABLE {database}.{target.name}: {database} is a Paimon database "
                f"and {why}"
            )


def database_command(ctx: Context, statement: exp.Command) -> None:
    """Refuse a CREATE DATABASE | SCHEMA sqlglot could not read (``WITH DBPROPERTIES (…)`` …).

    Every CREATE DATABASE acts on the warehouse: DuckDB's parser error about the clause would not
    say that Paimon cannot store it.
    """
    rest = statement.expression
    text = rest.name if isinstance(rest, exp.Expression) else str(rest or "")
    words = text.split(None, 1)
    if (
        str(statement.this).upper() == "CREATE"
        and words
        and words[0].upper()
        in (
            "DATABASE",
            "SCHEMA",
        )
    ):
        raise UnsupportedFeatureError(
            f"CREATE {text.strip()[:80]}: paimon-sql reads CREATE DATABASE [IF NOT EXISTS] name; "
            "Paimon's filesystem catalog cannot store database properties, a comment or a "
            "location"
        )


def _drop_tables(ctx: Context, statement: exp.Drop) -> Relation | None:
    """DROP TABLE [IF EXISTS] db.t [, …]: every table checked before the first is dropped."""
    nodes = statement.args.get("tables") or [statement.this]
    found = [
        (name, database)
        for n in nodes
        if isinstance(n, exp.Table) and (named := table_of(ctx, n)) is not None
        for database, name in [named]
    ]
    if not found:
        return None
    for name, database in found:
        refuse_system_table(database, name, "DROP TABLE")
    targets = [Identifier(database, name) for name, database in found]
    if statement.args.get("cascade"):
        raise UnsupportedFeatureError(
            f"DROP TABLE {', '.join(map(str, targets))} CASCADE is not supported: paimon-sql "
            "does not drop what depends on a Paimon table (DuckDB views over it); drop those "
            "first, then DROP TABLE without CASCADE"
        )
    refuse_in_transaction(ctx, "DROP TABLE", ", ".join(map(str, targets)))
    missing = [i for i in targets if i.table not in ctx.catalog.tables(i.database)]
    if missing and not statement.args.get("exists"):
        ctx.table(missing[0])  # TableNotFoundError naming it and its database's tables
    done = []
    for ident in targets:
        if ident in missing:
            done.append(f"table {ident} does not exist; nothing dropped")
            continue
        ctx.catalog.drop_table(ident, ignore_if_missing=True)
        ctx.engine.forget(ident)
        done.append(f"dropped table {ident}")
    return _status(ctx, "; ".join(done))


#: TRUNCATE clauses of other databases (sqlglot's argument, how it is written) and why a Paimon
#: table has no use for them.
_TRUNCATE_CLAUSES = {
    "option": ("{}", "Paimon tables have no foreign keys to cascade to or check"),
    "identity": ("{} IDENTITY", "Paimon tables have no identity columns"),
    "cluster": ("{}", "a Paimon table is one table in the warehouse, not one per cluster node"),
}


def _truncate(ctx: Context, statement: exp.TruncateTable) -> Relation | None:
    """TRUNCATE TABLE db.t [, db.u …] [PARTITION (k = v, …)]: an OVERWRITE commit of nothing.

    Of the whole table, or of the partitions the PARTITION clause names (Spark's TRUNCATE TABLE …
    PARTITION; a spec naming no partition truncates nothing and commits nothing). Every table is
    checked before the first one is emptied; each table gets its own snapshot.
    """
    nodes = list(statement.expressions) or [statement.this]
    found = [(n, table_of(ctx, n) if isinstance(n, exp.Table) else None) for n in nodes]
    if all(named is None for _, named in found):
        return None  # DuckDB's own tables
    names = ", ".join(n.sql("duckdb") for n in nodes)
    if statement.args.get("is_database"):
        raise UnsupportedFeatureError(f"TRUNCATE DATABASE {names}: drop the tables instead")
    for clause, (form, why) in _TRUNCATE_CLAUSES.items():
        value = statement.args.get(clause)
        if value:
            shown = form.format(value.sql("duckdb") if isinstance(value, exp.Expr) else value)
            raise UnsupportedFeatureError(
                f"TRUNCATE TABLE {names} {shown}: {shown} is not supported ({why}); leave it out"
            )
    mixed = [n.sql("duckdb") for n, named in found if named is None]
    if mixed:
        raise UnsupportedFeatureError(
            f"TRUNCATE TABLE {names} names both Paimon tables and others ({', '.join(mixed)}); "
            "truncate them in separate statements"
        )
    partition = statement.args.get("partition")
    if partition is not None and len(nodes) > 1:
        raise SqlError(
            f"TRUNCATE TABLE {names} PARTITION (…): a PARTITION clause truncates one table; "
            "truncate the tables one by one"
        )
    paimon = [named for _, named in found if named is not None]
    for database, name in paimon:
        refuse_system_table(database, name, "TRUNCATE TABLE")
    idents = [Identifier(database, name) for database, name in paimon]
    refuse_in_transaction(ctx, "TRUNCATE TABLE", ", ".join(map(str, idents)))
    missing = [i for i in idents if i.table not in ctx.catalog.tables(i.database)]
    if missing and not statement.args.get("exists"):
        ctx.table(missing[0])  # TableNotFoundError naming it and its database's tables
    tables = [ctx.table(i) for i in idents if i not in missing]
    if partition is not None and tables:
        return _truncate_partitions(ctx, tables[0], partition)
    for table in tables:
        Committer(table).commit([], kind=CommitKind.OVERWRITE, overwrite=lambda _e: True)
    done = [f"truncated table {t.name}" for t in tables]
    done += [f"table {i} does not exist; nothing truncated" for i in missing]
    return _status(ctx, "; ".join(done))


def _truncate_partitions(ctx: Context, table: Table, partition: exp.Partition) -> Relation:
    """TRUNCATE TABLE db.t PARTITION (…): the files of the named partitions replaced by nothing."""
    shown = ", ".join(e.sql("duckdb") for e in partition.expressions)
    inside = dml.partition_filter(
        table.latest_schema, dml.partition_spec(ctx, table, partition, "TRUNCATE TABLE")
    )
    hit = {p for p in dml.live_partitions(table) if inside(p)}
    if not hit:
        return _status(
            ctx,
            f"no partition of table {table.name} matches PARTITION ({shown}); nothing truncated",
        )
    Committer(table).commit([], kind=CommitKind.OVERWRITE, overwrite=lambda e: inside(e.partition))
    return _status(
        ctx, f"truncated {len(hit)} partition(s) of table {table.name} (PARTITION ({shown}))"
    )
