"""The sqlglot `Paimon` dialect: what paimon-sql reads itself, parsed (pure: no I/O).

* DDL in Flink's and Spark's spellings, and Paimon types into `DataType`s (`parse_sql_type`);
* ``CALL [sys.]procedure(arg, name => value)`` into a `Call` (`parse_call`; its arguments follow
  Spark's lexical rules, as Paimon's procedures are Spark's);
* ``SHOW DATABASES | SCHEMAS``, ``SHOW TABLES FROM db``, ``SHOW CREATE TABLE db.t`` into
  `exp.Show` (`parse_show`; other SHOW forms are DuckDB's);
* a table's ``/*+ OPTIONS('k' = 'v') */`` hint into `TableOptions` (`parse_hint`: queries are
  parsed by DuckDB's or Spark's dialect, which keep the hint as a comment on the table);
* ``t$snapshots`` / ``t$branch_b`` / ``t$branch_b$files`` into a `TableName` (`table_name`);
* the leading words that route a statement read as text (`is_create_table`, `is_alter_table`,
  `create_table_database`, `names_paimon_options`), from tokens, so strings and comments never
  count.

No regular expression routes a statement: everything here goes through sqlglot's tokenizer.

>>> from paimon_sql.types import type_sql
>>> type_sql(parse_sql_type("ROW<a INT NOT NULL, b ARRAY<STRING>>"))
'ROW<`a` INT NOT NULL, `b` ARRAY<STRING>>'
>>> parse_call("CALL sys.rollback(table => 'db.t', version => 2)").procedure
'rollback'
"""

from __future__ import annotations

import contextlib
import functools
import logging
from typing import TYPE_CHECKING

import sqlglot
from sqlglot import exp, generator, parser, tokens
from sqlglot.dialects.dialect import Dialect
from sqlglot.dialects.spark import Spark
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokens import TokenType

from paimon_sql.catalog.names import SYSTEM_TABLE_SPLITTER, TableName, table_name
from paimon_sql.engine.errors import from_sqlglot
from paimon_sql.errors import SchemaError, SqlError, UnsupportedFeatureError
from paimon_sql.types import MAX_LENGTH, DataField, DataType, FieldIds

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Sequence

    from sqlglot.tokens import Token

__all__ = [
    "SYSTEM_TABLE_SPLITTER",
    "VALID_TYPES",
    "Call",
    "Paimon",
    "TableName",
    "TableOptions",
    "create_table_database",
    "create_table_name",
    "export_database_target",
    "is_alter_table",
    "is_create_table",
    "names_paimon_options",
    "parse_call",
    "parse_comment",
    "parse_hint",
    "parse_show",
    "parse_sql_type",
    "quiet_sqlglot",
    "table_name",
]

#: Type names accepted in DDL (for error messages).
VALID_TYPES = (
    "BOOLEAN, TINYINT, SMALLINT, INT/INTEGER, BIGINT, FLOAT, DOUBLE, DECIMAL(p, s), CHAR(n), "
    "VARCHAR(n), STRING, BINARY(n), VARBINARY(n), BYTES, DATE, TIME(p), TIMESTAMP(p), "
    "TIMESTAMP_LTZ(p) / TIMESTAMP(p) WITH LOCAL TIME ZONE, TIMESTAMP_NTZ, ARRAY<T>, MAP<K, V>, "
    "MULTISET<T>, ROW<name T, ...> / STRUCT<name: T, ...>, VARIANT, BLOB"
)


# ----------------------------------------------------------------------------------- the dialect


class _ResetOptions(exp.Expression):
    """``RESET ('k', …)`` / ``UNSET TBLPROPERTIES [IF EXISTS] ('k', …)``.

    `must_exist`: UNSET TBLPROPERTIES without IF EXISTS (each key must be set).
    """

    arg_types = {"expressions": True, "must_exist": False}  # noqa: RUF012 - sqlglot's convention


class _ModifyColumn(exp.Expression):
    """Flink ``MODIFY c TYPE [COMMENT …] [FIRST | AFTER x]``: `this` is a ColumnDef."""

    arg_types = {"this": True}  # noqa: RUF012


class _MoveColumn(exp.Expression):
    """Spark ``ALTER COLUMN c FIRST | AFTER x``."""

    arg_types = {"this": True, "position": True}  # noqa: RUF012


class _DropColumns(exp.Expression):
    """``DROP [COLUMN|COLUMNS] c`` / ``DROP (c, d)``."""

    arg_types = {"expressions": True}  # noqa: RUF012


class Call(exp.Expression):
    """``CALL [sys.]procedure(arg, …, name => value, …)``.

    `this` is the procedure's name (an Identifier, as written); `expressions` are the arguments in
    order: positional ones as expressions, named ones as `exp.Kwarg` (``this`` the parameter name).
    """

    arg_types = {"this": True, "expressions": False}  # noqa: RUF012

    @property
    def procedure(self) -> str:
        """The procedure's name, lower case (procedures are named case-insensitively)."""
        return self.this.name.lower()


class TableOptions(exp.Expression):
    """Flink's dynamic table options hint ``/*+ OPTIONS('k' = 'v', …) */``.

    `expressions` are `exp.Property` nodes (key and value string literals), in the order written.
    """

    arg_types = {"expressions": True}  # noqa: RUF012

    def to_dict(self) -> dict[str, str]:
        """The options as a mapping (a key given twice: the last value wins)."""
        return {p.name: p.text("value") for p in self.expressions}


#: Token types a name written without quotes is glued from (``my-db`` is VAR DASH VAR).
_NAME_GLUE = frozenset({TokenType.VAR, TokenType.NUMBER, TokenType.DASH})


class _PaimonParser(parser.Parser):
    """The default parser plus Flink's nested types, Flink/Spark ALTER TABLE forms.

    ``CALL`` and the ``SHOW`` forms paimon-sql answers itself.
    """

    STATEMENT_PARSERS = {  # noqa: RUF012
        **parser.Parser.STATEMENT_PARSERS,
        TokenType.SHOW: lambda self: self._paimon_show(),
    }
    EXPRESSION_PARSERS = {  # noqa: RUF012
        **parser.Parser.EXPRESSION_PARSERS,
        TableOptions: lambda self: self._paimon_options(),
    }

    def _parse_statement(self) -> exp.Expr | None:
        if self._curr and self._curr.token_type == TokenType.VAR and _is_call(self._curr):
            self._advance()
            return self._paimon_call()
        return super()._parse_statement()

    # --- CALL -----------------------------------------------------------------------------------

    def _paimon_call(self) -> exp.Expr:
        start = self._prev
        parts = [self._paimon_name()]
        while parts[-1] is not None and self._match(TokenType.DOT):
            parts.append(self._paimon_name())
        is_call = parts[-1] is not None and self._match(TokenType.L_PAREN)
        arguments: list[exp.Expr] = []
        if is_call and not self._match(TokenType.R_PAREN):
            arguments = self._parse_csv(self._paimon_call_argument)
            self._match_r_paren()
        self._match(TokenType.SEMICOLON)
        rest = _rest_of(self.sql, start)
        if not is_call or not self._at_end():
            raise SqlError(f"not a procedure call: CALL {rest}")
        names = [p.name for p in parts if p is not None]
        if len(names) > 2 or (len(names) == 2 and names[0].lower() != "sys"):
            raise SqlError(
                f"procedures live in the 'sys' namespace: write CALL sys.{names[-1]}(...)"
            )
        call = Call(this=parts[-1], expressions=arguments)
        _check_argument_order(call)
        return call

    def _paimon_call_argument(self) -> exp.Expr | None:
        if self._next and self._next.token_type == TokenType.FARROW:
            name = self._parse_id_var(any_token=True)
            self._match(TokenType.FARROW)
            value = self._parse_assignment()
            if value is None:
                self.raise_error(f"Expecting a value for {name.name if name else 'the argument'}")
            return exp.Kwarg(this=name, expression=value)
        return self._parse_assignment()

    def _at_end(self) -> bool:
        return self._index >= len(self._tokens)

    # --- SHOW -----------------------------------------------------------------------------------

    def _paimon_show(self) -> exp.Expr:
        start = self._prev
        if self._match_texts(("DATABASES", "SCHEMAS")):
            return exp.Show(this=self._prev.text.upper())
        if self._match_text_seq("TABLES"):
            database = None
            if self._match_set((TokenType.FROM, TokenType.IN)):
                database = self._paimon_name()
                if database is None:
                    self.raise_error("Expecting a database name")
            return exp.Show(this="TABLES", db=database)
        if self._match_text_seq("CREATE", "TABLE"):
            name = self._paimon_name()
            table = exp.Table(this=name)
            if name is not None and self._match(TokenType.DOT):
                table = exp.Table(this=self._paimon_name(), db=name)
            if table.this is None:
                self.raise_error("Expecting a table name")
            return exp.Show(this="CREATE TABLE", target=table)
        return self._parse_as_command(start)

    def _paimon_name(self) -> exp.Identifier | None:
        """A quoted name, or the tokens of an unquoted one written without spaces between them.

        For example ``my-db``, ``1st``, ``t$snapshots``; None when no name is next.
        """
        name, end = _name_at(self._tokens, self._index)
        if name is not None:
            self._advance(end - self._index)
        return name

    # --- OPTIONS hint ---------------------------------------------------------------------------

    def _paimon_options(self) -> TableOptions:
        if not (self._match_text_seq("OPTIONS") and self._match(TokenType.L_PAREN)):
            self.raise_error("Expecting OPTIONS(")
        pairs = (
            []
            if self._match(TokenType.R_PAREN, advance=False)
            else self._parse_csv(self._paimon_option)
        )
        self._match_r_paren()
        return TableOptions(expressions=pairs)

    def _paimon_option(self) -> exp.Expr:
        key = self._parse_string()
        if key is None or not self._match(TokenType.EQ):
            self.raise_error("Expecting 'key' = 'value'")
        value = self._parse_string()
        if value is None:
            self.raise_error("Expecting a quoted value")
        return exp.Property(this=key, value=value)

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

    def _parse_string(self) -> exp.Expr | None:
        # ``COMMENT ON … IS NULL`` (the comment removed): the only place a string follows IS
        if self._prev and self._prev.token_type == TokenType.IS and self._match(TokenType.NULL):
            return exp.Null()
        return super()._parse_string()

    def _parse_property(self) -> exp.Expr | list[exp.Expr] | None:
        # Spark's ``USING paimon OPTIONS ('k' = 'v')`` (Spark's own parser reads it the same way)
        if self._match_text_seq("OPTIONS", "(", advance=False):
            self._advance()
            pairs = self._parse_wrapped_csv(lambda: self._parse_key_value_property(optional=True))
            return self.expression(exp.OptionsProperty(expressions=pairs))
        return super()._parse_property()

    def _paimon_reset(self) -> exp.Expr:
        unset = self._prev.text.upper() == "UNSET"
        self._match_text_seq("TBLPROPERTIES")
        exists = self._parse_exists()
        keys = self._parse_wrapped_csv(self._parse_string)
        return _ResetOptions(expressions=keys, must_exist=unset and not exists)

    def _paimon_drop(self) -> exp.Expr:
        self._match(TokenType.COLUMN) or self._match_text_seq("COLUMNS")
        if self._match(TokenType.L_PAREN):
            names = self._parse_csv(self._parse_id_var)
            self._match_r_paren()
        else:
            names = self._parse_csv(self._parse_id_var)
        return _DropColumns(expressions=names)

    def _paimon_add(self) -> list[exp.Expr]:
        if self._match_set(self.ADD_CONSTRAINT_TOKENS, advance=False) or self._match_texts(
            self.ADD_CONSTRAINT_KEYWORDS, advance=False
        ):
            return [exp.AddConstraint(expressions=self._parse_csv(self._parse_constraint))]
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
        KEYWORDS = {  # noqa: RUF012
            **tokens.Tokenizer.KEYWORDS,
            "ROW": TokenType.STRUCT,
            "INT8": TokenType.BIGINT,  # DuckDB's and Postgres's 8 bytes (sqlglot reads 8 bits)
        }
        KEYWORDS.pop("BLOB", None)
        KEYWORDS.pop("CALL", None)  # a statement of its own (`Call`), not an opaque command
        COMMANDS = tokens.Tokenizer.COMMANDS - {TokenType.SHOW}  # SHOW is parsed (`exp.Show`)

        def tokenize(self, sql: str) -> list[Token]:
            r"""Tokens of `sql`; a ``CALL`` follows Spark's lexical rules.

            ``"…"`` and ``'…'`` are strings, ``\`` escapes, as Paimon's procedures are Spark's; in
            ``'…'`` a doubled ``''`` is one quote too (standard SQL, Flink's CALL).
            """
            try:
                found = super().tokenize(sql)
            except TokenError:
                if not _starts_with_call(self.tokens):
                    raise
                return _CallTokenizer(dialect="spark").tokenize(sql)
            if _starts_with_call(found):
                return _CallTokenizer(dialect="spark").tokenize(sql)
            return found

    Parser = _PaimonParser

    class Generator(generator.Generator):
        """Renders `Call` and `TableOptions` back as written (for messages and tests)."""

        TRANSFORMS = {  # noqa: RUF012
            **generator.Generator.TRANSFORMS,
            Call: lambda self, e: f"CALL sys.{self.sql(e, 'this')}({self.expressions(e, flat=1)})",
            TableOptions: lambda self, e: f"/*+ OPTIONS({_option_pairs(self, e)}) */",
        }


class _CallTokenizer(Spark.Tokenizer):
    """Spark's tokenizer, with CALL a word (the `Paimon` parser reads the statement).

    ``'it''s'`` is ``it's`` (SQL's escape, which Flink's CALL reads), not Spark's two adjacent
    literals ``'it'`` ``'s'``.
    """

    STRING_ESCAPES = ["\\", "'"]  # noqa: RUF012

    KEYWORDS = {**Spark.Tokenizer.KEYWORDS}  # noqa: RUF012
    KEYWORDS.pop("CALL", None)


def _option_pairs(gen: generator.Generator, options: TableOptions) -> str:
    """``'k' = 'v', …`` (Flink quotes the keys too)."""
    return ", ".join(f"{gen.sql(p, 'this')} = {gen.sql(p, 'value')}" for p in options.expressions)


def _is_call(token: Token) -> bool:
    return token.token_type == TokenType.VAR and token.text.upper() == "CALL"


def _starts_with_call(found: Sequence[Token]) -> bool:
    """A CALL with something after it (a bare ``CALL`` is DuckDB's to report)."""
    return len(found) > 1 and _is_call(found[0])


def _rest_of(sql: str, start: Token) -> str:
    """The text after `start`, without surrounding blanks and one trailing ``;``."""
    rest = sql[start.end + 1 :].strip()
    return rest[:-1].rstrip() if rest.endswith(";") else rest


def _name_at(found: Sequence[Token], i: int) -> tuple[exp.Identifier | None, int]:
    """The name starting at token `i` (see `_PaimonParser._paimon_name`) and the index after it."""
    if i < len(found) and found[i].token_type == TokenType.IDENTIFIER:
        return exp.to_identifier(found[i].text, quoted=True), i + 1
    end = i
    while end < len(found) and _name_piece(found[end]):
        if end > i and not _adjacent(found[end - 1], found[end]):
            break
        end += 1
    glued = "".join(token.text for token in found[i:end])
    return (exp.to_identifier(glued) if glued else None), end


def _name_piece(token: Token) -> bool:
    if token.token_type in (TokenType.IDENTIFIER, TokenType.STRING, TokenType.SENTINEL):
        return False
    return token.token_type in _NAME_GLUE or token.text.replace("_", "a").isalnum()


def _adjacent(before: Token, after: Token) -> bool:
    return before.end + 1 == after.start


def _check_argument_order(call: Call) -> None:
    """Positional arguments first; a named one given once (Spark and Flink refuse a repeat)."""
    named: set[str] = set()
    for argument in call.expressions:
        if isinstance(argument, exp.Kwarg):
            name = argument.this.name.lower()
            if name in named:
                raise SqlError(f"CALL sys.{call.procedure}: parameter {name!r} is given twice")
            named.add(name)
        elif named:
            raise SqlError(
                f"CALL sys.{call.procedure}: positional arguments must come before named ones"
            )


def _parse_one(sql: str) -> exp.Expr:
    try:
        with quiet_sqlglot():
            statements = [s for s in sqlglot.parse(sql, dialect=Paimon) if s is not None]
    except ParseError as err:
        first = err.errors[0] if err.errors else {}
        raise SqlError(
            f"cannot parse statement: {first.get('description', err)}",
            line=first.get("line"),
            col=first.get("col"),
        ) from err
    except TokenError as err:
        raise from_sqlglot(err, "cannot parse statement", text=sql) from err
    if len(statements) != 1:
        raise SqlError(f"expected one statement, got {len(statements)}")
    return statements[0]


@contextlib.contextmanager
def quiet_sqlglot() -> Iterator[None]:
    """Silence sqlglot's warning when it falls back to an opaque Command.

    ``SHOW``, ``CALL`` or an ``ALTER TABLE t`` cut short: the caller handles or refuses the
    statement with its own message, which is all the user should see.
    """
    log = logging.getLogger("sqlglot")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        yield
    finally:
        log.setLevel(level)


# ------------------------------------------------------------------------------------- types


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


def _float(precision: int) -> DataType:
    """``FLOAT(p)``, p in bits (SQL standard, DuckDB): up to 24 FLOAT, else DOUBLE."""
    if not 1 <= precision <= 53:
        raise SchemaError(f"FLOAT({precision}): the precision (bits) must be in [1, 53]")
    return DataType(root="FLOAT" if precision <= 24 else "DOUBLE")


def _decimal(params: list[int]) -> DataType:
    precision, scale = (params + [10, 0][len(params) :])[:2] if params else (10, 0)
    if not 1 <= precision <= 38 or not 0 <= scale <= precision:
        raise SchemaError(f"DECIMAL({precision}, {scale}): precision in [1, 38], scale in [0, p]")
    return DataType(root="DECIMAL", precision=precision, scale=scale)


_SIMPLE = {
    "BOOLEAN": "BOOLEAN", "TINYINT": "TINYINT", "SMALLINT": "SMALLINT", "INT": "INT",
    "BIGINT": "BIGINT", "FLOAT": "FLOAT", "DOUBLE": "DOUBLE", "DATE": "DATE", "VARIANT": "VARIANT",
}  # fmt: skip
_STRING = DataType(root="VARCHAR", length=MAX_LENGTH)


#: DuckDB types Paimon has no type for (sqlglot's names), and what to declare instead.
_ALTERNATIVES = {
    "UUID": "STRING (or CHAR(36))", "INT128": "DECIMAL(38, 0)", "UINT128": "DECIMAL(38, 0)",
    "BIGNUM": "DECIMAL(38, 0)", "UBIGINT": "DECIMAL(20, 0)", "UINT": "BIGINT",
    "USMALLINT": "INT", "UTINYINT": "SMALLINT", "JSON": "STRING", "ENUM": "STRING",
    "INTERVAL": "BIGINT (a count of the unit you need)", "BIT": "BYTES",
    "TIMESTAMPTZ": "TIMESTAMP_LTZ", "TIMETZ": "TIME", "UNION": "ROW<…>",
    "TIMESTAMP_S": "TIMESTAMP(0)", "TIMESTAMP_MS": "TIMESTAMP(3)", "TIMESTAMP_NS": "TIMESTAMP(9)",
    "GEOMETRY": "BYTES (well-known binary)", "VARINT": "DECIMAL(38, 0)",
    "UINTEGER": "BIGINT", "GUID": "STRING (or CHAR(36))", "BITSTRING": "BYTES",
    "UINT8": "SMALLINT", "UINT16": "INT", "UINT32": "BIGINT", "UINT64": "DECIMAL(20, 0)",
    "TIME_NS": "TIME", "TIMESTAMPTZ_NS": "TIMESTAMP_LTZ(9)", "PARQUET_VARIANT": "VARIANT",
    "INT256": "DECIMAL(38, 0)",
}  # fmt: skip
#: DuckDB's other names of types Paimon has (``SELECT * FROM duckdb_types()``), as DuckDB means
#: them; sqlglot reads them as user-defined types.
_DUCKDB_ALIASES = {
    "LOGICAL": "BOOLEAN", "SIGNED": "INT", "INTEGRAL": "INT", "OID": "BIGINT",
    "TIMESTAMP_US": "TIMESTAMP",
}  # fmt: skip
#: sqlglot's names of DuckDB types, as the user wrote them.
_DUCKDB_NAMES = {
    "INT128": "HUGEINT", "UINT128": "UHUGEINT", "UINT": "UINTEGER",
    "TIMESTAMPTZ": "TIMESTAMP WITH TIME ZONE", "TIMETZ": "TIME WITH TIME ZONE",
}  # fmt: skip


def _atomic(name: str, params: list[int]) -> DataType | None:
    if name == "FLOAT" and params:
        return _float(params[0])
    if name in _SIMPLE or name == "TEXT":
        if params:
            instead = f"VARCHAR({params[0]})" if name == "TEXT" else _SIMPLE[name]
            shown = "STRING" if name == "TEXT" else name
            raise SqlError(f"type {shown} takes no length or precision; write {instead}")
        return DataType(root=_SIMPLE[name]) if name in _SIMPLE else _STRING
    if name in ("NVARCHAR", "BPCHAR"):  # DuckDB's names of VARCHAR
        name = "VARCHAR"
    if name == "DATETIME":  # DuckDB's name of TIMESTAMP (microseconds)
        name = "TIMESTAMP"
    if name in ("CHAR", "BINARY"):
        return _sized(name, params, 1, 1, 255 if name == "CHAR" else MAX_LENGTH)
    if name in ("VARCHAR", "VARBINARY"):  # without a length: STRING / BYTES, as in DuckDB
        return _sized(name, params, MAX_LENGTH, 1, MAX_LENGTH)
    if name == "DECIMAL":
        return _decimal(params)
    if name == "TIME":
        return _sized("TIME", params, 0, 0, 9)
    if name in ("TIMESTAMP", "TIMESTAMPNTZ"):
        return _sized("TIMESTAMP", params, 6, 0, 9)
    if name == "TIMESTAMPLTZ":
        return _sized("TIMESTAMP_LTZ", params, 6, 0, 9)
    return None


def _user_defined(node: exp.DataType, ids: FieldIds) -> DataType:
    kind = str(node.args.get("kind") or "").upper()
    if kind == "BYTES":
        return DataType(root="VARBINARY", length=MAX_LENGTH)
    if kind == "BLOB":
        return DataType(root="BLOB")
    if kind == "MULTISET":
        (element,) = _inner(node, 1, "MULTISET<T>")
        return DataType(root="MULTISET", element=_convert(element, ids))
    if kind in _DUCKDB_ALIASES:
        return parse_sql_type(_DUCKDB_ALIASES[kind])
    duckdb_name = {v: k for k, v in _DUCKDB_NAMES.items()}.get(kind, kind)
    instead = _ALTERNATIVES.get(duckdb_name) or _ALTERNATIVES.get(kind)
    if instead is not None:
        raise SqlError(f"type {kind} is not a Paimon type; use {instead} instead")
    raise SqlError(f"unknown type {kind or node.sql()!r}; valid types: {VALID_TYPES}")


def _inner(node: exp.DataType, count: int, form: str) -> list[exp.Expr]:
    """The `count` types inside ``<…>`` of a nested type, or a `SchemaError` showing its `form`."""
    inner = list(node.expressions)
    if len(inner) != count:
        raise SchemaError(f"type {node.sql()!r} needs {count} type(s) inside <>: write {form}")
    return inner


def _convert(node: exp.Expr, ids: FieldIds) -> DataType:
    """A Paimon `DataType` from a sqlglot type; nested ROW fields take ids from `ids`."""
    if not isinstance(node, exp.DataType):
        raise SqlError(f"expected a type, got {node.sql()!r}; valid types: {VALID_TYPES}")
    name = node.this.name if isinstance(node.this, exp.DType) else str(node.this)
    nullable = node.args.get("nullable") is not False
    if name == "USERDEFINED":
        return _user_defined(node, ids).with_nullable(nullable)
    if name == "ARRAY":
        (element,) = _inner(node, 1, "ARRAY<T>")
        if node.args.get("values"):  # DuckDB's fixed-size ``INT[3]``
            shown = node.sql("duckdb")
            raise UnsupportedFeatureError(
                f"type {shown}: Paimon arrays have no fixed size; write ARRAY<{element.sql()}> "
                "(or T[]) and keep the size in the data"
            )
        return DataType(root="ARRAY", element=_convert(element, ids), nullable=nullable)
    if name == "MAP":
        key, value = (_convert(e, ids) for e in _inner(node, 2, "MAP<K, V>"))
        return DataType(root="MAP", key=key, value=value, nullable=nullable)
    if name == "STRUCT":
        fields = tuple(_column(c, ids) for c in node.expressions)
        return DataType(root="ROW", fields=fields, nullable=nullable)
    instead = _ALTERNATIVES.get(name)
    if instead is not None:
        shown = _DUCKDB_NAMES.get(name, name)
        raise SqlError(f"type {shown} is not a Paimon type; use {instead} instead")
    try:
        params = _params(node)
    except ValueError as err:
        raise SqlError(f"type {node.sql()!r}: its parameters must be integers") from err
    atomic = _atomic(name, params)
    if atomic is None:
        raise SqlError(f"type {node.sql()!r} is not a Paimon type; valid types: {VALID_TYPES}")
    return atomic.with_nullable(nullable)


def _column(node: exp.Expr, ids: FieldIds) -> DataField:
    """A `DataField` from a ColumnDef: its id first, then ids of nested fields (Java's order)."""
    if not isinstance(node, exp.ColumnDef) or node.args.get("kind") is None:
        raise SqlError(f"expected 'name TYPE', got {node.sql()!r}")
    field_id = ids.take()
    try:
        data_type = _convert(node.args["kind"], ids)
    except SqlError as err:
        raise SqlError(f"column {node.name!r}: {err}") from err
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
    return _column(columns[0], FieldIds()).type


# ------------------------------------------------------------------- statements the session routes


def parse_call(text: str) -> Call | None:
    """``CALL [sys.]procedure(…)`` as a `Call`; None when `text` is not a CALL.

    Raises:
        SqlError: a malformed CALL (with sqlglot's line and column when it has them).

    >>> call = parse_call("CALL sys.create_tag(table => 'db.t', tag => 'nightly', snapshot => 3)")
    >>> call.procedure, [a.sql() for a in call.expressions]
    ('create_tag', ["table => 'db.t'", "tag => 'nightly'", 'snapshot => 3'])
    >>> parse_call("SELECT 1") is None
    True
    """
    if not _starts_with_call(_tokens(text)):
        return None
    try:
        statement = sqlglot.parse_one(text, read=Paimon)
    except (ParseError, TokenError) as err:
        raise from_sqlglot(err, "cannot parse CALL statement") from err
    assert isinstance(statement, Call)
    return statement


def parse_show(text: str) -> exp.Show | None:
    """The ``SHOW`` forms paimon-sql answers itself, as an `exp.Show`.

    ``SHOW DATABASES`` / ``SCHEMAS`` (`this` the word), ``SHOW TABLES [FROM|IN db]`` (`db`), ``SHOW
    CREATE TABLE db.t`` (`target`); None for any other text (DuckDB runs it).

    >>> parse_show("SHOW TABLES FROM `shop`").args["db"].name
    'shop'
    >>> parse_show("SHOW CREATE TABLE shop.orders").args["target"].sql()
    'shop.orders'
    >>> parse_show("SHOW TABLES LIKE 'o%'") is None
    True
    """
    found = _tokens(text)
    if not found or found[0].token_type != TokenType.SHOW:
        return None
    try:
        statement = sqlglot.parse_one(text, read=Paimon)
    except (ParseError, TokenError):
        return None
    return statement if isinstance(statement, exp.Show) else None


def parse_hint(comment: str) -> TableOptions | None:
    """A table's ``/*+ OPTIONS('k' = 'v', …) */`` hint from the text of a comment sqlglot kept.

    The text is ``+ OPTIONS(…)``, or ``OPTIONS(…)`` where the dialect dropped the ``+``; None for
    any other comment.

    Raises:
        SqlError: an OPTIONS hint whose keys and values are not quoted strings.

    >>> parse_hint("+ OPTIONS('scan.snapshot-id' = '3') ").to_dict()
    {'scan.snapshot-id': '3'}
    >>> parse_hint(" a comment ") is None
    True
    """
    found = _tokens(comment)
    for i, token in enumerate(found[:-1]):
        opens = found[i + 1].token_type == TokenType.L_PAREN
        if _word(token) == "OPTIONS" and opens:
            try:
                (hint,) = Paimon().parse_into(TableOptions, comment[token.start :])
            except (ParseError, TokenError) as err:
                raise from_sqlglot(err, "cannot read the OPTIONS hint") from err
            assert isinstance(hint, TableOptions)
            return hint
    return None


def hint_options(comment: str) -> dict[str, str] | None:
    """The options of a ``/*+ OPTIONS(…) */`` hint comment, or None (what the binder reads).

    >>> hint_options("+ OPTIONS('scan.tag-name' = 'v1')"), hint_options(" note ")
    ({'scan.tag-name': 'v1'}, None)
    """
    hint = parse_hint(comment)
    return None if hint is None else hint.to_dict()


def refuse_misplaced_hint(statement: exp.Expression, text: str | None = None) -> None:
    """An ``OPTIONS`` hint anywhere but right after a table's name is refused (nothing reads it).

    Flink reads ``/*+ OPTIONS(…) */`` after the table name only; DuckDB gives ``/*+ … */``
    comments no meaning, so one after ``SELECT`` would be silently ignored. `text`: the
    statement's text, when known (a text without ``/*+`` is not walked).

    >>> def parse(text):
    ...     return sqlglot.parse_one(text, read="duckdb")
    >>> refuse_misplaced_hint(parse("SELECT * FROM t /*+ OPTIONS('a'='1') */"))
    >>> refuse_misplaced_hint(parse("SELECT /*+ OPTIONS('a'='1') */ * FROM t"))
    Traceback (most recent call last):
    ...
    paimon_sql.errors.SqlError: the hint /*+ OPTIONS('a'='1') */ is not read where it stands: ...
    >>> text = "SELECT * FROM (SELECT 1) /*+ OPTIONS('a'='1') */ s"  # the parse drops it
    >>> refuse_misplaced_hint(parse(text), text)
    Traceback (most recent call last):
    ...
    paimon_sql.errors.SqlError: the hint /*+ OPTIONS('a'='1') */ is not read where it stands: ...
    """
    if text is not None and "/*+" not in text:
        return
    kept = 0  # the hints the parse kept on a table
    for node in statement.walk():
        if isinstance(node, exp.Hint):  # Spark's parse of a hint after SELECT
            if any(e.name.upper() == "OPTIONS" for e in node.expressions):
                _misplaced(f"+ {node.sql('spark')[4:-3].strip()} ")
            continue
        for comment in _hints(node.comments or []):
            if not isinstance(node, exp.Table):
                _misplaced(comment)
            kept += 1
    # sqlglot drops some comments (after a subquery's parenthesis …): a hint it dropped is
    # read by nobody
    in_text = [] if text is None else _hints(c for t in _tokens(text) for c in t.comments)
    if len(in_text) > kept:
        _misplaced(in_text[-1])


def _hints(comments: Iterable[str]) -> list[str]:
    """The comments that are ``OPTIONS`` hints."""
    return [c for c in comments if parse_hint(c) is not None]


def _misplaced(comment: str) -> None:
    hint = comment.strip().lstrip("+").strip()
    raise SqlError(
        f"the hint /*+ {hint} */ is not read where it stands: put the hint after the "  # noqa: S608 - a message
        "table name (SELECT * FROM db.t /*+ OPTIONS(…) */), Flink's form"
    )


# --------------------------------------------------- the leading words of statements read as text


def parse_comment(text: str) -> exp.Comment | None:
    """``COMMENT [IF EXISTS] ON <kind> <name> IS '…' | NULL`` as an `exp.Comment`.

    None for any other text, or one sqlglot cannot read (DuckDB then reports it).

    >>> parse_comment("COMMENT ON COLUMN db.t.v IS NULL").expression
    Null()
    >>> parse_comment("SELECT 1") is None
    True
    """
    found = _tokens(text)
    if not found or found[0].token_type != TokenType.COMMENT:
        return None
    try:
        with quiet_sqlglot():
            statement = sqlglot.parse_one(text, read=Paimon)
    except (ParseError, TokenError):
        return None
    return statement if isinstance(statement, exp.Comment) else None


def export_database_target(text: str) -> str | None:
    """The database ``EXPORT DATABASE [name TO] 'dir'`` exports: its name, ``""`` for the current.

    None for any other statement (sqlglot reads no EXPORT; DuckDB runs it).

    >>> export_database_target("EXPORT DATABASE 'dir'")
    ''
    >>> export_database_target("export database x to 'd'")
    'x'
    >>> export_database_target("SELECT 1") is None
    True
    """
    found = _tokens(text)
    if [_word(t) for t in found[:2]] != ["EXPORT", "DATABASE"] or len(found) < 3:
        return None
    return "" if found[2].token_type == TokenType.STRING else found[2].text


def is_create_table(text: str) -> bool:
    """Whether `text` starts ``CREATE [OR REPLACE] TABLE``.

    >>> is_create_table("create or replace table db.t (id INT)"), is_create_table("CREATE VIEW v")
    (True, False)
    """
    return _after_create_table(_tokens(text)) is not None


def is_alter_table(text: str) -> bool:
    """Whether `text` starts ``ALTER TABLE``.

    >>> is_alter_table("ALTER TABLE db.t ADD c INT"), is_alter_table("ALTER VIEW v AS SELECT 1")
    (True, False)
    """
    return [_word(t) for t in _tokens(text)[:2]] == ["ALTER", "TABLE"]


def create_table_database(text: str) -> str | None:
    """The database of ``CREATE [OR REPLACE] TABLE [IF NOT EXISTS] db.t …``.

    Also when the rest of the statement cannot be read; None without one.

    >>> create_table_database("CREATE TABLE IF NOT EXISTS `my-db`.t (id NOPE)")
    'my-db'
    """
    found = _tokens(text)
    i = _after_create_table(found)
    if i is None:
        return None
    if [_word(t) for t in found[i : i + 3]] == ["IF", "NOT", "EXISTS"]:
        i += 3
    name, end = _name_at(found, i)
    dotted = end < len(found) and found[end].token_type == TokenType.DOT
    return name.name if name is not None and dotted else None


def create_table_name(text: str) -> list[str]:
    """The dotted name of ``CREATE [OR REPLACE] TABLE [IF NOT EXISTS] <name> …`` as its parts.

    The parts are ``[catalog, db, table]``, ``[db, table]`` or ``[table]``, also when the rest
    cannot be read; empty when `text` is not a CREATE TABLE.

    >>> create_table_name("CREATE TABLE memory.main.t (x INT)"), create_table_name("CREATE TABLE t")
    (['memory', 'main', 't'], ['t'])
    """
    found = _tokens(text)
    i = _after_create_table(found)
    if i is None:
        return []
    if [_word(t) for t in found[i : i + 3]] == ["IF", "NOT", "EXISTS"]:
        i += 3
    parts: list[str] = []
    while True:
        name, i = _name_at(found, i)
        if name is None:
            return parts
        parts.append(name.name)
        if i >= len(found) or found[i].token_type != TokenType.DOT:
            return parts
        i += 1


def ctas_query(text: str) -> exp.Query | None:
    """The query of ``CREATE TABLE … AS <query>`` as DuckDB reads it; None when there is none.

    The table part is Flink's or Spark's, the query DuckDB's (``MAP {'k': 1}`` is a map, ``INT[2]``
    a type): the query's text, after the first ``AS`` outside parentheses, is parsed on its own.
    None too when DuckDB's dialect cannot read it (the caller keeps its own parse).

    >>> ctas_query("CREATE TABLE t WITH ('bucket' = '1') AS SELECT MAP {'k': 1} AS m").sql("duckdb")
    "SELECT MAP {'k': 1} AS m"
    """
    depth = 0
    for token in _tokens(text):
        if token.token_type == TokenType.L_PAREN:
            depth += 1
        elif token.token_type == TokenType.R_PAREN:
            depth -= 1
        elif token.token_type == TokenType.ALIAS and depth == 0:
            try:
                with quiet_sqlglot():
                    query = sqlglot.parse_one(text[token.end + 1 :], read="duckdb")
            except (ParseError, TokenError):
                return None
            return query if isinstance(query, exp.Query) else None
    return None


def names_paimon_options(text: str) -> bool:
    """Whether a CREATE TABLE has Paimon's clauses.

    ``WITH (…)``, ``TBLPROPERTIES`` or ``USING paimon`` (then it is meant for the warehouse, never
    for DuckDB).

    >>> names_paimon_options("CREATE TABLE t (id INT) USING paimon")
    True
    """
    words = [_word(t) for t in _tokens(text)]
    follows = list(zip(words, [*words[1:], None], strict=True))
    return "TBLPROPERTIES" in words or ("WITH", "(") in follows or ("USING", "PAIMON") in follows


#: The words between a write's verb and its target's name.
_WRITE_LEAD = {
    "INSERT": frozenset({"OR", "REPLACE", "IGNORE", "INTO", "OVERWRITE", "TABLE"}),
    "DELETE": frozenset({"FROM"}),
    "UPDATE": frozenset(),
    "MERGE": frozenset({"INTO"}),
}


def after_write_target(text: str) -> tuple[str, tuple[Token, ...]] | None:
    """The verb of an INSERT, DELETE, UPDATE or MERGE and the tokens after its target's name.

    For the forms no parser reads (``INSERT INTO t VERSION AS OF 1 …``, ``… BY POSITION``); None
    for another statement.

    >>> verb, rest = after_write_target("INSERT INTO db.t BY POSITION VALUES (1)")
    >>> verb, [t.text for t in rest[:2]]
    ('INSERT', ['BY', 'POSITION'])
    """
    found = _tokens(text)
    verb = _word(found[0]) if found else None
    if verb not in _WRITE_LEAD:
        return None
    i = 1
    while i < len(found) and _word(found[i]) in _WRITE_LEAD[verb]:
        i += 1
    i += 1  # the (first part of the) name
    while i + 1 < len(found) and found[i].token_type == TokenType.DOT:
        i += 2
    return verb, found[i:]


@functools.lru_cache(maxsize=16)
def _tokens(text: str) -> tuple[Token, ...]:
    """The tokens of `text`; when it cannot be read to its end, those before the problem.

    Cached: routing asks several questions of the same statement (CALL? SHOW? CREATE TABLE?).
    """
    tokenizer = Paimon.Tokenizer(dialect=Paimon)
    try:
        return tuple(tokenizer.tokenize(text))
    except TokenError:
        return tuple(tokenizer.tokens)


def _word(token: Token) -> str | None:
    """A keyword or unquoted word, upper case; None for quoted names and strings."""
    if token.token_type in (TokenType.IDENTIFIER, TokenType.STRING):
        return None
    return token.text.upper()


def _after_create_table(found: Sequence[Token]) -> int | None:
    words = [_word(t) for t in found[:4]]
    if words[:2] == ["CREATE", "TABLE"]:
        return 2
    if words[:4] == ["CREATE", "OR", "REPLACE", "TABLE"]:
        return 4
    return None
