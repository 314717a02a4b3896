"""The table a write statement writes: no time travel on it, its ``OPTIONS`` hint checked per key.

* Time travel on the target (``UPDATE t VERSION AS OF 1 …``, ``DELETE FROM t AT (VERSION => 1)``,
  ``FOR SYSTEM_TIME AS OF``, a ``scan.*`` hint …) is refused: a write acts on the latest snapshot.
  A source of the write may travel (``INSERT INTO t SELECT * FROM t VERSION AS OF 1``).
* ``/*+ OPTIONS('k' = 'v') */`` after the target's name is Flink's dynamic options: laid over the
  table's options for this statement (`Table.with_options`), as Flink's sink copies the table with
  them. Taken are the options paimon-sql's writer reads per statement (`WRITE_HINTS`); options
  fixed at creation, read options and the others are refused by name, an unknown key as in CREATE
  TABLE.
* A system table (``db."t$snapshots"``) is read-only: refused where the target is resolved
  (``dispatch._target``, by the catalog's name parser).
* Forms around the target: ``DELETE FROM t AS x WHERE x.id = 1`` (`drop_alias`), ``WITH … INSERT``
  (`with_ctes`), ``INSERT … BY POSITION`` (`unparsed_write`); ``DEFAULT`` values are refused
  (`refuse_defaults`: Paimon has no column defaults on write).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlglot import exp

from paimon_sql.catalog.schema_change import IMMUTABLE_OPTIONS
from paimon_sql.changes.bounds import INCREMENTAL_OPTIONS, SCAN_MODE
from paimon_sql.engine.travel import TRAVEL_HINTS
from paimon_sql.errors import OptionError, SqlError, UnsupportedFeatureError
from paimon_sql.format.option_registry import normalise_options
from paimon_sql.sql.dialect import after_write_target, hint_options
from paimon_sql.sqlnodes import unqualify

if TYPE_CHECKING:
    from paimon_sql.catalog import Identifier, Table
    from paimon_sql.sql._context import Context

#: The options a write hint may set: the writer, the commit and the compaction after the write
#: read them from the table they are given (`Table.with_options`).
WRITE_HINTS = frozenset(
    {
        "file.format",
        "file.compression",
        "file.compression.zstd-level",
        "target-file-size",
        "write-buffer-size",
        "write-only",
        "dynamic-partition-overwrite",
        "commit.max-retries",
    }
)

#: Options a table's layout depends on: the same for every statement (Java refuses to change them).
_FIXED = IMMUTABLE_OPTIONS | {"bucket", "partition.default-name", "deletion-vectors.enabled"}

#: Why a known option outside `WRITE_HINTS` is refused in a write hint.
_NOT_PER_STATEMENT = (
    "is not taken per statement by paimon-sql's writer; set it on the table with ALTER TABLE … "
    "SET TBLPROPERTIES"
)

#: Why time travel is refused on a write target.
TRAVEL_REFUSAL = "a write acts on the latest snapshot; time travel is for reads"


def target_node(statement: exp.Expression) -> exp.Table | None:
    """The table node a write statement names as its target (INSERT's column list unwrapped)."""
    node = statement.this
    if isinstance(node, exp.Schema):
        node = node.this
    return node if isinstance(node, exp.Table) else None


def write_table(ctx: Context, ident: Identifier, statement: exp.Expression, what: str) -> Table:
    """The table `statement` (`what`: INSERT, DELETE …) writes, with its hint's options laid over.

    Raises:
        UnsupportedFeatureError: time travel on the target, or a hint option the write cannot take.
        OptionError: an unknown option or a bad value in the hint.
    """
    table = ctx.table(ident)
    node = target_node(statement)
    if node is None:
        return table
    refuse_travel(node, what, table.name)
    options = write_hint(node, what, table.name)
    return table.with_options(options) if options else table


def refuse_travel(node: exp.Table, what: str, name: str) -> None:
    """Refuse ``VERSION AS OF``, ``TIMESTAMP AS OF``, ``FOR SYSTEM_TIME AS OF``, ``AT (…)``."""
    version, when = node.args.get("version"), node.args.get("when")
    if isinstance(version, exp.Version):
        clause = f"{version.this} AS OF {version.expression.sql('duckdb')}"
    elif isinstance(when, exp.HistoricalData):
        clause = f"AT ({when.args.get('kind')} => {when.expression.sql('duckdb')})"
    else:
        return
    raise UnsupportedFeatureError(
        f"{what} on {name} {clause}: {TRAVEL_REFUSAL} (a source of the write may travel: "  # noqa: S608 - a message
        "… SELECT … FROM t VERSION AS OF 1)"
    )


def write_hint(node: exp.Table, what: str, name: str) -> dict[str, str]:
    """The options of the target's ``/*+ OPTIONS(…) */`` hint, each one the write can take."""
    options: dict[str, str] = {}
    for comment in node.comments or []:
        options.update(hint_options(comment) or {})
    if not options:
        return {}
    try:
        normalised = normalise_options(options)
    except OptionError as err:
        raise OptionError(f"{what} on {name}: the OPTIONS hint: {err}") from err
    for key in normalised:
        why = _refusal(key)
        if why is not None:
            takes = f" (a write hint takes {', '.join(sorted(WRITE_HINTS))})"
            raise UnsupportedFeatureError(
                f"{what} on {name}: the hint option {key!r} {why}"
                + (takes if why is _NOT_PER_STATEMENT else "")
            )
    return normalised


def _refusal(key: str) -> str | None:
    """Why a write hint cannot take `key`; None when it can.

    >>> _refusal("file.format") is None, _refusal("bucket")
    (True, 'is fixed when the table is created; a statement cannot change it')
    """
    if key in WRITE_HINTS:
        return None
    if key in TRAVEL_HINTS:
        return f"asks for time travel: {TRAVEL_REFUSAL}"
    if key.startswith("scan.") or key in INCREMENTAL_OPTIONS or key == SCAN_MODE:
        return "is a read option; a write target takes write options only"
    if key in _FIXED:
        return "is fixed when the table is created; a statement cannot change it"
    return _NOT_PER_STATEMENT


#: How time travel reads right after a table's name (the words no parser reads on a write).
_TRAVEL_WORDS = (
    ("VERSION", "AS", "OF"),
    ("TIMESTAMP", "AS", "OF"),
    ("FOR", "SYSTEM_TIME"),
    ("FOR", "SYSTEM_VERSION"),
    ("FOR", "VERSION"),
    ("FOR", "TIMESTAMP"),
    ("AT", "("),
)


def unparsed_write(text: str) -> str | None:
    """A write statement no parser reads: its text to run instead, else None.

    ``INSERT INTO t BY POSITION …`` is the default order (the words are dropped); time travel on
    the target (``INSERT INTO t VERSION AS OF 1 …``, ``DELETE FROM t FOR SYSTEM_VERSION AS OF
    1``) is refused.

    >>> unparsed_write("INSERT INTO db.t BY POSITION SELECT 1")
    'INSERT INTO db.t SELECT 1'
    >>> unparsed_write("SELECT 1") is None
    True
    """
    found = after_write_target(text)
    if found is None:
        return None
    verb, rest = found
    words = tuple(t.text.upper() for t in rest[:3])
    for travel in _TRAVEL_WORDS:
        if words[: len(travel)] == travel:
            raise UnsupportedFeatureError(
                f"{verb} with {' '.join(travel).replace(' (', ' (…')}…: {TRAVEL_REFUSAL} (a "  # noqa: S608 - a message
                "source of the write may travel: … SELECT … FROM t VERSION AS OF 1)"
            )
    if words[:2] == ("BY", "POSITION"):
        return (text[: rest[0].start] + text[rest[1].end + 1 :].lstrip()).strip()
    return None


def drop_alias(statement: exp.Expression, table: str) -> None:
    """``DELETE FROM t AS x WHERE x.id = 1``: the target's alias replaced by the table's name.

    The statement's conditions and values then name the table as every read of it does.

    >>> import sqlglot
    >>> delete = sqlglot.parse_one("DELETE FROM db.t AS x WHERE x.id = 2", read="duckdb")
    >>> drop_alias(delete, "t")
    >>> delete.sql("duckdb")
    'DELETE FROM db.t WHERE t.id = 2'
    >>> delete = sqlglot.parse_one(
    ...     "DELETE FROM db.t AS x WHERE x.id IN (SELECT x.id FROM db.o AS x)", read="duckdb")
    >>> drop_alias(delete, "t")  # the inner x is o
    >>> delete.sql("duckdb")
    'DELETE FROM db.t WHERE t.id IN (SELECT x.id FROM db.o AS x)'
    """
    node = target_node(statement)
    alias = node.alias if node is not None else ""
    if node is None:
        return
    if not alias:
        unqualify(statement, node)  # ``WHERE db.t.id = 1``: the target's rows are read as ``t``
        return
    node.set("alias", None)
    if alias == table:
        return
    for column in statement.find_all(exp.Column):
        if column.table == alias and not _shadowed(column, alias, statement):
            column.set("table", exp.to_identifier(table))


def _shadowed(column: exp.Column, alias: str, statement: exp.Expression) -> bool:
    """Whether a query between `column` and `statement` names one of its own sources `alias`.

    There ``alias.c`` means that source's column, not the target's (SQL's scoping), as in
    ``DELETE FROM t AS x WHERE x.id IN (SELECT x.id FROM o AS x)``.
    """
    node = column.parent
    while node is not None and node is not statement:
        if isinstance(node, exp.Select):
            sources = [node.args.get("from_"), *(node.args.get("joins") or [])]
            if any(s is not None and s.this.alias_or_name == alias for s in sources):
                return True
        node = node.parent
    return False


def refuse_defaults(statement: exp.Insert, name: str) -> None:
    """Refuse ``INSERT … DEFAULT VALUES`` and ``DEFAULT`` in VALUES: no column defaults to write."""
    values = statement.expression
    rows = values.expressions if isinstance(values, exp.Values) else []
    has_default = any(
        isinstance(v, exp.Var) and v.name.upper() == "DEFAULT"
        for row in rows
        for v in (row.expressions if isinstance(row, exp.Tuple) else [row])
    )
    if statement.args.get("default") or has_default:
        raise UnsupportedFeatureError(
            f"DEFAULT in an INSERT into {name}: Paimon tables have no column defaults on write; "
            "give each value (NULL for none), or list the columns given (INSERT INTO t (a, b) …)"
        )


def assignments(pairs: list[exp.Expression], name: str, what: str) -> list[exp.Expression]:
    """The ``SET`` pairs of an UPDATE (`what`: ``UPDATE`` or ``MERGE … UPDATE``) of table `name`.

    ``SET (a, b) = (x, y)`` is ``a = x, b = y``, as in DuckDB; other pairs are kept as they are
    (the caller checks them). ``SET a = DEFAULT`` is refused (no column defaults on write).

    >>> import sqlglot
    >>> update = sqlglot.parse_one("UPDATE t SET (a, b) = (1, 'x'), (c) = (2), d = 3")
    >>> [e.sql() for e in assignments(update.expressions, "db.t", "UPDATE")]
    ['a = 1', "b = 'x'", 'c = 2', 'd = 3']
    """
    out: list[exp.Expression] = []
    for pair in pairs:
        if isinstance(pair, exp.EQ) and isinstance(pair.this, (exp.Tuple, exp.Paren)):
            columns, values = _parts(pair.this), _parts(pair.expression)
            if columns is not None and len(columns) == 1 and values is None:
                values = [pair.expression]  # ``SET (a) = (SELECT …)``: one scalar subquery
            if values is None or len(values) != len(columns or []):
                raise SqlError(
                    f"{what} of {name}: SET {pair.this.sql('duckdb')} = … needs as many values, "
                    f"in parentheses, as columns ({len(columns or [])})"
                )
            pairs_of = zip(columns or [], values, strict=True)
            out += [exp.EQ(this=column, expression=value) for column, value in pairs_of]
        else:
            out.append(pair)
    for pair in out:
        value = pair.expression if isinstance(pair, exp.EQ) else None
        if isinstance(value, exp.Column) and not value.table and _is_default(value.this):
            raise UnsupportedFeatureError(
                f"SET {pair.this.sql('duckdb')} = DEFAULT in {what} of {name}: Paimon tables "
                "have no column defaults on write; set the value itself (NULL for none)"
            )
    return out


def _parts(node: exp.Expression | None) -> list[exp.Expression] | None:
    if isinstance(node, exp.Tuple):
        return list(node.expressions)
    if isinstance(node, exp.Paren):
        return [node.this]
    return None


def _is_default(node: exp.Expression) -> bool:
    return isinstance(node, exp.Identifier) and not node.quoted and node.name.upper() == "DEFAULT"


def with_ctes(statement: exp.Insert) -> exp.Expression | None:
    """The rows of ``WITH … INSERT INTO t <query>``: the query with the statement's CTEs."""
    source: exp.Expression | None = statement.expression
    ctes = statement.args.get("with_")
    if ctes is None or source is None:
        return source
    if not isinstance(source, exp.Query):
        alias = exp.TableAlias(this=exp.to_identifier("__paimon_values"))
        source = exp.select(exp.Star()).from_(exp.Subquery(this=source, alias=alias))
    own = source.args.get("with_")
    merged = exp.With(
        expressions=[*ctes.expressions, *(own.expressions if own else [])],
        recursive=ctes.args.get("recursive") or (own.args.get("recursive") if own else None),
    )
    source.set("with_", merged)
    return source
