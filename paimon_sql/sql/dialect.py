"""The sqlglot `Paimon` dialect: Flink's and Spark's DDL spellings, and Paimon types parsed into
`DataType`s (pure: no I/O).

>>> from paimon_sql.types import type_sql
>>> type_sql(parse_sql_type("ROW<a INT NOT NULL, b ARRAY<STRING>>"))
'ROW<`a` INT NOT NULL, `b` ARRAY<STRING>>'
"""

from __future__ import annotations

import sqlglot
from sqlglot import exp, parser, tokens
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokens import TokenType

from paimon_sql.errors import SchemaError, SqlError, UnsupportedFeatureError
from paimon_sql.types import MAX_LENGTH, DataField, DataType

__all__ = ["VALID_TYPES", "Paimon", "parse_sql_type"]

#: Type names accepted in DDL (for error messages).
VALID_TYPES = (
    "BOOLEAN, TINYINT, SMALLINT, INT/INTEGER, BIGINT, FLOAT, DOUBLE, DECIMAL(p, s), CHAR(n), "
    "VARCHAR(n), STRING, BINARY(n), VARBINARY(n), BYTES, DATE, TIME(p), TIMESTAMP(p), "
    "TIMESTAMP_LTZ(p) / TIMESTAMP(p) WITH LOCAL TIME ZONE, TIMESTAMP_NTZ, ARRAY<T>, MAP<K, V>, "
    "MULTISET<T>, ROW<name T, ...> / STRUCT<name: T, ...>, VARIANT, BLOB"
)


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

    >>> from paimon_sql.types import type_sql
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
