"""CREATE TABLE and ALTER TABLE parsed with sqlglot into Paimon schemas (pure: no I/O).

Both spellings Paimon users write are accepted: Flink's ``(…, PRIMARY KEY (…) NOT ENFORCED)
PARTITIONED BY (…) WITH ('k' = 'v')`` and Spark's ``USING paimon … TBLPROPERTIES ('k' = 'v')``.
They give identical schemas. Types follow Paimon/Flink: TIMESTAMP is without time zone in both forms
(Spark users write TIMESTAMP_LTZ for a local-time-zone instant), VARCHAR and VARBINARY need a length
(or write STRING / BYTES).

>>> t = parse_create_table("CREATE TABLE db.t (id BIGINT, dt STRING, n ROW<a INT>, "
...     "PRIMARY KEY (id, dt) NOT ENFORCED) PARTITIONED BY (dt) WITH ('bucket' = '4')")
>>> [(f.id, f.name, type_sql(f.type)) for f in t.fields]
[(0, 'id', 'BIGINT NOT NULL'), (1, 'dt', 'STRING NOT NULL'), (2, 'n', 'ROW<`a` INT>')]
>>> t.fields[2].type.fields[0].id, t.highest_field_id, dict(t.options)
(3, 3, {'bucket': '4'})
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING

import sqlglot
from sqlglot import exp, parser, tokens
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokens import TokenType

from paimon_sql.errors import SchemaError, SqlError, UnsupportedFeatureError
from paimon_sql.format.option_registry import normalise_options, split_key_options, validate_options
from paimon_sql.format.options import CoreOptions
from paimon_sql.format.schema import CURRENT_VERSION, TableSchema
from paimon_sql.types import (
    INTEGER_DIGITS,
    INTEGER_RANK,
    MAX_LENGTH,
    DataField,
    DataType,
    type_sql,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = [
    "AddColumn",
    "AlterTable",
    "CreateTable",
    "DropColumn",
    "MoveColumn",
    "Paimon",
    "RenameColumn",
    "RenameTable",
    "ResetOptions",
    "SetOptions",
    "UpdateColumnComment",
    "UpdateColumnType",
    "apply_alter",
    "parse_alter_table",
    "parse_create_table",
    "parse_sql_type",
    "with_fields",
]

#: Type names accepted in DDL (for error messages).
VALID_TYPES = (
    "BOOLEAN, TINYINT, SMALLINT, INT/INTEGER, BIGINT, FLOAT, DOUBLE, DECIMAL(p, s), CHAR(n), "
    "VARCHAR(n), STRING, BINARY(n), VARBINARY(n), BYTES, DATE, TIME(p), TIMESTAMP(p), "
    "TIMESTAMP_LTZ(p) / TIMESTAMP(p) WITH LOCAL TIME ZONE, TIMESTAMP_NTZ, ARRAY<T>, MAP<K, V>, "
    "MULTISET<T>, ROW<name T, ...> / STRUCT<name: T, ...>, VARIANT, BLOB"
)
#: Column names Paimon reserves for its own file columns (SystemColumns).
SYSTEM_COLUMNS = frozenset({"_SEQUENCE_NUMBER", "_VALUE_KIND", "_LEVEL", "_ROW_ID"})


# ----------------------------------------------------------------------------------- the dialect


class _ResetOptions(exp.Expression):
    """``RESET ('k', …)`` / ``UNSET TBLPROPERTIES [IF EXISTS] ('k', …)``."""

    arg_types = {"expressions": True}  # noqa: RUF012 - sqlglot's convention


class _ModifyColumn(exp.Expression):
    """Flink ``MODIFY c TYPE [COMMENT …] [FIRST | AFTER x]``: `this` is a ColumnDef."""

    arg_types = {"this": True}  # noqa: RUF012


class _MoveColumn(exp.Expression):
    """Spark ``ALTER COLUMN c FIRST | AFTER x``."""

    arg_types = {"this": True, "position": True}  # noqa: RUF012


class _DropColumns(exp.Expression):
    """``DROP [COLUMN|COLUMNS] c`` / ``DROP (c, d)``."""

    arg_types = {"expressions": True}  # noqa: RUF012


class _PaimonParser(parser.Parser):
    """The default parser plus Flink's nested types and Flink/Spark ALTER TABLE forms."""

    def _parse_types(
        self,
        check_func: bool = False,
        schema: bool = False,
        allow_identifiers: bool = True,
        with_collation: bool = False,
    ) -> exp.Expr | None:
        multiset = self._curr and self._curr.text.upper() == "MULTISET"
        if multiset and self._next and self._next.token_type == TokenType.LT:
            self._advance(2)
            element = self._parse_types(schema=schema, with_collation=True)
            if not self._match(TokenType.GT):
                self.raise_error("Expecting >")
            kind = exp.DataType.build("MULTISET", udt=True)
            kind.set("expressions", [element])
            return kind
        this = super()._parse_types(check_func, schema, allow_identifiers, with_collation)
        # Inside <…> sqlglot passes with_collation=True: Flink's ARRAY<INT NOT NULL>.
        if with_collation and this is not None and self._match_text_seq("NOT", "NULL"):
            this.set("nullable", False)
        return this

    def _parse_struct_types(self, type_required: bool = False) -> exp.Expr | None:
        this = super()._parse_struct_types(type_required)
        if isinstance(this, exp.ColumnDef) and self._match(TokenType.STRING, advance=False):
            comment = exp.CommentColumnConstraint(this=self._parse_string())  # ROW<a INT 'doc'>
            this.append("constraints", exp.ColumnConstraint(kind=comment))
        return this

    def _paimon_reset(self) -> exp.Expr:
        self._match_text_seq("TBLPROPERTIES")
        self._parse_exists()
        return _ResetOptions(expressions=self._parse_wrapped_csv(self._parse_string))

    def _paimon_drop(self) -> exp.Expr:
        self._match(TokenType.COLUMN) or self._match_text_seq("COLUMNS")
        if self._match(TokenType.L_PAREN):
            names = self._parse_csv(self._parse_id_var)
            self._match_r_paren()
        else:
            names = self._parse_csv(self._parse_id_var)
        return _DropColumns(expressions=names)

    def _paimon_add(self) -> list[exp.Expr]:
        self._match(TokenType.COLUMN) or self._match_text_seq("COLUMNS")
        if self._match(TokenType.L_PAREN):
            defs = self._parse_csv(self._parse_field_def)
            self._match_r_paren()
            return defs
        return [self._parse_field_def()]

    def _paimon_rename(self) -> exp.Expr | None:
        if self._match_text_seq("TO"):
            return exp.AlterRename(this=self._parse_table(schema=True))
        self._match(TokenType.COLUMN)
        old = self._parse_id_var()
        self._match_text_seq("TO")
        return exp.RenameColumn(this=old, to=self._parse_id_var())

    def _paimon_modify(self) -> list[exp.Expr]:
        self._match(TokenType.COLUMN)
        if self._match(TokenType.L_PAREN):
            defs = self._parse_csv(self._parse_field_def)
            self._match_r_paren()
        else:
            defs = [self._parse_field_def()]
        return [_ModifyColumn(this=d) for d in defs]

    def _paimon_alter(self) -> exp.Expr | None:
        index = self._index
        self._match(TokenType.COLUMN)
        column = self._parse_id_var()
        if self._match_texts(("FIRST", "AFTER")):
            kind = self._prev.text.upper()
            after = self._parse_id_var() if kind == "AFTER" else None
            return _MoveColumn(this=column, position=exp.ColumnPosition(this=after, position=kind))
        self._retreat(index)
        return self._parse_alter_table_alter()

    ALTER_PARSERS = {  # noqa: RUF012
        **parser.Parser.ALTER_PARSERS,
        "ADD": lambda self: self._paimon_add(),
        "ALTER": lambda self: self._paimon_alter(),
        "DROP": lambda self: self._paimon_drop(),
        "MODIFY": lambda self: self._paimon_modify(),
        "RENAME": lambda self: self._paimon_rename(),
        "RESET": lambda self: self._paimon_reset(),
        "UNSET": lambda self: self._paimon_reset(),
    }


class Paimon(Dialect):
    """Paimon's DDL: Flink and Spark spellings, backtick or double-quote identifiers."""

    SUPPORTS_USER_DEFINED_TYPES = True

    class Tokenizer(tokens.Tokenizer):
        """ROW is a struct type; BLOB stays Paimon's BLOB (not VARBINARY)."""

        IDENTIFIERS = ["`", '"']  # noqa: RUF012
        KEYWORDS = {**tokens.Tokenizer.KEYWORDS, "ROW": TokenType.STRUCT}  # noqa: RUF012
        KEYWORDS.pop("BLOB", None)

    Parser = _PaimonParser


def _parse_one(sql: str) -> exp.Expr:
    try:
        statements = [s for s in sqlglot.parse(sql, dialect=Paimon) if s is not None]
    except ParseError as err:
        first = err.errors[0] if err.errors else {}
        raise SqlError(
            f"cannot parse statement: {first.get('description', err)}",
            line=first.get("line"),
            col=first.get("col"),
        ) from err
    except TokenError as err:
        raise SqlError(f"cannot tokenize statement: {err}") from err
    if len(statements) != 1:
        raise SqlError(f"expected one statement, got {len(statements)}")
    return statements[0]


# ------------------------------------------------------------------------------------- types


class _Ids:
    """One counter for field ids: a column, then its nested ROW fields (paimon-format §2)."""

    def __init__(self, start: int = 0) -> None:
        self.next_id = start

    def take(self) -> int:
        taken, self.next_id = self.next_id, self.next_id + 1
        return taken


def _params(node: exp.DataType) -> list[int]:
    out = []
    for param in node.expressions:
        inner = param.this if isinstance(param, exp.DataTypeParam) else param
        out.append(int(inner.name))
    return out


def _sized(root: str, params: list[int], default: int | None, lo: int, hi: int) -> DataType:
    if not params:
        if default is None:
            plain = {"VARCHAR": "STRING", "VARBINARY": "BYTES"}[root]
            raise SchemaError(f"{root} needs a length: write {root}(n) or {plain}")
        params = [default]
    if not lo <= params[0] <= hi:
        raise SchemaError(f"{root}({params[0]}): the length/precision must be in [{lo}, {hi}]")
    if root in ("TIME", "TIMESTAMP", "TIMESTAMP_LTZ"):
        return DataType(root=root, precision=params[0])
    return DataType(root=root, length=params[0])


def _decimal(params: list[int]) -> DataType:
    precision, scale = (params + [10, 0][len(params) :])[:2] if params else (10, 0)
    if not 1 <= precision <= 38 or not 0 <= scale <= precision:
        raise SchemaError(f"DECIMAL({precision}, {scale}): precision in [1, 38], scale in [0, p]")
    return DataType(root="DECIMAL", precision=precision, scale=scale)


_SIMPLE = {
    "BOOLEAN": "BOOLEAN", "TINYINT": "TINYINT", "SMALLINT": "SMALLINT", "INT": "INT",
    "BIGINT": "BIGINT", "FLOAT": "FLOAT", "DOUBLE": "DOUBLE", "DATE": "DATE", "VARIANT": "VARIANT",
}  # fmt: skip


def _atomic(name: str, params: list[int]) -> DataType | None:
    if name in _SIMPLE:
        return DataType(root=_SIMPLE[name])
    if name == "TEXT":
        return DataType(root="VARCHAR", length=MAX_LENGTH)
    if name in ("CHAR", "BINARY"):
        return _sized(name, params, 1, 1, 255 if name == "CHAR" else MAX_LENGTH)
    if name in ("VARCHAR", "VARBINARY"):
        return _sized(name, params, None, 1, MAX_LENGTH)
    if name == "DECIMAL":
        return _decimal(params)
    if name == "TIME":
        return _sized("TIME", params, 0, 0, 9)
    if name in ("TIMESTAMP", "TIMESTAMPNTZ"):
        return _sized("TIMESTAMP", params, 6, 0, 9)
    if name == "TIMESTAMPLTZ":
        return _sized("TIMESTAMP_LTZ", params, 6, 0, 9)
    return None


def _user_defined(node: exp.DataType, ids: _Ids) -> DataType:
    kind = str(node.args.get("kind") or "").upper()
    if kind == "BYTES":
        return DataType(root="VARBINARY", length=MAX_LENGTH)
    if kind == "BLOB":
        return DataType(root="BLOB")
    if kind == "MULTISET":
        (element,) = _inner(node, 1, "MULTISET<T>")
        return DataType(root="MULTISET", element=_convert(element, ids))
    raise SqlError(f"unknown type {kind or node.sql()!r}; valid types: {VALID_TYPES}")


def _inner(node: exp.DataType, count: int, form: str) -> list[exp.Expr]:
    """The `count` types inside ``<…>`` of a nested type, or a `SchemaError` showing its `form`."""
    inner = list(node.expressions)
    if len(inner) != count:
        raise SchemaError(f"type {node.sql()!r} needs {count} type(s) inside <>: write {form}")
    return inner


def _convert(node: exp.Expr, ids: _Ids) -> DataType:
    """A Paimon `DataType` from a sqlglot type; nested ROW fields take ids from `ids`."""
    if not isinstance(node, exp.DataType):
        raise SqlError(f"expected a type, got {node.sql()!r}; valid types: {VALID_TYPES}")
    name = node.this.name if isinstance(node.this, exp.DType) else str(node.this)
    nullable = node.args.get("nullable") is not False
    if name == "USERDEFINED":
        return _user_defined(node, ids).with_nullable(nullable)
    if name == "ARRAY":
        (element,) = _inner(node, 1, "ARRAY<T>")
        return DataType(root="ARRAY", element=_convert(element, ids), nullable=nullable)
    if name == "MAP":
        key, value = (_convert(e, ids) for e in _inner(node, 2, "MAP<K, V>"))
        return DataType(root="MAP", key=key, value=value, nullable=nullable)
    if name == "STRUCT":
        fields = tuple(_column(c, ids) for c in node.expressions)
        return DataType(root="ROW", fields=fields, nullable=nullable)
    atomic = _atomic(name, _params(node))
    if atomic is None:
        raise SqlError(f"type {node.sql()!r} is not a Paimon type; valid types: {VALID_TYPES}")
    return atomic.with_nullable(nullable)


def _column(node: exp.Expr, ids: _Ids) -> DataField:
    """A `DataField` from a ColumnDef: its id first, then ids of nested fields (Java's order)."""
    if not isinstance(node, exp.ColumnDef) or node.args.get("kind") is None:
        raise SqlError(f"expected 'name TYPE', got {node.sql()!r}")
    field_id = ids.take()
    data_type = _convert(node.args["kind"], ids)
    comment = None
    for constraint in node.args.get("constraints") or ():
        kind = constraint.args.get("kind")
        if isinstance(kind, exp.NotNullColumnConstraint) and not kind.args.get("allow_null"):
            data_type = data_type.with_nullable(False)
        elif isinstance(kind, exp.CommentColumnConstraint):
            comment = kind.this.name
        elif not isinstance(kind, exp.PrimaryKeyColumnConstraint):
            raise UnsupportedFeatureError(
                f"column constraint {constraint.sql()!r} is not supported"
            )
    return DataField(id=field_id, name=node.name, type=data_type, description=comment)


def parse_sql_type(text: str) -> DataType:
    """A Paimon `DataType` from SQL type text (nested ROW field ids count from 0).

    >>> type_sql(parse_sql_type("MAP<STRING, ARRAY<DECIMAL(12, 2) NOT NULL>>"))
    'MAP<STRING, ARRAY<DECIMAL(12, 2) NOT NULL>>'
    """
    # The text is parsed, never run: a wrapper around it must still hold exactly one column, so a
    # type with more in it (``INT, x INT``, ``INT) AS SELECT …``) is refused rather than cut short.
    statement = _parse_one("CREATE TABLE _t (_c " + text + ")")
    target = statement.this
    columns = target.expressions if isinstance(target, exp.Schema) else []
    extra = [k for k, v in statement.args.items() if v and k not in ("this", "kind")]
    if len(columns) != 1 or extra:
        raise SqlError(f"expected one type, got {text!r}; valid types: {VALID_TYPES}")
    return _column(columns[0], _Ids()).type


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
        else:
            raise UnsupportedFeatureError(f"table property {prop.sql()!r} is not supported")
    return parts


def _columns_and_pk(schema: exp.Expr, ids: _Ids) -> tuple[list[DataField], tuple[str, ...]]:
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


def parse_create_table(sql: str) -> CreateTable:
    """Parse a Flink- or Spark-style CREATE TABLE (or CTAS) into a validated `CreateTable`.

    >>> t = parse_create_table("CREATE TABLE t (k INT, v STRING) USING paimon "
    ...                        "TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '2')")
    >>> t.primary_keys, type_sql(t.fields[0].type), dict(t.options)
    (('k',), 'INT NOT NULL', {'bucket': '2'})
    """
    create = _parse_one(sql)
    if not isinstance(create, exp.Create) or create.kind != "TABLE":
        raise SqlError("expected CREATE TABLE")
    if create.args.get("replace"):
        raise UnsupportedFeatureError(
            "CREATE OR REPLACE TABLE is not supported; drop the table first"
        )
    target = create.this
    ids = _Ids()
    fields, pk = _columns_and_pk(target, ids)
    parts = _properties(create)
    partition = []
    for node in parts.partition:
        if isinstance(node, exp.ColumnDef) and node.args.get("kind") is not None:
            fields.append(_column(node, ids))  # Hive style: PARTITIONED BY (dt STRING)
        partition.append(node.name)
    options, pk, part_keys = split_key_options(parts.options, pk, tuple(partition))
    query = create.expression if isinstance(create.expression, exp.Query) else None
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
    """A CTAS without a column list (`create`) given the columns its query yields, validated like a
    CREATE TABLE that lists them (keys, options, non-null primary key); no SQL text is involved."""
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


@dataclass(frozen=True, slots=True)
class Position:
    """Where a column goes: FIRST, or AFTER `column`."""

    first: bool = False
    after: str | None = None


@dataclass(frozen=True, slots=True)
class SetOptions:
    """SET ('k' = 'v') / SET TBLPROPERTIES."""

    options: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class ResetOptions:
    """RESET ('k') / UNSET TBLPROPERTIES."""

    keys: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class AddColumn:
    """ADD [COLUMN] name TYPE [COMMENT …] [FIRST | AFTER x]; nested ids are given when applied."""

    name: str
    type: DataType
    description: str | None = None
    position: Position | None = None


@dataclass(frozen=True, slots=True)
class DropColumn:
    """DROP [COLUMN] name."""

    name: str


@dataclass(frozen=True, slots=True)
class RenameColumn:
    """RENAME [COLUMN] old TO new."""

    old: str
    new: str


@dataclass(frozen=True, slots=True)
class UpdateColumnType:
    """ALTER COLUMN c TYPE t / MODIFY c t (NOT NULL in `type` is part of the change)."""

    name: str
    type: DataType


@dataclass(frozen=True, slots=True)
class UpdateColumnComment:
    """ALTER COLUMN c COMMENT '…'."""

    name: str
    comment: str | None


@dataclass(frozen=True, slots=True)
class MoveColumn:
    """ALTER COLUMN c FIRST | AFTER x."""

    name: str
    position: Position


@dataclass(frozen=True, slots=True)
class RenameTable:
    """RENAME TO [db.]t: a catalog change, not a schema change (`apply_alter` ignores it)."""

    identifier: tuple[str | None, str]


SchemaChange = (
    SetOptions | ResetOptions | AddColumn | DropColumn | RenameColumn | UpdateColumnType
    | UpdateColumnComment | MoveColumn | RenameTable
)  # fmt: skip


@dataclass(frozen=True, slots=True, kw_only=True)
class AlterTable:
    """A parsed ALTER TABLE: the table and its changes, in statement order."""

    identifier: tuple[str | None, str]
    if_exists: bool = False
    changes: tuple[SchemaChange, ...] = ()


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


def _option_pairs(items: Sequence[exp.Expr]) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for item in items:
        if isinstance(item, exp.Properties):
            pairs.update(_option_pairs(item.expressions))
        elif type(item) is exp.Property:
            pairs[_literal(item.this)] = _literal(item.args.get("value"))
        elif isinstance(item, exp.EQ):
            pairs[_literal(item.this)] = _literal(item.expression)
        else:
            shown = "()" if item is None else repr(item.sql())
            raise UnsupportedFeatureError(f"ALTER TABLE … SET {shown} is not supported")
    return pairs


def _modify(column: exp.ColumnDef) -> list[SchemaChange]:
    data_type = _column(column, _Ids()).type
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
    if action.args.get("dtype") is not None:
        return UpdateColumnType(name, _convert(action.args["dtype"], _Ids()))
    if action.args.get("comment") is not None:
        return UpdateColumnComment(name, _literal(action.args["comment"]))
    raise UnsupportedFeatureError(f"ALTER COLUMN {action.sql()!r} is not supported")


def _changes(action: exp.Expr) -> list[SchemaChange]:
    if isinstance(action, exp.AlterSet):
        return [SetOptions(_option_pairs(action.expressions))]
    if isinstance(action, _ResetOptions):
        return [ResetOptions(tuple(_literal(k) for k in action.expressions))]
    if isinstance(action, exp.ColumnDef):
        data_type = _column(action, _Ids()).type
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
    if action is None:
        raise SqlError("ALTER TABLE … ADD needs a column: ADD [COLUMN] name TYPE")
    raise UnsupportedFeatureError(f"ALTER TABLE action {action.sql()!r} is not supported")


def parse_alter_table(sql: str) -> AlterTable:
    """Parse a Flink- or Spark-style ALTER TABLE into its schema changes.

    >>> parse_alter_table("ALTER TABLE db.t SET ('write-only' = 'true')").changes
    (SetOptions(options={'write-only': 'true'}),)
    >>> parse_alter_table("ALTER TABLE t ADD v BIGINT AFTER k").changes[0].position
    Position(first=False, after='k')
    """
    alter = _parse_one(sql)
    if isinstance(alter, exp.Command):
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


# ------------------------------------------------------------------------- schema evolution

#: Options that name columns (comma lists): renames follow them, drops are refused while they do.
_COLUMN_OPTIONS = (
    "bucket-key", "sequence.field", "rowkind.field", "record-level.time-field",
    "changelog-producer.row-deduplicate-ignore-fields",
)  # fmt: skip
#: Options fixed at creation (Paimon marks them immutable): SET/RESET may not change them.
IMMUTABLE_OPTIONS = frozenset(
    {"primary-key", "partition", "bucket-key", "merge-engine", "sequence.field", "rowkind.field"}
)


@dataclass
class _Draft:
    """The schema being evolved (local, mutable; `apply_alter` returns a frozen TableSchema)."""

    fields: list[DataField]
    highest: int
    primary_keys: list[str]
    partition_keys: tuple[str, ...]
    options: dict[str, str]

    def index(self, name: str) -> int:
        for i, f in enumerate(self.fields):
            if f.name == name:
                return i
        near = difflib.get_close_matches(name, [f.name for f in self.fields], n=2)
        hint = f"; did you mean {' or '.join(repr(n) for n in near)}?" if near else ""
        raise SchemaError(f"column {name!r} does not exist{hint}")

    def place(self, column: DataField, position: Position | None) -> None:
        if position is None:
            self.fields.append(column)
        elif position.first:
            self.fields.insert(0, column)
        else:
            self.fields.insert(self.index(position.after or "") + 1, column)


def _column_refs(options: Mapping[str, str], name: str) -> list[str]:
    keys = [k for k in _COLUMN_OPTIONS if name in _names(options.get(k, ""))]
    keys += [k for k in options if k.startswith("fields.") and name in _names(_field_part(k))]
    keys += [k for k, v in options.items() if k.endswith(".sequence-group") and name in _names(v)]
    keys += [
        k
        for k, v in options.items()
        if k.startswith("file-index.") and k.endswith(".columns") and name in _names(v)
    ]
    return list(dict.fromkeys(keys))


def _names(value: str) -> list[str]:
    return [v.strip() for v in value.split(",")]


def _field_part(key: str) -> str:
    return key[len("fields.") :].rsplit(".", 1)[0] if key.count(".") >= 2 else ""


def _renamed(value: str, old: str, new: str) -> str:
    return ",".join(new if v == old else v for v in _names(value))


def _rename_in_options(options: dict[str, str], old: str, new: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in options.items():
        if key.startswith("fields.") and old in _names(_field_part(key)):
            key = "fields." + _renamed(_field_part(key), old, new) + "." + key.rsplit(".", 1)[1]
        if (
            key in _COLUMN_OPTIONS
            or key.endswith(".sequence-group")
            or (key.startswith("file-index.") and key.endswith(".columns"))
        ):
            value = _renamed(value, old, new)
        out[key] = value
    return out


def _reassign(t: DataType, ids: _Ids) -> DataType:
    """The same type with fresh ids for its nested ROW fields."""
    return replace(
        t,
        element=_reassign(t.element, ids) if t.element else None,
        key=_reassign(t.key, ids) if t.key else None,
        value=_reassign(t.value, ids) if t.value else None,
        fields=tuple(replace(f, id=ids.take(), type=_reassign(f.type, ids)) for f in t.fields),
    )


def _widens(old: DataType, new: DataType) -> bool:
    """True when every `old` value fits `new` exactly (the type changes we allow)."""
    o, n = old.root, new.root
    if o in INTEGER_RANK and n in INTEGER_RANK:
        return INTEGER_RANK[n] >= INTEGER_RANK[o]
    if o in INTEGER_RANK and n == "DECIMAL":
        return (new.precision or 0) - (new.scale or 0) >= INTEGER_DIGITS[o]
    if o == "DECIMAL" and n == "DECIMAL":
        whole = (old.precision or 0) - (old.scale or 0)
        return (new.scale or 0) >= (old.scale or 0) and (new.precision or 0) - (
            new.scale or 0
        ) >= whole
    if (o, n) in {("FLOAT", "DOUBLE"), ("TINYINT", "FLOAT"), ("SMALLINT", "FLOAT")}:
        return True
    if o in ("TINYINT", "SMALLINT", "INT") and n == "DOUBLE":
        return True
    if (o in ("CHAR", "VARCHAR") and n == "VARCHAR") or (
        o in ("BINARY", "VARBINARY") and n == "VARBINARY"
    ):
        return (new.length or 0) >= (old.length or 0)
    if o == n and o in ("TIME", "TIMESTAMP", "TIMESTAMP_LTZ"):
        return (new.precision or 0) >= (old.precision or 0)
    return type_sql(old.with_nullable(True)) == type_sql(new.with_nullable(True))


def _not_a_key(d: _Draft, name: str, verb: str) -> None:
    if name in d.partition_keys:
        raise SchemaError(f"cannot {verb} partition column {name!r}: partition keys never change")
    if name in d.primary_keys and verb != "rename":
        raise SchemaError(f"cannot {verb} primary-key column {name!r}: primary keys never change")


def _set_options(d: _Draft, change: SetOptions) -> None:
    # Each value is checked (type, range, known key) before the rules about changing it read it.
    for key, value in normalise_options(change.options).items():
        old = d.options.get(key)
        if key in IMMUTABLE_OPTIONS and old != value.strip():
            raise SchemaError(
                f"option {key!r} is fixed when the table is created; it cannot change"
            )
        if key == "bucket":
            old_bucket, new_bucket = CoreOptions(d.options).bucket, int(value)
            if (old_bucket > 0) != (new_bucket > 0) or new_bucket < -2:
                raise SchemaError(
                    f"cannot change 'bucket' from {old_bucket} to {value}: only a fixed bucket "
                    "count can be rescaled to another fixed count"
                )
        d.options[key] = value


def _reset_options(d: _Draft, change: ResetOptions) -> None:
    for key in change.keys:
        if key in IMMUTABLE_OPTIONS or key == "bucket":
            raise SchemaError(f"option {key!r} cannot be reset")
        d.options.pop(key, None)


def _add_column(d: _Draft, change: AddColumn) -> None:
    if change.name in {f.name for f in d.fields}:
        raise SchemaError(f"column {change.name!r} already exists")
    if not change.type.nullable:
        raise SchemaError(
            f"new column {change.name!r} cannot be NOT NULL: existing rows have no value"
        )
    ids = _Ids(d.highest + 1)
    column_id = ids.take()
    column = DataField(
        id=column_id,
        name=change.name,
        type=_reassign(change.type, ids),
        description=change.description,
    )
    d.highest = ids.next_id - 1
    d.place(column, change.position)


def _drop_column(d: _Draft, change: DropColumn) -> None:
    index = d.index(change.name)
    _not_a_key(d, change.name, "drop")
    refs = _column_refs(d.options, change.name)
    if refs:
        raise SchemaError(f"column {change.name!r} is used by options {refs}; change them first")
    if len(d.fields) == 1:
        raise SchemaError(f"cannot drop {change.name!r}, the last column")
    del d.fields[index]


def _rename_column(d: _Draft, change: RenameColumn) -> None:
    index = d.index(change.old)
    _not_a_key(d, change.old, "rename")
    if change.new in {f.name for f in d.fields}:
        raise SchemaError(f"cannot rename {change.old!r} to {change.new!r}: that column exists")
    d.fields[index] = replace(d.fields[index], name=change.new)
    d.primary_keys = [change.new if k == change.old else k for k in d.primary_keys]
    d.options = _rename_in_options(d.options, change.old, change.new)


def _update_type(d: _Draft, change: UpdateColumnType) -> None:
    index = d.index(change.name)
    _not_a_key(d, change.name, "change the type of")
    old = d.fields[index].type
    if old.nullable and not change.type.nullable:
        raise SchemaError(
            f"cannot make column {change.name!r} NOT NULL: existing rows may hold nulls"
        )
    if not _widens(old, change.type):
        raise SchemaError(
            f"cannot change column {change.name!r} from {type_sql(old)} to "
            f"{type_sql(change.type)}: only widening changes are allowed (INT→BIGINT, "
            "FLOAT→DOUBLE, DECIMAL precision up, VARCHAR length up, …)"
        )
    new_type = old if old.is_nested else change.type  # nested: unchanged, keeps its field ids
    d.fields[index] = replace(d.fields[index], type=new_type.with_nullable(change.type.nullable))


def _update_comment(d: _Draft, change: UpdateColumnComment) -> None:
    index = d.index(change.name)
    d.fields[index] = replace(d.fields[index], description=change.comment)


def _move_column(d: _Draft, change: MoveColumn) -> None:
    if change.position.after == change.name:
        raise SchemaError(f"cannot move column {change.name!r} after itself")
    column = d.fields.pop(d.index(change.name))
    d.place(column, change.position)


_APPLY = {
    SetOptions: _set_options,
    ResetOptions: _reset_options,
    AddColumn: _add_column,
    DropColumn: _drop_column,
    RenameColumn: _rename_column,
    UpdateColumnType: _update_type,
    UpdateColumnComment: _update_comment,
    MoveColumn: _move_column,
    RenameTable: lambda d, c: None,
}


def apply_alter(
    schema: TableSchema, alter: AlterTable, *, time_millis: int | None = None
) -> TableSchema:
    """The next schema (id + 1) after `alter`'s changes, applied in order (paimon-format §2).

    Field ids survive renames and type changes; new columns get ``highestFieldId + 1`` on; ids are
    never reused. RENAME TO is the catalog's business and is ignored here.

    >>> s0 = parse_create_table("CREATE TABLE t (k INT, v INT)").to_schema()
    >>> s1 = apply_alter(s0, parse_alter_table("ALTER TABLE t ADD w INT FIRST"))
    >>> s1.id, [(f.id, f.name) for f in s1.fields], s1.highest_field_id
    (1, [(2, 'w'), (0, 'k'), (1, 'v')], 2)
    """
    draft = _Draft(
        fields=list(schema.fields),
        highest=schema.highest_field_id,
        primary_keys=list(schema.primary_keys),
        partition_keys=tuple(schema.partition_keys),
        options=dict(schema.options),
    )
    for change in alter.changes:
        _APPLY[type(change)](draft, change)  # type: ignore[operator]
    options = validate_options(
        draft.options,
        fields=draft.fields,
        primary_keys=draft.primary_keys,
        partition_keys=draft.partition_keys,
    )
    return replace(
        schema,
        version=CURRENT_VERSION,
        id=schema.id + 1,
        fields=tuple(draft.fields),
        highest_field_id=draft.highest,
        primary_keys=tuple(draft.primary_keys),
        options=MappingProxyType(options),
        time_millis=schema.time_millis if time_millis is None else time_millis,
    )
