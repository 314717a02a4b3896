"""CREATE TABLE and ALTER TABLE parsed with sqlglot into Paimon schemas (pure: no I/O).

Both spellings Paimon users write are accepted: Flink's ``(…, PRIMARY KEY (…) NOT ENFORCED)
PARTITIONED BY (…) WITH ('k' = 'v')`` and Spark's ``USING paimon … TBLPROPERTIES ('k' = 'v')``.
They give identical schemas. Types follow Paimon/Flink: TIMESTAMP is without time zone in both forms
(Spark users write TIMESTAMP_LTZ for a local-time-zone instant); VARCHAR and VARBINARY without a
length are STRING and BYTES, as in DuckDB. DuckDB types Paimon lacks (UUID, HUGEINT, JSON ...) are
refused naming the column and the Paimon type to use.

>>> t = parse_create_table("CREATE TABLE db.t (id BIGINT, dt STRING, n ROW<a INT>, "
...     "PRIMARY KEY (id, dt) NOT ENFORCED) PARTITIONED BY (dt) WITH ('bucket' = '4')")
>>> [(f.id, f.name, type_sql(f.type)) for f in t.fields]
[(0, 'id', 'BIGINT NOT NULL'), (1, 'dt', 'STRING NOT NULL'), (2, 'n', 'ROW<`a` INT>')]
>>> t.fields[2].type.fields[0].id, t.highest_field_id, dict(t.options)
(3, 3, {'bucket': '4'})
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING

from sqlglot import exp

from paimon_sql.catalog.schema_change import (
    AddColumn,
    AlterTable,
    DropColumn,
    MoveColumn,
    Position,
    RenameColumn,
    RenameTable,
    ResetOptions,
    SetOptions,
    UpdateColumnComment,
    UpdateColumnType,
    UpdateComment,
)
from paimon_sql.errors import SchemaError, SqlError, UnsupportedFeatureError
from paimon_sql.format.option_registry import split_key_options, validate_options
from paimon_sql.format.options import CoreOptions
from paimon_sql.format.schema import CURRENT_VERSION, TableSchema
from paimon_sql.sql.dialect import (
    Paimon,
    _column,
    _convert,
    _DropColumns,
    _ModifyColumn,
    _MoveColumn,
    _parse_one,
    _ResetOptions,
    ctas_query,
    parse_sql_type,
)
from paimon_sql.types import (  # noqa: F401 - doctests
    INTEGER_DIGITS,
    INTEGER_RANK,
    MAX_LENGTH,
    FieldIds,
    refuse_case_clashes,
    type_sql,
)

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence

    from paimon_sql.catalog.schema_change import (
        SchemaChange,
    )
    from paimon_sql.types import DataField, DataType

__all__ = [
    "CreateTable",
    "Paimon",
    "parse_alter_table",
    "parse_create_table",
    "parse_sql_type",
    "with_fields",
]

#: Column names Paimon reserves for its own file columns (SystemColumns).
SYSTEM_COLUMNS = frozenset({"_SEQUENCE_NUMBER", "_VALUE_KIND", "_LEVEL", "_ROW_ID"})


# ------------------------------------------------------------------------------ CREATE TABLE


@dataclass(frozen=True, slots=True, kw_only=True)
class CreateTable:
    """A parsed CREATE TABLE: the schema-0 content plus how to create it."""

    identifier: tuple[str | None, str]
    if_not_exists: bool = False
    fields: tuple[DataField, ...] = ()
    partition_keys: tuple[str, ...] = ()
    primary_keys: tuple[str, ...] = ()
    options: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    comment: str | None = None
    as_select: exp.Query | None = None

    @property
    def highest_field_id(self) -> int:
        """The largest field id, nested fields included (-1 without columns)."""
        return max((i for f in self.fields for i in _ids_of(f)), default=-1)

    def to_schema(self, *, time_millis: int = 0) -> TableSchema:
        """The table's ``schema-0``."""
        return TableSchema(
            version=CURRENT_VERSION,
            id=0,
            fields=self.fields,
            highest_field_id=self.highest_field_id,
            partition_keys=self.partition_keys,
            primary_keys=self.primary_keys,
            options=MappingProxyType(dict(self.options)),
            comment=self.comment,
            time_millis=time_millis,
        )


def _ids_of(f: DataField) -> Iterator[int]:
    yield f.id
    yield from _nested_ids(f.type)


def _nested_ids(t: DataType) -> Iterator[int]:
    for child in (t.element, t.key, t.value):
        if child is not None:
            yield from _nested_ids(child)
    for f in t.fields:
        yield from _ids_of(f)


def _identifier(table: exp.Expr) -> tuple[str | None, str]:
    if not isinstance(table, exp.Table) or not table.name:
        raise SqlError(f"expected a table name, got {table.sql()!r}")
    return (table.db or None, table.name)


def _literal(node: exp.Expr | None) -> str:
    if node is None:
        raise SqlError("expected a value")
    return node.name if isinstance(node, exp.Literal | exp.Identifier | exp.Var) else node.sql()


@dataclass
class _CreateParts:
    options: dict[str, str] = field(default_factory=dict)
    partition: list[exp.Expr] = field(default_factory=list)
    comment: str | None = None


def _properties(create: exp.Create) -> _CreateParts:
    parts = _CreateParts()
    props = create.args.get("properties")
    for prop in props.expressions if props else ():
        if isinstance(prop, exp.PartitionedByProperty):
            schema = prop.this
            parts.partition = list(
                schema.expressions if isinstance(schema, exp.Schema) else [schema]
            )
        elif isinstance(prop, exp.SchemaCommentProperty):
            parts.comment = _literal(prop.this)
        elif isinstance(prop, exp.FileFormatProperty):
            if _literal(prop.this).lower() != "paimon":
                raise UnsupportedFeatureError(f"USING {_literal(prop.this)}: only USING paimon")
        elif type(prop) is exp.Property:  # subclasses are the other clauses
            parts.options[_literal(prop.this)] = _literal(prop.args.get("value"))
        elif isinstance(prop, exp.OptionsProperty):  # Spark's USING … OPTIONS (…): table options
            for pair in prop.expressions:
                parts.options[_literal(pair.this)] = _literal(pair.args.get("value"))
        else:
            raise UnsupportedFeatureError(f"table property {prop.sql()!r} is not supported")
    return parts


def _columns_and_pk(schema: exp.Expr, ids: FieldIds) -> tuple[list[DataField], tuple[str, ...]]:
    fields: list[DataField] = []
    pk: tuple[str, ...] = ()
    for node in schema.expressions if isinstance(schema, exp.Schema) else ():
        if isinstance(node, exp.PrimaryKey):
            pk = _set_pk(pk, tuple(e.name for e in node.expressions))
        elif isinstance(node, exp.ColumnDef):
            fields.append(_column(node, ids))
            constraints = node.args.get("constraints") or ()
            if any(
                isinstance(c.args.get("kind"), exp.PrimaryKeyColumnConstraint) for c in constraints
            ):
                pk = _set_pk(pk, (node.name,))
        else:
            raise UnsupportedFeatureError(f"table element {node.sql()!r} is not supported")
    return fields, pk


def _set_pk(old: tuple[str, ...], new: tuple[str, ...]) -> tuple[str, ...]:
    if old:
        raise SchemaError(f"two primary keys: {list(old)} and {list(new)}; define one")
    return new


#: ``… AS PIVOT`` / ``… AS UNPIVOT``: a CTAS of a bare PIVOT statement.
_PIVOT_QUERY = re.compile(r"\bAS\s+(UN)?PIVOT\b", re.IGNORECASE)


def parse_create_table(sql: str) -> CreateTable:
    """Parse a Flink- or Spark-style CREATE TABLE (or CTAS) into a validated `CreateTable`.

    >>> t = parse_create_table("CREATE TABLE t (k INT, v STRING) USING paimon "
    ...                        "TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '2')")
    >>> t.primary_keys, type_sql(t.fields[0].type), dict(t.options)
    (('k',), 'INT NOT NULL', {'bucket': '2'})
    """
    create = _parse_one(sql)
    if not isinstance(create, exp.Create) or create.kind != "TABLE":
        if _PIVOT_QUERY.search(sql):  # sqlglot reads no bare PIVOT statement after AS
            raise SqlError(
                "CREATE TABLE … AS PIVOT …: write the PIVOT statement in parentheses, "
                "CREATE TABLE t AS (PIVOT …)"
            )
        raise SqlError("expected CREATE TABLE")
    if create.args.get("replace"):
        raise UnsupportedFeatureError(
            "CREATE OR REPLACE TABLE is not supported; drop the table first"
        )
    target = create.this
    ids = FieldIds()
    fields, pk = _columns_and_pk(target, ids)
    parts = _properties(create)
    partition = []
    for node in parts.partition:
        if isinstance(node, exp.ColumnDef) and node.args.get("kind") is not None:
            fields.append(_column(node, ids))  # Hive style: PARTITIONED BY (dt STRING)
        elif not isinstance(node, (exp.Column, exp.Identifier, exp.ColumnDef)):
            raise UnsupportedFeatureError(
                f"PARTITIONED BY ({node.sql('spark')}): partition transforms are not supported "
                "by Paimon; partition by a column (compute it in the query, e.g. "
                "CAST(ts AS DATE) AS dt, then PARTITIONED BY (dt))"
            )
        partition.append(node.name)
    options, pk, part_keys = split_key_options(parts.options, pk, tuple(partition))
    query = create.expression if isinstance(create.expression, exp.Query) else None
    if query is not None:
        query = ctas_query(sql) or query
    return _build_create(
        identifier=_identifier(target.this if isinstance(target, exp.Schema) else target),
        if_not_exists=bool(create.args.get("exists")),
        fields=tuple(fields),
        primary_keys=pk,
        partition_keys=part_keys,
        options=options,
        comment=parts.comment,
        as_select=query,
    )


def _build_create(**kw: object) -> CreateTable:
    draft = CreateTable(**kw)  # type: ignore[arg-type]
    if not draft.fields and draft.as_select is None:
        raise SchemaError("a table needs columns (or AS SELECT …)")
    fields = draft.fields
    if fields:
        _check_keys(fields, draft.primary_keys, draft.partition_keys)
    options = validate_options(
        draft.options,
        fields=fields or None,
        primary_keys=draft.primary_keys,
        partition_keys=draft.partition_keys,
    )
    if not CoreOptions(options).flag("primary-key.nullable"):
        fields = tuple(
            replace(f, type=f.type.with_nullable(False)) if f.name in draft.primary_keys else f
            for f in fields
        )
    return replace(draft, fields=fields, options=MappingProxyType(options))


def with_fields(create: CreateTable, fields: Sequence[DataField]) -> CreateTable:
    """A CTAS without a column list (`create`) given the columns its query yields.

    Validated like a CREATE TABLE that lists them (keys, options, non-null primary key); no SQL text
    is involved.
    """
    return _build_create(
        identifier=create.identifier,
        fields=tuple(fields),
        primary_keys=create.primary_keys,
        partition_keys=create.partition_keys,
        options=dict(create.options),
        comment=create.comment,
    )


def _check_keys(
    fields: Sequence[DataField], primary_keys: Sequence[str], partition_keys: Sequence[str]
) -> None:
    """Column names and keys (TableSchema / SchemaValidation rules), as `SchemaError`."""
    names = [f.name for f in fields]
    by_name = {f.name: f for f in fields}
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise SchemaError(f"duplicate column names {dupes}")
    refuse_case_clashes(names, "of the new table", "rename one")
    reserved = [n for n in names if n in SYSTEM_COLUMNS or n.startswith("_KEY_")]
    if reserved:
        raise SchemaError(
            f"column names {reserved} are reserved by Paimon (system columns, _KEY_*)"
        )
    for what, keys in (("primary key", primary_keys), ("partition key", partition_keys)):
        if len(set(keys)) != len(keys):
            raise SchemaError(f"{what} {list(keys)} names a column twice")
        for key in keys:
            if key not in by_name:
                near = difflib.get_close_matches(key, names, n=2)
                hint = f"; did you mean {' or '.join(repr(n) for n in near)}?" if near else ""
                raise SchemaError(f"{what} column {key!r} is not a column of the table{hint}")
            if by_name[key].type.is_nested:
                raise SchemaError(f"{what} column {key!r} has nested type {by_name[key].type.root}")
    if primary_keys and set(primary_keys) <= set(partition_keys):
        raise SchemaError(
            f"primary key {list(primary_keys)} has only partition columns: every partition would "
            "hold one row; add a non-partition column to the primary key"
        )


# ------------------------------------------------------------------------------- ALTER TABLE


def _position(node: exp.Expr | None) -> Position | None:
    if not isinstance(node, exp.ColumnPosition):
        return None
    if node.args.get("position") == "FIRST":
        return Position(first=True)
    return Position(after=node.this.name if node.this is not None else None)


def _comment_of(column: exp.ColumnDef) -> str | None:
    for constraint in column.args.get("constraints") or ():
        kind = constraint.args.get("kind")
        if isinstance(kind, exp.CommentColumnConstraint):
            return kind.this.name
    return None


#: The option key Flink and Spark take as the table's comment in SET / RESET (``TableCatalog``'s
#: PROP_COMMENT), not as an option.
_COMMENT_KEY = "comment"

#: Clauses of ``ALTER TABLE … SET`` Paimon has no counterpart for (sqlglot's argument names), and
#: why.
_SET_CLAUSES = {
    "location": (
        "SET LOCATION",
        "a Paimon table lives at its place in the warehouse (<db>.db/<table>); RENAME TO moves "
        "it within the warehouse",
    ),
    "serde": ("SET SERDE", "Paimon tables have no Hive SerDe"),
    "file_format": ("SET FILEFORMAT", "write SET ('file.format' = 'orc') instead"),
    "tablespace": ("SET TABLESPACE", "Paimon tables have no tablespaces"),
    "access_method": ("SET ACCESS METHOD", "Paimon tables have no access methods"),
    "copy_options": ("SET STAGE_COPY_OPTIONS", "Paimon tables have no stages"),
    "tag": ("SET TAG", "use CALL sys.create_tag for Paimon tags"),
    "option": ("SET LOGGED / UNLOGGED / WITHOUT …", "Paimon tables have no such setting"),
}


def _set_changes(action: exp.AlterSet) -> list[SchemaChange]:
    """``SET ('k' = 'v', …)`` / ``SET TBLPROPERTIES (…)`` / ``SET COMMENT '…'``."""
    for arg, (clause, why) in _SET_CLAUSES.items():
        if action.args.get(arg):
            raise UnsupportedFeatureError(f"ALTER TABLE … {clause} is not supported: {why}")
    pairs: dict[str, str] = {}
    comments: list[SchemaChange] = []
    for item in _set_items(action.expressions):
        if isinstance(item, exp.SchemaCommentProperty):
            comments.append(UpdateComment(_literal(item.this)))
        elif type(item) is exp.Property:
            pairs[_literal(item.this)] = _literal(item.args.get("value"))
        elif isinstance(item, exp.EQ):
            pairs[_literal(item.this)] = _literal(item.expression)
        else:
            shown = "()" if item is None else repr(item.sql())
            raise UnsupportedFeatureError(f"ALTER TABLE … SET {shown} is not supported")
    if _COMMENT_KEY in pairs:
        comments.append(UpdateComment(pairs.pop(_COMMENT_KEY)))
    return ([SetOptions(pairs)] if pairs or not comments else []) + comments


def _set_items(items: Sequence[exp.Expr]) -> Iterator[exp.Expr]:
    for item in items:
        if isinstance(item, exp.Properties):
            yield from _set_items(item.expressions)
        else:
            yield item


def _reset_changes(action: _ResetOptions) -> list[SchemaChange]:
    """``RESET ('k', …)`` / ``UNSET TBLPROPERTIES [IF EXISTS] (…)``; the comment key drops it."""
    keys = [_literal(k) for k in action.expressions]
    others = tuple(k for k in keys if k != _COMMENT_KEY)
    changes: list[SchemaChange] = []
    if others or len(others) == len(keys):
        changes.append(ResetOptions(others, must_exist=bool(action.args.get("must_exist"))))
    if _COMMENT_KEY in keys:
        changes.append(UpdateComment(None))
    return changes


def _modify(column: exp.ColumnDef) -> list[SchemaChange]:
    data_type = _column(column, FieldIds()).type
    changes: list[SchemaChange] = [UpdateColumnType(column.name, data_type)]
    comment = _comment_of(column)
    if comment is not None:
        changes.append(UpdateColumnComment(column.name, comment))
    position = _position(column.args.get("position"))
    if position is not None:
        changes.append(MoveColumn(column.name, position))
    return changes


def _alter_column(action: exp.AlterColumn) -> SchemaChange:
    name = action.this.name
    using = action.args.get("using")
    if isinstance(using, exp.Expression):  # sqlglot keeps False when there is none
        raise UnsupportedFeatureError(
            f"ALTER COLUMN {name} TYPE … USING {using.sql()} is not supported: "
            "Paimon never rewrites stored values when a column's type changes (old files are "
            "read and cast to the new type); drop USING, or write the computed values with "
            "UPDATE after the change"
        )
    if action.args.get("collate"):
        raise UnsupportedFeatureError(
            f"ALTER COLUMN {name} … COLLATE is not supported: Paimon columns have no collation"
        )
    if action.args.get("dtype") is not None:
        return UpdateColumnType(name, _convert(action.args["dtype"], FieldIds()))
    if action.args.get("comment") is not None:
        return UpdateColumnComment(name, _literal(action.args["comment"]))
    raise UnsupportedFeatureError(f"ALTER COLUMN {action.sql()!r} is not supported")


def _changes(action: exp.Expr) -> list[SchemaChange]:
    if isinstance(action, exp.AlterSet):
        return _set_changes(action)
    if isinstance(action, _ResetOptions):
        return _reset_changes(action)
    if isinstance(action, exp.ColumnDef):
        data_type = _column(action, FieldIds()).type
        add = AddColumn(
            action.name, data_type, _comment_of(action), _position(action.args.get("position"))
        )
        return [add]
    if isinstance(action, _DropColumns):
        return [DropColumn(e.name) for e in action.expressions]
    if isinstance(action, exp.RenameColumn):
        return [RenameColumn(action.this.name, action.args["to"].name)]
    if isinstance(action, exp.AlterRename):
        return [RenameTable(_identifier(action.this))]
    if isinstance(action, _ModifyColumn):
        return _modify(action.this)
    if isinstance(action, _MoveColumn):
        return [MoveColumn(action.this.name, _position(action.args["position"]) or Position())]
    if isinstance(action, exp.AlterColumn):
        return [_alter_column(action)]
    if isinstance(action, exp.AddConstraint):
        raise UnsupportedFeatureError(
            f"ALTER TABLE … ADD {action.sql('duckdb').removeprefix('ADD ')} is not supported: "
            "Paimon tables have no constraints besides the primary key, which is fixed when the "
            "table is created"
        )
    if action is None:
        raise SqlError("ALTER TABLE … ADD needs a column: ADD [COLUMN] name TYPE")
    raise UnsupportedFeatureError(f"ALTER TABLE action {action.sql()!r} is not supported")


#: Spark's nested-field forms (``ADD COLUMN r.c INT``, ``RENAME COLUMN r.a TO b``…), which no
#: dialect parses: found only to name them in the refusal.
_NESTED_PATH = re.compile(
    r"\b(?:ADD|DROP|RENAME|ALTER|CHANGE)\s+(?:COLUMNS?\s+)?[`\"]?\w+[`\"]?\.[`\"]?\w+[`\"]?",
    re.IGNORECASE,
)


def parse_alter_table(sql: str) -> AlterTable:
    """Parse a Flink- or Spark-style ALTER TABLE into its schema changes.

    >>> parse_alter_table("ALTER TABLE db.t SET ('write-only' = 'true')").changes
    (SetOptions(options={'write-only': 'true'}),)
    >>> parse_alter_table("ALTER TABLE t ADD v BIGINT AFTER k").changes[0].position
    Position(first=False, after='k')
    """
    alter = _parse_one(sql)
    if isinstance(alter, exp.Command):
        nested = _NESTED_PATH.search(sql)
        if nested:
            raise UnsupportedFeatureError(
                f"ALTER TABLE … {nested.group(0)}: changes by nested field path are not "
                "supported; change the whole column instead, e.g. ALTER TABLE t MODIFY r "
                "ROW<a BIGINT, c INT> (fields are matched by name: new ones are added, missing "
                "ones dropped, kept ones widened)"
            )
        raise SqlError(f"cannot parse ALTER statement: {sql.strip()[:80]!r}")
    if not isinstance(alter, exp.Alter) or alter.args.get("kind") != "TABLE":
        raise SqlError("expected ALTER TABLE")
    changes: list[SchemaChange] = []
    for action in alter.args.get("actions") or ():
        for item in action if isinstance(action, list) else [action]:
            changes.extend(_changes(item))
    if not changes:
        raise SqlError("ALTER TABLE without a change")
    return AlterTable(
        identifier=_identifier(alter.this),
        if_exists=bool(alter.args.get("exists")),
        changes=tuple(changes),
    )
